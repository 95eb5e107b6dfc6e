"""The judge: a model that is neither the writer nor the critic compares two versions of an
article (pairwise, asked in both orders by the caller) and grades one on a 1-5 rubric (STORM's
interest, coherence, relevance, coverage, plus our four dimensions). Answers go through the same
layered structured-output path as the loop's; an unusable answer falls back to a tie / no
grades, flagged, never to a made-up judgement.

The judge sees whole articles. When they do not fit its context window (`context` tokens,
estimated), the rule is: a reference text takes at most a third of the window (cut there, and
the prompt says so); the articles are split between Markdown blocks into the fewest k
consecutive parts of about equal size such that part i of A and part i of B fit the rest
together; part i of A is judged against part i of B, and the pair's verdict is the letter that
won more parts (a tie otherwise). A rubric grades each of the k parts and averages the grades.
The result records k (`parts`)."""

from __future__ import annotations

import json
from typing import Any, Literal

from pydantic import BaseModel, field_validator

from reflectcli.eval import metrics
from reflectcli.models.structured import complete_structured
from reflectcli.writing.textops import estimate_tokens

CRITERIA = ("interest", "coherence", "relevance", "coverage",
            "accuracy", "completeness", "readability", "structure")  # fmt: skip
JUDGE_TOKENS = 400
PROMPT_TOKENS = 600  # the judge's instructions around the texts, with room to spare


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


def _reference(reference: str | None, limit: int) -> str:
    """The reference block of a prompt, cut to `limit` tokens (estimated) with a stated mark."""
    if not reference:
        return ""
    shown = reference
    if estimate_tokens(reference) > limit:
        shown = reference[: max(0, limit * 3)]
        while shown and estimate_tokens(shown) > limit:
            shown = shown[: int(len(shown) * 0.9)]
        shown += f"\n[reference cut here: {len(shown)} of {len(reference)} characters shown]"
    return f"\nA reference text the article should agree with:\n<reference>\n{shown}\n</reference>\n"


def _room(context: int, reference: str | None, task: str) -> tuple[str, int]:
    """(the reference block, tokens left for the articles) in a window of `context` tokens."""
    usable = context - JUDGE_TOKENS - PROMPT_TOKENS - estimate_tokens(task)
    block = _reference(reference, usable // 3)
    return block, usable - estimate_tokens(block)


def pair_messages(task: str, a: str, b: str, reference: str = "", part: str = "") -> list[dict[str, str]]:
    """The pairwise prompt (`reference`: a block from `_room`; `part`: which part, when split)."""
    return [
        {"role": "system", "content": "You are an impartial judge of writing. Answer with JSON only."},
        {"role": "user", "content": (
            f"Task given to the writer: {task}\n{reference}\n{part}"
            f"<article_A>\n{a}\n</article_A>\n\n<article_B>\n{b}\n</article_B>\n\n"
            "Which article serves the task better, for its reader? Judge the content, not the "
            "length, and ignore the order in which they are shown. winner: \"A\", \"B\", \"tie\", "
            "\"both_good\" (equally good) or \"both_bad\" (equally poor); reason: one sentence.\n"
            f"Reply with only: {json.dumps({'winner': 'A', 'reason': '...'})}"
        )},
    ]  # fmt: skip


def rubric_messages(task: str, text: str, reference: str = "", part: str = "") -> list[dict[str, str]]:
    shape = dict.fromkeys(CRITERIA, 3)
    return [
        {"role": "system",
         "content": "You are a strict, impartial grader of writing. Answer with JSON only."},
        {"role": "user", "content": (
            f"Task given to the writer: {task}\n{reference}\n{part}<article>\n{text}\n"
            "</article>\n\nGrade the article from 1 (poor) to 5 (excellent) on: interest (would a "
            "reader want to read on), coherence (ideas follow), relevance (stays on the task), "
            "coverage (covers what the task needs), accuracy, completeness, readability, "
            f"structure.\nReply with only: {json.dumps(shape)}"
        )},
    ]  # fmt: skip


def _part(i: int, k: int) -> str:
    return (f"The articles are too long to show whole: this is part {i + 1} of {k} of each "
            "(consecutive, of about equal length); judge this part only.\n\n") if k > 1 else ""  # fmt: skip


def _usage(results: list) -> dict[str, Any]:
    calls = [c for r in results for c in r.calls]
    costs = [c.cost for c in calls if c.cost is not None]
    sources = [r.source for r in results]
    source = "fallback" if "fallback" in sources else next((s for s in sources if s != "llm"), "llm")
    return {"source": source, "errors": [e for r in results for e in r.errors][:3],
            "tokens": sum(c.tokens for c in calls),
            "cost": round(sum(costs), 6) if costs and len(costs) == len(calls) else None,
            "seconds": round(sum(c.duration for c in calls), 3),
            "model": calls[0].model if calls else None, "parts": len(results)}  # fmt: skip


EQUAL_NOTE = ("Both articles were cut to the same length, section by section (each section to the "
              "length of the shorter of its two versions, at a sentence): judge the writing shown, "
              "and count an abrupt end or start of a section against neither.\n\n")  # fmt: skip


def pair(client, task: str, a: str, b: str, reference: str | None, step: str,
         context: int = 32000, note: str = "") -> dict[str, Any]:  # fmt: skip
    """One pairwise judgement of A vs B: {winner, reason, source, tokens, cost, seconds, parts};
    `note`: a paragraph the prompt shows before the articles (EQUAL_NOTE for equal-length copies)."""
    block, room = _room(context, reference, task)
    k = metrics.part_count([a, b], room)
    results = [
        complete_structured(
            client, pair_messages(task, pa, pb, block, note + _part(i, k)), Verdict,
            step=step if k == 1 else f"{step}:p{i + 1}of{k}",
            fallback=lambda: Verdict(winner="tie", reason="the judge's answer was unusable"),
            json_schema=PAIR_SCHEMA, max_tokens=JUDGE_TOKENS,
        )
        for i, (pa, pb) in enumerate(zip(metrics.parts(a, k), metrics.parts(b, k), strict=True))
    ]  # fmt: skip
    if k == 1:
        return {**results[0].value.model_dump(), **_usage(results)}
    won = [r.value.winner for r in results if r.source != "fallback"]
    a_won, b_won = won.count("A"), won.count("B")
    winner = "A" if a_won > b_won else "B" if b_won > a_won else "tie"
    reason = f"parts won: A {a_won}, B {b_won}, neither {k - a_won - b_won}"
    return {"winner": winner, "reason": reason, **_usage(results)}


def rubric(client, task: str, text: str, reference: str | None, step: str,
           context: int = 32000) -> dict[str, Any]:  # fmt: skip
    """Grades 1-5 per criterion (None when the judge's answer was unusable); a text split into
    parts gets the mean of its parts' grades."""
    block, room = _room(context, reference, task)
    k = metrics.part_count([text], room)
    results = [
        complete_structured(
            client, rubric_messages(task, piece, block, _part(i, k).replace("articles are", "article is")),
            Rubric, step=step if k == 1 else f"{step}:p{i + 1}of{k}",
            fallback=lambda: Rubric(**dict.fromkeys(CRITERIA, 3)), json_schema=RUBRIC_SCHEMA,
            max_tokens=JUDGE_TOKENS,
        )
        for i, piece in enumerate(metrics.parts(text, k))
    ]  # fmt: skip
    usable = [r.value.model_dump() for r in results if r.source != "fallback"]
    grades = ({c: round(sum(g[c] for g in usable) / len(usable), 3) for c in CRITERIA}
              if len(usable) == len(results) else None)  # fmt: skip
    return {"grades": grades, **_usage(results)}
