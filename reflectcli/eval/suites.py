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

from reflectcli.errors import UserError
from reflectcli.jsonl import records

BUILTIN = ("smoke", "standard")
KEYS = ("task", "reference", "tags", "overrides", "length", "id", "prompt", "topic", "language")
OVERRIDABLE = ("threshold", "max_rounds", "max_sections", "language", "section_tokens", "temperature")


def builtin_text(name: str) -> str:
    if name not in BUILTIN:
        raise UserError(f"no built-in suite {name!r}: choose {' or '.join(BUILTIN)}", exit_code=2)
    return (resources.files("reflectcli.eval") / "suites" / f"{name}.jsonl").read_text("utf-8")


def parse(text: str, where: str) -> list[dict[str, Any]]:
    """The suite's tasks; a UserError listing every bad line (one line each) if any is bad."""
    tasks, problems = [], []
    for n, item in records(text, where, problems):
        why = _invalid(item)
        if why:
            problems.append(f"{where}:{n}: {why}")
            continue
        tasks.append(_task(item, len(tasks) + 1, n))
    if problems:
        raise UserError("\n".join(problems), hint="fix these lines and run again", exit_code=2)
    if not tasks:
        raise UserError(f'{where}: no tasks (one JSON object per line, with a "task")', exit_code=2)
    return tasks


def _task(item: dict[str, Any], n: int, line: int) -> dict[str, Any]:
    """One task from a valid line (ours, or DeepResearch Bench's id / topic / language / prompt)."""
    overrides = dict(item.get("overrides") or {})
    if item.get("language") and "language" not in overrides:
        overrides["language"] = item["language"]
    tags = list(item.get("tags") or []) + ([item["topic"]] if item.get("topic") else [])
    return {"n": n, "line": line, "task": " ".join((item.get("task") or item["prompt"]).split()),
            "reference": item.get("reference") or None, "tags": tags, "overrides": overrides,
            "id": str(item["id"]) if item.get("id") is not None else None,
            "length": item.get("length")}  # fmt: skip


def _invalid(item: Any) -> str | None:
    if not isinstance(item, dict):
        return "each line must be a JSON object"
    text = item.get("task", item.get("prompt"))
    if not isinstance(text, str) or not text.strip():
        return '"task" (or DeepResearch Bench\'s "prompt") must be a non-empty string'
    if "id" in item and not isinstance(item["id"], (str, int)) or isinstance(item.get("id"), bool):
        return '"id" must be a string or an integer'
    length = item.get("length")
    if length is not None and (not isinstance(length, int) or isinstance(length, bool) or length < 1):
        return '"length" must be a whole number of words, at least 1'
    for key in ("topic", "language"):
        if item.get(key) is not None and not isinstance(item[key], str):
            return f'"{key}" must be a string'
    if "reference" in item and item["reference"] is not None and not isinstance(item["reference"], str):
        return '"reference" must be a string'
    tags = item.get("tags", [])
    if not isinstance(tags, list) or not all(isinstance(t, str) for t in tags):
        return '"tags" must be a list of strings'
    overrides = item.get("overrides", {})
    if not isinstance(overrides, dict):
        return '"overrides" must be an object'
    unknown = sorted(set(overrides) - set(OVERRIDABLE))
    if unknown:
        return f"unknown override {unknown[0]!r} (known: {', '.join(OVERRIDABLE)})"
    extra = sorted(set(item) - set(KEYS))
    if extra:
        return f"unknown key {extra[0]!r} (known: {', '.join(KEYS)})"
    return None


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
