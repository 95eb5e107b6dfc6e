"""Running one task of a batch, the same way for `batch run`'s processes and queue workers: a
new run, or the resumption of its thread (a task picked up again after a kill never pays a
checkpointed or journaled call twice)."""

from __future__ import annotations

import io
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

from reflectcli.config import Settings, resume_settings
from reflectcli.errors import RunInterrupted
from reflectcli.retry import TASKS
from reflectcli.runner import Runner, warm
from reflectcli.store.db import Store

# attempts at a task whose provider keeps failing (each after the client's own retries), and
# the pauses between them: the one retry policy's (reflectcli/retry.py)
RETRIES = TASKS.attempts

# Runs one worker process takes at once (threads: a run waits on its model, not on the CPU), and
# so one process per this many runs, at most one a core: the GIL holds one process to one core.
# bench/bench_batch.py, 200 tasks at 200 ms a call on 2 cores (load ~4): 16 at once as 1 x 16
# 6.22 tasks/s and 0.152 s of CPU a task, as 2 x 8 5.96 tasks/s and 0.163 s (a second process's
# start, and its pool's connections): 16 runs use 0.7 of the one core a process can.
# REFLECTCLI_RUNS_PER_PROCESS overrides it (the bench compares splits with it).
RUNS_PER_PROCESS = 16


def shares(runs: int, cores: int | None = None) -> list[int]:
    """How `runs` runs at once are spread over worker processes, as evenly as they go: one
    process per RUNS_PER_PROCESS runs, never more processes than cores (nor than runs)."""
    runs = max(1, runs)
    cores = max(1, cores or os.cpu_count() or 1)
    try:
        per = max(1, int(os.environ.get("REFLECTCLI_RUNS_PER_PROCESS") or RUNS_PER_PROCESS))
    except ValueError:
        per = RUNS_PER_PROCESS
    processes = max(1, min(runs, cores, -(-runs // per)))
    base, extra = divmod(runs, processes)
    return [base + (i < extra) for i in range(processes)]


def pool_for(runs: int) -> None:
    """A worker process running `runs` runs at once: its PostgreSQL pool may grow to one
    connection a run (it opens them as they are needed), unless REFLECTCLI_POOL_SIZE says."""
    os.environ.setdefault("REFLECTCLI_POOL_SIZE", str(max(1, runs)))


def settings_for(batch: dict[str, Any], task: dict[str, Any], runs_dir: str | Path) -> Settings:
    """The batch's settings with the task's overrides, writing into this machine's runs folder."""
    settings = resume_settings(batch["settings"], task["overrides"])
    return settings.model_copy(update={"runs_dir": str(runs_dir), "interactive": False})


def quiet_ui():
    """A renderer that prints nowhere (a batch shows its own progress; runs keep their record)."""
    from rich.console import Console

    from reflectcli.output.render import Renderer

    return Renderer(console=Console(file=io.StringIO(), width=100), quiet=True)


def run_task(runs_dir: str | Path, batch: dict[str, Any], task: dict[str, Any],
             should_stop: Callable[[], bool] | None = None, own_signals: bool = True) -> str:  # fmt: skip
    """Write (or resume) the task's thread to its end: "done" or "waiting". Raises what the run
    raises: RunInterrupted when `should_stop` said so at a step boundary (or, with `own_signals`,
    on SIGTERM / Ctrl-C), ModelError (`transient` for the provider's faults), UserError."""
    with Store(runs_dir) as store:
        run = store.get_run(task["thread_id"])
    runner = Runner(quiet_ui(), should_stop=should_stop, own_signals=own_signals)
    if run is None:
        result = runner.write(task["task"], settings_for(batch, task, runs_dir), task["thread_id"])
    else:
        result = runner.resume(task["thread_id"], str(runs_dir), {})
    return "waiting" if result.waiting is not None else "done"


__all__ = ["RETRIES", "RUNS_PER_PROCESS", "TASKS", "RunInterrupted", "pool_for", "run_task", "settings_for",
           "shares", "warm"]  # fmt: skip
