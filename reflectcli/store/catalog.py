"""Past runs: find one, list them, delete and prune. Reads our own tables only (no LangGraph)."""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from reflectcli.errors import UserError
from reflectcli.store.db import Store, validate_thread_id
from reflectcli.store.queries import list_runs, run_stats


@contextmanager
def open_store(runs_dir: Path, read_only: bool = True) -> Iterator[Store | None]:
    """The store if its database exists (read-only commands create nothing), closed after."""
    store = Store.existing(runs_dir, read_only=read_only)
    try:
        yield store
    finally:
        if store is not None:
            store.close()


def load_run(runs_dir: Path, thread_id: str) -> tuple[dict[str, Any], dict[str, Any]]:
    """The index row and the latest state of a thread; one-line errors when unknown."""
    validate_thread_id(thread_id)
    with open_store(runs_dir) as store:
        run = store.get_run(thread_id) if store else None
        if store is None or run is None:
            raise UserError(f"unknown thread id {thread_id!r} in {runs_dir}",
                            hint="`reflectcli history` lists the runs")  # fmt: skip
        state = store.load_state(thread_id) or {
            "task": run["task"], "params": run["settings"],
            "status": "finished" if run["status"] == "finished" else "running",
        }  # fmt: skip
    return run, state


def history(runs_dir: Path, **filters: Any) -> list[dict[str, Any]]:
    with open_store(runs_dir) as store:
        return list_runs(store.conn, **filters) if store else []


def stats(runs_dir: Path, since_days: float | None = None) -> dict[str, Any]:
    since = time.time() - since_days * 86400 if since_days is not None else None
    with open_store(runs_dir) as store:
        if store is None:
            return {"runs": 0, "since": since}
        return run_stats(store.conn, since)


def delete(runs_dir: Path, thread_id: str) -> dict[str, Any]:
    """Remove a run's rows and its artifact; refuses a run another process is running."""
    run, _ = load_run(runs_dir, thread_id)
    if run["status"] == "running":
        raise UserError(f"thread {thread_id} is running now", hint="stop it first")
    with open_store(runs_dir, read_only=False) as store:
        if store is not None:  # (None: its database went meanwhile, and the run with it)
            store.delete_run(thread_id)
    artifact = Path(run["artifact"] or "")
    if artifact.name == f"{thread_id}.md" and artifact.is_file():
        artifact.unlink()
    return run


def prune(runs_dir: Path, older_than_days: float, dry_run: bool = False) -> list[dict[str, Any]]:
    """Delete runs (not running ones) last updated more than `older_than_days` ago."""
    cutoff = time.time() - older_than_days * 86400
    with open_store(runs_dir) as store:
        if store is None:
            return []
        old = [r for r in list_runs(store.conn, limit=None) if r["updated_at"] < cutoff
               and r["status"] != "running"]  # fmt: skip
    if not dry_run:
        for run in old:
            delete(runs_dir, run["thread_id"])
    return old
