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


def split_sections(text: str) -> list[tuple[str, str]]:
    """An article's `## ` sections as (title, body); text before the first heading is dropped
    unless there is no heading at all (then the whole text is one untitled section)."""
    parts = re.split(r"^## +(.*)$", text, flags=re.M)
    if len(parts) == 1:
        return [("", text.strip())]
    return [(parts[i].strip(), parts[i + 1].strip()) for i in range(1, len(parts), 2)]


def join_sections(sections: list[tuple[str, str]]) -> str:
    return "\n\n".join(f"## {title}\n\n{body}" if title else body for title, body in sections)


def _norm(text: str) -> str:
    return re.sub(r"\W+", " ", text.lower()).strip()


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
        if wanted not in normed:
            return int(number.group(1)) - 1
    for i, title in enumerate(normed):
        if title and (wanted in title or title in wanted):
            return i
    return None
