"""Reading a source into text: Markdown, plain text (UTF-8, else as encoding.py decides per
run of bytes), HTML (html_text.py), PDF (pdf_text.py), DOCX (python-docx: headings,
paragraphs and tables in order) and http(s) URLs. Each reader returns a Document of segments
that keep their place in the source (page, heading path); anything that cannot be read raises
SourceError with one line saying why."""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

from reflectcli.sources.document import Document, HeadingTrail, Segment, SourceError, digest
from reflectcli.sources.encoding import decode
from reflectcli.writing import markdown

__all__ = ["Document", "Segment", "SourceError", "digest", "kind_of", "parse", "read_path", "read_url"]

KINDS = {".md": "md", ".markdown": "md", ".txt": "txt", ".text": "txt", ".html": "html",
         ".htm": "html", ".pdf": "pdf", ".docx": "docx"}  # fmt: skip
MAX_BYTES = 50_000_000  # one source at most (a larger file is almost surely not notes)
URL_TIMEOUT = 20.0


def kind_of(path: Path) -> str | None:
    return KINDS.get(path.suffix.lower())


def read_path(path: Path) -> Document:
    """A local file, by its extension."""
    kind = kind_of(path)
    if kind is None:
        raise SourceError(f"{path}: unsupported type {path.suffix or '(no extension)'} "
                          f"(supported: {', '.join(sorted(set(KINDS)))})")  # fmt: skip
    try:
        if path.stat().st_size > MAX_BYTES:
            raise SourceError(f"{path}: larger than {MAX_BYTES // 1_000_000} MB")
        data = path.read_bytes()
    except OSError as exc:
        raise SourceError(f"{path}: cannot read it ({exc.strerror})") from exc
    return parse(data, kind, str(path.resolve()), path.stem)


def parse(data: bytes, kind: str, location: str, fallback_title: str) -> Document:
    """Bytes of a known kind into a Document; SourceError when they yield no text."""
    reader = {"md": _markdown, "txt": _plain, "html": _html, "pdf": _pdf, "docx": _docx}[kind]
    title, segments, warning = reader(data, location)  # a reader may add a warning line
    segments = [s for s in segments if s.text.strip()]
    if not segments:
        raise SourceError(f"{location}: no text in it (a scanned PDF or an empty file?)")
    title = " ".join((title or fallback_title).split())[:200]
    return Document(kind, location, title, digest(data), segments, warning)


def _decode(data: bytes, location: str, html: bool = False) -> str:
    """The text of a text file (encoding.py: UTF-8, a declared encoding, else per run of bytes
    the legacy code page its words fit); SourceError for binary data."""
    if b"\x00" in data[:4096] and data[:2] not in (b"\xff\xfe", b"\xfe\xff"):
        raise SourceError(f"{location}: binary data, not text")
    return decode(data, html)


# A reader's answer: the title, the segments, and a warning line (or None)
Read = tuple[str, list[Segment], str | None]


def _plain(data: bytes, location: str) -> Read:
    text = _decode(data, location)
    first = next((line.strip() for line in text.splitlines() if line.strip()), "")
    return first[:120] if len(first) <= 120 else "", [Segment(text)], None


def _markdown(data: bytes, location: str) -> Read:
    """Split at headings (Markdown's, so a `# comment` in a code block is none), so that every
    chunk knows the headings it sits under (its heading path, as HTML and DOCX chunks do)."""
    text = _decode(data, location)
    found = markdown.headings(text)
    ends = [h.start for h in found[1:]] + [len(text)] if found else []
    segments = [Segment(text[: found[0].start if found else len(text)].strip("\r\n"))]
    trail = HeadingTrail()
    for heading, end in zip(found, ends, strict=True):
        trail.enter(heading.level, heading.title)
        segments.append(Segment(text[heading.end : end].strip("\r\n"), heading=trail.path))
    return (found[0].title if found else ""), segments, None


def _html(data: bytes, location: str) -> Read:
    from reflectcli.sources.html_text import read_html

    return read_html(_decode(data, location, html=True))


def _pdf(data: bytes, location: str) -> Read:
    from reflectcli.sources.pdf_text import read_pdf

    return read_pdf(data, location)


def _docx(data: bytes, location: str) -> Read:
    """Paragraphs and tables in body order, each a paragraph of its own (a table as rows of
    cells joined by " | "; a run of code paragraphs one code block), split at Heading styles,
    each part under its heading path; the Title paragraph is text too (searchable). The title
    is core properties' title, else the Title-styled paragraph, else the first heading."""
    try:
        import docx

        document = docx.Document(io.BytesIO(data))
    except Exception as exc:  # python-docx raises zipfile, KeyError, lxml and its own errors
        raise SourceError(f"{location}: not a readable DOCX ({type(exc).__name__})") from exc
    from docx.table import Table

    segments: list[Segment] = []
    trail, blocks = HeadingTrail(), _Blocks()
    title, first_heading = document.core_properties.title or "", ""
    styles = {style.style_id: (style.name or "").lower() for style in document.styles}
    for block in document.iter_inner_content():
        if isinstance(block, Table):
            blocks.add(table_rows(block))
            continue
        raw = block.text
        style = styles.get(block._p.style or "", "")
        text, level = raw.strip(), _heading_level(style)
        if level is None or not text:
            blocks.add(raw.strip("\n"), code=_is_code(block, style))
        elif level == 0:
            title = title or text
            blocks.add(text)
        else:
            segments.append(blocks.segment(trail.path))
            trail.enter(level, text)
            first_heading = first_heading or text
    segments.append(blocks.segment(trail.path))
    return title or first_heading, segments, None


CODE_STYLES = ("code", "preformatted", "verbatim", "listing", "macro text")  # parts of a style's name
MONOSPACE = ("mono", "courier", "consolas", "menlo", "monaco", "lucida console", "inconsolata", "source code")


def _is_code(paragraph, style: str) -> bool:
    """A paragraph of code: a code style (pandoc's "Source Code", Word's "HTML Preformatted"),
    or every run of it in a monospace font."""
    if any(part in style for part in CODE_STYLES):
        return True
    runs = [run for run in paragraph.runs if run.text.strip()]
    return bool(runs) and all(any(m in (run.font.name or "").lower() for m in MONOSPACE) for run in runs)


class _Blocks:
    """A segment's paragraphs, joined by a blank line; consecutive code paragraphs are one
    code block (one line each), marked for the chunker."""

    def __init__(self) -> None:
        self.parts: list[tuple[str, bool]] = []

    def add(self, text: str, code: bool = False) -> None:
        if not text.strip():
            return
        if code and self.parts and self.parts[-1][1]:
            self.parts[-1] = (self.parts[-1][0] + "\n" + text, True)
        else:
            self.parts.append((text, code))

    def segment(self, heading: str | None) -> Segment:
        text, spans = "", []
        for part, code in self.parts:
            if text:
                text += "\n\n"
            if code:
                spans.append((len(text), len(text) + len(part)))
            text += part
        self.parts = []
        return Segment(text, heading=heading, code=spans)


def _heading_level(style: str) -> int | None:
    """0 for the Title style, N for "Heading N", None for any other (lower-cased) style name."""
    if style == "title":
        return 0
    if style.startswith("heading"):
        number = style.removeprefix("heading").strip()
        return int(number) if number.isdigit() else 1
    return None


def table_rows(table) -> str:
    """A DOCX table as lines of cells joined by " | ": a merged cell once, in its first
    column (the columns it spans after it, and the rows it spans below it, are empty, so
    that every cell stays under its column's header); nested tables in their cell."""
    rows: list[str] = []
    above: list[Any] = []  # the cells' XML elements (python-docx's CT_Tc) of the row above
    for row in table.rows:
        cells: list[str] = []
        seen: list[Any] = []
        here: list[Any] = []
        for column, cell in enumerate(row.cells):
            here.append(cell._tc)
            merged = any(cell._tc is tc for tc in seen) or (column < len(above) and above[column] is cell._tc)
            seen.append(cell._tc)
            if merged:
                cells.append("")
                continue
            parts = [" ".join(p.text.split()) for p in cell.paragraphs]
            parts += [table_rows(inner) for inner in cell.tables]
            cells.append(" ".join(p for p in parts if p))
        above = here
        if any(cells):
            rows.append(" | ".join(cells))
    return "\n".join(rows)


def read_url(url: str, timeout: float = URL_TIMEOUT, allow_private: bool = False, resolver=None,
             proxy: str | None = None) -> Document:  # fmt: skip
    """An http(s) URL, fetched safely (fetch.py: every address checked before connecting,
    redirects too; through `proxy` if given), read by its content type (HTML, PDF, plain text, Markdown)."""
    from reflectcli.sources import fetch

    try:
        got = fetch.fetch(url, allow_private, timeout, MAX_BYTES, resolver, proxy)
    except fetch.Refused as exc:
        raise URLRefused(str(exc)) from exc
    except fetch.FetchError as exc:
        raise SourceError(str(exc)) from exc
    kind = URL_KINDS.get(got.content_type)
    if kind is None:
        raise SourceError(f"{url}: unsupported content type {got.content_type}")
    document = parse(got.data, kind, url, url.rstrip("/").rsplit("/", 1)[-1] or url)
    document.kind = "url"
    return document


URL_KINDS = {"application/pdf": "pdf", "text/plain": "txt", "text/markdown": "md",
             "text/html": "html", "application/xhtml+xml": "html"}  # fmt: skip


class URLRefused(SourceError):
    """A URL not fetched because of where it points: on this machine or a private network."""
