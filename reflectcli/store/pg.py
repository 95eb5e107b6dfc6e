"""PostgreSQL behind the same small surface our SQL uses on sqlite3: `execute(sql, args)` with `?`
marks, rows read by index or by name, explicit BEGIN / COMMIT on an autocommit connection.

Imported only when the store in force is a `postgresql://` URL (psycopg is not loaded otherwise).
Connections come from one pool per process (`Pool`, sized by REFLECTCLI_POOL_SIZE, default 1),
opened with `autocommit=True` and `prepare_threshold=None`, so they work behind PgBouncer in
transaction mode too.
"""

from __future__ import annotations

import atexit
import os
import re
import threading
from collections.abc import Iterator, Sequence
from typing import Any, TypedDict

import psycopg
import psycopg.adapt

URL = re.compile(r"^postgres(ql)?://", re.I)
_TYPES = [
    (re.compile(r"\bINTEGER PRIMARY KEY AUTOINCREMENT\b"), "BIGSERIAL PRIMARY KEY"),
    (re.compile(r"\bid\s+INTEGER PRIMARY KEY\b"), "id BIGSERIAL PRIMARY KEY"),  # SQLite's rowid alias
    (re.compile(r"\bREAL\b"), "DOUBLE PRECISION"),  # PostgreSQL's REAL is 4 bytes: timestamps lose seconds
    (re.compile(r"\bINTEGER\b"), "BIGINT"),
]


def is_url(location: str | None) -> bool:
    return location is not None and bool(URL.match(location))


def schema_sql(sql: str) -> str:
    """A migration written for SQLite, in PostgreSQL's types (FTS tables have their own text)."""
    for pattern, replacement in _TYPES:
        sql = pattern.sub(replacement, sql)
    return sql


WRITER_LOCK = 7243020  # the few read-then-write jobs across rows (library, memory), one at a time


def query_sql(sql: str, has_args: bool, idle_ms: int = 0) -> str:
    """`?` marks become `%s` (a literal `%` is doubled first). BEGIN is BEGIN: row locks and the
    fencing check order the run's writes. SQLite's BEGIN IMMEDIATE (one writer at a time: read,
    decide, write, with nobody in between) is BEGIN plus a transaction advisory lock, for the
    few callers that need it (the library, the memory bank). `idle_ms`: a transaction left open
    that long (its process stopped: SIGSTOP, a laptop lid) is ended by the server, so its row
    locks cannot hold up the process taking the run over."""
    if sql.startswith("BEGIN"):
        begin = "BEGIN"
        if idle_ms:
            begin += f"; SET LOCAL idle_in_transaction_session_timeout = {int(idle_ms)}"
        return f"{begin}; SELECT pg_advisory_xact_lock({WRITER_LOCK})" if "IMMEDIATE" in sql else begin
    if not has_args:
        return sql
    return sql.replace("%", "%%").replace("?", "%s")


class Row:
    """A result row read like sqlite3.Row: `row[0]`, `row["name"]`, `dict(row)`, unpacking."""

    __slots__ = ("_names", "_values")

    def __init__(self, names: tuple[str, ...], values: Sequence[Any]):
        self._names, self._values = names, tuple(values)

    def __getitem__(self, key: int | str) -> Any:
        if isinstance(key, str):
            return self._values[self._names.index(key)]
        return self._values[key]

    def __iter__(self) -> Iterator[Any]:
        return iter(self._values)

    def __len__(self) -> int:
        return len(self._values)

    def keys(self) -> list[str]:
        return list(self._names)

    def __repr__(self) -> str:
        return f"Row({dict(zip(self._names, self._values, strict=True))!r})"


class _Number(psycopg.adapt.Loader):
    """NUMERIC (what SUM over BIGINT gives) as int or float, like SQLite: JSON can carry it."""

    def load(self, data: Any) -> int | float:
        text = bytes(data).decode()
        return int(text) if text.lstrip("-").isdigit() else float(text)


def _rows(cursor: psycopg.Cursor) -> Any:
    names = tuple(c.name for c in cursor.description or ())
    return lambda values: Row(names, values)


class AppName(TypedDict, total=False):
    application_name: str


def named(url: str, role: str) -> AppName:
    """A connection's application_name (`reflectcli-<role>`: store, check, schema, queue), so
    that pg_stat_activity says whose each connection is; none when the URL names one itself."""
    return {} if "application_name" in url else {"application_name": f"reflectcli-{role}"}


def pool_size() -> int:
    """Connections a process's pool may open: REFLECTCLI_POOL_SIZE, default 1. A `write` runs
    one run, and its statements are short: the main thread, the lease renewal and the
    checkpointer take turns. A worker process running N runs at once sets it to N
    (`batch.execute.pool_for`); the pool opens them only as they are needed."""
    try:
        return max(1, int(os.environ.get("REFLECTCLI_POOL_SIZE") or 1))
    except ValueError:
        return 1


class Pool:
    """One psycopg_pool.ConnectionPool per process and store URL (autocommit, no prepared
    statements: PgBouncer in transaction mode works), shared by every Store of the process and
    by LangGraph's PostgresSaver. A transaction pins one connection to its thread until COMMIT
    or ROLLBACK; any other statement borrows one for itself. Closed when its last user closes,
    unless `keep_pools()` was called (a long-lived worker process keeps it)."""

    _all: dict[str, Pool] = {}
    _guard = threading.Lock()
    keep = False

    def __init__(self, url: str, connect_timeout: float):
        from psycopg_pool import ConnectionPool

        timeout = max(1, int(connect_timeout))
        # one plain connection first: a refused or unknown database fails at once, with its reason
        psycopg.connect(url, autocommit=True, prepare_threshold=None, connect_timeout=timeout,
                        **named(url, "check")).close()  # fmt: skip
        self.url, self.users, self.local = url, 0, threading.local()
        self.pool = ConnectionPool(
            url, min_size=1, max_size=pool_size(), open=False, timeout=60, name="reflectcli",
            kwargs={"autocommit": True, "prepare_threshold": None, "connect_timeout": timeout,
                    **named(url, "store")},
            configure=lambda conn: conn.adapters.register_loader("numeric", _Number),
        )  # fmt: skip
        self.pool.open(wait=True, timeout=timeout + 5)

    @classmethod
    def get(cls, url: str, connect_timeout: float = 10) -> Pool:
        with cls._guard:
            pool = cls._all.get(url)
            if pool is None:
                pool = cls._all[url] = cls(url, connect_timeout)
            pool.users += 1
            return pool

    def release(self) -> None:
        with Pool._guard:
            self.users -= 1
            if self.users > 0 or Pool.keep:
                return
            if Pool._all.get(self.url) is self:
                del Pool._all[self.url]
        self.pool.close()

    @property
    def held(self) -> psycopg.Connection | None:
        return getattr(self.local, "conn", None)


def keep_pools() -> None:
    """This process lives on (a queue or batch worker): keep its pool open between runs."""
    Pool.keep = True


def close_pools() -> None:
    for pool in list(Pool._all.values()):
        pool.pool.close()
    Pool._all.clear()


atexit.register(close_pools)


class Connection:
    """Our sqlite3 dialect over the process's pool: `execute(sql, args)` with `?` marks, rows
    by index or name, explicit BEGIN / COMMIT / ROLLBACK (which pin a connection meanwhile)."""

    dialect = "postgres"

    def __init__(self, url: str, connect_timeout: float = 10, idle_ms: int = 0):
        self.url, self.idle_ms = url, idle_ms
        self.shared = Pool.get(url, connect_timeout)
        self.closed = False

    @property
    def pool(self):
        """The process's psycopg_pool.ConnectionPool (LangGraph's saver takes it as it is)."""
        return self.shared.pool

    def _run(self, raw: psycopg.Connection, sql: str, args: Sequence[Any]) -> psycopg.Cursor:
        cursor = raw.cursor(row_factory=_rows)
        cursor.execute(query_sql(sql, bool(args), self.idle_ms), tuple(args) if args else None)
        return cursor  # its rows are read already: the connection may serve others meanwhile

    def execute(self, sql: str, args: Sequence[Any] = ()) -> psycopg.Cursor:
        held = self.shared.held
        if sql.startswith("BEGIN"):
            if held is not None:
                raise RuntimeError("a transaction is already open in this thread")
            raw = self.shared.pool.getconn()
            try:
                cursor = self._run(raw, sql, args)
            except BaseException:
                if not raw.closed:  # the lock wait failed: not ours
                    try:
                        raw.execute("ROLLBACK")
                    except Exception:
                        pass
                self.shared.pool.putconn(raw)
                raise
            self.shared.local.conn, self.shared.local.owner = raw, self
            return cursor
        if held is not None:
            try:
                return self._run(held, sql, args)
            finally:
                if sql in ("COMMIT", "ROLLBACK"):
                    self.shared.local.conn = self.shared.local.owner = None
                    self.shared.pool.putconn(held)  # (a broken one is discarded by the pool)
        with self.shared.pool.connection() as raw:
            return self._run(raw, sql, args)

    def executemany(self, sql: str, rows: Sequence[Sequence[Any]]) -> None:
        rows = [tuple(r) for r in rows]
        if not rows:
            return
        held = self.shared.held
        if held is not None:
            held.cursor().executemany(query_sql(sql, True), rows)
            return
        with self.shared.pool.connection() as raw:
            raw.cursor().executemany(query_sql(sql, True), rows)

    def close(self) -> None:
        if self.closed:
            return
        self.closed = True
        held = self.shared.held
        if held is not None and getattr(self.shared.local, "owner", None) is self:
            # a transaction this handle left open (an error on its way out)
            self.shared.local.conn = self.shared.local.owner = None
            try:
                held.execute("ROLLBACK")
            except Exception:
                pass
            self.shared.pool.putconn(held)
        self.shared.release()


def safe_url(url: str) -> str:
    """The URL without its password, for messages (`user:pw@`, `:pw@`, `?password=`)."""
    url = re.sub(r"(://[^:/@]*):[^@/]*@", r"\1:***@", url)
    return re.sub(r"([?&]password=)[^&]*", r"\1***", url, flags=re.I)
