"""Eval suites: JSONL, one task per line: `task` (required), `reference` (optional text the
judge may compare with, e.g. a FreshWiki article: reference metrics are then computed),
`tags` (a list of words), `overrides` (settings for this task, e.g. {"max_rounds": 2}),
`length` (the words the task asks for: LongBench-Write's length score), `id` (matches the
task to another system's article with --against-outputs). DeepResearch Bench's `query.jsonl`
shape is read as it is: `prompt` is the task, `topic` a tag, `language` the language override.
Built-in suites ship with the package: `smoke` (5 tasks) and `standard` (35). Every bad line
is reported, one line each, with its number."""

from __future__ import annotations

from importlib import resources
from pathlib import Path
from typing import Any

from pydantic import field_validator, model_validator

from reflectcli.errors import UserError
from reflectcli.tasklines import TaskLine, read_lines

BUILTIN = ("smoke", "standard")


class SuiteLine(TaskLine):
    """One task of a suite: ours (`task`, `reference`, `tags`, `overrides`, `length`, `id`) or
    DeepResearch Bench's (`id`, `topic`, `language`, `prompt`: the task)."""

    OVERRIDABLE = ("threshold", "max_rounds", "max_sections", "language", "section_tokens", "temperature")

    task: str = ""
    reference: str | None = None
    tags: list[str] = []
    length: int | None = None
    id: str | int | None = None
    prompt: str | None = None
    topic: str | None = None
    language: str | None = None

    @model_validator(mode="before")
    @classmethod
    def _prompt_is_the_task(cls, item: Any) -> Any:
        if isinstance(item, dict) and "task" not in item and isinstance(item.get("prompt"), str):
            return {**item, "task": item["prompt"]}
        if isinstance(item, dict) and "task" not in item:
            raise ValueError('"task" (or DeepResearch Bench\'s "prompt") must be a non-empty string')
        return item

    @field_validator("length")
    @classmethod
    def _length(cls, value: int | None) -> int | None:
        if value is not None and value < 1:
            raise ValueError('"length" must be a whole number of words, at least 1')
        return value


def builtin_text(name: str) -> str:
    if name not in BUILTIN:
        raise UserError(f"no built-in suite {name!r}: choose {' or '.join(BUILTIN)}", exit_code=2)
    return (resources.files("reflectcli.eval") / "suites" / f"{name}.jsonl").read_text("utf-8")


def parse(text: str, where: str) -> list[dict[str, Any]]:
    """The suite's tasks; a UserError listing every bad line (one line each) if any is bad."""
    problems: list[str] = []
    tasks = [_task(line, i, n) for i, (n, line) in enumerate(read_lines(text, where, SuiteLine, problems), 1)]
    if problems:
        raise UserError("\n".join(problems), hint="fix these lines and run again", exit_code=2)
    if not tasks:
        raise UserError(f'{where}: no tasks (one JSON object per line, with a "task")', exit_code=2)
    return tasks


def _task(item: SuiteLine, n: int, line: int) -> dict[str, Any]:
    """One task from a valid line (ours, or DeepResearch Bench's id / topic / language / prompt)."""
    overrides = dict(item.overrides)
    if item.language and "language" not in overrides:
        overrides["language"] = item.language
    tags = list(item.tags) + ([item.topic] if item.topic else [])
    return {"n": n, "line": line, "task": item.task, "reference": item.reference or None, "tags": tags,
            "overrides": overrides, "id": str(item.id) if item.id is not None else None,
            "length": item.length}  # fmt: skip


def load(path: str | None, builtin: str | None) -> tuple[str, list[dict[str, Any]]]:
    """(suite name, tasks) from a file or a built-in suite."""
    if builtin:
        return builtin, parse(builtin_text(builtin), f"builtin:{builtin}")
    if not path:
        raise UserError("name a suite file or --builtin smoke|standard", exit_code=2)
    file = Path(path)
    try:
        text = file.read_text(encoding="utf-8")
    except OSError as exc:
        raise UserError(f"cannot read {file}: {exc.strerror or exc}", exit_code=2) from exc
    return str(file), parse(text, str(file))
