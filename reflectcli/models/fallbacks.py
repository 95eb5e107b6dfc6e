"""Flagged stand-ins used when a model's structured answer stays unusable after retries."""

from __future__ import annotations

import re

from reflectcli.writing.schemas import Dimensions, Improvement, Outline, Review, Section

GENERIC_SECTIONS = (
    ("Introduction", "Frame the question and why it matters."),
    ("Background", "Give the facts and context a reader needs."),
    ("Analysis", "Work through the main arguments and evidence."),
    ("Implications", "Say what follows and for whom."),
    ("Conclusion", "Answer the question and sum up."),
)
FALLBACK_CAP = 5.0  # a heuristic never claims a passing score


def fallback_outline(max_sections: int) -> Outline:
    """A generic outline: intro, body sections, conclusion, cut to `max_sections`."""
    chosen = list(GENERIC_SECTIONS)
    if max_sections < len(chosen):
        chosen = chosen[: max_sections - 1] + [chosen[-1]] if max_sections > 1 else chosen[:1]
    return Outline(sections=[Section(title=t, goal=g) for t, g in chosen])


def heuristic_review(text: str, titles: list[str]) -> Review:
    """A crude review from measurable traits, capped below passing and clearly labelled."""
    sentences = [s.strip().lower() for s in re.split(r"[.!?。！？]\s*", text) if s.strip()]
    unique = len(set(sentences)) / len(sentences) if sentences else 0.0
    present = sum(1 for t in titles if f"## {t}" in text) / len(titles) if titles else 0.0
    words = len(text.split())
    completeness = min(10.0, words / 60)
    structure = 10.0 * present
    readability = 10.0 * unique
    score = min(FALLBACK_CAP, round((completeness + structure + readability) / 3, 1))
    return Review(
        score=score,
        dimensions=Dimensions(
            accuracy=score,
            completeness=round(min(FALLBACK_CAP, completeness), 1),
            readability=round(min(FALLBACK_CAP, readability), 1),
            structure=round(min(FALLBACK_CAP, structure), 1),
        ),
        feedback="[fallback] The critic's answer could not be parsed after retries; this score "
        "is a heuristic (length, structure, repetition), not a judgement of the content.",
        improvements=[
            Improvement(
                section="",
                issue="Re-read the article for clarity and support each claim with a concrete example.",
                severity="minor",
            )  # fmt: skip
        ],
    )
