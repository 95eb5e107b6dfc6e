"""The source library as the commands use it: add files, folders and URLs; list, search, show
and remove sources. Reading is in readers.py, chunking in chunking.py, the SQL in
store/library.py; this module ties them to the runs folder's database."""

from __future__ import annotations

import logging
import re
import threading
import warnings
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from reflectcli.errors import UserError
from reflectcli.pool import in_order
from reflectcli.sources.chunking import chunk_document, searchable
from reflectcli.sources.fetch import scheme_problem, unused_proxy_note
from reflectcli.sources.pages import Pages
from reflectcli.sources.readers import (
    Document,
    Segment,
    SourceError,
    URLRefused,
    digest,
    kind_of,
    read_path,
    read_url,
)
from reflectcli.sources.stopwords import only_stop_words, stop_words_message
from reflectcli.sources.walk import linked_files
from reflectcli.store.db import Store
from reflectcli.store.library import Library
from reflectcli.writing.markdown import one_line

Progress = Callable[[int, int, str], None]  # (done, total, what)


@dataclass
class Outcome:
    """What `sources add` did with one file or URL."""

    location: str
    status: str  # added | updated | unchanged | removed (--prune) | skipped (an error) | ignored (a note)
    source_id: int | None = None
    chunks: int = 0
    title: str = ""
    error: str | None = None
    warning: str | None = None  # read, but the extract kept only part of what the file shows

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def is_url(target: str) -> bool:
    """A target written as a URL (any scheme: an unsupported one gets its own message)."""
    return bool(re.match(r"^[a-z][a-z0-9+.-]*://", target, re.I))


def without_credentials(url: str) -> str:
    """A URL without its `user:pass@`: a password is never kept in the library, a References
    list or an export (nor sent: the fetch never used it)."""
    parts = urlsplit(url)
    if "@" not in parts.netloc:
        return url
    return urlunsplit(parts._replace(netloc=parts.netloc.rsplit("@", 1)[1]))


def expand(targets: list[str], shown: dict[str, str] | None = None) -> tuple[list[str], list[Outcome]]:
    """Files and URLs to read, from files, folders (recursively: the supported types, hidden
    folders skipped, symlinked folders followed once: walk.py) and URLs; plus an outcome for
    each target that cannot be one. `shown` gets each file's path as shown: relative to the
    folder added, or its name alone (never where on this machine that folder is)."""
    items: list[str] = []
    problems: list[Outcome] = []
    shown = {} if shown is None else shown
    for target in targets:
        if is_url(target):
            target = without_credentials(target)
            problem = scheme_problem(target)
            if problem:
                problems.append(Outcome(target, "skipped", error=f"{target}: {problem}"))
            else:
                items.append(target)
            continue
        path = Path(target).expanduser()
        if path.is_dir():
            files = [p for p in path.rglob("*") if p.is_file()
                     and not any(part.startswith(".") for part in p.relative_to(path).parts)]  # fmt: skip
            copies = {p for p in files if is_generated_copy(p, path)}
            files = [p for p in files if p not in copies]
            if copies:
                problems.append(Outcome(str(path), "ignored", error=f"{path}: {len(copies)} generated "
                                        f"cop{'ies' if len(copies) != 1 else 'y'} of pages skipped "
                                        "(Sphinx _sources, .rst.txt beside its .html)"))  # fmt: skip
            found = sorted(p for p in files if kind_of(p))
            others = sorted({p.suffix.lower() or "(no extension)" for p in files if not kind_of(p)})
            if not found:
                problems.append(Outcome(str(path), "skipped", error=f"{path}: no supported "
                                        "files in this folder"))  # fmt: skip
            elif others:
                count = sum(1 for p in files if not kind_of(p))
                problems.append(Outcome(str(path), "ignored", error=f"{path}: {count} file"
                                        f"{'s' if count != 1 else ''} of other types ignored "
                                        f"({', '.join(others[:6])})"))  # fmt: skip
            items += [str(p) for p in found]

            linked, loops = linked_files(path)  # what rglob does not enter
            items += [str(p) for p in sorted(linked) if kind_of(p)]
            for p in [*found, *linked]:
                shown.setdefault(str(p), p.relative_to(path).as_posix())
            problems += [Outcome(str(path), "ignored", error=note) for note in loops]
        elif path.is_file():
            items.append(str(path))
            shown.setdefault(str(path), path.name)
        else:
            problems.append(Outcome(str(path), "skipped", error=f"{path}: no such file or folder"))
    return list(dict.fromkeys(items)), problems


def is_generated_copy(path: Path, folder: Path) -> bool:
    """A source text a documentation generator ships beside the page it made: Sphinx's
    `_sources/**/*.txt` under the folder added, or `name.rst.txt` (`.md.txt`) by `name.html`."""
    if path.suffix.lower() != ".txt":
        return False
    if "_sources" in path.relative_to(folder).parts[:-1]:
        return True
    suffix = next((s for s in (".rst.txt", ".md.txt") if path.name.lower().endswith(s)), None)
    return suffix is not None and path.with_name(path.name[: -len(suffix)] + ".html").exists()


@contextmanager
def _library(runs_dir: str | Path) -> Iterator[Library | None]:
    """The library of the store if it exists, else None (a read creates nothing)."""
    store = Store.existing(runs_dir)
    try:
        yield Library(store.conn) if store is not None else None
    finally:
        if store is not None:
            store.close()


@contextmanager
def _writable(runs_dir: str | Path) -> Iterator[Library]:
    """The library, its store created if it is missing."""
    store = Store(runs_dir)
    try:
        yield Library(store.conn)
    finally:
        store.close()


def add(runs_dir: str | Path, targets: list[str], progress: Progress | None = None,
        allow_private: bool = False, prune: bool = False,
        proxy: str | None = None, shown: dict[str, str] | None = None) -> list[Outcome]:  # fmt: skip
    """Index files, folders and URLs. An unchanged file (same content hash) is left as it is, a
    changed one is re-indexed under its id; one that cannot be read is skipped with one line,
    and the rest go on. Each source is written in one transaction: nothing half indexed. A URL
    is fetched safely (fetch.py; through `proxy` if given): one on this machine or a private
    network is refused unless `allow_private`. A folder's sources whose files are gone are
    removed with `prune` (else noted). `shown`: a file's path as shown, when the caller knows
    the folder it was allowed from (sources/resolve.py). Ctrl-C raises AddInterrupted with what
    was done."""
    names: dict[str, str] = {}
    items, outcomes = expand(targets, names)
    names.update(shown or {})
    with _writable(runs_dir) as library:
        n = 0
        try:
            for n, item in enumerate(items):
                if progress is not None:
                    progress(n, len(items), names.get(item, item))
                outcomes += _add_one(library, item, allow_private, names.get(item), proxy)
        except KeyboardInterrupt:
            raise AddInterrupted(outcomes, n, len(items)) from None
        if progress is not None:
            progress(len(items), len(items), "")
        outcomes += _gone(library, targets, prune)
    note = unused_proxy_note(proxy) if any(is_url(i) for i in items) else None
    if note:  # last: a URL's own line stays the first error about it
        outcomes.append(Outcome("(environment)", "ignored", error=note))
    return outcomes


class AddInterrupted(KeyboardInterrupt):
    """Ctrl-C during `sources add`: what was done before it is kept (each source is written in
    one transaction), and is carried here to be reported."""

    def __init__(self, outcomes: list[Outcome], done: int, total: int):
        super().__init__(f"interrupted after {done} of {total}")
        self.outcomes, self.done, self.total = outcomes, done, total


def _gone(library: Library, targets: list[str], prune: bool) -> list[Outcome]:
    """Sources from the folders in `targets` whose file is no longer there: removed with
    `prune`, else one note per folder saying how many and how to remove them."""
    outcomes: list[Outcome] = []
    for folder in (Path(t).expanduser() for t in targets if not is_url(t)):
        if not folder.is_dir():
            continue
        folder = folder.resolve()
        files = [(s, Path(s["location"])) for s in library.sources() if s["kind"] not in ("url", "web")]
        gone = [s for s, path in files if path.is_relative_to(folder) and not path.is_file()]
        if gone and prune:
            for source in gone:
                library.remove(source["id"])
                outcomes.append(Outcome(_where(source), "removed", source["id"], title=source["title"]))
        elif gone:
            outcomes.append(Outcome(str(folder), "ignored", error=f"{folder}: {len(gone)} source"
                                    f"{'s' if len(gone) != 1 else ''} in the library no longer in "
                                    "this folder (--prune removes them)"))  # fmt: skip
    return outcomes


def _read(reader, item):
    """A reader's result; anything a reader library raises on a file it cannot handle (a
    corrupt DOCX, a PDF pypdf chokes on) is that file's one-line error, not the batch's end."""
    try:
        return reader(item)
    except SourceError:
        raise
    except Exception as exc:
        name = getattr(item, "location", item)
        raise SourceError(f"{name}: could not be read ({type(exc).__name__}: {str(exc)[:120]})") from exc


@contextmanager
def _library_warnings() -> Iterator[list[str]]:
    """What reader libraries warn about while one source is read (pypdf logs its warnings,
    others use `warnings`), kept for that source's line instead of printed on their own."""
    said: list[str] = []

    class Keep(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            said.append(" ".join(record.getMessage().split()))

    handler = Keep(logging.WARNING)
    root = logging.getLogger()
    root.addHandler(handler)
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            yield said
            said += [" ".join(str(w.message).split()) for w in caught]
    finally:
        root.removeHandler(handler)


def _add_one(library: Library, item: str, allow_private: bool = False,
             shown: str | None = None, proxy: str | None = None) -> list[Outcome]:  # fmt: skip
    """The outcome of one file or URL, its reader's warnings in its own line (a skipped one's
    error) or in one note after it."""
    with _library_warnings() as said:
        outcome = _add_read(library, item, allow_private, shown, proxy)
    said = list(dict.fromkeys(said))
    if not said:
        return [outcome]
    warned = f"the reader warned: {said[0][:160]}" + (f" and {len(said) - 1} more" if len(said) > 1 else "")
    if outcome.status == "skipped":
        outcome.error = f"{outcome.error} ({warned})"
        return [outcome]
    return [outcome, Outcome(outcome.location, "ignored", error=f"{outcome.location}: {warned}")]


def _unchanged(library: Library, known: dict[str, Any], shown: str | None) -> Outcome:
    if shown and known.get("shown") != shown:  # added before paths were shown, or from elsewhere
        library.set_shown(known["id"], shown)
    return Outcome(shown or known["location"], "unchanged", known["id"], title=known["title"])


def _add_read(library: Library, item: str, allow_private: bool = False, shown: str | None = None,
              proxy: str | None = None) -> Outcome:  # fmt: skip
    try:
        if is_url(item):
            item = without_credentials(item)
            document = _read(lambda url: read_url(url, allow_private=allow_private, proxy=proxy), item)
            document.location = without_credentials(document.location)
        else:
            path = Path(item)
            shown = shown or path.name
            known = library.find(str(path.resolve()))
            if known is not None and path.is_file():
                try:
                    same = known["content_hash"] == digest(path.read_bytes())
                except OSError:
                    same = False
                if same:
                    return _unchanged(library, known, shown)
            document = _read(read_path, path)
        document.title = one_line(document.title) or (shown or document.location)
        known = library.find(document.location)
        if known is not None and known["content_hash"] == document.content_hash:
            return _unchanged(library, known, shown)
        chunks = _read(chunk_document, document)
        source = {"kind": document.kind, "location": document.location, "title": document.title,
                  "content_hash": document.content_hash, "chars": document.chars, "shown": shown}  # fmt: skip
        source_id, status = library.save(source, chunks)
        where = shown or document.location
        warning = f"{where}: {document.warning}" if document.warning else None
        return Outcome(where, status, source_id, len(chunks), document.title, warning=warning)
    except SourceError as exc:  # the error names the file as shown, not where it is
        error = str(exc).replace(str(Path(item).resolve()), shown).replace(item, shown) if shown else str(exc)
        return Outcome(shown or item, "skipped", error=error)


def _where(source: dict[str, Any]) -> str:
    """A source's place as shown: its URL, or its file's path relative to the folder added (a
    source added before that was kept: the file's name)."""
    if source.get("shown") or source["kind"] in ("url", "web"):
        return source.get("shown") or source["location"]
    return Path(source["location"]).name


def _shown_hits(hits: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Hits whose `location` is the source's as shown (the store gives it; older rows: the name)."""
    for hit in hits:
        if hit["kind"] not in ("url", "web") and Path(hit["location"]).is_absolute():
            hit["location"] = Path(hit["location"]).name
    return hits


def sources(runs_dir: str | Path) -> list[dict[str, Any]]:
    """The library's sources, each with `shown`: where it is, as every output shows it."""
    with _library(runs_dir) as library:
        found = library.sources() if library else []
    return [{**s, "shown": _where(s)} for s in found]


def search(runs_dir: str | Path, query: str, limit: int = 10) -> list[dict[str, Any]]:
    """Ranked chunks for a query, each with a snippet around the first word that matched. A
    query of only stop words ("the of and") is an error: it would rank arbitrary chunks."""
    if only_stop_words(query):
        raise UserError(stop_words_message(query), hint="search for the words that say what you want")
    with _library(runs_dir) as library:
        found = library.search(searchable(query), limit) if library else []
    for hit in found:
        hit["snippet"] = snippet(hit["text"], query)
    return _shown_hits(found)


def word_counts(runs_dir: str | Path, words: list[str]) -> tuple[dict[str, int], int]:
    """How many of the library's sources hold each word (in any form), and how many it has."""
    with _library(runs_dir) as library:
        return library.sources_holding(words) if library else ({w: 0 for w in words}, 0)


def snippet(text: str, query: str, width: int = 220) -> str:
    """About `width` characters of `text` around the first query word found in it."""
    flat = re.sub(r"\s+", " ", text).strip()
    words = [w for w in re.findall(r"\w+", query.lower()) if len(w) > 1 or not w.isascii()]
    at = min((i for w in words if (i := flat.lower().find(w)) >= 0), default=0)
    start = max(0, at - width // 3)
    piece = flat[start : start + width]
    return ("…" if start else "") + piece + ("…" if start + width < len(flat) else "")


def show(runs_dir: str | Path, source_id: int) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    with _library(runs_dir) as library:
        source = library.get(source_id) if library else None
        if library is None or source is None:
            raise UserError(f"no source {source_id} in {Path(runs_dir)}",
                            hint="`reflectcli sources list` shows them")  # fmt: skip
        return source, library.chunks(source_id)


def remove(runs_dir: str | Path, source_id: int) -> dict[str, Any]:
    with _writable(runs_dir) as library:
        source = library.get(source_id)
        if source is None:
            raise UserError(f"no source {source_id} in {Path(runs_dir)}",
                            hint="`reflectcli sources list` shows them")  # fmt: skip
        library.remove(source_id)
        return source


_WRITING = threading.Lock()


def add_web_results(runs_dir: str | Path, results: list[dict[str, Any]], fetch: bool = True,
                    allow_private: bool = False, workers: int = 1, pages: Pages | None = None,
                    proxy: str | None = None) -> tuple[list[int], list[str]]:  # fmt: skip
    """Web search results into the library, like any source: each page fetched (safely, see
    fetch.py; up to `workers` at once; through `proxy` if given) and read when `fetch` (and
    reachable), else its title and snippet as a short source of kind `web`. With `pages` (the
    run's), a page that run has fetched is not fetched again. Returns the ids of the sources,
    in the results' order (a result that yields nothing is left out), and one line per URL
    refused for where it points."""
    refused: list[str] = []
    fetched = pages if pages is not None else Pages()

    def read(url: str) -> tuple[Document | None, str | None]:
        """(the page read, or None; a refusal line)."""
        try:
            return read_url(url, allow_private=allow_private, proxy=proxy), None
        except URLRefused as exc:
            return None, str(exc)
        except SourceError:  # unreachable, cut at the time cap, unreadable: its snippet stands in
            return None, None

    def page(result: dict[str, Any]) -> tuple[Document | None, str | None, bool]:
        """(the page read, or None; a refusal line; whether the result is skipped altogether)."""
        url = without_credentials(result.get("url") or "")
        if scheme_problem(url):
            return None, f"{url or '(no URL)'}: refused, {scheme_problem(url)}", True
        if not fetch:
            return None, None, False
        return (*fetched.get(url, lambda: read(url)), False)

    with _library_warnings():  # the pages' reader warnings are not the run's output
        found = in_order(page, results, workers)
    ids: list[int] = []
    # searches at once write one at a time: waiting on a lock, not on SQLite's busy handler
    # (which sleeps in steps of up to 100 ms)
    with _WRITING, _writable(runs_dir) as library:
        for result, (document, problem, skip) in zip(results, found, strict=True):
            # a result's title and snippet are anyone's text: one line of plain data each
            url, title = without_credentials(result.get("url") or ""), one_line(result.get("title"))
            snippet = one_line(result.get("snippet"))
            if problem:
                refused.append(problem)
            if skip:
                continue
            if document is None or not document.chars:
                if not snippet:
                    continue
                document = Document("web", url, title or url, digest(snippet.encode()),
                                    [Segment(snippet)])  # fmt: skip
            else:  # a page the run fetched (shared by its searches: copied, never changed)
                document = replace(document, location=without_credentials(document.location),
                                   title=title or one_line(document.title) or url)  # fmt: skip
            known = library.find(document.location)
            if known is not None and known["content_hash"] == document.content_hash:
                ids.append(known["id"])
                continue
            source = {"kind": document.kind, "location": document.location, "title": document.title,
                      "content_hash": document.content_hash, "chars": document.chars}  # fmt: skip
            ids.append(library.save(source, chunk_document(document))[0])
    return ids, refused


def best_chunks(runs_dir: str | Path, query: str, source_ids: list[int]) -> list[dict[str, Any]]:
    """For each source (in order), its chunk that best matches `query`, else its first chunk."""
    with _library(runs_dir) as library:
        if library is None:
            return []
        return _shown_hits([hit for sid in source_ids if (hit := library.best_in(searchable(query), sid))])
