"""Citations in article text: `[S3]`, `[S3, S5]`, `[S3][S5]`. The run's evidence holds the only
ids that may appear; anything else is invented and removed in code before text is kept."""

from __future__ import annotations

import re
from typing import Any

# one bracket (ASCII or full-width) of one or more ids: `S` in either case, optional spaces,
# commas, semicolons or range dashes between them ([S1, S3], [S 2], [S1-S4], ［S9］, 【S9】)
_SEP = r"\s*(?:[,;、，]|[-–—~]|to)\s*"
CITATION = re.compile(r"[\[［【]\s*[Ss]\s?\d+(?:" + _SEP + r"[Ss]\s?\d+)*\s*[\]］】]")
_ID = re.compile(r"[Ss]\s?(\d+)")
_GONE = "\x00"  # where a bracket was removed whole (its space goes with it)


def ids_in(bracket: str) -> list[str]:
    return [f"S{int(n)}" for n in _ID.findall(bracket)]


def cited_ids(text: str) -> list[str]:
    """Every id cited in `text`, in order of first citation."""
    found: dict[str, None] = {}
    for match in CITATION.finditer(text):
        for ident in ids_in(match.group()):
            found.setdefault(ident)
    return list(found)


def strip_invented(text: str, known: set[str] | frozenset[str]) -> tuple[str, list[str]]:
    """`text` with every cited id that is not in `known` removed (a bracket left empty goes with
    the space before it), and the ids removed, in order. Known ids are written `[Sn]`."""
    removed: list[str] = []

    def keep(match: re.Match[str]) -> str:
        ids = ids_in(match.group())
        good = [i for i in ids if i in known]
        removed.extend(i for i in ids if i not in known)
        if good:
            return f"[{', '.join(dict.fromkeys(good))}]"
        return _GONE

    cleaned = CITATION.sub(keep, text)
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
