"""A PDF's pages as a reader sees them, from their text: running headers and footers (a line
at the top or bottom of most pages, or one that carries the page's own number, as "Chapter 2:
R Basics 10" does whatever the chapter), lone page numbers, words hyphenated at a line end,
pages that list page numbers (a table of contents, an index), and the line where an outline
entry's heading is printed ("1.1 Legalese" for the entry "Legalese")."""

from __future__ import annotations

import re
import unicodedata
from collections import Counter, defaultdict

EDGE = 2  # lines at the top and at the bottom of a page that may be a running header/footer
RUNNING = 0.4  # ... when the same line (digits aside) is there on at least this share of pages
MIN_PAGES = 4  # fewer pages than this: nothing counts as running
NUMBERED = 3  # a number at a page's edge is its page number when this many pages agree ...
NUMBERED_SHARE = 0.1  # ... (and this share of them, unless the number is alone on its line)
CHAPTER_SHARE = 0.4  # a line at the edge of this share of a run of pages is the run's running header,
CHAPTER_PAGES = 4  # ... when the run has this many (a sentence that ends with "." is none)
CONTENTS = 0.5  # a page whose lines end with page numbers after dot leaders at least this often
CONTENTS_LINES = 5  # ... and that has at least this many lines lists contents (or an index)
TITLE_WORDS = 8  # an outline title is looked for by its first this many words
PREFIX = 5  # a heading's number ("2.1.3.1", "Chapter 3", "Appendix A") is at most this many words
_HYPHEN = re.compile(r"(\w+)-\n(\w+)")
_WORD = re.compile(r"[^\W_]+")  # letters and digits: "glp_add_rows" is printed "glp add rows"
_LEADER = re.compile(r"(?:\.\s?){3,}|…")  # the dots between a title and its page number
_REFERENCES = re.compile(r"(?:\d+|[ivxlc]+)(?:\s*[,–-]\s*\d+)*\s*$")  # "12", "8, 11, 27", "xiv"
_ROMAN = {"i": 1, "v": 5, "x": 10, "l": 50, "c": 100}


def roman(token: str) -> int | None:
    """A lower-case roman numeral's value (front matter is numbered so), else None."""
    if not token or any(ch not in _ROMAN for ch in token) or len(token) > 8:
        return None
    values = [_ROMAN[ch] for ch in token]
    total = sum(-v if v < w else v for v, w in zip(values, [*values[1:], 0], strict=True))
    return total if total > 0 else None


def _numbers(line: str) -> list[tuple[str, int]]:
    """The numbers a line may print its page's number as, with where in the line: its first
    or last word if that is a number, or the whole line (a number, or a roman numeral)."""
    words = line.split()
    if len(words) == 1:
        n = int(words[0]) if words[0].isdigit() and len(words[0]) <= 4 else roman(words[0])
        return [("alone", n)] if n is not None else []
    return [(place, int(w)) for place, w in (("first", words[0]), ("last", words[-1]))
            if w.isdigit() and len(w) <= 4]  # fmt: skip


def _key(line: str) -> str:
    """A line as running headers repeat it: digits (page numbers) and spacing aside."""
    return re.sub(r"\d+", "#", " ".join(line.split())).casefold()


def _edges(count: int) -> set[int]:
    """Indexes of a page's first and last EDGE lines (of a short page, a third of them)."""
    edge = max(1, min(EDGE, count // 3))
    return set(range(min(edge, count))) | set(range(max(0, count - edge), count))


def drop_running(pages: list[str]) -> list[str]:
    """Pages without their running headers and footers: the lines at their top or bottom
    that recur on RUNNING of the pages (or on a chapter's pages), and the ones that print the
    page's number: a number
    in the same place (top or bottom; first word, last word or alone) that follows the page's
    index on NUMBERED_SHARE of the pages ("Chapter 2: R Basics 10"), or on NUMBERED pages for
    a number alone on its line ("iv"). A chapter's "1 Introduction" on page 1 is neither."""
    with_text = [i for i, page in enumerate(pages) if page.strip()]
    if len(with_text) < MIN_PAGES:
        return pages
    edges: dict[int, list[tuple[int, str, str]]] = {}  # page: (line index, top|bottom, line)
    counts: Counter[str] = Counter()
    offsets: dict[tuple[str, str, int], set[int]] = defaultdict(set)  # (edge, place, number - index)
    for i in with_text:
        lines = pages[i].split("\n")
        filled = [j for j, line in enumerate(lines) if line.strip()]
        top = max(1, min(EDGE, len(filled) // 3))
        edges[i] = [(filled[k], "top" if k < top else "bottom", lines[filled[k]])
                    for k in sorted(_edges(len(filled)))]  # fmt: skip
        counts.update({_key(line) for _, _, line in edges[i]})
        for _, edge, line in edges[i]:
            for place, n in _numbers(line):
                offsets[(edge, place, n - i)].add(i)
    running = {key for key, n in counts.items() if n >= max(3, RUNNING * len(with_text))}
    running |= _chapter_lines(edges, with_text)
    floor = max(NUMBERED, NUMBERED_SHARE * len(with_text))
    numbered = {key for key, found in offsets.items()
                if len(found) >= (NUMBERED if key[1] == "alone" else floor)}  # fmt: skip
    pages_offset = {offset for _, _, offset in numbered}  # a lone number in any place then too
    out = list(pages)
    for i, page_edges in edges.items():
        drop = {j for j, edge, line in page_edges if _key(line) in running
                or any((edge, place, n - i) in numbered or (place == "alone" and n - i in pages_offset)
                       for place, n in _numbers(line))}  # fmt: skip
        if drop:
            out[i] = "\n".join(line for j, line in enumerate(pages[i].split("\n")) if j not in drop)
    return out


def _chapter_lines(edges: dict[int, list[tuple[int, str, str]]], with_text: list[int]) -> set[str]:
    """Lines a chapter repeats at its pages' top or bottom ("Using and understanding the
    Valgrind core"): the same line, of words and not a sentence, at the same edge of
    CHAPTER_PAGES pages or more and of CHAPTER_SHARE of the pages from its first to its last."""
    where: dict[tuple[str, str], list[int]] = defaultdict(list)
    for i, page_edges in edges.items():
        for place in {(edge, _key(line)) for _, edge, line in page_edges}:
            where[place].append(i)
    found: set[str] = set()
    for (_, key), pages in where.items():
        if len(pages) < CHAPTER_PAGES or not re.search(r"[^\W\d_]{3}", key) or key.endswith("."):
            continue
        span = sum(1 for i in with_text if pages[0] <= i <= pages[-1])
        if len(pages) >= CHAPTER_SHARE * span:
            found.add(key)
    return found


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


def lists_pages(page: str) -> bool:
    """A page of a table of contents or an index: most of its lines end with page numbers
    after dot leaders ("2.1 What is R? . . . . 2", "cbind . . . . 26, 30")."""
    lines = [line for line in page.split("\n") if line.strip()]
    if len(lines) < CONTENTS_LINES:
        return False
    listed = sum(1 for line in lines if _LEADER.search(line) and _REFERENCES.search(line))
    return listed >= CONTENTS * len(lines)


def _words(text: str) -> list[str]:
    return _WORD.findall(unicodedata.normalize("NFKC", text).casefold())


def _numbering(words: list[str], after: str = "") -> bool:
    """Words that number a heading: "2 1" (2.1), "a", "xiv", "chapter 3", "appendix b" (or
    "part" before the title "vi index": `after` is the word that follows them)."""
    if len(words) > PREFIX:
        return False
    for k, word in enumerate(words):
        if _number_like(word):
            continue
        if not _number_like(words[k + 1] if k + 1 < len(words) else after):  # "chapter 3"
            return False
    return True


def _number_like(word: str) -> bool:
    return word.isdigit() or len(word) == 1 or roman(word) is not None


def find_heading(text: str, title: str, start: int = 0) -> int | None:
    """Where the line that prints an outline entry's heading begins, from `start` on: the
    title's words after the heading's number, if any ("1.1 Legalese" for "Legalese", over up
    to three lines); best a line that holds just that, else one that begins so. A line
    before it that is only the number ("Chapter 1" above "Introduction") begins it."""
    want = _words(title)
    if not want:
        return None
    starts, lines, raw = [], [], text[start:].split("\n")
    at = start
    for line in raw:
        starts.append(at)
        lines.append(_words(line))
        at += len(line) + 1
    found = _match(lines, want, exact=True)
    if found is None:
        found = _match(lines, want[:TITLE_WORDS], exact=False)
    if found is None:
        return None
    above = next((k for k in range(found - 1, -1, -1) if lines[k]), None)
    if above is not None and _label(raw[above], lines[above]):
        found = above
    return starts[found]


def _label(line: str, words: list[str]) -> bool:
    """A line that only numbers the heading below it: "Chapter 1", "Appendix B", "3", "IV"."""
    plain = " ".join(line.split()).rstrip(".:").casefold()
    if plain != " ".join(words) or not 1 <= len(words) <= 2:
        return False
    number = words[-1]
    return (len(number) <= 3 and number.isdigit()) or len(number) == 1 or roman(number) is not None


def _match(lines: list[list[str]], want: list[str], exact: bool) -> int | None:
    """The first line whose words (with up to two lines after it) are a heading number and
    `want`: exactly, ending at a line's end, or only beginning so."""
    for k, words in enumerate(lines):
        if not words:
            continue
        joined, ends = list(words), [len(words)]
        for extra in lines[k + 1 : k + 3]:
            joined += extra
            ends.append(len(joined))
        for skip in range(min(PREFIX, len(words) - 1) + 1):
            if joined[skip : skip + len(want)] != want or not _numbering(joined[:skip], want[0]):
                continue
            if not exact or skip + len(want) in ends:
                return k
    return None
