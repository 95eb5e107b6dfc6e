"""A batch's task file: JSONL, one task per line: `task` (required), `thread_id` (optional; made
from the task's words otherwise), `overrides` (settings for this task, e.g. {"max_rounds": 2}).
Every bad line is reported, one line each, with its number; a file with any bad line starts
nothing (a typo on line 57 is cheaper to fix before 200 paid runs than after)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pydantic import field_validator

from reflectcli.config import Settings, resume_settings
from reflectcli.errors import UserError
from reflectcli.runner import MAX_TASK_CHARS, new_thread_id
from reflectcli.store.db import THREAD_ID
from reflectcli.tasklines import TaskLine, read_lines


class BatchLine(TaskLine):
    """One task of a batch: `task`, an optional `thread_id`, `overrides`."""

    OVERRIDABLE = ("model", "critic_model", "critic", "threshold", "max_rounds", "max_sections",
                   "language", "section_tokens", "temperature", "timeout", "api_base",
                   "critic_api_base", "retries")  # fmt: skip

    thread_id: str | None = None

    @field_validator("task")
    @classmethod
    def _short(cls, value: str) -> str:
        if len(value) > MAX_TASK_CHARS:
            raise ValueError(f'"task" is {len(value)} characters; the limit is {MAX_TASK_CHARS}')
        return value

    @field_validator("thread_id")
    @classmethod
    def _thread(cls, value: str | None) -> str | None:
        if value is not None and not THREAD_ID.fullmatch(value):
            raise ValueError(f"invalid thread id {value!r}: use 1-64 letters, digits, '-' or '_'")
        return value


def parse(text: str, where: str, base: dict[str, Any]) -> list[dict[str, Any]]:
    """The batch's tasks (each with its line, thread id and overrides); a UserError listing
    every bad line if any is bad. `base` is the settings every task starts from."""
    tasks: list[dict[str, Any]] = []
    problems: list[str] = []
    seen: dict[str, int] = {}  # thread id -> its line
    for n, line in read_lines(text, where, BatchLine, problems):
        try:
            resume_settings(base, line.overrides)
        except UserError as exc:
            problems.append(f"{where}:{n}: override " + exc.message.replace("saved run settings: ", ""))
            continue
        thread = line.thread_id or new_thread_id(line.task)
        if thread in seen:
            problems.append(f"{where}:{n}: thread id {thread!r} is also on line {seen[thread]}")
            continue
        seen[thread] = n
        tasks.append({"line": n, "task": line.task, "thread_id": thread, "overrides": dict(line.overrides)})
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
