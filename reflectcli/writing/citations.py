"""Citations in article text, and the one grammar they are held to: `[S3]` or `[S3, S5]`.

Models write citations in many forms: `[S3]`, `[S3][S5]`, `[s 3]`, `(S3)`, `[Source 3]`, `[3]`,
`[S1, 3]`, ranges (`[S1-S4]`, `[S1–S4]`, `[1 to 4]`), full-width brackets (`［S3］`, `【S3】`), and
other tools' footnotes (`[^3]`). Each is read here into the ids it names (a range gives every
id in it); what names no id (`[S9a]`, a range of more than 20) is malformed. The run's
evidence holds the only ids that may appear: `strip_invented` writes every held id as `[Sn]`
and removes, and names, everything else."""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any

from reflectcli.writing.patterns import LazyPattern

_PREFIX = r"(?:sources?|src|s)\s?[:#]?\s?"
_ITEM = r"\d+(?:[a-z](?![a-z]))?"
_SEP = r"\s*(?:[,;、，]|[-–—~]|to|and|&)\s*"
_MORE = r"(?:" + _SEP + r"(?:" + _PREFIX + r")?" + _ITEM + r")*"
_OPEN, _CLOSE = r"[\[［【]", r"[\]］】]"
CITATION = LazyPattern(
    r"(?<![\w`])" + _OPEN + r"\s*(?:" + _PREFIX + r")?" + _ITEM + _MORE + r"\s*" + _CLOSE  # [3], [S3]
    + r"|" + _OPEN + r"\s*" + _PREFIX + _ITEM + _MORE + r"\s*" + _CLOSE  # word[S3]
    + r"|[(（]\s*" + _PREFIX + _ITEM + _MORE + r"\s*[)）]"  # (S3), (Source 3)
    + r"|\[\^\d+\](?!:)",  # a Markdown footnote's reference, word[^3] (not its definition)
    re.I,
)  # fmt: skip
# CITATION without its look-behind: whatever CITATION could find in any piece of a text (a piece
# may begin where the whole text has a word or a backtick before it), so a text it misses needs
# no parse at all
ANYWHERE = LazyPattern(CITATION.pattern.removeprefix(r"(?<![\w`])"), re.I)
NAMED = LazyPattern(_OPEN + r"\s*" + _PREFIX + _ITEM + _MORE + r"\s*" + _CLOSE, re.I)  # [S3], not [3]
_PART = LazyPattern(r"(" + _SEP + r")?(?:" + _PREFIX + r")?(\d+)([a-z]?)", re.I)
MAX_RANGE = 20  # a range naming more ids than this is malformed, not expanded
_GONE = "\x00"  # where a bracket was removed whole (its space goes with it)


def parse(bracket: str) -> tuple[list[str], list[str]]:
    """The ids a citation names (`S3`, a range expanded) and its malformed parts (`S9a`)."""
    ids: list[str] = []
    bad: list[str] = []
    previous: int | None = None
    for match in _PART.finditer(bracket):
        sep, number, suffix = match.group(1) or "", int(match.group(2)), match.group(3)
        if suffix:
            bad.append(f"S{number}{suffix}")
            previous = None
            continue
        if previous is not None and sep.strip() in ("-", "–", "—", "~", "to"):
            if previous < number <= previous + MAX_RANGE:
                ids += [f"S{n}" for n in range(previous + 1, number + 1)]
            else:
                ids.pop()
                bad.append(f"S{previous}-S{number}")
            previous = None
            continue
        ids.append(f"S{number}")
        previous = number
    return list(dict.fromkeys(ids)), bad


def ids_in(bracket: str) -> list[str]:
    return parse(bracket)[0]


def cited_ids(text: str) -> list[str]:
    """Every id cited in `text`, in order of first citation."""
    return list(_cited(text))


@lru_cache(maxsize=64)
def _cited(text: str) -> tuple[str, ...]:
    """(Cached by text: a Markdown parse, asked of the same version by every step's summary,
    the artifact's References and the nodes.)"""
    if not ANYWHERE.search(text):  # nothing like a citation anywhere: no parse to ask of it
        return ()
    from reflectcli.writing.textops import prose_parts  # (Markdown; not on the read path's start)

    found: dict[str, None] = {}
    for piece, prose in prose_parts(text):
        for match in CITATION.finditer(piece) if prose else ():
            for ident in ids_in(match.group()):
                found.setdefault(ident)
    return tuple(found)


def strip_invented(text: str, known: set[str] | frozenset[str]) -> tuple[str, list[str]]:
    """`text` with every citation in the one grammar: held ids written `[Sn]` (or `[Sn, Sm]`),
    every id not in `known` and every malformed part removed (a bracket left empty goes with the
    space before it); and what was removed, in order. Code (`x[1]`, a fenced block) is left."""
    if not ANYWHERE.search(text):  # nothing to normalise or remove: the text as it is
        return text, []
    from reflectcli.writing.textops import prose_parts

    removed: list[str] = []

    def keep(match: re.Match[str]) -> str:
        ids, bad = parse(match.group())
        good = [i for i in ids if i in known]
        removed.extend([*(i for i in ids if i not in known), *bad])
        if good:
            return f"[{', '.join(dict.fromkeys(good))}]"
        return _GONE

    cleaned = "".join(CITATION.sub(keep, piece) if prose else piece for piece, prose in prose_parts(text))
    if _GONE in cleaned:  # only the space right before a removed bracket goes, when punctuation
        cleaned = re.sub(r"[ \t]*" + _GONE + r"(?=[.,;:!?)。，；：！？\n]|$)", "", cleaned)
        cleaned = re.sub(r"[ \t]" + _GONE + r"(?=[ \t])", "", cleaned)
        cleaned = cleaned.replace(_GONE, "")  # or the line's end follows; else just the bracket
    return cleaned, removed


def references(evidence: list[dict[str, Any]], text: str) -> list[dict[str, Any]]:
    """The evidence cited in `text`, in order of id: what a References list shows."""
    cited = set(cited_ids(text))
    return sorted((e for e in evidence if e["id"] in cited), key=lambda e: int(e["id"][1:]))


def place(item: dict[str, Any]) -> str:
    """Where a passage is: `notes/a.md, "Heading"`, `report.pdf, page 4`, or the URL."""
    parts = [item.get("location") or ""]
    if item.get("page"):
        parts.append(f"page {item['page']}")
    if item.get("heading"):
        parts.append(f"“{item['heading']}”")
    return ", ".join(p for p in parts if p)
