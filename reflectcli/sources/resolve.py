"""An outside article's references, resolved against the source library (`reflectcli review`).

Each entry of the article's reference list (writing/reflist.py) is matched to one library
source, by what it names, in this order, and the first thing it names decides:

- a URL: the library's source with the same URL, compared normalised (scheme and host in lower
  case, `www.`, a default port, a fragment, a trailing `/` and `utm_*` parameters ignored); a
  URL not in the library is fetched and added first, by the same safe rules as `sources add`
  (fetch.py; `[research] allow_private` for a server on this machine or an intranet);
- a file path (relative to the article's folder): a source the library already holds; or, only
  in a folder the user allowed (`review --files DIR`; none by default), a file of a document
  type that is neither hidden nor reached through a link out of that folder, added under its
  path relative to that folder. Any other file is reported and never read, nor even looked
  for: an article names files, it does not choose what is read (an article must not make the
  review send, say, a file of your home folder to a remote critic);
- a title: library titles equal to it after normalisation (case, width, punctuation); failing
  that, a near match only when its likeness reaches FUZZY, and only one source does.

Two sources with the same title, or two near matches, are `ambiguous`; an entry naming nothing
the library holds or can add is `unresolved`; both are reported with why, never guessed. A
citation to a number the list lacks is reported too. The article's citations are those its
list defines (`[3]`, `[^3]`) and reflectcli's own `[S3]` (writing/citations.py). For each
resolved reference the article cites, its evidence passage is the source's chunks that best
match the sentences citing it (best first), under the article's own id (`[3]` and `[S3]` cite
`S3`), so the claim check of the tool's own citations (writing/claims.py, sources/verify.py)
judges them unchanged."""

from __future__ import annotations

import os
import re
import unicodedata
from difflib import SequenceMatcher
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, unquote, urlencode, urlsplit

from reflectcli.sources.library import add, best_chunks, is_url, without_credentials
from reflectcli.sources.library import sources as library_sources
from reflectcli.sources.readers import KINDS, kind_of
from reflectcli.writing.citations import citations, cited_ids
from reflectcli.writing.claims import claims_in
from reflectcli.writing.markdown import one_line
from reflectcli.writing.reflist import Entry, find_references, without_references
from reflectcli.writing.sentences import sentences as sentences_of
from reflectcli.writing.textops import markdown_parser

FUZZY = 0.92  # difflib likeness a title must reach to match a library title it is not equal to
MIN_FUZZY_CHARS = 12  # a shorter title is matched exactly or not at all ("Notes" ~ "Nodes")
MAX_PASSAGES = 3  # chunks of one source kept as its passage (one per citing sentence, best first)
_BARE_URL = re.compile(r"https?://[^\s<>\"'`]+", re.I)
_QUOTED = re.compile(r"[\"“«《「『]([^\"”»》」』]{3,})[\"”»》」』]")
_TRAILING = ".,;:!?)]}>'\"”’»》"


def url_key(url: str) -> str:
    """A URL in the form two spellings of one page share."""
    parts = urlsplit(url.strip())
    host = (parts.hostname or "").lower().removeprefix("www.")
    port = parts.port
    default = {"http": 80, "https": 443}.get(parts.scheme.lower())
    netloc = host + (f":{port}" if port and port != default else "")
    path = unquote(parts.path).rstrip("/")
    query = urlencode(sorted((k, v) for k, v in parse_qsl(parts.query, keep_blank_values=True)
                             if not k.lower().startswith("utm_")))  # fmt: skip
    return f"{netloc}{path}" + (f"?{query}" if query else "")


def title_key(title: str) -> str:
    """A title compared: NFKC, case folded, punctuation and spacing ignored."""
    folded = unicodedata.normalize("NFKC", title).casefold()
    return " ".join(re.sub(r"[^\w]+", " ", folded).split())


def _parts(text: str) -> dict[str, list[str]]:
    """What an entry names, read from its Markdown inline tokens: URLs (links, autolinks, bare),
    file paths (a link to a file, a code span, a word with a source file's extension) and title
    candidates (link texts, emphasis, quoted text, the sentences of what is left)."""
    urls: list[str] = []
    paths: list[str] = []
    titles: list[str] = []
    plain: list[str] = []
    stack: list[list[str]] = []
    tokens = markdown_parser().parseInline(text)
    for token in (c for t in tokens for c in t.children or []):
        if token.type == "link_open":
            href = str(token.attrGet("href") or "")
            if href and not href.startswith("#"):
                (urls if is_url(href) else paths).append(href if is_url(href) else unquote(href))
            stack.append([])
        elif token.type in ("em_open", "strong_open"):
            stack.append([])
        elif token.type in ("link_close", "em_close", "strong_close") and stack:
            inner = " ".join(stack.pop()).strip()
            if inner and not is_url(inner):
                titles.append(inner)
        elif token.type in ("text", "code_inline"):
            for held in stack:
                held.append(token.content)
            if token.type == "code_inline" and _looks_like_path(token.content):
                paths.append(token.content)
            else:
                plain.append(token.content)
    rest = " ".join(plain)
    for found in _BARE_URL.finditer(rest):
        urls.append(found.group().rstrip(_TRAILING))
    rest = _BARE_URL.sub(" ", rest)
    for word in rest.split():
        word = word.rstrip(_TRAILING).lstrip("(['\"“‘«")  # (a leading `../` is the path's own)
        if _looks_like_path(word) and word not in paths:
            paths.append(word)
    titles += [m.group(1).strip() for m in _QUOTED.finditer(rest)]
    leftover = " ".join(w for w in rest.split() if w.rstrip(_TRAILING).lstrip("(['\"“‘«") not in paths)
    titles += [leftover] + [s for s in sentences_of(leftover) if len(title_key(s)) >= 4]
    titles = [t.strip(" .,;:—–-") for t in titles]
    return {"urls": list(dict.fromkeys(urls)), "paths": list(dict.fromkeys(paths)),
            "titles": list(dict.fromkeys(t for t in titles if title_key(t)))}  # fmt: skip


def _looks_like_path(word: str) -> bool:
    """A word written as a file: a source file's extension, or starting ./ ../ / ~/ with a name."""
    if not word or is_url(word) or " " in word.strip():
        return False
    return bool(kind_of(Path(word))) or bool(re.match(r"^(?:\.{1,2}/|/|~/)\S+$", word))


def _named(word: str, base: Path | None) -> Path:
    """The file an entry's path names, worked out from the words alone (nothing on disk is
    looked at): absolute or `~/`, else relative to the article's folder (the working folder for
    an article read from stdin)."""
    path = Path(word).expanduser() if word.startswith("~") else Path(word)
    return Path(os.path.normpath((base or Path.cwd()) / path))


def _likeness(a: str, b: str) -> float:
    """difflib's ratio, skipped (0) when its cheap upper bounds already fall below FUZZY."""
    matcher = SequenceMatcher(None, a, b)
    if matcher.real_quick_ratio() < FUZZY or matcher.quick_ratio() < FUZZY:
        return 0.0
    return matcher.ratio()


def _source(outcome: Any) -> dict[str, Any]:
    return {"source_id": outcome.source_id, "location": outcome.location, "title": one_line(outcome.title)}


class Resolver:
    """Matches entries to the library of `runs_dir` (adding URLs and files as it goes)."""

    def __init__(self, runs_dir: str | Path, base: Path | None, allow_private: bool,
                 folders: list[Path] | tuple[Path, ...] = ()):  # fmt: skip
        self.runs_dir, self.base, self.allow_private = runs_dir, base, allow_private
        self.folders = [Path(f).expanduser().resolve() for f in folders]  # (the article's folder is too)
        self._sources: list[dict[str, Any]] | None = None

    def sources(self) -> list[dict[str, Any]]:
        if self._sources is None:
            self._sources = library_sources(self.runs_dir)
        return self._sources

    def _added(self, target: str, by: str, shown: str | None = None) -> dict[str, Any]:
        """`target` added to the library (a URL fetched safely): resolved, or why not."""
        outcomes = add(self.runs_dir, [target], allow_private=self.allow_private,
                       shown={target: shown} if shown else None)  # fmt: skip
        self._sources = None
        done = next((o for o in outcomes if o.status in ("added", "updated", "unchanged")), None)
        if done is not None:
            verb = "added" if done.status != "unchanged" else "in the library"
            return {"status": "resolved", "by": f"{by} ({verb})", **_source(done)}
        error = next((o.error for o in outcomes if o.error), None) or f"{shown or target}: could not be added"
        if "refused" in error and not self.allow_private:
            error += " (set [research] allow_private = true to fetch from this machine or an intranet)"
        return {"status": "unresolved", "why": error}

    def allowed(self, path: Path, word: str) -> tuple[Path | None, str, str]:
        """(the file to add, its path as shown, "") when `path` is a file the review may read:
        inside a folder the user allowed, no part of its path hidden, not reached through a link
        out of that folder, of a document type; else (None, "", why not)."""
        for folder in self.folders:
            if not path.is_relative_to(folder):
                continue
            inside = path.relative_to(folder)
            if any(part.startswith(".") for part in inside.parts):
                return None, "", f"{word}: a hidden file or folder (not read)"
            real = path.resolve()
            if not real.is_relative_to(folder):
                return None, "", f"{word}: a link out of {folder.name or folder} (not read)"
            if not kind_of(real):
                return None, "", (f"{word}: not a document type ({', '.join(sorted(set(KINDS)))}; "
                                  "not read)")  # fmt: skip
            if not real.is_file():
                return None, "", f"{word}: no such file in {folder.name or folder}"
            return real, inside.as_posix(), ""
        allow = "a folder the review may read files from (--files DIR)" if not self.folders else (
            "any folder allowed with --files")  # fmt: skip
        return None, "", (f"{word}: not in the source library, and not in {allow}; an article "
                          "names files, it does not choose what is read (add it with `reflectcli "
                          "sources add` to let it be cited)")  # fmt: skip

    def entry(self, entry: Entry) -> dict[str, Any]:
        """How one entry resolves: `status` resolved | ambiguous | unresolved, and by what."""
        parts = _parts(entry.text)
        if parts["urls"]:
            url = without_credentials(parts["urls"][0])
            key = url_key(url)
            held = [s for s in self.sources() if is_url(s["location"]) and url_key(s["location"]) == key]
            if held:
                return {"status": "resolved", "by": "url", "source_id": held[0]["id"],
                        "location": held[0]["location"], "title": one_line(held[0]["title"])}  # fmt: skip
            return self._added(url, "url")
        by_location = {s["location"]: s for s in self.sources() if not is_url(s["location"])}
        why = ""
        for word in parts["paths"]:
            path = _named(word, self.base)
            real, shown, refused = self.allowed(path, word)
            if real is not None:
                return self._added(str(real), "file", shown)
            known = by_location.get(str(path))
            if known is not None:  # the person added it: it may be cited (its text is the library's)
                return {"status": "resolved", "by": "file (in the library)", "source_id": known["id"],
                        "location": known["shown"], "title": one_line(known["title"])}  # fmt: skip
            why = why or refused
        if parts["paths"]:
            return {"status": "unresolved", "why": why}
        return self.title(parts["titles"])

    def title(self, candidates: list[str]) -> dict[str, Any]:
        keys = [k for k in dict.fromkeys(title_key(c) for c in candidates) if k]
        if not keys:
            return {"status": "unresolved", "why": "names no URL, file or title"}
        by_key: dict[str, list[dict[str, Any]]] = {}
        for source in self.sources():
            by_key.setdefault(title_key(source["title"] or ""), []).append(source)
        exact = next((by_key[k] for k in keys if k in by_key), None)
        if exact:
            return self._one(exact, "title")
        scored = []
        for key, sources in by_key.items():
            likeness = max((_likeness(k, key) for k in keys if min(len(k), len(key)) >= MIN_FUZZY_CHARS),
                           default=0.0)  # fmt: skip
            if likeness >= FUZZY:
                scored += [(likeness, s) for s in sources]
        if scored:
            scored.sort(key=lambda x: -x[0])
            return self._one([s for _, s in scored], f"title (near match, {scored[0][0]:.2f})")
        return {"status": "unresolved", "why": "no library source has this title (nor a near one)"}

    @staticmethod
    def _one(sources: list[dict[str, Any]], by: str) -> dict[str, Any]:
        if len(sources) == 1:
            s = sources[0]
            return {"status": "resolved", "by": by, "source_id": s["id"], "location": s["shown"],
                    "title": one_line(s["title"])}  # fmt: skip
        named = [{"source_id": s["id"], "title": one_line(s["title"]), "location": s["shown"]}
                 for s in sources]  # fmt: skip
        return {"status": "ambiguous", "by": by, "candidates": named,
                "why": f"{len(sources)} library sources match: "
                + "; ".join(f"{s['id']} {s['shown']}" for s in sources[:5])}  # fmt: skip


def _passage(runs_dir: str | Path, ident: str, resolved: dict[str, Any], sentences: list[str]) -> dict | None:
    """The evidence item of a resolved reference: the source's chunks that best match the
    sentences citing it (each once, best first, at most MAX_PASSAGES)."""
    hits: dict[int, dict[str, Any]] = {}
    for sentence in sentences or [resolved.get("title") or ""]:
        for hit in best_chunks(runs_dir, sentence, [resolved["source_id"]]):
            hits.setdefault(hit["chunk_id"], hit)
    if not hits:
        return None
    kept = sorted(hits.values(), key=lambda h: h["score"])[:MAX_PASSAGES]
    first = kept[0]
    return {"id": ident, "chunk_id": first["chunk_id"], "source_id": first["source_id"],
            "title": first["title"], "location": first["location"], "kind": first["kind"],
            "page": first["page"], "heading": first["heading"],
            "text": "\n\n".join(h["text"] for h in kept), "section": None, "round": None,
            "query": f"reference {ident}"}  # fmt: skip


def resolve(
    runs_dir: str | Path,
    text: str,
    base: Path | None = None,
    allow_private: bool = False,
    folders: list[Path] | tuple[Path, ...] = (),
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """(evidence, report) for an article: an evidence item per resolved reference it cites, and
    one report row per reference entry and per citation the list lacks. `folders`: where the
    user lets the review read the files the article names (none by default)."""
    found = find_references(text)
    labels = frozenset(e.label for e in found.entries)
    prose = without_references(text)
    cited = cited_ids(prose, labels)
    resolver = Resolver(runs_dir, base, allow_private, folders)
    citing: dict[str, list[str]] = {}
    for claim in claims_in(text, []):
        for ident in claim["ids"]:
            citing.setdefault(ident, []).append(claim["sentence"])
    report: list[dict[str, Any]] = []
    evidence: list[dict[str, Any]] = []
    for entry in found.entries:
        row = {"ref": entry.label, "id": entry.id, "entry": one_line(entry.text)[:300],
               "cited": entry.id in cited, "by": "", "source_id": None, "location": "", "title": "",
               "why": "", "candidates": [], **resolver.entry(entry)}  # fmt: skip
        if row["status"] == "resolved" and row["cited"]:
            item = _passage(runs_dir, entry.id, row, citing.get(entry.id, []))
            if item is None:
                row.update(status="unresolved", why="the source holds no text to check against")
            else:
                evidence.append(item)
        row["sentences"] = len(citing.get(entry.id, [])) if row["cited"] else 0  # claims resting on it
        report.append(row)
    listed = {e.id for e in found.entries}
    named = any(e.label.startswith("S") for e in found.entries)  # `[S3]` (reflectcli's) or `[3]`
    # a bare `[7]` the list does not define is no citation, but looks like one: said, not read
    lacking = [c.ids[0] for c in citations(prose, labels) if not c.defined and not c.named
               and len(c.ids) == 1 and not c.bad and int(c.ids[0][1:]) > 0]  # fmt: skip
    for ident in dict.fromkeys([*cited, *lacking]):
        if ident not in listed:
            why = "cited, but the reference list has no such entry" if found.entries else (
                "cited, but the article has no reference list")  # fmt: skip
            report.append({"ref": ident if named else ident[1:], "id": ident, "entry": "", "cited": True,
                           "status": "unresolved", "by": "", "source_id": None, "location": "",
                           "title": "", "why": why, "candidates": [],
                           "sentences": len(citing.get(ident, []))})  # fmt: skip
    return evidence, report
