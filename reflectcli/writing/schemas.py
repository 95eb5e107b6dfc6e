"""Structured model output (outline, review) and the tolerant coercions that clamp it.

Validation is lenient on shape and strict on meaning: "nine" and "8/10" become numbers, numbers are
clamped to 0-10, a missing dimension takes the overall score, plain strings become improvements.
"""

from __future__ import annotations

import re
from typing import Any, Literal

from pydantic import BaseModel, Field, ValidationError, ValidationInfo, field_validator, model_validator

from reflectcli.writing.critique import EXAMPLE_TEXTS, not_a_critique
from reflectcli.writing.rubric import DIMENSIONS
from reflectcli.writing.textops import normalize
from reflectcli.writing.titles import title_problem

_WORDS = {
    "zero": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5,
    "six": 6, "seven": 7, "eight": 8, "nine": 9, "ten": 10,
}  # fmt: skip
TITLE_MAX = 120


_plain = normalize


# generic titles: "Title1", "Section 2", "Goal", "Heading three", "<title>", "Part A"
_PLACEHOLDER = re.compile(
    r"^(section|title|heading|goal|part|chapter|topic|subtitle|point|subheading|short title|"
    r"section title|section heading|your title|title here)\s*[-_#:.]?\s*"
    r"(\d+|[a-z]|one|two|three|four|five|six|seven|eight|nine|ten)?$"
)


def placeholder(text: str) -> bool:
    """A title or goal that is a generic stand-in, not one written for the task."""
    plain = _plain(text)
    return (not plain or bool(_PLACEHOLDER.fullmatch(plain)) or plain in EXAMPLE_TEXTS
            or bool(re.fullmatch(r"<.*>|\[.*\]|\.\.\.|…", text.strip())))  # fmt: skip


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
        if isinstance(value, str):  # one line: a line break in a title would start a heading of its own
            value = " ".join(value.split()).lstrip("#").strip().strip("*").strip()
            if len(value) >= TITLE_MAX and " " in value:  # cut by a length limit: whole words
                value = value[:TITLE_MAX].rsplit(" ", 1)[0].rstrip(" ,;:-")
        return value

    @field_validator("title")
    @classmethod
    def _not_placeholder(cls, value: str) -> str:
        if placeholder(value):
            raise ValueError(f"{value!r} is a placeholder, not a title; write a real title "
                             "for this task")  # fmt: skip
        return value

    @field_validator("goal")
    @classmethod
    def _no_placeholder_goal(cls, value: str) -> str:
        return "" if placeholder(value) else value


class Outline(BaseModel):
    sections: list[Section] = Field(min_length=1)
    dropped: list[str] = Field(default_factory=list, exclude=True)  # "title: why", for the trace

    @model_validator(mode="after")
    def _headings_for_the_task(self, info: ValidationInfo) -> Outline:
        """With the task in the validation context, a title that is a sentence, a fragment, an
        instruction or the task itself (or, `strict`, about something else) cannot head a section
        (writing/titles.py): such sections are dropped while a good one remains; an outline with
        none is refused, and asked again."""
        task = (info.context or {}).get("task")
        if task is None:
            return self
        strict = bool((info.context or {}).get("strict"))
        problems = [title_problem(s.title, task, s.goal, strict) for s in self.sections]
        good = [s for s, why in zip(self.sections, problems, strict=True) if why is None]
        if not good:
            title, why = next((s.title, w) for s, w in zip(self.sections, problems, strict=True) if w)
            raise ValueError(f"the title {title!r} {why}")
        kept = {_plain(s.title) for s in good}  # a dropped title that a kept section also has
        self.dropped = [f"{s.title!r} {w}" + (" (a second section of that title; the first is kept)"
                                              if _plain(s.title) in kept else "")
                        for s, w in zip(self.sections, problems, strict=True) if w]  # fmt: skip
        self.sections = good
        return self

    @model_validator(mode="after")
    def _distinct(self) -> Outline:
        seen: set[str] = set()
        for section in self.sections:
            key = _plain(section.title)
            if key in seen:
                raise ValueError(f"the title {section.title!r} appears twice; each section "
                                 "needs its own title")  # fmt: skip
            seen.add(key)
        return self

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
        if why := not_a_critique(value, min_words=2):
            raise ValueError(f"{why}; name a concrete change to the article")
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


class Claim(BaseModel):
    """The critic's verdict on one claim (by its id, `C3`) and one source it cites."""

    claim: str = ""
    source: str = ""
    verdict: Literal["supported", "unsupported", "contradicted"] = "unsupported"
    quote: str = ""  # the passage's sentence that decides the verdict
    reason: str = ""

    @field_validator("claim", mode="before")
    @classmethod
    def _claim(cls, value: Any) -> str:
        found = re.search(r"\d+", str(value if value is not None else ""))
        return f"C{int(found.group())}" if found else ""

    @field_validator("source", mode="before")
    @classmethod
    def _source(cls, value: Any) -> str:
        found = re.search(r"\d+", str(value if value is not None else ""))
        return f"S{int(found.group())}" if found else ""

    @field_validator("verdict", mode="before")
    @classmethod
    def _verdict(cls, value: Any) -> str:
        text = str(value or "").strip().lower()
        if text.startswith("contradict") or text in {"false", "wrong", "refuted"}:
            return "contradicted"
        if text.startswith("support"):
            return "supported"
        return "unsupported"

    @field_validator("quote", "reason", mode="before")
    @classmethod
    def _text(cls, value: Any) -> str:
        return "" if value is None else str(value).strip()


class Review(BaseModel):
    score: float
    dimensions: Dimensions
    feedback: str = Field("", validate_default=True)
    improvements: list[Improvement] = Field(default_factory=list)
    addressed: list[str] = Field(default_factory=list)  # ids of earlier improvements now done
    claims: list[Claim] = Field(default_factory=list)  # verdicts on claims, by claim id
    search_queries: list[str] = Field(default_factory=list)  # what to look up before revising

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
        queries = value.get("search_queries")  # at most three short, distinct queries
        queries = [queries] if isinstance(queries, str) else queries if isinstance(queries, list) else []
        cleaned = [" ".join(str(q).split())[:200] for q in queries if isinstance(q, str | int)]
        value["search_queries"] = list(dict.fromkeys(q for q in cleaned if len(q) >= 3))[:3]
        claims = value.get("claims")  # a malformed verdict is dropped, not the whole review
        value["claims"] = [c for c in claims if isinstance(c, dict)] if isinstance(claims, list) else []
        if isinstance(value.get("feedback"), list):
            value["feedback"] = " ".join(str(x) for x in value["feedback"])
        return value

    @field_validator("score", mode="before")
    @classmethod
    def _score(cls, value: Any) -> float:
        return to_score(value)

    @field_validator("improvements", mode="before")
    @classmethod
    def _drop_bad_improvements(cls, value: Any) -> Any:
        """An improvement that is not a critique is dropped, not the whole review."""
        if not isinstance(value, list):
            return value
        kept = []
        for item in value:
            try:
                kept.append(Improvement.model_validate(item))
            except ValidationError:
                continue
        return kept

    @field_validator("feedback")
    @classmethod
    def _feedback_is_a_critique(cls, value: str) -> str:
        if why := not_a_critique(value, min_words=4):
            raise ValueError(f"feedback: {why}; say in two or three sentences what is wrong "
                             "with the article")  # fmt: skip
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
                        "title": {"type": "string", "minLength": 3, "maxLength": TITLE_MAX},
                        "goal": {"type": "string", "maxLength": 200},
                    },
                    "required": ["title", "goal"],
                },
            }
        },
        "required": ["sections"],
    }


def review_schema(
    titles: list[str] | None = None, open_ids: list[str] | None = None,
    source_ids: list[str] | None = None, queries: bool = False, claim_ids: list[str] | None = None,
) -> dict[str, Any]:  # fmt: skip
    """JSON schema for the critic's answer: `section` held to the outline's titles, `addressed`
    to the ids of the improvements still open (none: an empty list); with sources and claims,
    `claims` holds a verdict per (claim id, source id), each held to the ids the article has."""
    section: dict[str, Any] = {"type": "string", "maxLength": 80}
    if titles:
        section = {"type": "string", "enum": [*titles, "whole article"]}
    score = {"type": "integer", "minimum": 0, "maximum": 10}
    schema: dict[str, Any] = {
        "type": "object",
        "properties": {
            "score": score,
            "dimensions": {
                "type": "object",
                "properties": dict.fromkeys(DIMENSIONS, score),
                "required": list(DIMENSIONS),
            },
            "feedback": {"type": "string", "minLength": 20, "maxLength": 600},
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
            "addressed": {
                "type": "array",
                "maxItems": len(open_ids or []),
                "items": {"type": "string", "enum": list(open_ids)}
                if open_ids
                else {"type": "string", "maxLength": 12},
            },
        },
        "required": ["score", "dimensions", "feedback", "improvements", "addressed"],
    }
    if source_ids and claim_ids:
        schema["properties"]["claims"] = {
            "type": "array",
            "maxItems": min(40, 2 * len(claim_ids)),
            "items": {
                "type": "object",
                "properties": {
                    "claim": {"type": "string", "enum": list(claim_ids)},
                    "source": {"type": "string", "enum": list(source_ids)},
                    "verdict": {"type": "string", "enum": ["supported", "unsupported", "contradicted"]},
                    "quote": {"type": "string", "maxLength": 300},
                    "reason": {"type": "string", "maxLength": 200},
                },
                "required": ["claim", "source", "verdict", "quote", "reason"],
            },
        }
        schema["required"].append("claims")
    if queries:
        schema["properties"]["search_queries"] = {
            "type": "array", "maxItems": 3, "items": {"type": "string", "minLength": 3, "maxLength": 120},
        }  # fmt: skip
    return schema


class AnswerCheck(BaseModel):
    """The critic's verdicts on an answer's cited claims (`reflectcli ask`)."""

    claims: list[Claim] = Field(default_factory=list)


def answer_check_schema(claim_ids: list[str], source_ids: list[str]) -> dict[str, Any]:
    """JSON schema for `AnswerCheck`: a verdict per (claim id, source id), held to the answer's ids."""
    claims = review_schema(source_ids=source_ids, claim_ids=claim_ids)["properties"]["claims"]
    return {"type": "object", "properties": {"claims": claims}, "required": ["claims"]}
