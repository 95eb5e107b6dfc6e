"""Structured model output (outline, review) and the tolerant coercions that clamp it.

Validation is lenient on shape and strict on meaning: "nine" and "8/10" become numbers, numbers are
clamped to 0-10, a missing dimension takes the overall score, plain strings become improvements.
"""

from __future__ import annotations

import re
from typing import Any, Literal

from pydantic import BaseModel, Field, field_validator, model_validator

from reflectcli.writing.rubric import DIMENSIONS

SOURCES = ("llm", "llm-retry", "fallback")

_WORDS = {
    "zero": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5,
    "six": 6, "seven": 7, "eight": 8, "nine": 9, "ten": 10,
}  # fmt: skip
_EXAMPLE_TEXTS = {"a concrete actionable change", "what is wrong in two or three sentences"}


def _plain(text: str) -> str:
    return re.sub(r"\W+", " ", text.lower()).strip()


_PLACEHOLDERS = {"title", "section title", "section", "goal", "heading", "short title"}
_NUMBER = re.compile(r"-?\d+(?:\.\d+)?")


def to_score(value: Any) -> float:
    """Coerce 8, 8.5, "8", "8/10", "nine" to a float clamped to 0..10; raise on anything else."""
    if isinstance(value, bool):
        raise ValueError("a score must be a number from 0 to 10, not a boolean")
    if isinstance(value, int | float):
        number = float(value)
    elif isinstance(value, str):
        text = value.strip().lower()
        if text in _WORDS:
            number = float(_WORDS[text])
        elif match := _NUMBER.search(text):
            number = float(match.group())
        else:
            raise ValueError(f"a score must be a number from 0 to 10, got {value!r}")
    else:
        raise ValueError(f"a score must be a number from 0 to 10, got {value!r}")
    if number != number:  # NaN
        raise ValueError("a score must be a number, got NaN")
    return round(min(10.0, max(0.0, number)), 2)


class Section(BaseModel):
    title: str = Field(min_length=1, max_length=200)
    goal: str = ""

    @model_validator(mode="before")
    @classmethod
    def _from_string(cls, value: Any) -> Any:
        if isinstance(value, str):
            return {"title": value}
        if isinstance(value, dict) and "title" not in value:
            for alias in ("heading", "name", "section"):
                if alias in value:
                    return {**value, "title": value[alias]}
        return value

    @field_validator("title", "goal", mode="before")
    @classmethod
    def _strip(cls, value: Any) -> Any:
        if isinstance(value, str):
            return value.strip().lstrip("#").strip()
        return value

    @field_validator("title")
    @classmethod
    def _not_placeholder(cls, value: str) -> str:
        if value.lower().strip(" .:") in _PLACEHOLDERS or re.fullmatch(r"<.*>", value):
            raise ValueError(f"{value!r} is a placeholder copied from the example; "
                             "write a real title for this task")  # fmt: skip
        return value


class Outline(BaseModel):
    sections: list[Section] = Field(min_length=1)

    @model_validator(mode="before")
    @classmethod
    def _from_list(cls, value: Any) -> Any:
        if isinstance(value, list):
            return {"sections": value}
        if isinstance(value, dict) and "sections" not in value:
            for alias in ("outline", "items", "headings"):
                if isinstance(value.get(alias), list):
                    return {"sections": value[alias]}
        return value


class Improvement(BaseModel):
    section: str = ""
    issue: str = Field(min_length=1)
    severity: Literal["major", "minor"] = "minor"

    @model_validator(mode="before")
    @classmethod
    def _from_string(cls, value: Any) -> Any:
        if isinstance(value, str):
            return {"issue": value}
        if isinstance(value, dict) and "issue" not in value:
            for alias in ("improvement", "suggestion", "action", "text", "description"):
                if alias in value:
                    return {**value, "issue": value[alias]}
        return value

    @field_validator("issue")
    @classmethod
    def _not_example(cls, value: str) -> str:
        if _plain(value) in _EXAMPLE_TEXTS:
            raise ValueError(f"{value!r} is the example's text; name a real change")
        return value

    @field_validator("severity", mode="before")
    @classmethod
    def _severity(cls, value: Any) -> str:
        text = str(value or "").strip().lower()
        return "major" if text in {"major", "high", "critical", "severe", "important"} else "minor"

    @field_validator("section", mode="before")
    @classmethod
    def _section(cls, value: Any) -> str:
        return "" if value is None else str(value).strip().lstrip("#").strip()


class Dimensions(BaseModel):
    accuracy: float
    completeness: float
    readability: float
    structure: float

    @field_validator(*DIMENSIONS, mode="before")
    @classmethod
    def _score(cls, value: Any) -> float:
        return to_score(value)


class Review(BaseModel):
    score: float
    dimensions: Dimensions
    feedback: str = ""
    improvements: list[Improvement] = Field(default_factory=list)
    addressed: list[str] = Field(default_factory=list)  # ids of earlier improvements now done

    @model_validator(mode="before")
    @classmethod
    def _fill(cls, value: Any) -> Any:
        if not isinstance(value, dict):
            return value
        value = dict(value)
        dims = value.get("dimensions")
        dims = dict(dims) if isinstance(dims, dict) else {}
        for name in DIMENSIONS:  # dimensions given at top level are accepted too
            if name not in dims and name in value:
                dims[name] = value[name]
        if "score" not in value:
            for alias in ("overall", "overall_score", "rating"):
                if alias in value:
                    value["score"] = value[alias]
                    break
        if "score" not in value and dims:
            given = [to_score(v) for v in dims.values()]
            value["score"] = sum(given) / len(given)
        if "score" in value:
            overall = to_score(value["score"])
            for name in DIMENSIONS:
                dims.setdefault(name, overall)
        value["dimensions"] = dims
        if isinstance(value.get("improvements"), str):
            value["improvements"] = [value["improvements"]]
        if value.get("improvements") is None:
            value["improvements"] = []
        if not isinstance(value.get("addressed"), list):
            value["addressed"] = []
        value["addressed"] = [str(x) for x in value["addressed"] if isinstance(x, str | int)]
        if isinstance(value.get("feedback"), list):
            value["feedback"] = " ".join(str(x) for x in value["feedback"])
        return value

    @field_validator("score", mode="before")
    @classmethod
    def _score(cls, value: Any) -> float:
        return to_score(value)

    @field_validator("feedback")
    @classmethod
    def _feedback_not_example(cls, value: str) -> str:
        if _plain(value) in _EXAMPLE_TEXTS:
            raise ValueError("the feedback is the example's text; say what is wrong")
        return value


def outline_schema(max_sections: int) -> dict[str, Any]:
    """JSON schema that constrains the embedded model's outline (bounded, so it cannot ramble)."""
    return {
        "type": "object",
        "properties": {
            "sections": {
                "type": "array",
                "minItems": min(2, max_sections),  # the prompt asks for 2 to N
                "maxItems": max_sections,
                "items": {
                    "type": "object",
                    "properties": {
                        "title": {"type": "string", "minLength": 3, "maxLength": 80},
                        "goal": {"type": "string", "maxLength": 200},
                    },
                    "required": ["title", "goal"],
                },
            }
        },
        "required": ["sections"],
    }


def review_schema(titles: list[str] | None = None) -> dict[str, Any]:
    """JSON schema for the critic's answer; `section` is held to the outline's titles."""
    section: dict[str, Any] = {"type": "string", "maxLength": 80}
    if titles:
        section = {"type": "string", "enum": [*titles, "whole article"]}
    score = {"type": "integer", "minimum": 0, "maximum": 10}
    return {
        "type": "object",
        "properties": {
            "score": score,
            "dimensions": {
                "type": "object",
                "properties": dict.fromkeys(DIMENSIONS, score),
                "required": list(DIMENSIONS),
            },
            "feedback": {"type": "string", "maxLength": 600},
            "improvements": {
                "type": "array",
                "maxItems": 6,
                "items": {
                    "type": "object",
                    "properties": {
                        "section": section,
                        "issue": {"type": "string", "minLength": 5, "maxLength": 300},
                        "severity": {"type": "string", "enum": ["major", "minor"]},
                    },
                    "required": ["section", "issue", "severity"],
                },
            },
            "addressed": {"type": "array", "maxItems": 12, "items": {"type": "string", "maxLength": 12}},
        },
        "required": ["score", "dimensions", "feedback", "improvements", "addressed"],
    }
