"""The one sentence segmenter: pysbd (abbreviations, decimals, "e.g.", "i.e.", CJK punctuation),
English or Chinese by the text's script. Claims, the checklist, loop detection, the source
chunker and the rewrite guards all cut sentences here."""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any

from reflectcli.writing.patterns import CJK


@lru_cache(maxsize=2)
def _segmenter(language: str) -> Any:
    """pysbd's segmenter for `language` (imported when first needed: ~20 ms)."""
    import pysbd

    return pysbd.Segmenter(language=language, clean=False, char_span=False)


def language_of(text: str) -> str:
    """The language pysbd reads `text` in: zh when a third of it is CJK characters, else en."""
    return "zh" if len(CJK.findall(text)) * 3 > len(text) else "en"


_NUMBER_END = re.compile(r"^\d{1,4}[.)]\s+")  # "writer 0. Revision": pysbd reads "0." as a list item's


@lru_cache(maxsize=512)
def _pieces(line: str, language: str) -> tuple[str, ...]:
    found = list(_segmenter(language).segment(line))
    for i in range(1, len(found)):  # a sentence ending in a number keeps its number
        head, m = found[i - 1].rstrip(), _NUMBER_END.match(found[i])
        if m and head and head[-1] not in ".!?:;" and found[i - 1][-1:] != "\n":
            found[i - 1] += m.group()
            found[i] = found[i][m.end() :]
    return tuple(p for p in found if p)


# pysbd's time grows with the square of a paragraph's length (its abbreviation pass rescans the
# paragraph at each "no", "Dr." ...: 10,000 "no"s take 6 s, 160 kB of Wikipedia 7 s), so a long
# paragraph is handed to it in spans of at most `SPAN` characters, cut where a sentence surely
# ends (a full stop after a word of three letters or more, or after the quotation it closes,
# then a space and a capital or an opening quote), or, in a span without one (no one's prose),
# at a space. Never between a full stop and the quote that closes on it (…it was."  But he): a
# span that opens on a closing quote reads as one quotation to pysbd (SummEdits, eighth pass)
SPAN = 3000
_SURE_END = re.compile(
    r"(?:(?<=[a-z0-9)\]\"”’]{3}[.!?])|(?<=[.!?][\"”’]))\s+(?=[A-Z\"“(])|(?<=[。！？])\s*(?=[“(\u4e00-\u9fff])"
)


def _spans(line: str) -> list[str]:
    out, at = [], 0
    while len(line) - at > SPAN:
        window = line[at + SPAN // 2 : at + SPAN]
        ends = [m.end() for m in _SURE_END.finditer(window) if m.end() < len(window)]
        cut = ends[-1] if ends else (window.rfind(" ") + 1 or len(window))
        out.append(line[at : at + SPAN // 2 + cut])
        at += SPAN // 2 + cut
    return [*out, line[at:]]


def pieces(line: str, language: str | None = None) -> list[str]:
    """`line` cut into its sentences as written: the pieces join back to `line` exactly."""
    if not line.strip():
        return [line]
    language = language or language_of(line)
    out = []
    for span in _spans(line):
        found = list(_pieces(span, language))
        out += found if "".join(found) == span else _rejoined(span, found)
    return out


def _rejoined(line: str, found: list[str]) -> list[str]:
    """The pieces re-cut from `line` itself where pysbd's lost or moved a character."""
    out, at = [], 0
    for piece in found:
        start = line.find(piece.strip(), at)
        if start < 0:
            continue
        end = start + len(piece.strip())
        out.append(line[at:end])
        at = end
    if at < len(line):
        out.append(line[at:]) if not out else out.__setitem__(-1, out[-1] + line[at:])
    return out or [line]


def sentences(text: str) -> list[str]:
    """`text` (plain prose, one paragraph) split into sentences, each stripped."""
    text = " ".join(text.split())
    return [s.strip() for s in pieces(text) if s.strip()] if text else []


def ends(text: str) -> list[int]:
    """The offsets just past each sentence of `text` that ends in a full stop, question or
    exclamation mark (a sentence cut off mid-way has none)."""
    out, at = [], 0
    for paragraph in text.split("\n"):
        for piece in pieces(paragraph) if paragraph.strip() else []:
            at += len(piece)
            stripped = piece.rstrip()
            if stripped.rstrip("\"')]”’」』）").endswith((".", "!", "?", "。", "！", "？")):
                out.append(at - (len(piece) - len(stripped)))
        at += 1
    return out
