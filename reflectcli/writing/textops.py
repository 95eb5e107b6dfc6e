"""Pure text operations on drafts: cleaning model output, finding the outline's sections in an
article, replacing some of them byte for byte, loop detection and the rewrite guards.

A section is one of the outline's titles as a heading (Markdown parsed by `writing.markdown`: a
`# comment` in a code block is no heading; case, punctuation and trailing spaces ignored), found
in outline order; its body runs to the next heading of the same or a higher level, or to the next
outline title's heading. A deeper heading (an inner `### Notes`, say) is part of a body. Text
before the first title and the whitespace around each body belong to no section and are never
rewritten.
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from markdown_it import MarkdownIt

from reflectcli.writing import markdown
from reflectcli.writing.patterns import CJK, LazyPattern
from reflectcli.writing.sentences import ends, pieces

__all__ = ["CJK"]  # re-exported: the CJK pattern is imported from here across the package
_BLANK_LINES = re.compile(r"\A(?:[ \t]*(?:\r\n|\r|\n))+")
MIN_RATIO = 0.5  # a rewrite shorter than half the previous version is rejected
MAX_RATIO = 6.0  # ... and one more than six times longer (the seed's 777 → 35,000 blow-up)

_ANSWER = r"(?:section|sections|article|text|version|draft|revision|rewrite|paragraphs?|content|answer|body)"
_HERE = r"(?:here is|here's|here are|below is|the following is|the following are)"
_PREAMBLE = re.compile(  # a line about the answer itself, not a sentence of it ("The following musicians:")
    r"^\W*(?:(?:sure|certainly|of course|okay|ok|absolutely)\b[^\n]{0,120}:"
    rf"|{_HERE}\s+(?:\w+\s+){{0,4}}?{_ANSWER}\b[^\n]{{0,80}}:"
    rf"|(?:(?:the|my|your)\s+)?(?:final\s+)?(?:revised|rewritten|updated|improved|new|edited)\s+{_ANSWER}\b"
    r"[^\n]{0,80}:)\s*$",
    re.I,
)
_CHANGED = "revised|rewritten|made|addressed|added|removed|expanded|kept|clarified|improved"
_EPILOGUE = LazyPattern(  # a closing remark about the answer, not a section's last sentence
    r"^\W*(i hope|hope this|let me know|feel free to (?:ask|let me|reach out|request|tell me)|"
    rf"this revised|in this revision|this (?:rewritten|updated|improved|new) {_ANSWER}\b|"
    rf"this (?:revision|version|rewrite) (?:{_CHANGED}|adds|keeps|"
    rf"incorporates|focuses|makes)|i have (?:{_CHANGED})|i've (?:{_CHANGED})|"
    r"note\s*:\s*(?:i |i've|i have|this (?:revised|revision|version|rewrite)|the (?:revised|rewritten)"
    r"|changes)|"
    r"changes made|summary of changes|here'?s what i (?:did|changed)|word count|\(?\d+ words\b)",
    re.I,
)


_CHANGES = LazyPattern(  # "... so I made some changes.": the writer reporting on its answer
    r"\bi(?: have|'ve|’ve)? (?:made|added|done) (?:\w+ ){0,3}(?:changes|edits|revisions|improvements|"
    r"adjustments)\b",
    re.I,
)


_REWORK_START = re.compile(  # a sentence about the rewriting, not the topic: at an answer's edge only
    r"^\W*(?:(?:the|this) original (?:text|section|paragraph|draft|version)\b"
    r"|(?:this|the) (?:sentence|paragraph|section|text) (?:was|has been|is|can be|could be|will be|"
    r"should be) (?:re-?worded|re-?written|"
    r"revised|rephrased|edited|shortened|expanded)\b"
    r"|here(?:'s|’s| is) (?:a|an|the|my) (?:re-?written|revised|re-?worded|improved|edited|updated|"
    r"shorter|longer) (?:version|text|section|paragraph|draft)\b"  # (not "version of the statute")
    r"(?! of\b(?! (?:the |your |my )?(?:original|text|section|paragraph|draft|article)\b))"
    r"|i (?:will|'ll|’ll|am going to|have to) (?:re-?write|revise|rephrase|re-?word)\b"
    r"|(?:re-?write|revise|rephrase|re-?word) (?:this|the) (?:section|paragraph|text|article)\b)",
    re.I,
)
_REWORK_WORDS = re.compile(
    r"re-?wr|re-?wor|revis|edit|rephras|\bsentences?\b|\bwords\b|tasked|\byou(?:r|'ve|’ve)?\b|"
    r"\bchanges\b|\bbold\b|\bagain\b|\boriginal\b|^\s*(?:is|was|reads|says)\s*:",
    re.I,
)


def rework_remark(sentence: str) -> bool:
    """A sentence about the rewriting itself ("The original text was rewritten as 126 words, so
    I will re-write it again in 3 sentences:", "This sentence was reworded for clarity"): it
    opens with the text's or the rewrite's name and then speaks of rewording, sentences or words
    ("This text was edited by Erasmus" is about a text, and kept). Cut
    only at an answer's edges (echo.py), where a revision's chatter stands."""
    said = sentence.strip()
    match = _REWORK_START.match(said)
    return match is not None and len(said) < 400 and bool(_REWORK_WORDS.search(said[match.end() :]))


def opening_remark(sentence: str) -> bool:
    """A first sentence about the answer itself ("Here is the revised section:")."""
    return bool(_PREAMBLE.match(sentence.strip()))


def closing_remark(sentence: str) -> bool:
    """A last sentence about the answer itself ("I hope this helps!", "... so I made some
    changes.") rather than the section's own last sentence."""
    said = sentence.strip()
    return len(said) < 400 and bool(_EPILOGUE.match(said) or _CHANGES.search(said))


def trim_block(text: str) -> str:
    """`text` without the blank lines around it; its first line's indentation is kept (it may be
    an indented code block, which stripping would turn into a paragraph or a heading)."""
    return _BLANK_LINES.sub("", text).rstrip()


def normalize(text: str) -> str:
    """Lower case, punctuation and runs of space folded: the one normaliser for comparing
    titles, critiques and sentences."""
    return re.sub(r"\W+", " ", text.lower()).strip()


_norm = normalize


_WRAPPER = re.compile(
    r"\A\s*<(?P<open>section|article)>[ \t]*\n?|\n?[ \t]*</(?P<close>section|article)>\s*\Z"
)


def _unwrapped(text: str) -> str:
    """`text` without the prompt's own delimiters around it (`<section>` … `</section>`, or one
    of them left alone); a page whose `<section class=…>` elements close at its end keeps them."""
    for m in reversed(list(_WRAPPER.finditer(text))):
        name = m.group("open") or m.group("close")
        if len(re.findall(rf"<{name}\b", text)) != len(re.findall(rf"</{name}>", text)) or (
            text.lstrip().startswith(f"<{name}>") and text.rstrip().endswith(f"</{name}>")
        ):
            text = text[: m.start()] + text[m.end() :]
    return text


def strip_chatter(text: str) -> str:
    """Model output without code fences, the prompt's own `<section>`/`<article>` delimiters, a
    preamble line ("Here is the revised section:") or a closing remark ("I hope this helps",
    "Note: I added ...")."""
    text = trim_block(_unwrapped(text))
    fenced = markdown.whole_fence(text)
    lines = trim_block(text if fenced is None else fenced).splitlines()
    while lines and (not lines[0].strip() or _PREAMBLE.match(lines[0].strip())):
        lines.pop(0)
    while lines and (not lines[-1].strip() or (_EPILOGUE.match(lines[-1].strip())
                                                and len(lines[-1]) < 400)):  # fmt: skip
        lines.pop()
    return trim_block("\n".join(lines))


def _is_title_line(line: str, title: str) -> bool:
    stripped = line.strip().strip("*_").strip().rstrip(":").strip()
    return _same_title(stripped.lstrip("#"), title)


def _same_title(found: str, title: str) -> bool:
    """Titles compared normalised; one of punctuation only (`...`) compared as written."""
    a, b = _norm(found), _norm(title)
    return a == b if a or b else found.strip() == title.strip()


def clean_section(text: str, title: str, titles: list[str] | None = None, level: int = 2) -> str:
    """A section body from a model's answer: no chatter, no heading of its own, nothing of other
    sections. An answer holding the whole article gives the part under this section's heading;
    a heading at or above the section's `level` that names another outline section ends the body,
    and any other one is demoted below that level, so that a rewrite never adds a section (a
    deeper heading is the body's own, whatever it says)."""
    text = strip_chatter(text)
    own = next((h for h in markdown.headings(text) if _same_title(h.title, title)), None)
    if own is not None:
        text = text[own.end :]
    lines = text.splitlines()
    while lines and (not lines[0].strip() or _is_title_line(lines[0], title)):
        lines.pop(0)
    text = "\n".join(lines)
    others = {_norm(t) for t in titles or []} - {_norm(title)}
    high = [h for h in markdown.headings(text) if h.level <= level]
    boundary = next((h for h in high if _norm(h.title) in others), None)
    if boundary is not None:
        text = text[: boundary.start]
    for heading in reversed([h for h in high if boundary is None or h.start < boundary.start]):
        text = markdown.set_level(text, heading, level + 1)
    return trim_block(text)


def clean_article(text: str) -> str:
    """A whole article: no fences, no chatter; a one-paragraph remark ending in a colon before
    the first heading ("Below, the article with its new examples:") is dropped."""
    text = strip_chatter(text)
    first = next(iter(markdown.headings(text)), None)
    if first is not None and first.start > 0 and _is_remark(text[: first.start]):
        text = text[first.start :]
    return trim_block(text)


def _is_remark(lead: str) -> bool:
    lead = lead.strip()
    return not lead or ("\n\n" not in lead and len(lead) <= 300 and lead.endswith(":"))


def assemble(outline: list[dict[str, Any]], bodies: list[str]) -> str:
    return "\n\n".join(
        f"## {section['title']}\n\n{body}" for section, body in zip(outline, bodies, strict=False)
    )


def rewrite_guard(previous: str, candidate: str) -> str | None:
    """Why a rewrite must be rejected (`empty`, `left_open`: it leaves a code fence open that
    would swallow the sections after it, `too_short`, `too_long`), or None if it may stand."""
    before, after = len(previous.strip()), len(candidate.strip())
    if after == 0:
        return "empty"
    if markdown.left_open(candidate) and not markdown.left_open(previous):
        return "left_open"
    if before and after < MIN_RATIO * before:
        return "too_short"
    if before and after > MAX_RATIO * before:
        return "too_long"
    return None


# --- sections of an article -------------------------------------------------------------------


@dataclass(frozen=True)
class Span:
    """Where one outline section sits in an article: its heading line, its body's bytes
    (`body_start:body_end` includes the blank lines around the body) and its heading level."""

    heading_start: int
    body_start: int
    body_end: int
    level: int = 2


def _pick(headings: list[markdown.Heading], after: int, title: str, level: int | None) -> int | None:
    """The heading that stands for `title` among those after index `after`: an exact
    (normalised) match first, then one containing the title or contained in it; one at most as
    deep as the previous section's (`level`) before a deeper one, so that a sub-heading of a
    section never takes the place of the next section."""
    wanted = _norm(title)
    candidates = list(range(after + 1, len(headings)))

    def exact(h: markdown.Heading) -> bool:
        return _same_title(h.title, title)

    def near(h: markdown.Heading) -> bool:
        found = _norm(h.title)
        return bool(wanted and found and (wanted in found or found in wanted))

    for matches in (exact, near):
        for shallow in (True, False):
            for i in candidates:
                if (not shallow or level is None or headings[i].level <= level) and matches(headings[i]):
                    return i
    return None


def locate_sections(text: str, titles: list[str]) -> list[Span | None]:
    """Each outline title's span in `text`, in outline order (None when a title is missing).
    A span runs from its heading to the next heading of the same or a higher level, or to the
    next outline section's heading if that comes first; headings inside code do not count."""
    headings = markdown.headings(text)
    found: list[int | None] = []
    after, level = -1, None
    for title in titles:
        pick = _pick(headings, after, title, level)
        found.append(pick)
        if pick is not None:
            after, level = pick, headings[pick].level
    picked = {i for i in found if i is not None}
    spans: list[Span | None] = []
    for pick in found:
        if pick is None:
            spans.append(None)
            continue
        own = headings[pick]
        end = next((h.start for j, h in enumerate(headings[pick + 1 :], pick + 1)
                    if j in picked or h.level <= own.level), len(text))  # fmt: skip
        spans.append(Span(own.start, own.end, end, own.level))
    return spans


def section_bodies(text: str, titles: list[str]) -> list[str | None]:
    """Each outline section's body, stripped (None when its heading is missing)."""
    return [None if s is None else trim_block(text[s.body_start : s.body_end])
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
        lead = old[: len(old) - len(_BLANK_LINES.sub("", old))] or "\n\n"
        trail = old[len(old.rstrip()) :]
        if not trail and span.body_end < len(text):
            trail = "\n\n"
        out += [text[at : span.body_start], lead, trim_block(new[index]), trail]
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

LOOP_WORDS = 12  # a span repeated back to back, 12 words or more of it again, to the end = a loop
LOOP_SENTENCES = 3  # ... or the same sentence three times with at most two others between
_SENTENCE_GAP = 3  # ... at most two other sentences between
_TOKEN = LazyPattern(rf"{CJK.pattern}|(?:(?!{CJK.pattern})\w)+")  # a CJK character is a word


def _read_text(text: str) -> list[markdown.Block | None]:
    """The blocks a loop is looked for in: paragraphs, headings and list items; a code block,
    table, HTML block or quotation is a break (None) that no loop can run across."""
    return [None if b.kind in markdown.SKIPPED else b for b in markdown.blocks(markdown.unwrapped(text))]


def _periodic_tail(text: str, blocks: list[markdown.Block | None]) -> int | None:
    """The offset of the second copy of a span that repeats back to back up to the end of the
    text (a partial last copy allowed), when the repetition holds `LOOP_WORDS` words or more."""
    words: list[tuple[int, str]] = []
    for n, block in enumerate(blocks):
        if block is None:
            words.append((-1, f"\0{n}"))  # matches nothing
            continue
        words += [(block.start + m.start(), m.group().lower())
                  for m in _TOKEN.finditer(text, block.start, block.end)]  # fmt: skip
    if words and text[-1:].isalnum():
        words.pop()  # a word still being written
    n, best = len(words), None
    for period in range(1, n // 2 + 1):
        run = 0
        while run < n - period and words[n - 1 - run][1] == words[n - 1 - run - period][1]:
            run += 1
        if run >= max(LOOP_WORDS, period):
            second = n - run
            best = second if best is None else min(best, second)
    return None if best is None else words[best][0]


def _sentences(text: str, blocks: list[markdown.Block | None]) -> list[tuple[int, str, int, int]]:
    """The sentences of paragraphs (not list items): offset, normalised text, and its first and
    past-last word index; any other block is a break of a million words that no loop spans."""
    out: list[tuple[int, str, int, int]] = []
    words = 0
    for block in blocks:
        if block is None or block.in_list or block.kind != "paragraph":
            out.append((-1, "", words, words + 10**6))
            words += 10**6
            continue
        at = block.start
        for piece in pieces(text[block.start : block.end]):
            end = at + len(piece)
            said = _norm(text[at:end])
            n = len(_TOKEN.findall(said))
            if n:
                out.append((at + len(text[at:end]) - len(text[at:end].lstrip()), said, words, words + n))
                words += n
            at = end
    return out


def _repeated_sentence(text: str, blocks: list[markdown.Block | None]) -> int | None:
    """The offset of a sentence's second occurrence when it comes three times or more (four
    words or more of it) with little between each time (at most two sentences, and fewer words
    than it has), the last time at most one sentence before the end."""
    sentences = _sentences(text, blocks)
    last: dict[str, list[int]] = {}  # a sentence -> the chain of its close occurrences
    for i, (_, said, first, stop) in enumerate(sentences):
        if not said or stop - first < 4:
            continue
        chain = last.get(said, [])
        if chain:
            _, _, _, before = sentences[chain[-1]]
            if i - chain[-1] - 1 > _SENTENCE_GAP - 1 or first - before > stop - first:
                chain = []
        last[said] = chain = [*chain, i]
        if len(chain) >= LOOP_SENTENCES and i >= len(sentences) - 2:
            return sentences[chain[1]][0]
    return None


def find_loop(text: str) -> int | None:
    """Where a generation starts repeating itself (None when it does not). A model's loop is
    periodic and runs to the end of the generation; a phrase that prose repeats is not a loop,
    and code, tables and quotations are never read. (Called as a generation streams: the text
    is parsed only when its plain words already look like a loop.)"""
    if _periodic_tail(text, [markdown.Block("paragraph", 0, len(text))]) is None and not _may_repeat(text):
        return None
    blocks = _read_text(text)
    found = [at for at in (_periodic_tail(text, blocks), _repeated_sentence(text, blocks)) if at is not None]
    return min(found) if found else None


def _may_repeat(text: str) -> bool:
    """Whether one of the last two sentences (paragraphs split at blank lines, then by the
    segmenter) of four words or more occurs three times: what `_repeated_sentence` needs. Cheap
    first: a sentence said three times repeats each run of four of its words three times, so the
    text is segmented only when one of its last words' runs of four does."""
    words = _TOKEN.findall(text.lower())
    tail = words[-80:]
    runs = Counter(tuple(words[i : i + 4]) for i in range(len(words) - 3))
    if not any(runs[tuple(tail[i : i + 4])] >= LOOP_SENTENCES for i in range(len(tail) - 3)):
        return False
    said = []
    for paragraph in re.split(r"\n[ \t]*\n", text):
        said += [n for n in (_norm(p) for p in pieces(paragraph)) if n]
    counts = Counter(said)
    return any(counts[s] >= LOOP_SENTENCES and len(_TOKEN.findall(s)) >= 4 for s in said[-2:])


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
    wide = 0 if text.isascii() else len(_WIDE.findall(text))
    return (len(text) - wide) // 4 + wide + 1


_WIDE = re.compile("[\u2e80-\U0010ffff]")  # CJK and beyond: code points above U+2E7F


def last_sentence_end(text: str) -> int | None:
    """The offset just past the last full sentence (None when there is none)."""
    found = ends(text)
    return found[-1] if found else None


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


_CJK_CHAR = LazyPattern(f"({CJK.pattern})")


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
def markdown_parser() -> MarkdownIt:
    """The one Markdown parser (CommonMark, markdown-it-py): its tokens carry line maps. Imported
    when first needed: commands that read no article start without it."""
    from markdown_it import MarkdownIt

    return MarkdownIt("commonmark")
