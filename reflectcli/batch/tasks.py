"""A batch's task file: JSONL, one task per line: `task` (required), `thread_id` (optional; made
from the task's words otherwise), `overrides` (settings for this task, e.g. {"max_rounds": 2}).
Every bad line is reported, one line each, with its number; a file with any bad line starts
nothing (a typo on line 57 is cheaper to fix before 200 paid runs than after)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from reflectcli.config import Settings, resume_settings
from reflectcli.errors import UserError
from reflectcli.jsonl import records
from reflectcli.runner import MAX_TASK_CHARS, new_thread_id
from reflectcli.store.db import THREAD_ID

OVERRIDABLE = ("model", "critic_model", "critic", "threshold", "max_rounds", "max_sections", "language",
               "section_tokens", "temperature", "timeout", "api_base", "critic_api_base",
               "retries")  # fmt: skip
KEYS = ("task", "thread_id", "overrides")


def _invalid(item: Any, base: dict[str, Any]) -> str | None:
    if not isinstance(item, dict):
        return "each line must be a JSON object"
    extra = sorted(set(item) - set(KEYS))
    if extra:
        return f"unknown key {extra[0]!r} (known: {', '.join(KEYS)})"
    task = item.get("task")
    if not isinstance(task, str) or not task.strip():
        return '"task" must be a non-empty string'
    if len(task.strip()) > MAX_TASK_CHARS:
        return f'"task" is {len(task.strip())} characters; the limit is {MAX_TASK_CHARS}'
    thread = item.get("thread_id")
    if thread is not None and (not isinstance(thread, str) or not THREAD_ID.fullmatch(thread)):
        return f"invalid thread id {thread!r}: use 1-64 letters, digits, '-' or '_'"
    overrides = item.get("overrides", {})
    if not isinstance(overrides, dict):
        return '"overrides" must be an object'
    unknown = sorted(set(overrides) - set(OVERRIDABLE))
    if unknown:
        return f"unknown override {unknown[0]!r} (known: {', '.join(OVERRIDABLE)})"
    try:
        resume_settings(base, overrides)
    except UserError as exc:
        return "override " + exc.message.replace("saved run settings: ", "")
    return None


def parse(text: str, where: str, base: dict[str, Any]) -> list[dict[str, Any]]:
    """The batch's tasks (each with its line, thread id and overrides); a UserError listing
    every bad line if any is bad. `base` is the settings every task starts from."""
    tasks, problems, seen = [], [], {}
    for n, item in records(text, where, problems):
        why = _invalid(item, base)
        if why:
            problems.append(f"{where}:{n}: {why}")
            continue
        task = " ".join(item["task"].split())
        thread = item.get("thread_id") or new_thread_id(task)
        if thread in seen:
            problems.append(f"{where}:{n}: thread id {thread!r} is also on line {seen[thread]}")
            continue
        seen[thread] = n
        tasks.append({"line": n, "task": task, "thread_id": thread,
                      "overrides": dict(item.get("overrides") or {})})  # fmt: skip
    if problems:
        raise UserError("\n".join(problems), hint="fix these lines and run again", exit_code=2)
    if not tasks:
        raise UserError(f'{where}: no tasks (one JSON object per line, with a "task")', exit_code=2)
    return tasks


def load(path: str | Path, settings: Settings) -> list[dict[str, Any]]:
    file = Path(path)
    try:
        text = file.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        why = getattr(exc, "strerror", None) or str(exc)
        raise UserError(f"cannot read {file}: {why}", hint="name a JSONL file of tasks", exit_code=2) from exc
    return parse(text, str(file), settings.run_params())
