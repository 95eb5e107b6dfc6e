"""A file of tasks, one JSON object a line (a batch's task file, an eval's suite), validated by
one pydantic model each: `TaskLine` holds what both take (`task`, `overrides` of the settings a
line may change), `batch/tasks.py` and `eval/suites.py` add their own keys. Every bad line is
one line of the caller's error list, with its number, in words that name the key."""

from __future__ import annotations

import types
import typing
from collections.abc import Iterator
from typing import Any, ClassVar, TypeVar

from pydantic import BaseModel, ConfigDict, ValidationError, field_validator

from reflectcli.jsonl import records


class TaskLine(BaseModel):
    """One line: a task, and the settings it overrides (only those of `OVERRIDABLE`)."""

    model_config = ConfigDict(extra="forbid", strict=True)
    OVERRIDABLE: ClassVar[tuple[str, ...]] = ()

    task: str
    overrides: dict[str, Any] = {}

    @field_validator("task")
    @classmethod
    def _task(cls, value: str) -> str:
        if not value.strip():
            raise ValueError('"task" must be a non-empty string')
        return " ".join(value.split())

    @field_validator("overrides")
    @classmethod
    def _overrides(cls, value: dict[str, Any]) -> dict[str, Any]:
        unknown = sorted(set(value) - set(cls.OVERRIDABLE))
        if unknown:
            raise ValueError(f"unknown override {unknown[0]!r} (known: {', '.join(cls.OVERRIDABLE)})")
        return value


_NAMES = {str: "a string", int: "a whole number", float: "a number", bool: "true or false", dict: "an object"}


def _wanted(annotation: Any) -> str:
    """What a field takes, in words: "a string", "a list of strings", "a string or a whole number"."""
    origin, args = typing.get_origin(annotation), typing.get_args(annotation)
    if origin is list:
        return "a list of " + _wanted(args[0]).removeprefix("a ").removeprefix("an ") + "s"
    if origin is dict:
        return "an object"
    if args and (origin is typing.Union or isinstance(annotation, types.UnionType)):
        return " or ".join(_wanted(a) for a in args if a is not type(None))
    return _NAMES.get(annotation, getattr(annotation, "__name__", str(annotation)))


def describe(exc: ValidationError, model: type[BaseModel]) -> str:
    """The first error of a line, as one line naming the key: `unknown key 'x' (known: ...)`,
    `"tags" must be a list of strings`, or a validator's own words."""
    err = exc.errors()[0]
    key = str(err["loc"][0]) if err["loc"] else ""
    kind = err["type"]
    if kind == "extra_forbidden":
        return f"unknown key {key!r} (known: {', '.join(model.model_fields)})"
    if kind == "missing":
        return f'"{key}" is missing'
    if kind in ("value_error", "assertion_error"):
        return err["msg"].removeprefix("Value error, ").removeprefix("Assertion failed, ")
    if key in model.model_fields and (kind.endswith("_type") or kind.endswith("_parsing")):
        return f'"{key}" must be {_wanted(model.model_fields[key].annotation)}'
    return f'"{key}": {err["msg"]}'


Line = TypeVar("Line", bound=TaskLine)


def read_lines(text: str, where: str, model: type[Line], problems: list[str]) -> Iterator[tuple[int, Line]]:
    """(line number, validated line) for each good line of `text`; each bad one (not JSON, not
    an object, or not what `model` takes) is added to `problems` as `where:n: why`."""
    for n, item in records(text, where, problems):
        if not isinstance(item, dict):
            problems.append(f"{where}:{n}: each line must be a JSON object")
            continue
        try:
            yield n, model.model_validate(item)
        except ValidationError as exc:
            problems.append(f"{where}:{n}: {describe(exc, model)}")
