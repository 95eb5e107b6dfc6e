"""Reading a source into text: Markdown, plain text, HTML (main text by trafilatura), PDF
(pypdf, page by page), DOCX (python-docx, with its headings) and http(s) URLs. Each reader
returns a Document of segments that keep their place in the source (page, heading); anything
that cannot be read raises SourceError with one line saying why."""

from __future__ import annotations

import hashlib
import html as html_lib
import io
import re
from dataclasses import dataclass, field
from pathlib import Path

KINDS = {".md": "md", ".markdown": "md", ".txt": "txt", ".text": "txt", ".html": "html",
         ".htm": "html", ".pdf": "pdf", ".docx": "docx"}  # fmt: skip
MAX_BYTES = 50_000_000  # one source at most (a larger file is almost surely not notes)
URL_TIMEOUT = 20.0


class SourceError(Exception):
    """A source that cannot be read; the message is one line fit to show the user."""


@dataclass
class Segment:
    text: str
    page: int | None = None
    heading: str | None = None


@dataclass
class Document:
    kind: str
    location: str
    title: str
    content_hash: str
    segments: list[Segment] = field(default_factory=list)

    @property
    def chars(self) -> int:
        return sum(len(s.text) for s in self.segments)


def digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


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
    title, segments = reader(data, location)
    segments = [s for s in segments if s.text.strip()]
    if not segments:
        raise SourceError(f"{location}: no text in it (a scanned PDF or an empty file?)")
    return Document(kind, location, (title or fallback_title).strip()[:200], digest(data), segments)


def _decode(data: bytes, location: str) -> str:
    if data[:2] in (b"\xff\xfe", b"\xfe\xff"):
        try:
            return data.decode("utf-16")
        except UnicodeDecodeError:
            pass
    if b"\x00" in data[:4096]:
        raise SourceError(f"{location}: binary data, not text")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        return data.decode("latin-1")  # an old 8-bit file: every byte is a character


def _plain(data: bytes, location: str) -> tuple[str, list[Segment]]:
    text = _decode(data, location)
    first = next((line.strip() for line in text.splitlines() if line.strip()), "")
    return first[:120] if len(first) <= 120 else "", [Segment(text)]


_MD_HEADING = re.compile(r"^(#{1,6})\s+(.+?)\s*#*\s*$")


def _markdown(data: bytes, location: str) -> tuple[str, list[Segment]]:
    """Split at headings, so that every chunk knows the heading it sits under."""
    text = _decode(data, location)
    segments: list[Segment] = []
    title, heading, lines = "", None, []
    for line in text.splitlines():
        match = _MD_HEADING.match(line)
        if match:
            segments.append(Segment("\n".join(lines), heading=heading))
            heading, lines = match.group(2), []
            title = title or heading
            continue
        lines.append(line)
    segments.append(Segment("\n".join(lines), heading=heading))
    return title, segments


def _html(data: bytes, location: str) -> tuple[str, list[Segment]]:
    text_in = _decode(data, location)
    try:
        import trafilatura

        text = trafilatura.extract(text_in, include_comments=False, include_tables=True) or ""
        meta = trafilatura.extract_metadata(text_in)
        title = (meta.title if meta else "") or ""
    except Exception:  # a page trafilatura cannot parse: the plain text of the tags
        text, title = "", ""
    if not text.strip():
        text = _strip_tags(text_in)
    if not title:
        found = re.search(r"<title[^>]*>(.*?)</title>", text_in, re.I | re.S)
        title = html_lib.unescape(found.group(1)).strip() if found else ""
    return title, [Segment(text)]


def _strip_tags(markup: str) -> str:
    markup = re.sub(r"(?is)<(script|style|nav|header|footer)[^>]*>.*?</\1>", " ", markup)
    text = re.sub(r"(?s)<[^>]+>", " ", markup)
    return re.sub(r"[ \t]+", " ", html_lib.unescape(text)).strip()


def _pdf(data: bytes, location: str) -> tuple[str, list[Segment]]:
    try:
        from pypdf import PdfReader
        from pypdf.errors import PyPdfError

        reader = PdfReader(io.BytesIO(data))
        if reader.is_encrypted:
            raise SourceError(f"{location}: an encrypted PDF (decrypt it first)")
        pages = [Segment(page.extract_text() or "", page=n) for n, page in
                 enumerate(reader.pages, 1)]  # fmt: skip
        title = ""
        if reader.metadata and reader.metadata.title:
            title = str(reader.metadata.title)
    except SourceError:
        raise
    except (PyPdfError, ValueError, KeyError, TypeError, OSError, RecursionError) as exc:
        raise SourceError(f"{location}: not a readable PDF ({type(exc).__name__}: "
                          f"{str(exc)[:120]})") from exc  # fmt: skip
    return title, pages


def _docx(data: bytes, location: str) -> tuple[str, list[Segment]]:
    try:
        import docx

        document = docx.Document(io.BytesIO(data))
    except Exception as exc:  # python-docx raises zipfile, KeyError, lxml and its own errors
        raise SourceError(f"{location}: not a readable DOCX ({type(exc).__name__})") from exc
    segments: list[Segment] = []
    heading, lines, title = None, [], document.core_properties.title or ""
    for paragraph in document.paragraphs:
        style = (paragraph.style.name if paragraph.style is not None else "") or ""
        if style.lower().startswith(("heading", "title")) and paragraph.text.strip():
            segments.append(Segment("\n".join(lines), heading=heading))
            heading, lines = paragraph.text.strip(), []
            title = title or heading
        else:
            lines.append(paragraph.text)
    segments.append(Segment("\n".join(lines), heading=heading))
    return title, segments


def read_url(url: str, timeout: float = URL_TIMEOUT, allow_private: bool = False, resolver=None) -> Document:
    """An http(s) URL, fetched safely (fetch.py: every address checked before connecting,
    redirects too), read by its content type (HTML, PDF, plain text, Markdown)."""
    from reflectcli.sources import fetch

    try:
        got = fetch.fetch(url, allow_private, timeout, MAX_BYTES, resolver)
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
