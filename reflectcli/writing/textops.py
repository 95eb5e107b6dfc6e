"""Pure text operations on drafts: cleaning model output, finding the outline's sections in an
article, replacing some of them byte for byte, loop detection and the rewrite guards.

A section is one of the outline's titles as a heading line (`#` to `###`, case, punctuation and
trailing spaces ignored), found in outline order; its body runs to the next outline title's
heading. Any other heading line (an inner `## Notes`, say) is part of a body. Text before the first
title and the whitespace around each body belong to no section and are never rewritten.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from markdown_it import MarkdownIt

MIN_RATIO = 0.5  # a rewrite shorter than half the previous version is rejected
MAX_RATIO = 6.0  # ... and one more than six times longer (the seed's 777 → 35,000 blow-up)

_FENCED = re.compile(r"^\s*```[a-zA-Z]*[ \t]*\n(.*?)\n?```\s*$", re.S)
_HEADING = re.compile(r"^(#{1,3})[ \t]+(.*?)[ \t#]*$", re.M)
_BOUNDARY = re.compile(r"^#{1,2}[ \t]+\S.*$", re.M)  # a heading that would start a section
_PREAMBLE = re.compile(
    r"^\W*(sure|certainly|of course|okay|ok|absolutely|here is|here's|here are|below is|"
    r"the following|revised|rewritten|updated|improved|new version)\b[^\n]{0,120}:\s*$",
    re.I,
)
_EPILOGUE = re.compile(
    r"^\W*(i hope|hope this|let me know|feel free|this revised|this revision|this version|"
    r"in this revision|i have (revised|rewritten|made|addressed)|i've (revised|rewritten|made|"
    r"addressed)|note\s*:|changes made|summary of changes|word count|\(?\d+ words\b)",
    re.I,
)


def normalize(text: str) -> str:
    """Lower case, punctuation and runs of space folded: the one normaliser for comparing
    titles, critiques and sentences."""
    return re.sub(r"\W+", " ", text.lower()).strip()


_norm = normalize


def unfence(text: str) -> str:
    match = _FENCED.match(text)
    return match.group(1) if match else text


def strip_chatter(text: str) -> str:
    """Model output without code fences, the prompt's own `<section>`/`<article>` delimiters, a
    preamble line ("Here is the revised section:") or a closing remark ("I hope this helps",
    "Note: I added ...")."""
    text = re.sub(r"</?(section|article)>", "", text)
    lines = unfence(text.strip()).strip().splitlines()
    while lines and (not lines[0].strip() or _PREAMBLE.match(lines[0].strip())):
        lines.pop(0)
    while lines and (not lines[-1].strip() or (_EPILOGUE.match(lines[-1].strip())
                                                and len(lines[-1]) < 400)):  # fmt: skip
        lines.pop()
    return "\n".join(lines).strip()


def _is_title_line(line: str, title: str) -> bool:
    stripped = line.strip().strip("*_").strip().rstrip(":").strip()
    return _norm(stripped.lstrip("#")) == _norm(title)


def clean_section(text: str, title: str, titles: list[str] | None = None) -> str:
    """A section body from a model's answer: no chatter, no heading of its own, nothing of other
    sections. An answer holding the whole article (or several `## ` sections) gives the part
    under this section's heading; text after the body that starts another section is cut."""
    text = strip_chatter(text)
    own = next((m for m in _HEADING.finditer(text) if _norm(m.group(2)) == _norm(title)), None)
    if own is not None:
        text = text[own.end() :]
    lines = text.splitlines()
    while lines and (not lines[0].strip() or _is_title_line(lines[0], title)):
        lines.pop(0)
    text = "\n".join(lines)
    boundary = _BOUNDARY.search(text)
    if boundary is not None:
        text = text[: boundary.start()]
    return text.strip()


def clean_article(text: str) -> str:
    """A whole article: no fences, no chatter before the first `## ` section heading."""
    text = strip_chatter(text)
    match = re.search(r"^## ", text, re.M)
    if match and match.start() > 0:
        text = text[match.start() :]
    return text.strip()


def assemble(outline: list[dict[str, Any]], bodies: list[str]) -> str:
    return "\n\n".join(
        f"## {section['title']}\n\n{body}" for section, body in zip(outline, bodies, strict=False)
    )


def rewrite_guard(previous: str, candidate: str) -> str | None:
    """Why a rewrite must be rejected (`empty`, `too_short`, `too_long`), or None if it may stand."""
    before, after = len(previous.strip()), len(candidate.strip())
    if after == 0:
        return "empty"
    if before and after < MIN_RATIO * before:
        return "too_short"
    if before and after > MAX_RATIO * before:
        return "too_long"
    return None


# --- sections of an article -------------------------------------------------------------------


@dataclass(frozen=True)
class Span:
    """Where one outline section sits in an article: its heading line and its body's bytes
    (`body_start:body_end` includes the blank lines around the body)."""

    heading_start: int
    body_start: int
    body_end: int


def locate_sections(text: str, titles: list[str]) -> list[Span | None]:
    """Each outline title's span in `text`, in outline order (None when a title is missing).
    Exact (normalised) heading matches first; a heading that contains the title, or is contained
    in it, stands in when there is none."""
    headings = [(m.start(), m.end(), _norm(m.group(2))) for m in _HEADING.finditer(text)]
    found: list[int | None] = []
    after = -1
    for title in titles:
        wanted = _norm(title)
        candidates = [i for i, h in enumerate(headings) if i > after]
        pick = next((i for i in candidates if headings[i][2] == wanted), None)
        if pick is None and wanted:
            pick = next((i for i in candidates if headings[i][2]
                         and (wanted in headings[i][2] or headings[i][2] in wanted)), None)  # fmt: skip
        found.append(pick)
        if pick is not None:
            after = pick
    starts = sorted(headings[i][0] for i in found if i is not None)
    spans: list[Span | None] = []
    for pick in found:
        if pick is None:
            spans.append(None)
            continue
        start, end, _ = headings[pick]
        following = [s for s in starts if s > start]
        spans.append(Span(start, end, following[0] if following else len(text)))
    return spans


def section_bodies(text: str, titles: list[str]) -> list[str | None]:
    """Each outline section's body, stripped (None when its heading is missing)."""
    return [None if s is None else text[s.body_start : s.body_end].strip()
            for s in locate_sections(text, titles)]  # fmt: skip


def replace_bodies(text: str, titles: list[str], new: dict[int, str]) -> str:
    """`text` with the bodies of sections `new` names replaced; every other byte (other
    sections, text before the first heading, the blank lines around each body) kept."""
    spans = locate_sections(text, titles)
    out, at = [], 0
    for index in sorted(new):
        span = spans[index]
        if span is None:
            raise ValueError(f"section {index + 1} ({titles[index]!r}) is not in the text")
        old = text[span.body_start : span.body_end]
        lead = old[: len(old) - len(old.lstrip())] or "\n\n"
        trail = old[len(old.rstrip()) :]
        if not trail and span.body_end < len(text):
            trail = "\n\n"
        out += [text[at : span.body_start], lead, new[index].strip(), trail]
        at = span.body_end
    out.append(text[at:])
    return "".join(out)


def match_section(name: str, titles: list[str]) -> int | None:
    """Which section an improvement names: exact title, `section N`, or a title contained
    either way (case and punctuation ignored); None for the whole article or no match."""
    wanted = _norm(name)
    if not wanted or wanted in {"whole article", "article", "all", "general", "overall"}:
        return None
    normed = [_norm(t) for t in titles]
    if wanted in normed:
        return normed.index(wanted)
    number = re.fullmatch(r"(?:section )?(\d+)", wanted)
    if number and 1 <= int(number.group(1)) <= len(titles):
        return int(number.group(1)) - 1
    for i, title in enumerate(normed):
        if title and (wanted in title or title in wanted):
            return i
    return None


# --- degenerate generations ------------------------------------------------------------------

LOOP_NGRAM = 12  # words
LOOP_REPEATS = 2  # the same 12 words twice in one generation = a loop


def find_loop(text: str, n: int = LOOP_NGRAM, repeats: int = LOOP_REPEATS) -> int | None:
    """Where a generation starts repeating itself: the offset of the second occurrence of a run
    of `n` words that occurs `repeats` times (None when there is no loop). Prose does not repeat
    twelve words verbatim; a small model's loop does at once."""
    words = [(m.start(), m.group().lower()) for m in re.finditer(r"\w+", text)]
    seen: dict[tuple[str, ...], list[int]] = {}
    for i in range(len(words) - n + 1):
        gram = tuple(w for _, w in words[i : i + n])
        places = seen.setdefault(gram, [])
        places.append(i)
        if len(places) >= repeats:
            return words[places[1]][0]
    return None


def cut_loop(text: str) -> tuple[str, bool]:
    """`text` cut before its loop (at the last sentence end before it, if any), and whether a
    loop was found."""
    at = find_loop(text)
    if at is None:
        return text, False
    head = text[:at]
    end = last_sentence_end(head)
    if end is not None and end > len(head) // 2:
        head = head[:end]
    return head.rstrip(), True


def estimate_tokens(text: str) -> int:
    """A token count without a tokenizer: ~4 characters per token in Latin scripts, about one
    per character in CJK scripts. Used to size `max_tokens`, never to bill."""
    wide = sum(1 for ch in text if ord(ch) > 0x2E7F)
    return (len(text) - wide) // 4 + wide + 1


def last_sentence_end(text: str) -> int | None:
    """The offset just past the last full sentence (None when there is none)."""
    ends = [m.end() for m in re.finditer(r"[.!?。！？][\"')\]]*(?=\s|$)", text)]
    return ends[-1] if ends else None


def trim_generation(text: str, finish_reason: str | None) -> tuple[str, str | None]:
    """A generation made usable: cut before a loop (`loop`), or, when the token cap stopped it
    mid-sentence, back to its last full sentence (`length`). Returns the text and what was done."""
    cut, looped = cut_loop(text)
    if looped or finish_reason == "loop":
        return cut, "loop"
    if finish_reason == "length":
        end = last_sentence_end(text)
        if end is not None and end > len(text) // 3:
            return text[:end].rstrip(), "length"
        return text.rstrip(), "length"
    return text, None


CJK = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff]")
_CJK_CHAR = re.compile(f"({CJK.pattern})")


def fold(word: str) -> str:
    """Lower case, diacritics removed: a word as FTS5's unicode61 tokenizer compares it."""
    decomposed = unicodedata.normalize("NFKD", word.lower())
    return "".join(ch for ch in decomposed if not unicodedata.combining(ch))


def searchable(text: str) -> str:
    """The form an FTS5 index (unicode61) gets, for text and queries alike: CJK characters
    spaced out, so that a Chinese or Japanese query matches character by character (unicode61
    would otherwise take a whole run of them as one word)."""
    return _CJK_CHAR.sub(r" \1 ", text)


@lru_cache(maxsize=1)
def markdown() -> MarkdownIt:
    """The one Markdown parser (CommonMark, markdown-it-py): its tokens carry line maps. Imported
    when first needed: commands that read no article start without it."""
    from markdown_it import MarkdownIt

    return MarkdownIt("commonmark")


_INLINE_CODE = re.compile(r"(`+)(?:(?!\1).)+?\1")


def prose_parts(text: str) -> list[tuple[str, bool]]:
    """`text` cut into pieces, each marked True when it is prose and False when it is code (a
    fenced or indented block, found by the parser; an inline `code` span): joined, the pieces
    are `text`."""
    code: set[int] = set()
    for token in markdown().parse(text):
        if token.type in ("fence", "code_block") and token.map:
            code.update(range(*token.map))
    parts: list[tuple[str, bool]] = []
    for n, line in enumerate(text.splitlines(keepends=True)):
        if n in code:
            parts.append((line, False))
            continue
        last = 0
        for span in _INLINE_CODE.finditer(line):
            parts += [(line[last : span.start()], True), (span.group(), False)]
            last = span.end()
        parts.append((line[last:], True))
    return [(piece, prose) for piece, prose in parts if piece]
