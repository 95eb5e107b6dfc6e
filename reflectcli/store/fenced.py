"""LangGraph's checkpointer, fenced: a checkpoint of a thread whose claim this store lost is
refused inside the checkpoint's own transaction."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from reflectcli.store.owners import FENCE_COLUMNS, fence_broken


def fenced_saver(saver_class: type, store: Any) -> type:
    """The saver, refusing a checkpoint of a thread whose claim this store lost. The check runs
    in the checkpoint's own transaction, on the checkpointer's connection, as its first
    statement: on PostgreSQL it reads the run's row FOR SHARE (a takeover's FOR UPDATE waits for
    the commit), on SQLite inside BEGIN IMMEDIATE (a takeover's write waits for the commit), so
    no claim can change between the check and the write."""
    postgres = store.dialect == "postgres"
    local = threading.local()  # the thread id a put on this thread is fenced for

    class Fenced(saver_class):
        def put(self, config, *args, **kwargs):
            with self._fence(config):
                return super().put(config, *args, **kwargs)

        def put_writes(self, config, *args, **kwargs):
            with self._fence(config):
                return super().put_writes(config, *args, **kwargs)

        @contextmanager
        def _fence(self, config) -> Iterator[None]:
            thread_id = config["configurable"]["thread_id"]
            local.fence = thread_id if store.generation(thread_id) is not None else None
            try:
                yield
            finally:
                local.fence = None

        def _check(self, cur, thread_id: str) -> None:
            sql = f"SELECT {FENCE_COLUMNS} FROM runs WHERE thread_id = " + (
                "%s FOR SHARE" if postgres else "?")  # fmt: skip
            cur.execute(sql, (thread_id,))
            row = cur.fetchone()
            if isinstance(row, dict):  # the PostgreSQL saver's dict rows
                row = (row["generation"], row["owner_pid"], row["owner_host"])
            if stale := fence_broken(thread_id, row, store.generation(thread_id)):
                raise stale

        if postgres:

            @contextmanager
            def _cursor(self, *, pipeline: bool = False):
                thread_id = getattr(local, "fence", None)
                if thread_id is None:
                    with super()._cursor(pipeline=pipeline) as cur:
                        yield cur
                    return
                from langgraph.checkpoint.postgres import _internal
                from psycopg.rows import dict_row

                with self.lock, _internal.get_connection(self.conn) as conn:
                    with conn.transaction(), conn.cursor(binary=True, row_factory=dict_row) as cur:
                        self._check(cur, thread_id)
                        yield cur

        else:

            @contextmanager
            def cursor(self, transaction: bool = True):
                thread_id = getattr(local, "fence", None)
                if thread_id is None or not transaction:
                    with super().cursor(transaction) as cur:
                        yield cur
                    return
                with self.lock:
                    self.setup()
                    cur = self.conn.cursor()
                    try:
                        cur.execute("BEGIN IMMEDIATE")
                        self._check(cur, thread_id)
                        yield cur
                        self.conn.commit()
                    except BaseException:
                        self.conn.rollback()
                        raise
                    finally:
                        cur.close()

    Fenced.__name__ = Fenced.__qualname__ = f"Fenced{saver_class.__name__}"
    return Fenced
