"""The reflection memory's tables (SQLite or PostgreSQL): lessons, their evidence, the memory log,
the runs that learned, and the full-text index of lesson text (FTS5; tsvector on PostgreSQL).
SQL only; the rules (what to learn, how lessons merge, decay and are recalled) are in
reflectcli/memory."""

from __future__ import annotations

import json
import sqlite3
import time
from collections.abc import Callable, Iterator
from typing import Any

from reflectcli.store.connection import Connection
from reflectcli.store.library import _folded, tsquery

LESSON_KEYS = ("id", "text", "scope", "tags", "strength", "seen", "uses", "created_at", "last_seen",
               "status", "pinned", "superseded_by", "origin")  # fmt: skip
_SELECT = f"SELECT {', '.join(LESSON_KEYS)} FROM lessons"


def _lesson(row: tuple) -> dict[str, Any]:
    item = dict(zip(LESSON_KEYS, row, strict=True))
    item["pinned"] = bool(item["pinned"])
    return item


class MemoryTables:
    """Reads and writes of the memory tables on an open reflect.db connection."""

    def __init__(self, conn: Connection):
        self.conn = conn
        self.postgres = getattr(conn, "dialect", "sqlite") == "postgres"

    def indexed(self, body: str) -> str:
        """Diacritics dropped on PostgreSQL, as FTS5's unicode61 drops them (see Library.indexed)."""
        return _folded(body) if self.postgres else body

    # --- lessons ----------------------------------------------------------------------------

    def get(self, lesson_id: int) -> dict[str, Any] | None:
        row = self.conn.execute(f"{_SELECT} WHERE id = ?", (lesson_id,)).fetchone()
        return _lesson(row) if row else None

    def lessons(self, statuses: tuple[str, ...] = ("active",)) -> list[dict[str, Any]]:
        marks = ", ".join("?" * len(statuses))
        rows = self.conn.execute(f"{_SELECT} WHERE status IN ({marks}) ORDER BY id", statuses)
        return [_lesson(r) for r in rows]

    def insert(self, text: str, scope: str, tags: str, strength: float, now: float,
               origin: str, body: str) -> int:  # fmt: skip
        lesson_id = int(self.conn.execute(
            "INSERT INTO lessons (text, scope, tags, strength, created_at, last_seen, origin) "
            "VALUES (?, ?, ?, ?, ?, ?, ?) RETURNING id",
            (text, scope, tags, strength, now, now, origin),
        ).fetchone()[0])  # fmt: skip
        self.conn.execute(
            "INSERT INTO lesson_index (rowid, body) VALUES (?, ?)", (lesson_id, self.indexed(body))
        )
        return lesson_id

    def update(self, lesson_id: int, **fields: Any) -> None:
        sets = ", ".join(f"{k} = ?" for k in fields)
        self.conn.execute(f"UPDATE lessons SET {sets} WHERE id = ?", (*fields.values(), lesson_id))

    def reindex(self, lesson_id: int, body: str) -> None:
        self.conn.execute("DELETE FROM lesson_index WHERE rowid = ?", (lesson_id,))
        self.conn.execute(
            "INSERT INTO lesson_index (rowid, body) VALUES (?, ?)", (lesson_id, self.indexed(body))
        )

    def delete(self, lesson_id: int) -> None:
        """Gone for good: the lesson, its evidence and its index entry (the log keeps that it was)."""
        self.conn.execute("DELETE FROM lesson_index WHERE rowid = ?", (lesson_id,))
        self.conn.execute("DELETE FROM lesson_evidence WHERE lesson_id = ?", (lesson_id,))
        self.conn.execute("DELETE FROM lessons WHERE id = ?", (lesson_id,))

    def by_strength(self) -> Iterator[dict[str, Any]]:
        """Active lessons, strongest stored strength first (read lazily: callers stop early)."""
        for row in self.conn.execute(f"{_SELECT} WHERE status = 'active' ORDER BY strength DESC"):
            yield _lesson(row)

    def some(self, ids: list[int]) -> list[dict[str, Any]]:
        if not ids:
            return []
        marks = ", ".join("?" * len(ids))
        rows = self.conn.execute(f"{_SELECT} WHERE status = 'active' AND id IN ({marks})", ids)
        return [_lesson(r) for r in rows]

    def fade(self, strength_now: Callable[[float, float], float], floor: float) -> list[int]:
        """Archive the active, unpinned lessons whose strength now (`strength_now(strength,
        last_seen)`) is below `floor`; their ids."""
        if self.postgres:  # no Python functions inside PostgreSQL: compute here, then archive
            rows = self.conn.execute("SELECT id, strength, last_seen FROM lessons WHERE status = 'active' "
                                     "AND pinned = 0").fetchall()  # fmt: skip
            faded = sorted(int(i) for i, strength, seen in rows if strength_now(strength, seen) < floor)
            if faded:
                self.conn.execute(f"UPDATE lessons SET status = 'archived' WHERE id IN "
                                  f"({', '.join('?' * len(faded))})", faded)  # fmt: skip
            return faded
        assert isinstance(self.conn, sqlite3.Connection)  # not PostgreSQL: sqlite3's
        self.conn.create_function("strength_now", 2, strength_now, deterministic=True)
        rows = self.conn.execute(
            "UPDATE lessons SET status = 'archived' WHERE status = 'active' AND pinned = 0 "
            "AND strength_now(strength, last_seen) < ? RETURNING id",
            (floor,),
        ).fetchall()
        return sorted(int(r[0]) for r in rows)

    def matching(self, fts_query: str) -> dict[int, float]:
        """Active lesson ids whose text or tags match the query, with BM25 (lower is better;
        on PostgreSQL minus ts_rank, lower is better too)."""
        if self.postgres:
            rows = self.conn.execute(
                "SELECT rowid, -ts_rank(tsv, q) FROM lesson_index, to_tsquery('simple', ?) q WHERE tsv @@ q",
                (tsquery(fts_query),),
            )
            return {int(r): float(s) for r, s in rows}
        rows = self.conn.execute(
            "SELECT rowid, bm25(lesson_index) FROM lesson_index WHERE lesson_index MATCH ?",
            (fts_query,),
        )
        return {int(r): float(s) for r, s in rows}

    def count_used(self, ids: list[int]) -> None:
        self.conn.executemany("UPDATE lessons SET uses = uses + 1 WHERE id = ?", [(i,) for i in ids])

    # --- evidence and the log ---------------------------------------------------------------

    def add_evidence(self, lesson_id: int, thread_id: str | None, round_no: int | None, kind: str,
                     score_change: float | None, detail: str, now: float) -> None:  # fmt: skip
        self.conn.execute(
            "INSERT INTO lesson_evidence VALUES (?, ?, ?, ?, ?, ?, ?)",
            (lesson_id, thread_id, round_no, kind, score_change, detail, now),
        )

    def evidence(self, lesson_id: int) -> list[dict[str, Any]]:
        keys = ("thread_id", "round", "kind", "score_change", "detail", "at")
        rows = self.conn.execute(
            "SELECT thread_id, round, kind, score_change, detail, at FROM lesson_evidence "
            "WHERE lesson_id = ? ORDER BY at",
            (lesson_id,),
        )
        return [dict(zip(keys, r, strict=True)) for r in rows]

    def log(self, event: str, lesson_id: int | None, thread_id: str | None, detail: str,
            now: float | None = None) -> None:  # fmt: skip
        self.conn.execute(
            "INSERT INTO memory_log (at, event, lesson_id, thread_id, detail) VALUES (?, ?, ?, ?, ?)",
            (now if now is not None else time.time(), event, lesson_id, thread_id, detail),
        )

    def events(self, lesson_id: int | None = None) -> list[dict[str, Any]]:
        keys = ("at", "event", "lesson_id", "thread_id", "detail")
        sql = "SELECT at, event, lesson_id, thread_id, detail FROM memory_log"
        rows = (self.conn.execute(sql + " WHERE lesson_id = ? ORDER BY id", (lesson_id,))
                if lesson_id is not None else self.conn.execute(sql + " ORDER BY id"))  # fmt: skip
        return [dict(zip(keys, r, strict=True)) for r in rows]

    # --- runs that learned (a resumed learning step stores nothing twice) ----------------------

    def learned(self, thread_id: str) -> dict[str, Any] | None:
        row = self.conn.execute("SELECT result FROM memory_runs WHERE thread_id = ?",
                                (thread_id,)).fetchone()  # fmt: skip
        return json.loads(row[0]) if row else None

    def mark_learned(self, thread_id: str, result: dict[str, Any], now: float) -> None:
        self.conn.execute("INSERT INTO memory_runs VALUES (?, ?, ?)",
                          (thread_id, now, json.dumps(result)))  # fmt: skip
