"""Pure text operations on drafts: cleaning model output, assembling sections, rewrite guards."""

from __future__ import annotations

import re
from typing import Any

MIN_RATIO = 0.5  # a rewrite shorter than half the previous version is rejected
MAX_RATIO = 6.0  # ... and one more than six times longer (the seed's 777 → 35,000 blow-up)

_FENCED = re.compile(r"^\s*```[a-zA-Z]*\s*\n(.*?)\n?```\s*$", re.S)


def unfence(text: str) -> str:
    match = _FENCED.match(text)
    return match.group(1) if match else text


def clean_section(text: str, title: str) -> str:
    """A section body: no fences, no leading heading lines, no repeated title."""
    lines = unfence(text).strip().splitlines()
    while lines and (
        lines[0].lstrip().startswith("#")
        or lines[0].strip().strip("*").strip().rstrip(":").lower() == title.strip().lower()
        or not lines[0].strip()
    ):
        lines.pop(0)
    return "\n".join(lines).strip()


def clean_article(text: str) -> str:
    """A whole article: no fences, no chatter before the first `## ` section heading."""
    text = unfence(text.strip()).strip()
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
