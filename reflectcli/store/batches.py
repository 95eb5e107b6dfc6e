"""The batch tables: a batch (its task file, mode, the settings every task starts from) and its
tasks (line, thread id, per-task overrides, job id, when queued and started, attempts, last error).
SQL only; what a task's status is, is derived from these rows and the run index (reflectcli/batch)."""

from __future__ import annotations

import json
import time
from typing import Any

from reflectcli.store.connection import Connection

BATCH_KEYS = ("id", "created_at", "source", "mode", "settings", "cancelled")
TASK_KEYS = ("batch_id", "n", "line", "thread_id", "task", "overrides", "job_id", "worker",
             "queued_at", "started_at", "attempts", "faults", "error")  # fmt: skip


def _batch(row: Any) -> dict[str, Any]:
    item = dict(zip(BATCH_KEYS, row, strict=True))
    item["settings"] = json.loads(item["settings"])
    item["cancelled"] = bool(item["cancelled"])
    return item


def _task(row: Any) -> dict[str, Any]:
    item = dict(zip(TASK_KEYS, row, strict=True))
    item["overrides"] = json.loads(item["overrides"])
    return item


class BatchTables:
    """Reads and writes of the batch tables on an open store connection (either backend)."""

    def __init__(self, conn: Connection):
        self.conn = conn

    def create(self, batch_id: str, source: str, mode: str, settings: dict[str, Any],
               tasks: list[dict[str, Any]]) -> None:  # fmt: skip
        now = time.time()
        self.conn.execute(
            "INSERT INTO batches (id, created_at, source, mode, settings) VALUES (?, ?, ?, ?, ?)",
            (batch_id, now, source, mode, json.dumps(settings)),
        )
        self.conn.executemany(
            "INSERT INTO batch_tasks (batch_id, n, line, thread_id, task, overrides, queued_at) "
            "VALUES (?, ?, ?, ?, ?, ?, ?)",
            [(batch_id, n, t["line"], t["thread_id"], t["task"], json.dumps(t["overrides"]), now)
             for n, t in enumerate(tasks, 1)],
        )  # fmt: skip

    def get(self, batch_id: str) -> dict[str, Any] | None:
        row = self.conn.execute(f"SELECT {', '.join(BATCH_KEYS)} FROM batches WHERE id = ?",
                                (batch_id,)).fetchone()  # fmt: skip
        return _batch(row) if row else None

    def batches(self, limit: int = 20) -> list[dict[str, Any]]:
        rows = self.conn.execute(
            f"SELECT {', '.join(BATCH_KEYS)} FROM batches ORDER BY created_at DESC LIMIT {int(limit)}"
        )
        return [_batch(r) for r in rows]

    def tasks(self, batch_id: str) -> list[dict[str, Any]]:
        rows = self.conn.execute(f"SELECT {', '.join(TASK_KEYS)} FROM batch_tasks WHERE batch_id = ? "
                                 "ORDER BY n", (batch_id,))  # fmt: skip
        return [_task(r) for r in rows]

    def task(self, batch_id: str, n: int) -> dict[str, Any] | None:
        row = self.conn.execute(f"SELECT {', '.join(TASK_KEYS)} FROM batch_tasks WHERE batch_id = ? "
                                "AND n = ?", (batch_id, n)).fetchone()  # fmt: skip
        return _task(row) if row else None

    def set_job(self, batch_id: str, n: int, job_id: int) -> None:
        self.conn.execute("UPDATE batch_tasks SET job_id = ? WHERE batch_id = ? AND n = ?",
                          (job_id, batch_id, n))  # fmt: skip

    def claim(self, batch_id: str, worker: str) -> dict[str, Any] | None:
        """The next task nobody holds (`batch run`'s own processes share them out this way: a
        compare-and-swap on `started_at`; `worker` names the claimant). None when none is left."""
        for row in self.conn.execute(
            "SELECT n, job_id FROM batch_tasks WHERE batch_id = ? AND started_at IS NULL ORDER BY n",
            (batch_id,),
        ).fetchall():
            taken = self.conn.execute(
                "UPDATE batch_tasks SET started_at = ?, worker = ?, attempts = attempts + 1 "
                "WHERE batch_id = ? AND n = ? AND started_at IS NULL",
                (time.time(), worker, batch_id, row[0]),
            ).rowcount
            if taken:
                return self.task(batch_id, row[0])
        return None

    def started(self, batch_id: str, n: int, worker: str) -> None:
        """A queue worker took the task (the queue did the claiming)."""
        self.conn.execute("UPDATE batch_tasks SET started_at = COALESCE(started_at, ?), worker = ?, "
                          "attempts = attempts + 1 WHERE batch_id = ? AND n = ?",
                          (time.time(), worker, batch_id, n))  # fmt: skip

    def unclaim(self, batch_id: str, ns: list[int] | None = None) -> int:
        """Give tasks back (their worker died, or a batch is resumed): every one of the batch,
        or those numbered `ns`."""
        sql = "UPDATE batch_tasks SET started_at = NULL, worker = NULL WHERE batch_id = ?"
        args: list[Any] = [batch_id]
        if ns is not None:
            if not ns:
                return 0
            sql += f" AND n IN ({', '.join('?' * len(ns))})"
            args += ns
        return self.conn.execute(sql, args).rowcount

    def fault(self, batch_id: str, n: int) -> int:
        """Count one provider failure of the task (restarts and give-backs are not failures);
        the count so far."""
        self.conn.execute("UPDATE batch_tasks SET faults = faults + 1 WHERE batch_id = ? AND n = ?",
                          (batch_id, n))  # fmt: skip
        row = self.conn.execute("SELECT faults FROM batch_tasks WHERE batch_id = ? AND n = ?",
                                (batch_id, n)).fetchone()  # fmt: skip
        return int(row[0]) if row else 0

    def busy(self, batch_id: str, n: int, generation: int | None) -> int:
        """Count one attempt at the task that found its thread held by the live claim
        `generation`; the count of such attempts in a row against that same claim (a new
        holder's claim starts again at 1: kills and requeues are not a stuck holder)."""
        self.conn.execute("UPDATE batch_tasks SET busy = CASE WHEN busy_generation IS NOT NULL AND "
                          "busy_generation = ? THEN busy + 1 ELSE 1 END, busy_generation = ? WHERE "
                          "batch_id = ? AND n = ?", (generation, generation, batch_id, n))  # fmt: skip
        row = self.conn.execute("SELECT busy FROM batch_tasks WHERE batch_id = ? AND n = ?",
                                (batch_id, n)).fetchone()  # fmt: skip
        return int(row[0]) if row else 0

    def taken(self, thread_ids: list[str]) -> set[str]:
        """Which of these thread ids a batch task already has."""
        out: set[str] = set()
        for i in range(0, len(thread_ids), 500):
            part = thread_ids[i : i + 500]
            rows = self.conn.execute(f"SELECT thread_id FROM batch_tasks WHERE thread_id IN "
                                     f"({', '.join('?' * len(part))})", part)  # fmt: skip
            out.update(r[0] for r in rows)
        return out

    def set_error(self, batch_id: str, n: int, error: str | None) -> None:
        self.conn.execute("UPDATE batch_tasks SET error = ? WHERE batch_id = ? AND n = ?",
                          (error, batch_id, n))  # fmt: skip

    def cancel(self, batch_id: str) -> None:
        self.conn.execute("UPDATE batches SET cancelled = 1 WHERE id = ?", (batch_id,))

    def cancelled(self, batch_id: str) -> bool:
        row = self.conn.execute("SELECT cancelled FROM batches WHERE id = ?", (batch_id,)).fetchone()
        return bool(row and row[0])

    def runs(self, thread_ids: list[str]) -> dict[str, dict[str, Any]]:
        """The run index rows of these threads (status, rounds, tokens, cost, owner)."""
        if not thread_ids:
            return {}
        keys = ("thread_id", "status", "rounds", "calls", "tokens", "cost", "final_score", "stop_reason",
                "error", "owner_pid", "owner_host", "lease_until", "created_at", "updated_at")  # fmt: skip
        out = {}
        for i in range(0, len(thread_ids), 500):
            part = thread_ids[i : i + 500]
            rows = self.conn.execute(f"SELECT {', '.join(keys)} FROM runs WHERE thread_id IN "
                                     f"({', '.join('?' * len(part))})", part)  # fmt: skip
            out.update({r[0]: dict(zip(keys, r, strict=True)) for r in rows})
        return out

    def add_queue_fault(self, job_id: int | None, worker: str, kind: str, error: str) -> None:
        """A failure of a queue worker's maintenance loop (putting a stalled job back, say)."""
        self.conn.execute("INSERT INTO queue_faults (at, job_id, worker, kind, error) VALUES (?, ?, ?, ?, ?)",
                          (time.time(), job_id, worker, kind, error))  # fmt: skip

    def queue_faults(self, job_ids: list[int], since: float) -> dict[str, Any]:
        """The maintenance failures that concern these jobs, or no job (the check itself failed)
        since `since`: their count and the last one's error."""
        count, last = 0, None
        for i in range(0, max(1, len(job_ids)), 500):
            part = job_ids[i : i + 500] or [-1]
            rows = self.conn.execute(
                f"SELECT at, error FROM queue_faults WHERE at >= ? AND (job_id IN "
                f"({', '.join('?' * len(part))}){' OR job_id IS NULL' if i == 0 else ''})",
                (since, *part),
            ).fetchall()  # fmt: skip
            count += len(rows)
            for at, error in rows:
                if last is None or at > last[0]:
                    last = (at, error)
        return {"count": count, "last": last[1] if last else None}
