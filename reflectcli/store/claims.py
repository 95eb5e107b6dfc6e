"""A run's claim, as the store's half that holds it (a mixin of store/db.py's Store): the
lease (pid, host, process start, expiry by the database's clock), the fencing token each claim
takes (the run's generation, bumped), the renewal thread, and the check every owner's write
makes first (LostClaim when another claim came since). See db.py's docstring on fencing."""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from reflectcli.errors import LostClaim, RunBusy
from reflectcli.store.connection import Connection
from reflectcli.store.owners import (
    FENCE_COLUMNS,
    HOST,
    LEASE_LIVE,
    fence_broken,
    lease_seconds,
    my_start,
    owner_alive,
)


class _NoContext:
    """A write outside any claim: no transaction of its own (cheaper than
    contextlib.nullcontext() per write)."""

    def __enter__(self) -> None:
        return None

    def __exit__(self, *exc: Any) -> None:
        return None


class Claims:
    conn: Connection
    dialect: str
    _lock: threading.RLock
    _depth: int
    _fences: dict[str, int]  # thread -> the generation this store claimed
    _journal_keys: dict[str, set[str]]  # thread -> its journal's keys, read once after the claim

    def transaction(self, exclusive: bool = False, check: bool = True) -> Any:
        raise NotImplementedError

    def _begin(self, exclusive: bool = False) -> str:
        raise NotImplementedError

    def reopen(self) -> Any:
        raise NotImplementedError

    def _check_fence(self, thread_id: str) -> None:
        """Raise LostClaim unless the run's generation is still the one this store claimed."""
        lock = " FOR SHARE" if self.dialect == "postgres" and self._depth else ""
        row = self.conn.execute(f"SELECT {FENCE_COLUMNS} FROM runs WHERE thread_id = ?{lock}",
                                (thread_id,)).fetchone()  # fmt: skip
        if stale := fence_broken(thread_id, row, self._fences[thread_id]):
            raise stale

    def lost(self, thread_id: str) -> LostClaim:
        """The LostClaim to raise for `thread_id`, naming its owner now when the store can say."""
        with self._lock:  # one thread at a time on the shared connection
            try:
                row = self.conn.execute(f"SELECT {FENCE_COLUMNS} FROM runs WHERE thread_id = ?",
                                        (thread_id,)).fetchone()  # fmt: skip
            except Exception:  # the store itself is away: the claim is lost all the same
                row = None
            return fence_broken(thread_id, row, None) or LostClaim(thread_id)

    def check_claim(self, thread_id: str) -> None:
        """LostClaim if this store claimed `thread_id` and another claim came since (a no-op
        for a thread it does not hold)."""
        if thread_id in self._fences:
            with self._lock:
                self._check_fence(thread_id)

    def _owned(self, thread_id: str):
        """The context for one of the run owner's writes: a fenced transaction while this
        store holds the thread, nothing more otherwise."""
        return self.transaction() if thread_id in self._fences else self._lock

    def generation(self, thread_id: str) -> int | None:
        """The fencing token this store holds for the thread (None: it holds none)."""
        return self._fences.get(thread_id)

    def acquire(self, thread_id: str) -> int | None:
        """Claim the thread for this process (a lease: pid, host, process start, expiry by the
        database's clock) and take a new fencing token (the run's generation, bumped); refuse
        when a live process holds it. The claim is a compare-and-swap on the generation read
        (a row lock on PostgreSQL), so two processes on two hosts racing cannot both win.
        Returns the token (None for a thread with no run row)."""
        me, start = os.getpid(), my_start()
        lock = " FOR UPDATE" if self.dialect == "postgres" else ""
        with self._lock:
            self.conn.execute(self._begin())
            try:
                row = self.conn.execute(
                    f"SELECT owner_pid, owner_host, owner_started, generation, {LEASE_LIVE} FROM runs "
                    f"WHERE thread_id = ?{lock}", (thread_id,)
                ).fetchone()  # fmt: skip
                held = dict(row) if row else {}
                mine = (held.get("owner_pid") == me and held.get("owner_host") == HOST
                        and held.get("owner_started") in (None, start))  # fmt: skip
                if held.get("owner_pid") and not mine and owner_alive(held):
                    host = str(held.get("owner_host") or "")
                    where = "" if host == HOST else f" on {host.split('~')[0]}"
                    raise RunBusy(
                        f"thread {thread_id} is being run by another process "
                        f"(pid {held['owner_pid']}{where})",
                        hint="wait for it to finish, or stop it first"
                        + ("" if not where else f"; its claim lapses {lease_seconds():.0f} s after its "
                           "host stops renewing it"),
                        generation=held.get("generation"),
                    )  # fmt: skip
                claimed = None
                if row and mine and self._fences.get(thread_id) == held["generation"]:
                    claimed = self.conn.execute(  # this store's claim still: renewed, same token
                        "UPDATE runs SET lease_until = db_now() + ? WHERE thread_id = ? RETURNING generation",
                        (lease_seconds(), thread_id),
                    ).fetchone()
                elif row:
                    claimed = self.conn.execute(
                        "UPDATE runs SET owner_pid = ?, owner_host = ?, owner_started = ?, "
                        "lease_until = db_now() + ?, generation = generation + 1 "
                        "WHERE thread_id = ? AND generation = ? RETURNING generation",
                        (me, HOST, start, lease_seconds(), thread_id, held["generation"]),
                    ).fetchone()  # fmt: skip
                    if not claimed:
                        raise RunBusy(f"thread {thread_id} was just claimed by another process",
                                      hint="wait for it to finish, or stop it first")  # fmt: skip
                self.conn.execute("COMMIT")
            except BaseException:
                try:
                    self.conn.execute("ROLLBACK")
                except Exception:
                    pass
                raise
        if claimed:
            if self._fences.get(thread_id) != int(claimed[0]):
                self._journal_keys.pop(thread_id, None)  # a new claim reads the journal anew
            self._fences[thread_id] = int(claimed[0])
            return int(claimed[0])
        return None

    def renew(self, thread_id: str, generation: int | None = None) -> bool:
        """Extend the lease of the claim `generation` (this store's own by default) by the
        database's clock; False when that claim is no longer the run's."""
        with self._lock:  # one thread at a time on the shared connection
            generation = self._fences.get(thread_id) if generation is None else generation
            if generation is None:
                return bool(self.conn.execute(
                    "UPDATE runs SET lease_until = db_now() + ? WHERE thread_id = ? AND owner_pid = ? "
                    "AND owner_host = ?", (lease_seconds(), thread_id, os.getpid(), HOST),
                ).rowcount)  # fmt: skip
            return bool(self.conn.execute(
                "UPDATE runs SET lease_until = db_now() + ? WHERE thread_id = ? AND generation = ?",
                (lease_seconds(), thread_id, generation),
            ).rowcount)  # fmt: skip

    @contextmanager
    def keep_alive(self, thread_id: str) -> Iterator[threading.Event]:
        """Renew the lease every third of its length from a thread with its own connection,
        while the body runs. Yields an event set when the claim is lost: a renewal found another
        owner, or no renewal succeeded for a whole lease (the database was unreachable), so
        another process may have taken the thread; the run must stop at its next step."""
        stop, lost = threading.Event(), threading.Event()
        every = lease_seconds() / 3
        generation = self._fences.get(thread_id)

        def renew() -> None:
            other, renewed = None, time.monotonic()
            while not stop.wait(every):
                try:
                    other = other or self.reopen()
                    if not other.renew(thread_id, generation):
                        lost.set()
                        break
                    renewed = time.monotonic()
                except Exception:  # the database is busy or gone: the main thread will say so
                    if other is not None:
                        other.close()
                    other = None
                    if time.monotonic() - renewed > lease_seconds():
                        lost.set()
            if other is not None:
                other.close()

        worker = threading.Thread(target=renew, name=f"lease-{thread_id}", daemon=True)
        worker.start()
        try:
            yield lost
        finally:
            stop.set()
            worker.join(timeout=5)

    def release(self, thread_id: str) -> None:
        """Give the claim up (only this store's own claim: never a newer owner's)."""
        with self._lock:  # one thread at a time on the shared connection
            generation = self._fences.pop(thread_id, None)
            if generation is None:
                self.conn.execute(
                    "UPDATE runs SET owner_pid = NULL, owner_host = NULL, owner_started = NULL, "
                    "lease_until = NULL WHERE thread_id = ? AND owner_pid = ? AND owner_host = ?",
                    (thread_id, os.getpid(), HOST),
                )
                return
            self.conn.execute(
                "UPDATE runs SET owner_pid = NULL, owner_host = NULL, owner_started = NULL, "
                "lease_until = NULL WHERE thread_id = ? AND generation = ?",
                (thread_id, generation),
            )
