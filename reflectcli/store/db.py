"""The store: our own tables (run index, call journal, ...) beside LangGraph's checkpoints.

Two backends behind one class. SQLite by default: one file, `<runs_dir>/reflect.db`, in WAL mode.
PostgreSQL when the store in force is a `postgresql://` URL (`REFLECTCLI_STORE`, set by `--store` or
the config key `store`): shared by many machines. The same numbered migrations (recorded in
`_migrations`) run on both; LangGraph's checkpointer (SqliteSaver / PostgresSaver) gets its own
connections, with a strict (no pickle, allow-listed msgpack) serializer. A run is owned through a
lease (pid, host, expiry) renewed while it is alive, so a run whose host died is anyone's to
resume once the lease runs out.

Fencing: each claim of a run bumps its `generation`; the claimant keeps that number (its token)
and every write it makes for the run (index row, snapshot, usage, journal, memory, status,
release) runs in a transaction that first reads the row's generation (FOR SHARE on PostgreSQL,
so a takeover waits for the write or the write sees the takeover) and stops with LostClaim when
another claim came since. Leases are granted, renewed and judged by the database's clock
(`db_now()`: PostgreSQL's now(); on SQLite, one host, the local clock), never the caller's.
"""

from __future__ import annotations

import json
import os
import re
import sqlite3
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from reflectcli.errors import LostClaim, UserError
from reflectcli.store.calljournal import Journal
from reflectcli.store.claims import Claims
from reflectcli.store.fenced import fenced_saver
from reflectcli.store.migrations import MIGRATIONS
from reflectcli.store.owners import (  # noqa: F401  (HOST, effective_status, lease_seconds: the store's words for callers)
    FENCE_COLUMNS,
    HOST,
    LEASE_LIVE,
    effective_status,
    fence_broken,
    lease_seconds,
    my_start,
    owner_alive,
    process_start,
)
from reflectcli.store.sqlitefile import (  # noqa: F401  (make_private_dirs: for the runner's artifact folder)
    _apply_migrations,
    _connect,
    _create_from_template,
    _private,
    _set_wal,
    make_private_dirs,
)

DB_NAME = "reflect.db"
STORE_ENV = "REFLECTCLI_STORE"


_LANGGRAPH_TABLES = ("checkpoints", "writes", "checkpoint_blobs", "checkpoint_writes")
THREAD_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$")

RUN_FIELDS = (
    "status", "rounds", "first_score", "best_score", "final_score", "stop_reason", "calls",
    "tokens", "cost", "fallbacks", "artifact", "error", "model", "critic_model", "settings",
    "sources_used", "citations_removed", "claims", "claims_supported", "lessons_recalled",
    "estimated_tokens", "resumes",
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


def store_url() -> str | None:
    """The store in force: a PostgreSQL URL from REFLECTCLI_STORE, or None for the SQLite file."""
    url = (os.environ.get(STORE_ENV) or "").strip()
    if not url or url.lower() == "sqlite":
        return None
    if not re.match(r"^postgres(ql)?://", url, re.I):
        shown = re.sub(r"(://[^:/@]*):[^@/]*@", r"\1:***@", url)  # no password in messages
        shown = re.sub(r"([?&]password=)[^&]*", r"\1***", shown, flags=re.I)
        raise UserError(f"store {shown!r} is not a postgresql:// URL",
                        hint="use postgresql://user@host/db, or 'sqlite' for the file in the runs folder",
                        exit_code=2)  # fmt: skip
    return url


class _NeedsUpgrade(Exception):
    """A database made by an older reflectcli, in a folder we may write to."""


SCHEMA_LOCK_WAIT = 300.0  # seconds a process waits for another one creating the tables
_MIGRATED: set[str] = set()  # PostgreSQL URLs this process found fully migrated (a schema only grows)


class Store(Claims, Journal):
    """The run index, call journal and the rest: `<runs_dir>/reflect.db`, or PostgreSQL."""

    def __init__(self, runs_dir: str | Path, read_only: bool = False, url: str | None = None):
        self.runs_dir = Path(runs_dir)
        self.path = self.runs_dir / DB_NAME
        self.url = url if url is not None else store_url()
        self.dialect = "postgres" if self.url else "sqlite"
        # self.conn: sqlite3's connection, or pg.Connection (declared in claims.Claims)
        self._others: list[Any] = []  # the checkpointer's connections
        self._fences = {}  # thread id -> the generation this store's claim holds
        self._journal_keys = {}  # thread id -> its journal's keys (`journaled`)
        self._lock = threading.RLock()  # one transaction at a time on this store's connection
        self._depth = 0  # transactions open (nested ones join the outermost)
        if self.url:
            self._open_postgres(self.url, read_only)
            return
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
            if fresh:  # created private, with every table, before anything else is written
                fresh = not _create_from_template(self.path)
                _private(self.runs_dir)  # a folder that existed (say, tracked by git as 0755)
            self.conn = conn = _connect(self.path, isolation_level=None)
            conn.row_factory = sqlite3.Row
            if fresh:  # lets compaction hand freed pages back to the file system
                conn.execute("PRAGMA auto_vacuum = INCREMENTAL")
            _set_wal(conn)
            # Our tables survive a killed process with NORMAL in WAL mode; only a power loss
            # could drop the last commits, and the checkpoint (FULL) can rebuild them.
            conn.execute("PRAGMA synchronous = NORMAL")
            self.migrate()
        except sqlite3.DatabaseError as exc:
            raise UserError(
                f"{self.path} is not a usable SQLite database ({exc})",
                hint="move it aside to start a fresh one; runs inside it cannot be read",
            ) from exc

    @property
    def where(self) -> str:
        """The store's location, for messages (no password)."""
        if self.url:
            from reflectcli.store.pg import safe_url

            return safe_url(self.url)
        return str(self.path)

    def _open_postgres(self, url: str, read_only: bool) -> None:
        try:
            from reflectcli.store.pg import Connection as PgConnection
            from reflectcli.store.pg import safe_url
        except ImportError as exc:
            raise UserError("a postgresql:// store needs the PostgreSQL extras (psycopg, "
                            f"procrastinate): {exc.name} is not installed",
                            hint="pip install 'reflectcli[postgres]'") from exc  # fmt: skip

        if not read_only:  # the runs folder still holds this machine's artifacts (writes stay allowed)
            try:
                make_private_dirs(self.runs_dir)
            except OSError as exc:
                raise UserError(f"cannot create runs directory {self.runs_dir}: {exc.strerror}",
                                hint="pass a writable --runs-dir") from exc  # fmt: skip
        try:
            # a transaction idle this long is a stopped process's: the server ends it (a slow but
            # live one, starved of CPU for a moment, keeps its session)
            idle = max(30.0, 2 * lease_seconds())
            self.conn = PgConnection(url, connect_timeout=10, idle_ms=int(idle * 1000))
        except Exception as exc:  # psycopg.OperationalError: refused, unknown db, auth
            first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
            raise UserError(f"cannot reach the PostgreSQL store {safe_url(url)}: {first}",
                            hint="check REFLECTCLI_STORE / --store / the config key `store`, "
                            "and that the server is up") from exc  # fmt: skip
        self.migrate()

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
        self.conn = conn = _connect(uri, uri=True)
        conn.row_factory = sqlite3.Row
        try:
            return {row[0] for row in conn.execute("SELECT name FROM _migrations")}
        except sqlite3.DatabaseError:
            conn.close()
            raise

    @classmethod
    def existing(cls, runs_dir: str | Path, read_only: bool = True) -> Store | None:
        """Open the store only if its database exists (read-only commands create nothing)."""
        if store_url():  # a shared server: its tables are made once, by whoever comes first
            return cls(runs_dir, read_only=True)  # (read_only: make no runs folder here)
        if not (Path(runs_dir) / DB_NAME).is_file():
            return None
        try:
            return cls(runs_dir, read_only=read_only)
        except _NeedsUpgrade:
            return cls(runs_dir)  # applies the missing migrations

    def _begin(self, exclusive: bool = False) -> str:
        """SQLite: BEGIN IMMEDIATE (its one writer). PostgreSQL: BEGIN, row locks doing the
        rest; `exclusive` adds one advisory lock, for the few read-then-write jobs across many
        rows (the library, the memory bank) that no row lock covers."""
        return "BEGIN IMMEDIATE" if self.dialect == "sqlite" or exclusive else "BEGIN"

    @contextmanager
    def transaction(self, exclusive: bool = False, check: bool = True) -> Iterator[None]:
        """Several writes, one commit (one sync to disk). While this store holds a claim, the
        transaction starts by checking it (LostClaim when another process took the run);
        `check=False` for a caller whose first statement checks it itself (`record`)."""
        with self._lock:
            if self._depth:  # inside an open one: part of it
                self._depth += 1
                try:
                    yield
                finally:
                    self._depth -= 1
                return
            self.conn.execute(self._begin(exclusive))
            self._depth = 1
            try:
                for thread_id in list(self._fences) if check else ():
                    self._check_fence(thread_id)
                yield
            except BaseException:
                self._depth = 0
                try:
                    self.conn.execute("ROLLBACK")
                except Exception:  # the connection is gone: so is the transaction
                    pass
                raise
            self._depth = 0
            self.conn.execute("COMMIT")

    # --- schema ---------------------------------------------------------------------------

    @contextmanager
    def _schema_lock(self) -> Iterator[None]:
        """On PostgreSQL, one process at a time changes the schema (SQLite: BEGIN IMMEDIATE does)."""
        if not self.url:  # SQLite
            yield
            return
        # Poll with try-lock rather than wait in pg_advisory_lock: a waiting statement holds a
        # snapshot, and LangGraph's setup (CREATE INDEX CONCURRENTLY) waits for every snapshot,
        # so two processes setting up at once would wait for each other for ever.
        import psycopg  # a session lock: on a connection of its own, not one of the pool's

        from reflectcli.store.pg import named

        session = psycopg.connect(self.url, autocommit=True, prepare_threshold=None, connect_timeout=10,
                                  **named(self.url, "schema"))  # fmt: skip
        deadline = time.monotonic() + SCHEMA_LOCK_WAIT

        def locked() -> bool:
            row = session.execute("SELECT pg_try_advisory_lock(7243019)").fetchone()
            return row is not None and bool(row[0])

        while not locked():
            if time.monotonic() > deadline:
                session.close()
                raise UserError(
                    f"the database schema has been locked by another session for {SCHEMA_LOCK_WAIT:g}s",
                    hint="another reflectcli may be creating the tables; if none is, a pooler may hold "
                    "the lock: connect once directly (not through PgBouncer) to create them",
                )
            time.sleep(0.05)
        try:
            yield
        finally:
            session.close()  # (which ends the lock)

    def migrate(self) -> None:
        """Apply the numbered migrations not yet recorded, in order, each in a transaction. On
        PostgreSQL the schema lock is taken only when something is missing (so that opening a
        store behind PgBouncer's transaction pooling never holds a session lock)."""
        if self.dialect == "postgres" and (self._known_migrated() or self._migrated()):
            _MIGRATED.add(self.url or "")
            return
        with self._schema_lock():
            self._migrate()

    def _known_migrated(self) -> bool:
        """A long-lived worker process (its pools kept: `keep_pools`) opens a store per task:
        it asks whether the schema is complete once, not at every open (a schema only grows)."""
        from reflectcli.store.pg import Pool

        return Pool.keep and self.url in _MIGRATED

    def _migrated(self) -> bool:
        exists = self.conn.execute("SELECT to_regclass('_migrations') IS NOT NULL").fetchone()[0]
        if not exists:
            return False
        done = {row[0] for row in self.conn.execute("SELECT name FROM _migrations")}
        return all(name in done for name, _ in MIGRATIONS)

    def _migrate(self) -> None:
        if self.dialect == "postgres":
            self.conn.execute("CREATE TABLE IF NOT EXISTS _migrations (name TEXT PRIMARY KEY, "
                              "applied_at DOUBLE PRECISION)")  # fmt: skip
        else:
            self.conn.execute(
                "CREATE TABLE IF NOT EXISTS _migrations (name TEXT PRIMARY KEY, applied_at REAL)"
            )
        done = {row[0] for row in self.conn.execute("SELECT name FROM _migrations")}
        if all(name in done for name, _ in MIGRATIONS):
            return
        _apply_migrations(self.conn, self.dialect)

    def checkpointer(self):
        """LangGraph's saver on this store (SqliteSaver on the file, PostgresSaver on the
        process's pool), strict: JSON-like types only, never pickle."""
        from langgraph.checkpoint.serde.jsonplus import JsonPlusSerializer

        serde = JsonPlusSerializer(pickle_fallback=False, allowed_msgpack_modules=None)
        if self.dialect == "postgres":
            from langgraph.checkpoint.postgres import PostgresSaver

            # the process's pool (autocommit; the saver asks for dict rows per cursor)
            from reflectcli.store.pg import Connection as PgConnection

            assert isinstance(self.conn, PgConnection)  # a postgresql:// store's
            saver = fenced_saver(PostgresSaver, self)(self.conn.pool, serde=serde)
            if not self._saver_ready(len(saver.MIGRATIONS)):
                with self._schema_lock():
                    saver.setup()
            return saver
        from langgraph.checkpoint.sqlite import SqliteSaver

        conn = _connect(self.path)
        self._others.append(conn)
        saver = fenced_saver(SqliteSaver, self)(conn, serde=serde)
        saver.setup()
        return saver

    def _saver_ready(self, migrations: int) -> bool:
        """PostgresSaver's own migrations all applied (its setup is skipped, and its lock)."""
        if not self.conn.execute("SELECT to_regclass('checkpoint_migrations') IS NOT NULL").fetchone()[0]:
            return False
        return self.conn.execute("SELECT COUNT(*) FROM checkpoint_migrations").fetchone()[0] >= migrations

    def reopen(self) -> Store:
        """A second handle on the same store (its own connection), for another thread."""
        return Store(self.runs_dir, url=self.url or "")

    def close(self) -> None:
        """Close this store's connections (the checkpointer's too)."""
        for conn in [*self._others, self.conn]:
            try:
                conn.close()
            except Exception:  # a connection the server already dropped
                pass
        self._others.clear()

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    # --- run index --------------------------------------------------------------------------

    def create_run(self, thread_id: str, task: str, settings: dict[str, Any], artifact: str):
        with self._lock:  # one thread at a time on the shared connection
            now = time.time()
            self.conn.execute(
                "INSERT INTO runs (thread_id, task, model, critic_model, status, created_at,"
                " updated_at, settings, artifact) VALUES (?, ?, ?, ?, 'running', ?, ?, ?, ?)",
                (
                    thread_id, task, settings["model"],
                    "checklist" if settings.get("critic") == "checklist"
                    else settings.get("critic_model") or settings["model"],
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
        with self._owned(thread_id):
            self.conn.execute(
                f"UPDATE runs SET {assignments}, updated_at = ? WHERE thread_id = ?",
                (*fields.values(), time.time(), thread_id),
            )

    def record(
        self,
        thread_id: str,
        fields: dict[str, Any],
        state: dict[str, Any],
        usage: dict[str, dict[str, Any]] | None = None,
        then: Any = None,
    ) -> None:
        """One step's record of a run this store holds, in one transaction: the run row, whose
        UPDATE checks the claim itself (only the row of this store's generation; none: LostClaim,
        nothing written) and locks the row to the commit; the state snapshot; the usage rows
        when given; then `then()` (the artifact's file) before the commit."""
        generation = self._fences.get(thread_id)
        if generation is None:
            raise LostClaim(thread_id)
        unknown = set(fields) - set(RUN_FIELDS)
        if unknown:
            raise ValueError(f"unknown run fields: {sorted(unknown)}")
        assignments = ", ".join(f"{name} = ?" for name in fields)
        with self.transaction(check=False):
            done = self.conn.execute(
                f"UPDATE runs SET {assignments}, updated_at = ? WHERE thread_id = ? AND generation = ?",
                (*fields.values(), time.time(), thread_id, generation),
            ).rowcount
            if not done:
                raise self.lost(thread_id)
            self.save_state(thread_id, state)
            if usage is not None:
                self.save_usage(thread_id, usage)
            if then is not None:
                then()

    def get_run(self, thread_id: str) -> dict[str, Any] | None:
        with self._lock:  # one thread at a time on the shared connection
            row = self.conn.execute(f"SELECT *, {LEASE_LIVE} FROM runs WHERE thread_id = ?",
                                    (thread_id,)).fetchone()  # fmt: skip
            if row is None:
                return None
            run = dict(row)
            run["settings"] = json.loads(run["settings"])
            run["status"] = effective_status(run)
            return run

    # --- state snapshots and housekeeping ---------------------------------------------------

    def save_state(self, thread_id: str, state: dict[str, Any]) -> None:
        """The run's latest state as JSON: what show/export/diff read, without LangGraph."""
        with self._owned(thread_id):
            self.conn.execute(
                "INSERT INTO run_state VALUES (?, ?) ON CONFLICT(thread_id) DO UPDATE SET "
                "state = excluded.state",
                (thread_id, json.dumps(state, ensure_ascii=False, separators=(",", ":"))),
            )

    def save_usage(self, thread_id: str, usage: dict[str, dict[str, Any]]) -> None:
        with self._owned(thread_id):
            self.conn.execute("DELETE FROM run_usage WHERE thread_id = ?", (thread_id,))
            self.conn.executemany(
                "INSERT INTO run_usage (thread_id, model, calls, prompt_tokens, completion_tokens, cost, "
                "cache_read_tokens, cache_creation_tokens, estimated_tokens) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                [(thread_id, model, u["calls"], u["prompt_tokens"], u["completion_tokens"], u["cost"],
                  u.get("cache_read_tokens", 0), u.get("cache_creation_tokens", 0),
                  u.get("estimated_tokens", 0))
                 for model, u in usage.items()],
            )  # fmt: skip

    def load_state(self, thread_id: str) -> dict[str, Any] | None:
        with self._lock:  # one thread at a time on the shared connection
            row = self.conn.execute(
                "SELECT state FROM run_state WHERE thread_id = ?", (thread_id,)
            ).fetchone()
            return json.loads(row[0]) if row else None

    def _langgraph_tables(self) -> list[str]:
        if self.dialect == "postgres":
            sql = "SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema()"
        else:
            sql = "SELECT name FROM sqlite_master WHERE type='table'"
        names = {r[0] for r in self.conn.execute(sql)}
        return [t for t in _LANGGRAPH_TABLES if t in names]

    def _vacuum(self) -> None:
        """Hand freed pages back to the file system (SQLite; PostgreSQL's autovacuum does this)."""
        if isinstance(self.conn, sqlite3.Connection):  # SQLite
            self.conn.executescript("PRAGMA incremental_vacuum;")  # execute() frees one page only

    def compact(self, thread_id: str) -> None:
        """A finished run needs no checkpoints and no journal: its state snapshot holds every
        version, review, decision and trace event that show/export/diff read."""
        with self.transaction():
            for table in self._langgraph_tables():
                self.conn.execute(f"DELETE FROM {table} WHERE thread_id = ?", (thread_id,))
            self.conn.execute("DELETE FROM call_journal WHERE thread_id = ?", (thread_id,))
        self._vacuum()

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
        self._vacuum()
        return gone > 0
