"""Who holds a run: this host and process as an owner names them, whether an owner is alive
(its pid and start time on this host), how long a lease lasts, and the fencing check's words
(a generation that moved on is a LostClaim naming the new holder)."""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Any

from reflectcli.errors import LostClaim


def _host() -> str:
    """This machine as a run's owner: its name, and the PID namespace when it is not the first
    one (containers sharing a host name but not their pids must not take each other's pids as
    their own): `name~4026532` then."""
    name = os.uname().nodename
    try:
        ns = os.readlink("/proc/self/ns/pid")  # "pid:[4026531836]"
        init = os.readlink("/proc/1/ns/pid")
    except OSError:
        return name
    return name if ns == init else f"{name}~{ns.strip('pid:[]')}"


HOST = _host()


def lease_seconds() -> float:
    """How long a run's claim lasts without renewal (renewed every third of it while alive)."""
    try:
        return max(1.0, float(os.environ.get("REFLECTCLI_LEASE_SECONDS") or 60))
    except ValueError:
        return 60.0


# Whether a run's lease is still running, by the database's clock (select it beside the owner).
LEASE_LIVE = "(lease_until IS NULL OR lease_until > db_now()) AS lease_live"


def process_start(pid: int) -> int | None:
    """When process `pid` started (clock ticks since boot: /proc/<pid>/stat, field 22). With
    the pid it names one process: a pid reused later has a later start. None where unknown."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_bytes()
    except OSError:
        return None
    try:  # the name (field 2) may hold spaces and parentheses: fields 3... follow the last ')'
        return int(stat.rsplit(b")", 1)[1].split()[19])
    except (IndexError, ValueError):
        return None


_STARTS: dict[int, int | None] = {}


def my_start() -> int | None:
    """This process's start (per pid: a forked child has its own)."""
    pid = os.getpid()
    if pid not in _STARTS:
        _STARTS[pid] = process_start(pid)
    return _STARTS[pid]


def owner_alive(run: dict[str, Any]) -> bool:
    """Is the process that claimed this run still alive? On its own host the pid and its start
    time say (a killed one leaves no stuck lock, a reused pid is not the owner); elsewhere its
    lease does, until it expires unrenewed (`lease_live`, judged by the database's clock)."""
    pid, host = run.get("owner_pid"), run.get("owner_host")
    if not pid:
        return False
    if host != HOST:
        if "lease_live" in run:
            return bool(run["lease_live"])
        lease = run.get("lease_until")  # a row read without LEASE_LIVE
        return lease is None or lease > time.time()  # None: claimed before leases existed
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        pass
    started = run.get("owner_started")
    if started is not None:
        now = process_start(pid)
        if now is not None and now != started:
            return False  # the pid was reused by an unrelated process
    return True


def effective_status(run: dict[str, Any]) -> str:
    """`running` whose owner died (kill -9) reads as `interrupted`."""
    if run["status"] == "running" and not owner_alive(run):
        return "interrupted"
    return run["status"]


# The fencing check's columns: the generation, and who holds the run (for the message)
FENCE_COLUMNS = "generation, owner_pid, owner_host"


def owner_of(pid: Any, host: Any) -> str | None:
    """`pid 123 on host-b`: a run's holder as messages name it (None when nobody holds it)."""
    if not pid:
        return None
    return f"pid {pid} on {str(host or '?').split('~')[0]}"


def fence_broken(thread_id: str, row: Any, generation: int | None) -> LostClaim | None:
    """The LostClaim for a fencing check that read `row` (generation, owner pid, owner host)
    while holding claim `generation` (None: the claim is known to be lost), else None."""
    if row is not None and generation is not None and row[0] == generation:
        return None
    return LostClaim(thread_id, owner_of(row[1], row[2]) if row is not None else None)
