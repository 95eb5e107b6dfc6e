"""SQLite storage: our own tables (run index, call journal) beside LangGraph's checkpoints.

One file, `<runs_dir>/reflect.db`, in WAL mode. Our tables are created by ordered, numbered
migrations recorded in `_migrations`. LangGraph's checkpointer gets its own connection to the
same file, with a strict (no pickle, allow-listed msgpack) serializer.
"""

from __future__ import annotations

import json
import os
import re
import sqlite3
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from reflectcli.errors import UserError
from reflectcli.store.migrations import MIGRATIONS

DB_NAME = "reflect.db"
HOST = os.uname().nodename
THREAD_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$")

RUN_FIELDS = (
    "status", "rounds", "first_score", "best_score", "final_score", "stop_reason", "calls",
    "tokens", "cost", "fallbacks", "artifact", "error", "model", "critic_model", "settings",
    "sources_used", "citations_removed", "claims", "claims_supported", "lessons_recalled",
)  # fmt: skip


def validate_thread_id(thread_id: str) -> str:
    """Thread ids become file names: letters, digits, '-' and '_' only."""
    if not THREAD_ID.fullmatch(thread_id or ""):  # `$` alone would let "x\n" through
        raise UserError(
            f"invalid thread id {thread_id!r}: use 1-64 letters, digits, '-' or '_'",
            hint="`reflectcli history` lists the runs",
            exit_code=2,
        )
    return thread_id


def owner_alive(run: dict[str, Any]) -> bool:
    """Is the process that claimed this run still alive? (A killed one leaves no stuck lock.)"""
    pid, host = run.get("owner_pid"), run.get("owner_host")
    if not pid:
        return False
    if host != HOST:
        return True  # cannot check another host's process: assume it is alive
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def effective_status(run: dict[str, Any]) -> str:
    """`running` whose owner died (kill -9) reads as `interrupted`."""
    if run["status"] == "running" and not owner_alive(run):
        return "interrupted"
    return run["status"]


def make_private_dirs(folder: Path) -> None:
    """Create `folder` and every missing parent owner-only (0700): thread ids are task slugs,
    and the runs folder's listing is nobody else's business. (`mkdir(parents=True, mode=...)`
    gives the mode to the last folder only.)"""
    missing = []
    for path in [folder, *folder.parents]:
        if path.exists():
            break
        missing.append(path)
    for path in reversed(missing):
        try:
            path.mkdir(mode=0o700)
        except FileExistsError:
            pass
        _private(path)


def _private(folder: Path) -> None:
    """Owner-only, when this user owns it (best effort: never fails a run)."""
    try:
        if folder.stat().st_uid == os.getuid():
            os.chmod(folder, 0o700)
    except OSError:
        pass


def _connect(path: str | Path, **kwargs: Any) -> sqlite3.Connection:
    conn = sqlite3.connect(str(path), timeout=30, check_same_thread=False, **kwargs)
    conn.execute("PRAGMA busy_timeout = 30000")
    return conn


def _set_wal(conn: sqlite3.Connection, patience: float = 30.0) -> None:
    """Switch to WAL. The switch needs an exclusive lock and SQLite answers "database is locked"
    at once, without waiting, while another process opens the same new file: retry a while."""
    deadline = time.monotonic() + patience
    while True:
        try:
            conn.execute("PRAGMA journal_mode = WAL")
            return
        except sqlite3.OperationalError as exc:
            if "locked" not in str(exc) or time.monotonic() > deadline:
                raise
            time.sleep(0.01)


class _NeedsUpgrade(Exception):
    """A database made by an older reflectcli, in a folder we may write to."""


class Store:
    """The run index and call journal in `<runs_dir>/reflect.db`."""

    def __init__(self, runs_dir: str | Path, read_only: bool = False):
        self.runs_dir = Path(runs_dir)
        self.path = self.runs_dir / DB_NAME
        self._others: list[sqlite3.Connection] = []  # the checkpointer's connections
        if read_only:
            self._open_read_only()
            return
        try:
            make_private_dirs(self.runs_dir)
        except OSError as exc:
            raise UserError(f"cannot create runs directory {self.runs_dir}: {exc.strerror}",
                            hint="pass a writable --runs-dir") from exc  # fmt: skip
        if not os.access(self.runs_dir, os.W_OK | os.X_OK):
            raise UserError(f"runs directory {self.runs_dir} is not writable",
                            hint="pass a writable --runs-dir")  # fmt: skip
        fresh = not self.path.exists()
        try:
            if fresh:  # create it private before anything is written into it
                os.close(os.open(self.path, os.O_CREAT | os.O_WRONLY, 0o600))
                _private(self.runs_dir)  # a folder that existed (say, tracked by git as 0755)
            self.conn = _connect(self.path, isolation_level=None)
            self.conn.row_factory = sqlite3.Row
            if fresh:  # lets compaction hand freed pages back to the file system
                self.conn.execute("PRAGMA auto_vacuum = INCREMENTAL")
            _set_wal(self.conn)
            # Our tables survive a killed process with NORMAL in WAL mode; only a power loss
            # could drop the last commits, and the checkpoint (FULL) can rebuild them.
            self.conn.execute("PRAGMA synchronous = NORMAL")
            self.migrate()
        except sqlite3.DatabaseError as exc:
            raise UserError(
                f"{self.path} is not a usable SQLite database ({exc})",
                hint="move it aside to start a fresh one; runs inside it cannot be read",
            ) from exc

    def _open_read_only(self) -> None:
        """For commands that only read: works in a folder this user cannot write to. (A WAL
        database read with mode=ro needs its -shm file; when the last writer closed cleanly
        there is none and none can be made in a read-only folder: then it is read as immutable,
        since nobody can be writing to a folder nobody can write to.)"""
        try:
            try:
                done = self._connect_read_only(f"file:{self.path}?mode=ro")
            except sqlite3.OperationalError as exc:
                if "readonly" not in str(exc) and "unable to open" not in str(exc):
                    raise
                if os.access(self.runs_dir, os.W_OK):
                    raise
                done = self._connect_read_only(f"file:{self.path}?mode=ro&immutable=1")
        except sqlite3.DatabaseError as exc:
            raise UserError(
                f"{self.path} is not a usable SQLite database ({exc})",
                hint="move it aside to start a fresh one; runs inside it cannot be read",
            ) from exc
        missing = [name for name, _ in MIGRATIONS if name not in done]
        if missing:
            self.conn.close()
            if os.access(self.runs_dir, os.W_OK) and os.access(self.path, os.W_OK):
                raise _NeedsUpgrade  # an older reflectcli made it: migrate it, then read
            raise UserError(f"{self.path} is not a usable SQLite database (its reflectcli tables "
                            f"lack {', '.join(missing)})",
                            hint="run any write command on it once to upgrade it")  # fmt: skip

    def _connect_read_only(self, uri: str) -> set[str]:
        self.conn = _connect(uri, uri=True)
        self.conn.row_factory = sqlite3.Row
        try:
            return {row[0] for row in self.conn.execute("SELECT name FROM _migrations")}
        except sqlite3.DatabaseError:
            self.conn.close()
            raise

    @classmethod
    def existing(cls, runs_dir: str | Path, read_only: bool = True) -> Store | None:
        """Open the store only if its database exists (read-only commands create nothing)."""
        if not (Path(runs_dir) / DB_NAME).is_file():
            return None
        try:
            return cls(runs_dir, read_only=read_only)
        except _NeedsUpgrade:
            return cls(runs_dir)  # applies the missing migrations

    @contextmanager
    def transaction(self) -> Iterator[None]:
        """Several writes, one commit (one sync to disk)."""
        self.conn.execute("BEGIN IMMEDIATE")
        try:
            yield
        except BaseException:
            self.conn.execute("ROLLBACK")
            raise
        self.conn.execute("COMMIT")

    # --- schema ---------------------------------------------------------------------------

    def migrate(self) -> None:
        """Apply the numbered migrations not yet recorded, in order, each in a transaction."""
        self.conn.execute("CREATE TABLE IF NOT EXISTS _migrations (name TEXT PRIMARY KEY, applied_at REAL)")
        done = {row[0] for row in self.conn.execute("SELECT name FROM _migrations")}
        for name, sql in MIGRATIONS:
            if name in done:
                continue
            self.conn.execute("BEGIN IMMEDIATE")
            try:
                if self.conn.execute("SELECT 1 FROM _migrations WHERE name = ?", (name,)).fetchone():
                    self.conn.execute("ROLLBACK")  # another process got there first
                    continue
                for statement in filter(str.strip, sql.split(";")):
                    self.conn.execute(statement)
                self.conn.execute("INSERT INTO _migrations VALUES (?, ?)", (name, time.time()))
                self.conn.execute("COMMIT")
            except BaseException:
                self.conn.execute("ROLLBACK")
                raise

    def checkpointer(self):
        """LangGraph's SqliteSaver on this file, strict: JSON-like types only, never pickle."""
        from langgraph.checkpoint.serde.jsonplus import JsonPlusSerializer
        from langgraph.checkpoint.sqlite import SqliteSaver

        serde = JsonPlusSerializer(pickle_fallback=False, allowed_msgpack_modules=None)
        conn = _connect(self.path)
        self._others.append(conn)
        saver = SqliteSaver(conn, serde=serde)
        saver.setup()
        return saver

    def close(self) -> None:
        """Close this store's connections (the checkpointer's too)."""
        for conn in [*self._others, self.conn]:
            conn.close()
        self._others.clear()

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    # --- run index --------------------------------------------------------------------------

    def create_run(self, thread_id: str, task: str, settings: dict[str, Any], artifact: str):
        now = time.time()
        self.conn.execute(
            "INSERT INTO runs (thread_id, task, model, critic_model, status, created_at,"
            " updated_at, settings, artifact) VALUES (?, ?, ?, ?, 'running', ?, ?, ?, ?)",
            (
                thread_id, task, settings["model"],
                settings.get("critic_model") or settings["model"],
                now, now, json.dumps(settings), artifact,
            ),
        )  # fmt: skip

    def update_run(self, thread_id: str, **fields: Any) -> None:
        unknown = set(fields) - set(RUN_FIELDS)
        if unknown:
            raise ValueError(f"unknown run fields: {sorted(unknown)}")
        if "settings" in fields and not isinstance(fields["settings"], str):
            fields["settings"] = json.dumps(fields["settings"])
        assignments = ", ".join(f"{name} = ?" for name in fields)
        self.conn.execute(
            f"UPDATE runs SET {assignments}, updated_at = ? WHERE thread_id = ?",
            (*fields.values(), time.time(), thread_id),
        )

    def get_run(self, thread_id: str) -> dict[str, Any] | None:
        row = self.conn.execute("SELECT * FROM runs WHERE thread_id = ?", (thread_id,)).fetchone()
        if row is None:
            return None
        run = dict(row)
        run["settings"] = json.loads(run["settings"])
        run["status"] = effective_status(run)
        return run

    # --- ownership: one process per thread ------------------------------------------------

    def acquire(self, thread_id: str) -> None:
        """Claim the thread for this process; refuse when a live process holds it."""
        me = os.getpid()
        self.conn.execute("BEGIN IMMEDIATE")
        try:
            row = self.conn.execute(
                "SELECT owner_pid, owner_host FROM runs WHERE thread_id = ?", (thread_id,)
            ).fetchone()
            if row and row[0] and row[0] != me and owner_alive(dict(row)):
                raise UserError(
                    f"thread {thread_id} is being run by another process (pid {row[0]})",
                    hint="wait for it to finish, or stop it first",
                )
            self.conn.execute(
                "UPDATE runs SET owner_pid = ?, owner_host = ? WHERE thread_id = ?",
                (me, HOST, thread_id),
            )
            self.conn.execute("COMMIT")
        except BaseException:
            self.conn.execute("ROLLBACK")
            raise

    def release(self, thread_id: str) -> None:
        self.conn.execute(
            "UPDATE runs SET owner_pid = NULL, owner_host = NULL WHERE thread_id = ? AND owner_pid = ?",
            (thread_id, os.getpid()),
        )

    # --- call journal -----------------------------------------------------------------------

    def journal_get(self, key: str) -> dict[str, Any] | None:
        row = self.conn.execute("SELECT answer FROM call_journal WHERE key = ?", (key,)).fetchone()
        return json.loads(row[0]) if row else None

    def journal_count(self, thread_id: str) -> int:
        return self.conn.execute(
            "SELECT COUNT(*) FROM call_journal WHERE thread_id = ?", (thread_id,)
        ).fetchone()[0]

    def journal_put(self, key: str, thread_id: str, step: str, answer: dict[str, Any]) -> None:
        self.conn.execute(
            "INSERT OR REPLACE INTO call_journal VALUES (?, ?, ?, ?, ?, ?)",
            (key, thread_id, step, answer.get("model", ""), json.dumps(answer), time.time()),
        )

    # --- state snapshots and housekeeping ---------------------------------------------------

    def save_state(self, thread_id: str, state: dict[str, Any]) -> None:
        """The run's latest state as JSON: what show/export/diff read, without LangGraph."""
        self.conn.execute(
            "INSERT INTO run_state VALUES (?, ?) ON CONFLICT(thread_id) DO UPDATE SET state = excluded.state",
            (thread_id, json.dumps(state, ensure_ascii=False, separators=(",", ":"))),
        )

    def save_usage(self, thread_id: str, usage: dict[str, dict[str, Any]]) -> None:
        self.conn.execute("DELETE FROM run_usage WHERE thread_id = ?", (thread_id,))
        self.conn.executemany(
            "INSERT INTO run_usage VALUES (?, ?, ?, ?, ?, ?)",
            [(thread_id, model, u["calls"], u["prompt_tokens"], u["completion_tokens"], u["cost"])
             for model, u in usage.items()],
        )  # fmt: skip

    def load_state(self, thread_id: str) -> dict[str, Any] | None:
        row = self.conn.execute("SELECT state FROM run_state WHERE thread_id = ?", (thread_id,)).fetchone()
        return json.loads(row[0]) if row else None

    def _langgraph_tables(self) -> list[str]:
        names = {r[0] for r in self.conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
        return [t for t in ("checkpoints", "writes") if t in names]

    def compact(self, thread_id: str) -> None:
        """A finished run needs no checkpoints and no journal: its state snapshot holds every
        version, review, decision and trace event that show/export/diff read."""
        self.conn.execute("BEGIN IMMEDIATE")
        try:
            for table in self._langgraph_tables():
                self.conn.execute(f"DELETE FROM {table} WHERE thread_id = ?", (thread_id,))
            self.conn.execute("DELETE FROM call_journal WHERE thread_id = ?", (thread_id,))
            self.conn.execute("COMMIT")
        except BaseException:
            self.conn.execute("ROLLBACK")
            raise
        self.conn.executescript("PRAGMA incremental_vacuum;")  # execute() frees one page only

    def delete_run(self, thread_id: str) -> bool:
        """Remove every row of a thread; True if it existed."""
        self.conn.execute("BEGIN IMMEDIATE")
        try:
            for table in self._langgraph_tables():
                self.conn.execute(f"DELETE FROM {table} WHERE thread_id = ?", (thread_id,))
            for table in ("call_journal", "run_state", "run_usage"):
                self.conn.execute(f"DELETE FROM {table} WHERE thread_id = ?", (thread_id,))
            gone = self.conn.execute("DELETE FROM runs WHERE thread_id = ?", (thread_id,)).rowcount
            self.conn.execute("COMMIT")
        except BaseException:
            self.conn.execute("ROLLBACK")
            raise
        self.conn.executescript("PRAGMA incremental_vacuum;")
        return gone > 0
