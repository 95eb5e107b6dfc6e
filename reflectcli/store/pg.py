"""PostgreSQL behind the same small surface our SQL uses on sqlite3: `execute(sql, args)` with `?`
marks, rows read by index or by name, explicit BEGIN / COMMIT on an autocommit connection.

Imported only when the store in force is a `postgresql://` URL (psycopg is not loaded otherwise).
Connections are opened with `autocommit=True` and `prepare_threshold=None`, so they work behind
PgBouncer in transaction mode too.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from typing import Any

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
    return bool(location) and bool(URL.match(location))


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


class Connection:
    """One psycopg connection (autocommit, no prepared statements) speaking our sqlite3 dialect."""

    dialect = "postgres"

    def __init__(self, url: str, connect_timeout: float = 10, idle_ms: int = 0):
        self.url, self.idle_ms = url, idle_ms
        self.raw = psycopg.connect(
            url, autocommit=True, prepare_threshold=None, row_factory=_rows,
            connect_timeout=max(1, int(connect_timeout)),
        )  # fmt: skip
        self.raw.adapters.register_loader("numeric", _Number)

    def execute(self, sql: str, args: Sequence[Any] = ()) -> psycopg.Cursor:
        cursor = self.raw.cursor()
        try:
            cursor.execute(query_sql(sql, bool(args), self.idle_ms), tuple(args) if args else None)
        except BaseException:
            if sql.startswith("BEGIN") and not self.raw.closed:  # the lock wait failed: not ours
                try:
                    self.raw.execute("ROLLBACK")
                except Exception:
                    pass
            raise
        return cursor

    def executemany(self, sql: str, rows: Sequence[Sequence[Any]]) -> None:
        rows = [tuple(r) for r in rows]
        if rows:
            self.raw.cursor().executemany(query_sql(sql, True), rows)

    def close(self) -> None:
        self.raw.close()


def safe_url(url: str) -> str:
    """The URL without its password, for messages (`user:pw@`, `:pw@`, `?password=`)."""
    url = re.sub(r"(://[^:/@]*):[^@/]*@", r"\1:***@", url)
    return re.sub(r"([?&]password=)[^&]*", r"\1***", url, flags=re.I)
