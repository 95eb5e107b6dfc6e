"""The call journal, as the store's half that keeps it (a mixin of store/db.py's Store): every
model answer saved under its call's key the moment it arrives, so a resumed run replays it
instead of paying again; for a run this store holds, the write checks the claim itself."""

from __future__ import annotations

import json
import threading
import time
from typing import Any

from reflectcli.errors import LostClaim
from reflectcli.store.connection import Connection


class Journal:
    conn: Connection
    dialect: str
    _lock: threading.RLock
    _fences: dict[str, int]
    _journal_keys: dict[str, set[str]]

    def lost(self, thread_id: str) -> LostClaim:
        raise NotImplementedError

    def journal_get(self, key: str) -> dict[str, Any] | None:
        with self._lock:
            row = self.conn.execute("SELECT answer FROM call_journal WHERE key = ?", (key,)).fetchone()
        return json.loads(row[0]) if row else None

    def journaled(self, thread_id: str, key: str) -> dict[str, Any] | None:
        """`journal_get` for a thread this store holds, without a query for a key the journal
        does not have: its keys are read once, after the claim (nobody else writes them while
        it holds), and kept up to date by this store's own journal_put. A thread it does not
        hold is asked every time."""
        if thread_id not in self._fences:
            return self.journal_get(key)
        with self._lock:
            keys = self._journal_keys.get(thread_id)
            if keys is None:
                rows = self.conn.execute("SELECT key FROM call_journal WHERE thread_id = ?", (thread_id,))
                keys = self._journal_keys[thread_id] = {r[0] for r in rows}
        return self.journal_get(key) if key in keys else None

    def journal_count(self, thread_id: str) -> int:
        """Model answers journaled for the thread (searches, journaled beside them, left out)."""
        with self._lock:  # one thread at a time on the shared connection
            return self.conn.execute(
                "SELECT COUNT(*) FROM call_journal WHERE thread_id = ? AND step NOT LIKE 'search:%'"
                " AND step NOT LIKE 'spent:%'",
                (thread_id,),
            ).fetchone()[0]

    def journal_put(self, key: str, thread_id: str, step: str, answer: dict[str, Any]) -> None:
        """Journal an answer. For a thread this store holds, one statement that checks the claim
        itself (the insert happens only while the run's row has this store's generation, read
        FOR SHARE on PostgreSQL; none inserted: LostClaim), so it needs no transaction of its own."""
        generation = self._fences.get(thread_id)
        with self._lock:  # calls at once journal from several threads
            if generation is None:
                self._journal_put(key, thread_id, step, answer)
                return
            lock = " FOR SHARE" if self.dialect == "postgres" else ""
            done = self.conn.execute(
                "INSERT INTO call_journal SELECT ?, ?, ?, ?, ?, ? WHERE EXISTS (SELECT 1 FROM runs "
                f"WHERE thread_id = ? AND generation = ?{lock}) ON CONFLICT (key) DO UPDATE SET "
                "thread_id = excluded.thread_id, step = excluded.step, model = excluded.model, "
                "answer = excluded.answer, created_at = excluded.created_at",
                (key, thread_id, step, answer.get("model", ""), json.dumps(answer), time.time(), thread_id,
                 generation),
            ).rowcount  # fmt: skip
            if not done:
                raise self.lost(thread_id)
            if (keys := self._journal_keys.get(thread_id)) is not None:
                keys.add(key)

    def _journal_put(self, key: str, thread_id: str, step: str, answer: dict[str, Any]) -> None:
        self.conn.execute(
            "INSERT INTO call_journal VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (key) DO UPDATE SET "
            "thread_id = excluded.thread_id, step = excluded.step, model = excluded.model, "
            "answer = excluded.answer, created_at = excluded.created_at",
            (key, thread_id, step, answer.get("model", ""), json.dumps(answer), time.time()),
        )
