"""The tiny model's plan: questions a reader would ask, each heading a section
(writing/questions.py says why). Up to three calls, named as the plan's validation retries are
(`plan`, `plan:retry1`, `plan:retry2`; a new outline's `plan:g2` ...), so the journal replays
them on resume; each retry shows the questions kept so far and asks for others, until the
outline has its sections. Fewer than two usable questions (one when one section is wanted):
the generic outline, flagged."""

from __future__ import annotations

import json
from typing import Any

from reflectcli.models.fallbacks import fallback_outline
from reflectcli.models.structured import MAX_RETRIES, Structured, extract_json
from reflectcli.writing import prompts
from reflectcli.writing.questions import questions_schema, usable_questions
from reflectcli.writing.schemas import Outline, Section

QUESTION_TOKENS = 320  # five questions of 80 characters, and the JSON around them


def questions_asked(text: str) -> list[Any]:
    """The questions in one answer ([] when it holds none)."""
    try:
        data = extract_json(text)
    except ValueError:
        return []
    found = data.get("questions") if isinstance(data, dict) else data
    return list(found) if isinstance(found, list) else []


def plan_questions(writer: Any, task: str, limit: int, step: str) -> Structured[Outline]:
    """An outline from the questions `writer` (a tiny model) asks about `task`; its `dropped`
    names each question left out and why."""
    count = max(3, limit)
    kept: list[str] = []
    calls, errors, gone = [], [], []
    for attempt in range(MAX_RETRIES + 1):
        label = step if attempt == 0 else f"{step}:retry{attempt}"
        done = writer.complete(prompts.questions_messages(task, count, kept or None), step=label,
                               json_schema=questions_schema(count), max_tokens=QUESTION_TOKENS)  # fmt: skip
        calls.append(done)
        answers = questions_asked(done.text)
        new, dropped = usable_questions(answers, task, kept, limit)
        kept += new
        gone += dropped
        errors += dropped if answers else [f"no questions in {json.dumps(done.text[:200])}"]
        if len(kept) >= limit:
            break
    if len(kept) < min(2, limit):
        return Structured(fallback_outline(task, limit), "fallback", calls, errors)
    outline = Outline(sections=[Section(title=q) for q in kept])
    outline.dropped = gone
    return Structured(outline, "llm" if len(calls) == 1 else "llm-retry", calls, errors)
