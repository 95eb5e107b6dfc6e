"""Flagged stand-ins used when a model's structured answer stays unusable after retries."""

from __future__ import annotations

import re

from reflectcli.writing.claims import paragraphs
from reflectcli.writing.schemas import Dimensions, Improvement, Outline, Review, Section
from reflectcli.writing.sentences import sentences
from reflectcli.writing.textops import normalize, section_bodies

FALLBACK_CAP = 5.0  # a heuristic never claims a passing score (and the controller never lets it)
_FRAMING = re.compile(
    r"^(please\s+)?((write|draft|compose|create|give|explain)\s+)?((me\s+)?(an?|the)\s+)?"
    r"((short|brief|long|detailed|deep|in-depth)\s+)?((article|essay|analysis|overview|explainer|"
    r"post|piece|report|guide|introduction|summary|explanation)\s+)?((on|about|of|to|for)\s+)?",
    re.I,
)
_QUESTION = re.compile(
    r"^((why|how|what|when|where|who|which|whether)\s+)?((do|does|did|is|are|was|were|can|could|"
    r"should|would|will|has|have)\s+)?",
    re.I,
)
_PARTS = (
    ("the background", "What a reader needs to know first."),
    ("the main points", "The central arguments and evidence."),
    ("an example", "One concrete case, worked through."),
    ("what follows", "What it means and what to do next."),
    ("open questions", "What is still unsettled."),
    ("further reading", "Where to go from here."),
)


def topic_of(task: str, limit: int = 70) -> str:
    """The task's subject in its own words: "Why do writers revise their drafts?" → "Writers
    revise their drafts"."""
    text = re.sub(r"\s+", " ", task).strip().rstrip("?.!。？！ ")
    text = _FRAMING.sub("", text, count=1)
    text = _QUESTION.sub("", text, count=1).strip() or task.strip()
    if len(text) > limit:
        text = text[:limit].rsplit(" ", 1)[0].rstrip(" ,;:-")
    return text[:1].upper() + text[1:]


def fallback_outline(task: str, max_sections: int) -> Outline:
    """An outline built from the task's own words, flagged as a fallback by the caller:
    "<topic>: the background", "<topic>: the main points", ..., the last part last."""
    topic = topic_of(task)
    if max_sections <= 1:
        parts = [_PARTS[1]]
    elif max_sections < 4:
        parts = [*_PARTS[: max_sections - 1], _PARTS[3]]  # "what follows" closes
    else:
        parts = list(_PARTS[:max_sections])
    return Outline(sections=[Section(title=f"{topic}: {name}", goal=goal) for name, goal in parts])


def _sentences(text: str) -> list[str]:
    """The sentences of `text`'s prose (`writing.claims.paragraphs`: headings, tables and code
    left out: a table's header repeated under each table is no repeated sentence)."""
    return [s for paragraph in paragraphs(text) for s in sentences(paragraph)]


def heuristic_review(text: str, titles: list[str]) -> Review:
    """A crude review from measurable traits (length, structure, repetition), capped below
    passing and clearly labelled. Its improvements are measured too: the shortest sections, a
    missing section, a repeated sentence."""
    said = [s.strip().lower() for s in _sentences(text) if s.strip()]
    unique = len(set(said)) / len(said) if said else 0.0
    bodies: list[str | None] = section_bodies(text, titles) if titles else [text]
    present = sum(1 for b in bodies if b is not None) / len(bodies) if bodies else 0.0
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
        feedback="Fallback review: the critic's answer could not be used after retries; this score "
        "is a heuristic (length, structure, repetition), not a judgement of the content.",
        improvements=_measured_improvements(titles, bodies),
    )


def _measured_improvements(titles: list[str], bodies: list[str | None]) -> list[Improvement]:
    items: list[Improvement] = []
    for title, body in zip(titles, bodies, strict=False):
        if body is None:
            items.append(Improvement(section=title, issue=f"Write the missing section "
                                     f"\"{title}\" under its own heading.", severity="major"))  # fmt: skip
            continue
        seen: set[str] = set()
        for sentence in _sentences(body):
            key = normalize(sentence)
            if len(key.split()) >= 5 and key in seen:
                items.append(Improvement(section=title, issue="Cut the repeated sentence: "
                                         f"\"{sentence.strip()[:80]}\".", severity="major"))  # fmt: skip
                break
            seen.add(key)
    sized = sorted((len(b.split()), t) for t, b in zip(titles, bodies, strict=False) if b is not None)
    for count, title in sized[:2]:
        if len(items) >= 3:
            break
        items.append(Improvement(section=title, issue=f"Develop this section ({count} words) with "
                                 "one concrete example and the evidence for its main claim.",
                                 severity="minor"))  # fmt: skip
    if not items:
        items.append(Improvement(section="", issue="Support each claim with a concrete example.",
                                 severity="minor"))  # fmt: skip
    return items[:3]
