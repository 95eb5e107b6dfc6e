"""What a batch's tasks are doing, derived from the batch rows, the run index and (for queued
batches) the job queue: the one function that decides a task's status, and the totals."""

from __future__ import annotations

import time
from typing import Any

from reflectcli.store.db import effective_status

STATUSES = ("queued", "running", "done", "failed", "cancelled")


def task_status(task: dict[str, Any], run: dict[str, Any] | None, cancelled: bool,
                job: str | None = None) -> str:  # fmt: skip
    """done: its run finished. running: a live process holds its run. failed: it failed for
    good (its error is kept). cancelled: the batch was cancelled before it finished. queued:
    anything else (not started, waiting for a retry, or given back by a dead worker)."""
    status = effective_status(run) if run else None
    if status == "finished":
        return "done"
    if status == "running" or job == "doing":
        return "running"
    if task.get("error"):
        return "failed"
    if cancelled or job in ("cancelled", "aborted"):
        return "cancelled"
    if job == "failed":
        return "failed"
    return "queued"


def summarize(batch: dict[str, Any], tasks: list[dict[str, Any]], runs: dict[str, dict[str, Any]],
              jobs: dict[int, str] | None = None, now: float | None = None) -> dict[str, Any]:  # fmt: skip
    """Per task: status, rounds, tokens, cost, error. Totals per status, tokens, cost, and an
    ETA from the pace of the tasks done so far (None until one is done)."""
    now = time.time() if now is None else now
    jobs = jobs or {}
    rows, counts = [], dict.fromkeys(STATUSES, 0)
    tokens, cost, priced = 0, 0.0, False
    for task in tasks:
        run = runs.get(task["thread_id"])
        status = task_status(task, run, batch["cancelled"], jobs.get(task["job_id"] or -1))
        counts[status] += 1
        tokens += (run or {}).get("tokens") or 0
        if run is not None and run.get("cost") is not None:
            cost, priced = cost + run["cost"], True
        rows.append({
            "n": task["n"], "line": task["line"], "thread_id": task["thread_id"], "task": task["task"],
            "status": status, "attempts": task["attempts"], "faults": task.get("faults") or 0,
            "job_id": task["job_id"],
            "rounds": (run or {}).get("rounds"), "tokens": (run or {}).get("tokens"),
            "cost": (run or {}).get("cost"), "final_score": (run or {}).get("final_score"),
            # "form" when the checklist reviewed it: the score measures form, not the article
            "scored": ("form" if (run or {}).get("critic_model") == "checklist" else "critic")
            if (run or {}).get("final_score") is not None else None,
            "error": task.get("error") or ((run or {}).get("error") if status == "failed" else None),
        })  # fmt: skip
    finished = counts["done"] + counts["failed"]
    left = counts["queued"] + counts["running"]
    elapsed = now - batch["created_at"]
    eta = round(elapsed / finished * left, 1) if finished and left and not batch["cancelled"] else None
    return {
        "batch_id": batch["id"], "source": batch["source"], "mode": batch["mode"],
        "created_at": batch["created_at"], "cancelled": batch["cancelled"], "tasks": len(tasks),
        "counts": counts, "tokens": tokens, "cost": round(cost, 6) if priced else None,
        "elapsed": round(elapsed, 1), "eta_seconds": eta, "finished": left == 0, "items": rows,
    }  # fmt: skip
