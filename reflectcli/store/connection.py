"""What the store's code asks of a connection: sqlite3's, or `pg.Connection` (our sqlite3
dialect over psycopg's pool). Code that needs more than this (sqlite3's `create_function`,
the pool LangGraph's saver takes) checks which one it holds."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol


class Connection(Protocol):
    def execute(self, sql: str, args: Sequence[Any] = ..., /) -> Any:
        """The cursor of `sql` with `?` marks bound to `args` (rows by index; by name too)."""

    def executemany(self, sql: str, rows: Sequence[Sequence[Any]], /) -> object:
        """`sql` once for each of `rows`."""

    def close(self) -> None:
        """Give the connection back (pg: to the pool)."""
