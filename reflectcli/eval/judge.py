"""The judge: a model that is neither the writer nor the critic compares two versions of an
article (pairwise, asked in both orders by the caller) and grades one on a 1-5 rubric (STORM's
interest, coherence, relevance, coverage, plus our four dimensions). Answers go through the same
layered structured-output path as the loop's; an unusable answer falls back to a tie / no
grades, flagged, never to a made-up judgement."""

from __future__ import annotations

import json
from typing import Any, Literal

from pydantic import BaseModel, field_validator

from reflectcli.models.structured import complete_structured

CRITERIA = ("interest", "coherence", "relevance", "coverage",
            "accuracy", "completeness", "readability", "structure")  # fmt: skip
MAX_CHARS = 12000  # of each article shown to the judge
JUDGE_TOKENS = 400


class Verdict(BaseModel):
    winner: Literal["A", "B", "tie", "both_good", "both_bad"]
    reason: str = ""

    @field_validator("winner", mode="before")
    @classmethod
    def _winner(cls, value: Any) -> str:
        text = " ".join(str(value or "").lower().replace("_", " ").split())
        table = {"a": "A", "article a": "A", "first": "A", "b": "B", "article b": "B",
                 "second": "B", "tie": "tie", "equal": "tie", "same": "tie", "draw": "tie",
                 "both good": "both_good", "both bad": "both_bad", "neither": "both_bad"}  # fmt: skip
        if text in table:
            return table[text]
        raise ValueError(f"winner must be A, B, tie, both_good or both_bad, got {value!r}")


class Rubric(BaseModel):
    interest: int
    coherence: int
    relevance: int
    coverage: int
    accuracy: int
    completeness: int
    readability: int
    structure: int

    @field_validator(*CRITERIA, mode="before")
    @classmethod
    def _grade(cls, value: Any) -> int:
        if isinstance(value, bool):
            raise ValueError("a grade is a number from 1 to 5")
        try:
            number = round(float(str(value).split("/")[0]))
        except ValueError as exc:
            raise ValueError(f"a grade is a number from 1 to 5, got {value!r}") from exc
        return min(5, max(1, number))


PAIR_SCHEMA = {
    "type": "object",
    "properties": {"winner": {"type": "string", "enum": ["A", "B", "tie", "both_good", "both_bad"]},
                   "reason": {"type": "string", "maxLength": 400}},
    "required": ["winner", "reason"],
}  # fmt: skip
RUBRIC_SCHEMA = {
    "type": "object",
    "properties": {c: {"type": "integer", "minimum": 1, "maximum": 5} for c in CRITERIA},
    "required": list(CRITERIA),
}


def _cut(text: str) -> str:
    return text if len(text) <= MAX_CHARS else text[:MAX_CHARS] + "\n[...]"


def _reference(reference: str | None) -> str:
    return (
        f"\nA reference text the article should agree with:\n<reference>\n{_cut(reference)}\n</reference>\n"
        if reference
        else ""
    )


def pair_messages(task: str, a: str, b: str, reference: str | None = None) -> list[dict[str, str]]:
    return [
        {"role": "system", "content": "You are an impartial judge of writing. Answer with JSON only."},
        {"role": "user", "content": (
            f"Task given to the writer: {task}\n{_reference(reference)}\n"
            f"<article_A>\n{_cut(a)}\n</article_A>\n\n<article_B>\n{_cut(b)}\n</article_B>\n\n"
            "Which article serves the task better, for its reader? Judge the content, not the "
            "length, and ignore the order in which they are shown. winner: \"A\", \"B\", \"tie\", "
            "\"both_good\" (equally good) or \"both_bad\" (equally poor); reason: one sentence.\n"
            f"Reply with only: {json.dumps({'winner': 'A', 'reason': '...'})}"
        )},
    ]  # fmt: skip


def rubric_messages(task: str, text: str, reference: str | None = None) -> list[dict[str, str]]:
    shape = dict.fromkeys(CRITERIA, 3)
    return [
        {"role": "system",
         "content": "You are a strict, impartial grader of writing. Answer with JSON only."},
        {"role": "user", "content": (
            f"Task given to the writer: {task}\n{_reference(reference)}\n<article>\n{_cut(text)}\n"
            "</article>\n\nGrade the article from 1 (poor) to 5 (excellent) on: interest (would a "
            "reader want to read on), coherence (ideas follow), relevance (stays on the task), "
            "coverage (covers what the task needs), accuracy, completeness, readability, "
            f"structure.\nReply with only: {json.dumps(shape)}"
        )},
    ]  # fmt: skip


def _usage(result) -> dict[str, Any]:
    costs = [c.cost for c in result.calls if c.cost is not None]
    return {"source": result.source, "errors": result.errors[:3],
            "tokens": sum(c.tokens for c in result.calls),
            "cost": round(sum(costs), 6) if costs else None,
            "seconds": round(sum(c.duration for c in result.calls), 3),
            "model": result.calls[0].model if result.calls else None}  # fmt: skip


def pair(client, task: str, a: str, b: str, reference: str | None, step: str) -> dict[str, Any]:
    """One pairwise judgement of A vs B: {winner, reason, source, tokens, cost, seconds}."""
    result = complete_structured(
        client, pair_messages(task, a, b, reference), Verdict, step=step,
        fallback=lambda: Verdict(winner="tie", reason="the judge's answer was unusable"),
        json_schema=PAIR_SCHEMA, max_tokens=JUDGE_TOKENS,
    )  # fmt: skip
    return {**result.value.model_dump(), **_usage(result)}


def rubric(client, task: str, text: str, reference: str | None, step: str) -> dict[str, Any]:
    """Grades 1-5 per criterion (None when the judge's answer was unusable)."""
    result = complete_structured(
        client, rubric_messages(task, text, reference), Rubric, step=step,
        fallback=lambda: Rubric(**dict.fromkeys(CRITERIA, 3)), json_schema=RUBRIC_SCHEMA,
        max_tokens=JUDGE_TOKENS,
    )  # fmt: skip
    grades = result.value.model_dump() if result.source != "fallback" else None
    return {"grades": grades, **_usage(result)}
