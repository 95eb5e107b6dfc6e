"""The text of a PDF, page by page, read with PDFium (pypdfium2): it maps TeX's fonts to
Unicode where pypdf left their codes raw (measured in bench/README.md, issue 34), and is
ten times faster. An owner-password-only file opens without a password. A control character
no font explains is dropped, never stored (pdf_glyphs.py), and the warning says how much of
the document it touched. Running headers, page numbers and hyphens are handled in
pdf_layout.py; pages are split where the outline's entries begin (found on the page by their
words, numbered or not), so that a chunk carries its heading path; pages that list page
numbers (contents, index) are marked; the title is the first page's largest type, not
metadata such as "Enscript Output"."""

from __future__ import annotations

import ctypes
import math
import re
import threading
import unicodedata
from collections import Counter
from functools import partial

from reflectcli.sources.document import HeadingTrail, Segment, SourceError
from reflectcli.sources.pdf_glyphs import CONTROL, is_control, readable
from reflectcli.sources.pdf_layout import drop_running, find_heading, join_hyphens, lists_pages

__all__ = ["join_hyphens", "read_pdf"]

TITLE_RATIO = 1.15  # the title's type is at least this much larger than the body's
BLANK_SHARE = 0.2  # a PDF with at least this share of pages without text gets a warning
TYPE_PAGES = 3  # ... whose size is the one most characters of the first pages are in
_WORD = re.compile(r"[\w-]+")
# PDFium is not thread-safe, not even across documents: one call at a time in this process
# (web research reads pages on several threads)
_PDFIUM = threading.Lock()


def read_pdf(data: bytes, location: str) -> tuple[str, list[Segment], str | None]:
    """(title, segments, warning) of a PDF; the warning when pages have no text (scans) or
    hold characters no font explains."""
    with _PDFIUM:
        pages, dropped, runs, outline, metadata_title = _read(data, location)
    pages = drop_running(pages)
    listing = {i for i, page in enumerate(pages) if lists_pages(page)}
    vocabulary = Counter(w.casefold() for page in pages for w in _WORD.findall(page))
    pages = [join_hyphens(page, vocabulary) for page in pages]
    segments = _by_outline(pages, outline, listing)
    title = _heading_type(runs) or _metadata_title(metadata_title)
    if not title:
        title = _first_line(pages) or next((t for _, _, t in outline), "")
    return title, segments, _warning(pages, dropped)


def _warning(pages: list[str], dropped: list[int]) -> str | None:
    notes = []
    blank = sum(1 for page in pages if not page.strip())
    if blank and blank >= BLANK_SHARE * len(pages) and blank < len(pages):
        notes.append(f"{blank} of its {len(pages)} pages have no text (scanned images?)")
    lost = sum(dropped)
    if lost:
        touched = sum(1 for n in dropped if n)
        share = lost / (sum(len(page) for page in pages) + lost)
        what = (
            "character its fonts do not map to text was"
            if lost == 1
            else "characters its fonts do not map to text were"
        )
        notes.append(
            f"{lost} {what} dropped, on {touched} of its {len(pages)} pages ({share:.2%} of its text)"
        )
    return "; ".join(notes) or None


def _read(data: bytes, location: str):
    """Each page's text and the characters dropped from it, the first pages' text runs with
    their type sizes, the outline (page index, level, title) and the metadata title."""
    import pypdfium2 as pdfium

    try:
        pdf = pdfium.PdfDocument(data)
    except pdfium.PdfiumError as exc:
        if getattr(exc, "err_code", None) == pdfium.raw.FPDF_ERR_PASSWORD:
            message = f"{location}: an encrypted PDF that needs a password (decrypt it first)"
            raise SourceError(message) from exc
        raise SourceError(f"{location}: not a readable PDF ({str(exc)[:120]})") from exc
    try:
        pages, dropped, runs = [], [], []
        for index in range(len(pdf)):
            page = pdf[index]
            textpage = page.get_textpage()
            try:
                raw = _page_text(textpage)
                text, lost = readable(raw, partial(_font_name, textpage))
                if index < TYPE_PAGES:
                    runs.append(_type_runs(textpage, raw))
            finally:
                textpage.close()
                page.close()
            pages.append(unicodedata.normalize("NFC", text))
            dropped.append(lost)
        return pages, dropped, runs, _outline(pdf), pdf.get_metadata_value("Title") or ""
    except pdfium.PdfiumError as exc:
        raise SourceError(f"{location}: not a readable PDF ({str(exc)[:120]})") from exc
    finally:
        pdf.close()


def _page_text(textpage) -> str:
    """The page's characters, one per index of PDFium's character list (the index its font is
    asked by): the text at once, else, where that skips a character (a code 0) or holds a
    control character, one character at a time."""
    import pypdfium2.raw as pdfium_c

    text, count = textpage.get_text_range(), textpage.count_chars()
    if len(text) == count and not CONTROL.search(text):
        return text
    return "".join(chr(pdfium_c.FPDFText_GetUnicode(textpage, i)) for i in range(count))


def _font_name(textpage, index: int) -> str:
    import pypdfium2.raw as pdfium_c

    buffer = ctypes.create_string_buffer(128)
    flags = ctypes.c_int()
    pdfium_c.FPDFText_GetFontInfo(textpage, index, buffer, len(buffer), ctypes.byref(flags))
    return buffer.value.decode("latin-1")


def _type_runs(textpage, raw: str) -> list[tuple[float, str]]:
    """The page's (type size, text) runs: consecutive characters of one size on one line; the
    size as printed (the font's size scaled by the text and page matrices)."""
    import pypdfium2.raw as pdfium_c

    runs: list[tuple[float, str]] = []
    matrix = pdfium_c.FS_MATRIX()
    size = 0.0
    chars: list[str] = []
    for i, ch in enumerate(raw):
        if ch in "\r\n" or is_control(ch):
            if chars:
                runs.append((size, "".join(chars)))
            size, chars = 0.0, []
            continue
        scale = 1.0
        if pdfium_c.FPDFText_GetMatrix(textpage, i, ctypes.byref(matrix)):
            scale = math.hypot(matrix.c, matrix.d) or 1.0
        here = round(pdfium_c.FPDFText_GetFontSize(textpage, i) * scale, 1)
        if chars and here != size and ch.strip():
            runs.append((size, "".join(chars)))
            chars = []
        if not chars:
            size = here
        chars.append(ch)
    if chars:
        runs.append((size, "".join(chars)))
    return [(size, text) for size, text in runs if text.strip()]


def _outline(pdf) -> list[tuple[int, int, str]]:
    """(page index, level, title) of the outline's entries, in order."""
    found: list[tuple[int, int, str]] = []
    try:
        for item in pdf.get_toc():
            dest = item.get_dest()
            page = dest.get_index() if dest is not None else None
            title = " ".join(unicodedata.normalize("NFKC", item.get_title() or "").split())
            if page is not None and page >= 0 and title:
                found.append((page, item.level + 1, title))
    except Exception:  # a damaged outline: the text is still there, only the headings are not
        return found
    return found


def _by_outline(pages: list[str], outline: list[tuple[int, int, str]], listing: set[int]) -> list[Segment]:
    """Page segments, each split where an outline entry's heading is printed on its page (or
    at the top of the next: an anchor set before a page break points at the page before the
    heading); the segments of a page that lists page numbers (contents, index) are marked
    `toc`."""
    starts: dict[int, list[tuple[int, str]]] = {}
    for page, level, title in outline:
        starts.setdefault(page, []).append((level, title))
    trail = HeadingTrail()
    segments: list[Segment] = []
    carried: list[tuple[int, str]] = []  # entries of the page before, printed at this one's top
    for index, text in enumerate(pages):
        at, toc = 0, index in listing
        entries, carried = carried + starts.get(index, []), []
        for n, (level, title) in enumerate(entries):
            cut = None if toc else find_heading(text, title, at)
            if cut is None and not toc and _on_next_page(pages, index, entries[n:], at):
                carried = entries[n:]
                break
            if cut is None:
                cut = at  # not found in the text: the entry begins where the page's rest does
            if text[at:cut].strip():
                segments.append(Segment(text[at:cut], page=index + 1, heading=trail.path, toc=toc))
            trail.enter(level, title)
            at = cut
        segments.append(Segment(text[at:], page=index + 1, heading=trail.path, toc=toc))
    return segments


TOP_LINES = 6  # an entry not found on its page may begin in the next page's first lines


def _on_next_page(pages: list[str], index: int, entries: list[tuple[int, str]], at: int) -> bool:
    """Whether the first of `entries` (none of which is on this page after `at`) is printed at
    the top of the next page."""
    if index + 1 >= len(pages) or any(find_heading(pages[index], t, at) is not None for _, t in entries):
        return False
    top = "\n".join([line for line in pages[index + 1].split("\n") if line.strip()][:TOP_LINES])
    return find_heading(top, entries[0][1]) is not None


def _heading_type(pages: list[list[tuple[float, str]]]) -> str:
    """The first page's text in its largest type, when that is larger than the body's (the
    type most characters of the first pages are in); a run repeated on the page (a logo made
    of glyphs) is not a title, nor one that is the end of a word printed on the page (a logo
    whose capital is drawn: "symptote" of "Asymptote")."""
    first = next((runs for runs in pages if runs), [])
    sizes: Counter[float] = Counter()
    for size, text in (run for runs in pages for run in runs):
        sizes[size] += len(text)
    repeated = Counter(text.strip() for _, text in first)
    words = {w.casefold() for _, text in first for w in re.findall(r"\w+", text)}
    candidates = [(size, text) for size, text in first
                  if repeated[text.strip()] < 3 and not _tail_of_word(text, words)]  # fmt: skip
    if not candidates:
        return ""
    biggest = max(size for size, _ in candidates)
    if biggest < TITLE_RATIO * sizes.most_common(1)[0][0]:
        return ""
    title = " ".join(" ".join(text for size, text in candidates if size == biggest).split())
    title = "".join(ch for ch in unicodedata.normalize("NFKC", title) if unicodedata.category(ch) != "Co")
    return title[:200] if len(title) >= 3 else ""


def _tail_of_word(text: str, words: set[str]) -> bool:
    run = text.strip().casefold()
    return " " not in run and any(w.endswith(run) and w != run for w in words)


GENERIC_TITLES = ("enscript output", "untitled", "microsoft word - ", "document", "title")


def _metadata_title(title: str) -> str:
    """The Info dictionary's title, unless it is a tool's placeholder."""
    folded = title.strip().casefold()
    if not folded or folded in GENERIC_TITLES or folded.startswith("microsoft word - "):
        return ""
    return title


def _first_line(pages: list[str]) -> str:
    line = next((x.strip() for page in pages for x in page.split("\n") if x.strip()), "")
    return line if len(line) <= 120 else ""
