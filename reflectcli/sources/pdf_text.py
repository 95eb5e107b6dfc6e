"""The text of a PDF, page by page (pypdf): an owner-password-only file is opened with the
empty password; ligatures are unfolded (NFKC); running headers and footers (a line at the top
or bottom of most pages, page numbers aside) are dropped; a word hyphenated at a line end is
joined; pages are split where the outline's entries begin, so that a chunk carries its heading
path; the title is the first page's largest type, not metadata such as "Enscript Output"."""

from __future__ import annotations

import io
import re
import unicodedata
from collections import Counter

from reflectcli.sources.document import HeadingTrail, Segment, SourceError

EDGE = 2  # lines at the top and at the bottom of a page that may be a running header/footer
RUNNING = 0.4  # ... when the same line (digits aside) is there on at least this share of pages
MIN_PAGES = 4  # fewer pages than this: nothing counts as running
TITLE_RATIO = 1.15  # the title's type is at least this much larger than the body's
BLANK_SHARE = 0.2  # a PDF with at least this share of pages without text gets a warning
TYPE_PAGES = 3  # ... whose size is the one most characters of the first pages are in
_HYPHEN = re.compile(r"(\w+)-\n(\w+)")
_WORD = re.compile(r"[\w-]+")


def read_pdf(data: bytes, location: str) -> tuple[str, list[Segment], str | None]:
    """(title, segments, warning) of a PDF; the warning when pages have no text (scans)."""
    from pypdf import PdfReader
    from pypdf.errors import PyPdfError

    try:
        reader = PdfReader(io.BytesIO(data))
        if reader.is_encrypted and not _decrypt(reader):
            raise SourceError(f"{location}: an encrypted PDF that needs a password (decrypt it first)")
        runs: list[list[tuple[float, str]]] = []  # the first pages' text runs and their type sizes
        pages = []
        for page in reader.pages:
            visit = _collector(runs) if len(runs) < TYPE_PAGES else None
            pages.append(_clean(page.extract_text(visitor_text=visit) or ""))
        outline = _outline(reader)
        title = _heading_type(runs) or _metadata_title(reader)
    except SourceError:
        raise
    except (PyPdfError, ValueError, KeyError, TypeError, OSError, RecursionError) as exc:
        raise SourceError(f"{location}: not a readable PDF ({type(exc).__name__}: "
                          f"{str(exc)[:120]})") from exc  # fmt: skip
    pages = drop_running(pages)
    vocabulary = Counter(w.casefold() for page in pages for w in _WORD.findall(page))
    pages = [join_hyphens(page, vocabulary) for page in pages]
    segments = _by_outline(pages, outline)
    if not title:
        title = _first_line(pages) or next((t for _, _, t in outline), "")
    blank = sum(1 for page in pages if not page.strip())
    warning = None
    if blank and blank >= BLANK_SHARE * len(pages) and blank < len(pages):
        warning = f"{blank} of its {len(pages)} pages have no text (scanned images?)"
    return title, segments, warning


def _decrypt(reader) -> bool:
    """An owner password only restricts printing or copying: the empty user password opens it."""
    try:
        return bool(reader.decrypt(""))
    except Exception:  # pypdf's own errors, or a cipher it has no library for
        return False


def _clean(text: str) -> str:
    return unicodedata.normalize("NFKC", text)


def _key(line: str) -> str:
    """A line as running headers repeat it: digits (page numbers) and spacing aside."""
    return re.sub(r"\d+", "#", " ".join(line.split())).casefold()


def drop_running(pages: list[str]) -> list[str]:
    """Pages without the lines at their top or bottom that recur on RUNNING of the pages."""
    with_text = [p for p in pages if p.strip()]
    if len(with_text) < MIN_PAGES:
        return pages
    counts: Counter[str] = Counter()
    for page in with_text:
        lines = [line for line in page.split("\n") if line.strip()]
        counts.update({_key(lines[i]) for i in _edges(len(lines))})
    running = {key for key, n in counts.items() if n >= max(3, RUNNING * len(with_text))}
    if not running:
        return pages
    out = []
    for page in pages:
        lines = page.split("\n")
        filled = [i for i, line in enumerate(lines) if line.strip()]
        edges = {filled[i] for i in _edges(len(filled))}
        out.append("\n".join(line for i, line in enumerate(lines)
                             if i not in edges or _key(line) not in running))  # fmt: skip
    return out


def _edges(count: int) -> set[int]:
    """Indexes of a page's first and last EDGE lines (of a short page, a third of them)."""
    edge = max(1, min(EDGE, count // 3))
    return set(range(min(edge, count))) | set(range(max(0, count - edge), count))


def join_hyphens(text: str, vocabulary: Counter[str]) -> str:
    """`pack-\\nages` as `packages`; `well-\\nknown` stays hyphenated (one line) when the
    document writes it so elsewhere and never as one word."""

    def join(match: re.Match) -> str:
        head, tail = match.group(1), match.group(2)
        if not tail[0].islower():
            return match.group(0)
        whole, hyphenated = (head + tail).casefold(), f"{head}-{tail}".casefold()
        if vocabulary[hyphenated] and not vocabulary[whole]:
            return f"{head}-{tail}"
        return head + tail

    return _HYPHEN.sub(join, text)


def _outline(reader) -> list[tuple[int, int, str]]:
    """(page index, level, title) of the outline's entries, in order."""
    found: list[tuple[int, int, str]] = []

    def visit(items, level: int) -> None:
        for item in items:
            if isinstance(item, list):
                visit(item, level + 1)
                continue
            try:
                page = reader.get_destination_page_number(item)
            except Exception:  # an entry pointing nowhere (a broken or external destination)
                continue
            title = " ".join(str(getattr(item, "title", "") or "").split())
            if page is not None and page >= 0 and title:
                found.append((page, level, title))

    try:
        visit(reader.outline, 1)
    except Exception:  # a damaged outline: the text is still there, only the headings are not
        return []
    return found


def _by_outline(pages: list[str], outline: list[tuple[int, int, str]]) -> list[Segment]:
    """Page segments, each split where an outline entry's title begins on it."""
    starts: dict[int, list[tuple[int, str]]] = {}
    for page, level, title in outline:
        starts.setdefault(page, []).append((level, title))
    trail = HeadingTrail()
    segments: list[Segment] = []
    for index, text in enumerate(pages):
        at = 0
        for level, title in starts.get(index, []):
            cut = _find_title(text, title, at)
            if cut is None:
                cut = at  # not found in the text: the entry begins where the page's rest does
            if text[at:cut].strip():
                segments.append(Segment(text[at:cut], page=index + 1, heading=trail.path))
            trail.enter(level, title)
            at = cut
        segments.append(Segment(text[at:], page=index + 1, heading=trail.path))
    return segments


def _find_title(text: str, title: str, start: int) -> int | None:
    """Where a line beginning with the outline title's words is, from `start` on."""
    words = title.split()[:8]
    pattern = r"(?m)^[ \t]*" + r"\s*".join(re.escape(w) for w in words)
    match = re.compile(pattern, re.I).search(text, start)
    return match.start() if match else None


def _collector(pages: list[list[tuple[float, str]]]):
    """A pypdf text visitor that adds the page's (type size, text) runs to `pages`."""
    runs: list[tuple[float, str]] = []
    pages.append(runs)

    def visit(text, cm, tm, font, size) -> None:
        if text.strip():  # the type's size as printed: the font size times the scaling
            runs.append((round(abs(size * tm[3] * cm[3]) or size, 1), text))

    return visit


def _heading_type(pages: list[list[tuple[float, str]]]) -> str:
    """The first page's text in its largest type, when that is larger than the body's (the
    type most characters of the first pages are in); a run repeated on the page (a logo made
    of glyphs) is not a title."""
    first = next((runs for runs in pages if runs), [])
    sizes: Counter[float] = Counter()
    for size, text in (run for runs in pages for run in runs):
        sizes[size] += len(text)
    repeated = Counter(text.strip() for _, text in first)
    candidates = [(size, text) for size, text in first if repeated[text.strip()] < 3]
    if not candidates:
        return ""
    biggest = max(size for size, _ in candidates)
    if biggest < TITLE_RATIO * sizes.most_common(1)[0][0]:
        return ""
    title = " ".join(" ".join(text for size, text in candidates if size == biggest).split())
    return _clean(title)[:200] if len(title) >= 3 else ""


GENERIC_TITLES = ("enscript output", "untitled", "microsoft word - ", "document", "title")


def _metadata_title(reader) -> str:
    """The Info dictionary's title, unless it is a tool's placeholder."""
    title = str(reader.metadata.title) if reader.metadata and reader.metadata.title else ""
    folded = title.strip().casefold()
    if not folded or folded in GENERIC_TITLES or folded.startswith("microsoft word - "):
        return ""
    return title


def _first_line(pages: list[str]) -> str:
    line = next((x.strip() for page in pages for x in page.split("\n") if x.strip()), "")
    return line if len(line) <= 120 else ""
