"""Getting structured answers out of a model, in layers.

1. tolerant extraction (prose around the JSON, code fences, trailing commas);
2. validation with clamping (schemas.py);
3. up to two retries that show the model its validation error;
4. a flagged fallback supplied by the caller, so a run never crashes on bad output.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Generic, Protocol, TypeVar

from pydantic import BaseModel, ValidationError

from reflectcli.models.base import Completion

MAX_RETRIES = 2
_FENCE = re.compile(r"```(?:json|JSON)?\s*(.*?)```", re.S)
_TRAILING_COMMA = re.compile(r",\s*([}\]])")
M = TypeVar("M", bound=BaseModel)


class ExtractionError(ValueError):
    """No JSON value could be found in the text."""


def extract_json(text: str) -> Any:
    """The first JSON object or array in `text`, tolerating fences, prose and trailing commas."""
    candidates = [m.group(1) for m in _FENCE.finditer(text)] + [text]
    for candidate in candidates:
        for start, char in enumerate(candidate):
            if char not in "{[":
                continue
            chunk = _balanced(candidate, start)
            if chunk is None:
                continue
            for attempt in (chunk, _TRAILING_COMMA.sub(r"\1", chunk)):
                try:
                    return json.loads(attempt)
                except json.JSONDecodeError:
                    pass
    raise ExtractionError("no JSON object found in the answer")


def _balanced(text: str, start: int) -> str | None:
    """The bracket-balanced chunk starting at `start` (string-aware), or None."""
    depth = 0
    in_string = escaped = False
    for i in range(start, len(text)):
        char = text[i]
        if in_string:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
        elif char == '"':
            in_string = True
        elif char in "{[":
            depth += 1
        elif char in "}]":
            depth -= 1
            if depth == 0:
                return text[start : i + 1]
    return None


def parse_as(model: type[M], text: str, context: dict[str, Any] | None = None) -> M:
    """Extract and validate (`context`: what validators may check against, e.g. the task);
    raises ValueError with a message fit to show the model."""
    data = extract_json(text)
    try:
        return model.model_validate(data, context=context)
    except ValidationError as exc:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in e['loc']) or 'value'}: {e['msg']}" for e in exc.errors()[:5]
        )
        raise ValueError(f"the JSON did not match the schema ({problems})") from exc


class Completes(Protocol):
    """What asking for a structured answer needs of a client: a ModelClient, or the graph's
    budgeted wrapper around one (which passes its own `budget`)."""

    def complete(self, messages: list[dict[str, str]], *, step: str, json_schema: dict[str, Any] | None = ...,
                 max_tokens: int | None = ...) -> Completion: ...  # fmt: skip


@dataclass
class Structured(Generic[M]):
    """A validated value plus how it was obtained."""

    value: M
    source: str  # llm | llm-retry | fallback
    calls: list[Completion] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)


def complete_structured(
    client: Completes,
    messages: list[dict[str, str]],
    model: type[M],
    *,
    step: str,
    fallback: Callable[[], M],
    json_schema: dict[str, Any] | None = None,
    max_tokens: int | None = None,
    max_retries: int = MAX_RETRIES,
    context: dict[str, Any] | None = None,
    check: Callable[[Any], str | None] | None = None,
) -> Structured[M]:
    """Ask for JSON, validate, retry with the error shown, else fall back (flagged). `check`
    says why a valid value still cannot be used (None: it can); that is shown like an error."""
    convo = list(messages)
    calls: list[Completion] = []
    errors: list[str] = []
    for attempt in range(max_retries + 1):
        label = step if attempt == 0 else f"{step}:retry{attempt}"
        completion = client.complete(convo, step=label, json_schema=json_schema, max_tokens=max_tokens)
        calls.append(completion)
        try:
            value = parse_as(model, completion.text, context)
            if check is not None and (why := check(value)):
                raise ValueError(why)
        except ValueError as exc:
            errors.append(str(exc))
            convo = [
                *messages,
                {"role": "assistant", "content": completion.text[:4000]},
                {
                    "role": "user",
                    "content": f"That answer could not be used: {exc}. "
                    "Reply again with only the JSON object, following the requested format exactly.",
                },
            ]
            continue
        return Structured(value, "llm" if attempt == 0 else "llm-retry", calls, errors)
    return Structured(fallback(), "fallback", calls, errors)
