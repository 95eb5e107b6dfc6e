"""The eval tables in reflect.db: one row per evaluation (suite, judge, settings, tasks, status)
and one per stored judgement (task number, kind). SQL only; the eval package decides."""

from __future__ import annotations

import json
import time
from typing import Any

from reflectcli.store.connection import Connection

EVAL_KEYS = ("id", "created_at", "updated_at", "suite", "judge", "settings", "tasks", "status",
             "against", "meta")  # fmt: skip


def _eval(row: tuple) -> dict[str, Any]:
    item = dict(zip(EVAL_KEYS, row, strict=True))
    item["settings"] = json.loads(item["settings"])
    item["tasks"] = json.loads(item["tasks"])
    item["against"] = json.loads(item["against"]) if item["against"] else None
    item["meta"] = json.loads(item["meta"]) if item["meta"] else {}
    return item


class EvalTables:
    def __init__(self, conn: Connection):
        self.conn = conn

    def create(self, eval_id: str, suite: str, judge: str, settings: dict[str, Any],
               tasks: list[dict[str, Any]], against: dict[str, Any] | None = None,
               meta: dict[str, Any] | None = None) -> None:  # fmt: skip
        now = time.time()
        self.conn.execute(
            f"INSERT INTO evals ({', '.join(EVAL_KEYS)}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                eval_id,
                now,
                now,
                suite,
                judge,
                json.dumps(settings),
                json.dumps(tasks),
                "running",
                json.dumps(against) if against is not None else None,
                json.dumps(meta or {}),
            ),
        )

    def get(self, eval_id: str) -> dict[str, Any] | None:
        row = self.conn.execute(f"SELECT {', '.join(EVAL_KEYS)} FROM evals WHERE id = ?",
                                (eval_id,)).fetchone()  # fmt: skip
        return _eval(row) if row else None

    def all(self) -> list[dict[str, Any]]:
        rows = self.conn.execute(f"SELECT {', '.join(EVAL_KEYS)} FROM evals ORDER BY created_at DESC")
        return [_eval(r) for r in rows]

    def set_status(self, eval_id: str, status: str) -> None:
        self.conn.execute("UPDATE evals SET status = ?, updated_at = ? WHERE id = ?",
                          (status, time.time(), eval_id))  # fmt: skip

    def set_meta(self, eval_id: str, key: str, value: Any) -> None:
        """One key of the eval's `meta` (e.g. `result`, its headline once finished)."""
        meta = (self.get(eval_id) or {}).get("meta") or {}
        self.conn.execute("UPDATE evals SET meta = ?, updated_at = ? WHERE id = ?",
                          (json.dumps({**meta, key: value}), time.time(), eval_id))  # fmt: skip

    def result(self, eval_id: str, n: int, kind: str) -> dict[str, Any] | None:
        row = self.conn.execute("SELECT result FROM eval_results WHERE eval_id = ? AND n = ? AND kind = ?",
                                (eval_id, n, kind)).fetchone()  # fmt: skip
        return json.loads(row[0]) if row else None

    def results(self, eval_id: str) -> dict[tuple[int, str], dict[str, Any]]:
        rows = self.conn.execute("SELECT n, kind, result FROM eval_results WHERE eval_id = ?", (eval_id,))
        return {(n, kind): json.loads(result) for n, kind, result in rows}

    def save(self, eval_id: str, n: int, kind: str, result: dict[str, Any]) -> None:
        self.conn.execute("INSERT INTO eval_results VALUES (?, ?, ?, ?, ?) ON CONFLICT (eval_id, n, kind) "
                          "DO UPDATE SET result = excluded.result, at = excluded.at",
                          (eval_id, n, kind, json.dumps(result), time.time()))  # fmt: skip
        self.conn.execute("UPDATE evals SET updated_at = ? WHERE id = ?", (time.time(), eval_id))
