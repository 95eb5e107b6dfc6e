"""`batch run`: one machine, N runs at once sharing a batch's tasks through the store (each
claims the next task with a compare-and-swap; no scheduler), as threads of one worker process
per RUNS_PER_PROCESS runs (`execute.shares`). The parent only watches: it shows progress, gives
a dead worker's tasks back and starts a replacement.

A worker killed (-9) mid-task: its tasks are given back and taken by other runs, which resume
each thread from its checkpoint (journaled answers replayed, never paid twice). A task
the provider keeps failing is tried RETRIES times with growing pauses, then marked failed with
its one-line error; the rest of the batch goes on. Ctrl-C / SIGTERM: each worker stops after
its current step (checkpointed), and `batch resume` carries on later.
"""

from __future__ import annotations

import multiprocessing
import os
import secrets
import signal
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from reflectcli.batch.execute import TASKS, pool_for, run_task, shares, warm
from reflectcli.batch.status import summarize
from reflectcli.errors import LostClaim, RunBusy, RunInterrupted, UserError
from reflectcli.retry import retryable
from reflectcli.store.batches import BatchTables
from reflectcli.store.db import HOST, Store, lease_seconds, store_url

POLL = 0.5  # seconds between the parent's looks at the store


def new_batch_id() -> str:
    return time.strftime("b%Y%m%d-%H%M%S-") + secrets.token_hex(2)


def create(runs_dir: str | Path, source: str, mode: str, settings: dict[str, Any],
           tasks: list[dict[str, Any]]) -> str:  # fmt: skip
    """Record a new batch and its tasks; refuses thread ids that already have runs."""
    batch_id = new_batch_id()
    with Store(runs_dir) as store:
        tables = BatchTables(store.conn)
        ids = [t["thread_id"] for t in tasks]
        taken = set(tables.runs(ids)) | tables.taken(ids)
        clash = [t for t in tasks if t["thread_id"] in taken]
        if clash:
            raise UserError(f"{source}:{clash[0]['line']}: thread {clash[0]['thread_id']} already exists"
                            + (f" (and {len(clash) - 1} more)" if len(clash) > 1 else ""),
                            hint="give those tasks other thread ids, or resume them with "
                            "`reflectcli resume ID`", exit_code=2)  # fmt: skip
        with store.transaction():
            tables.create(batch_id, source, mode, settings, tasks)
    return batch_id


def snapshot(runs_dir: str | Path, batch_id: str) -> dict[str, Any]:
    """The batch's status now (what `batch status` shows)."""
    with Store(runs_dir) as store:
        tables = BatchTables(store.conn)
        batch = tables.get(batch_id)
        if batch is None:
            raise UserError(f"unknown batch {batch_id!r} in {store.where}",
                            hint="`reflectcli batch list` lists the batches", exit_code=1)  # fmt: skip
        tasks = tables.tasks(batch_id)
        runs = tables.runs([t["thread_id"] for t in tasks])
        job_ids = [t["job_id"] for t in tasks if t["job_id"]]
        jobs = _job_statuses(store, job_ids)
        faults = tables.queue_faults(job_ids, batch["created_at"]) if batch["mode"] == "queue" else None
    status = summarize(batch, tasks, runs, jobs)
    status["queue_faults"] = faults or {"count": 0, "last": None}
    return status


def _job_statuses(store: Store, job_ids: list[int]) -> dict[int, str]:
    """The queue's own word on each job (PostgreSQL batches only)."""
    if not job_ids or store.dialect != "postgres":
        return {}
    exists = store.conn.execute("SELECT to_regclass('procrastinate_jobs') IS NOT NULL").fetchone()[0]
    if not exists:
        return {}
    out: dict[int, str] = {}
    for i in range(0, len(job_ids), 500):
        part = job_ids[i : i + 500]
        rows = store.conn.execute(f"SELECT id, status FROM procrastinate_jobs WHERE id IN "
                                  f"({', '.join('?' * len(part))})", part)  # fmt: skip
        out.update({int(r[0]): str(r[1]) for r in rows})
    return out


# --- one worker process -----------------------------------------------------------------------


def detach() -> None:
    """A worker process's own process group (a terminal's Ctrl-C reaches only its parent, which
    passes on one signal), and a SIGTERM when its parent dies (a `kill -9` of the parent leaves
    no worker running unsupervised: it stops after its current step). Linux: prctl."""
    os.setpgrp()
    try:
        import ctypes

        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        return
    if os.getppid() == 1:  # the parent died before the line above
        os.kill(os.getpid(), signal.SIGTERM)


def _one_line(exc: BaseException) -> str:
    message = getattr(exc, "message", None) or f"{type(exc).__name__}: {exc}"
    return " ".join(str(message).split())[:500]


def work_through(runs_dir: str, batch_id: str, runs: int = 1) -> None:
    """A worker process: `runs` threads, each claiming the next task and writing it until none
    is left or the batch is cancelled (a run waits on its model, not the CPU). SIGINT / SIGTERM
    (sent by the parent: the worker has its own process group, so a terminal's Ctrl-C reaches
    the parent alone) stop every run after its current step, checkpointed; their tasks are given
    back."""
    stopping = threading.Event()
    for signum in (signal.SIGINT, signal.SIGTERM):
        signal.signal(signum, lambda *_: stopping.set())
    detach()
    pool_for(runs)
    if store_url():
        from reflectcli.store.pg import keep_pools

        keep_pools()  # one pool for the process's life, not one per task
    warm()
    checked_at, found = 0.0, False  # when the store was last asked; its answer
    guard = threading.Lock()

    def cancelled() -> bool:  # asked after every step: looks at the store at most every 2 s
        nonlocal checked_at, found
        with guard:
            if time.monotonic() - checked_at > 2:
                with Store(runs_dir) as store:
                    found = BatchTables(store.conn).cancelled(batch_id)
                checked_at = time.monotonic()
            return found

    def should_stop() -> bool:
        return stopping.is_set() or cancelled()

    threads = [threading.Thread(target=_work, args=(runs_dir, batch_id, stopping, should_stop),
                                name=f"run-{i}") for i in range(max(1, runs))]  # fmt: skip
    for thread in threads:
        thread.start()
    for thread in threads:
        while thread.is_alive():
            thread.join(0.5)  # the main thread stays free for the signal handlers


def _work(runs_dir: str, batch_id: str, stopping: threading.Event, should_stop: Callable[[], bool]) -> None:
    """One of a worker process's runs at once: claim a task, write it, the next, until none is
    left, the batch is cancelled or the process is stopped."""
    me = f"{HOST}:{os.getpid()}"
    while not should_stop():
        with Store(runs_dir) as store:
            tables = BatchTables(store.conn)
            batch, task = tables.get(batch_id), tables.claim(batch_id, me)
        if task is None or batch is None:
            return
        while True:
            error = None
            try:
                run_task(runs_dir, batch, task, should_stop=should_stop, own_signals=False)
            except RunInterrupted:
                if stopping.is_set():  # a signal: give the task back for `batch resume`
                    with Store(runs_dir) as store:
                        BatchTables(store.conn).unclaim(batch_id, [task["n"]])
                    return
            except LostClaim as exc:  # another process took the run over: leave it all to that one
                print(f"batch: {exc.message}", file=sys.stderr, flush=True)
                break  # (not even the task's row: the new owner's) and on to the next task
            except RunBusy:  # another process still holds the thread: wait out its lease
                if stopping.wait(min(lease_seconds(), 30)):
                    return
                continue
            except Exception as exc:
                if retryable(exc):  # the provider's fault: counted, then maybe again later
                    with Store(runs_dir) as store:
                        faults = BatchTables(store.conn).fault(batch_id, task["n"])
                    if (pause := TASKS.retry_in(exc, faults)) is not None:
                        if stopping.wait(pause):
                            return
                        continue
                error = _one_line(exc)
            with Store(runs_dir) as store:
                BatchTables(store.conn).set_error(batch_id, task["n"], error)
            break


# --- the parent -------------------------------------------------------------------------------


def run_local(runs_dir: str | Path, batch_id: str, jobs: int,
              on_progress: Callable[[dict[str, Any]], None]) -> dict[str, Any]:  # fmt: skip
    """Run the batch's tasks `jobs` at once, in one worker process per RUNS_PER_PROCESS of them
    (`execute.shares`), and watch them to the end; a worker process that dies has its tasks
    given back and is replaced while tasks are left. Returns the final status. Raises
    KeyboardInterrupt after the workers stopped (Ctrl-C / SIGTERM)."""
    runs_dir = str(runs_dir)
    context = multiprocessing.get_context("spawn")  # a clean interpreter: no inherited threads
    workers: dict[int, tuple[Any, int]] = {}  # pid -> (process, its runs at once)

    def spawn(runs: int) -> None:
        proc = context.Process(target=work_through, args=(runs_dir, batch_id, runs), daemon=False)
        proc.start()
        assert proc.pid is not None  # (a started process has one)
        workers[proc.pid] = (proc, runs)

    def left() -> int:
        with Store(runs_dir) as store:
            tasks = BatchTables(store.conn).tasks(batch_id)
        return sum(t["started_at"] is None for t in tasks)

    previous = signal.signal(signal.SIGTERM, signal.default_int_handler)
    try:
        for runs in shares(min(jobs, max(1, left()))):
            spawn(runs)
        while workers:
            time.sleep(POLL)
            status = snapshot(runs_dir, batch_id)
            on_progress(status)
            for pid, (proc, runs) in list(workers.items()):
                if proc.is_alive():
                    continue
                proc.join()
                del workers[pid]
                if proc.exitcode != 0:  # killed: its tasks go back to the pool
                    _give_back(runs_dir, batch_id, f"{HOST}:{pid}")
                    if left() and not status["cancelled"]:
                        spawn(runs)
    except KeyboardInterrupt:
        for proc, _ in workers.values():
            if proc.is_alive():
                os.kill(proc.pid, signal.SIGTERM)  # each stops after its current step
        try:
            for proc, _ in workers.values():
                proc.join()
        except KeyboardInterrupt:  # asked twice: stop now (a call in flight is lost, no more)
            for proc, _ in workers.values():
                if proc.is_alive():
                    proc.kill()
                    proc.join()
        for proc, _ in workers.values():
            if proc.exitcode != 0:
                _give_back(runs_dir, batch_id, f"{HOST}:{proc.pid}")
        raise
    finally:
        signal.signal(signal.SIGTERM, previous)
    final = snapshot(runs_dir, batch_id)
    on_progress(final)
    return final


def _give_back(runs_dir: str, batch_id: str, worker: str) -> None:
    """The unfinished tasks a dead worker held go back to the pool (their runs resume)."""
    with Store(runs_dir) as store:
        tables = BatchTables(store.conn)
        tasks = [t for t in tables.tasks(batch_id) if t["worker"] == worker and not t["error"]]
        runs = tables.runs([t["thread_id"] for t in tasks])
        mine = [t["n"] for t in tasks if (runs.get(t["thread_id"]) or {}).get("status") != "finished"]
        tables.unclaim(batch_id, mine)


def reopen(runs_dir: str | Path, batch_id: str, retry_failed: bool = False) -> int:
    """Before `batch resume`: give back every unfinished task (and, with `retry_failed`, the
    failed ones); the number given back."""
    with Store(runs_dir) as store:
        tables = BatchTables(store.conn)
        batch = tables.get(batch_id)
        if batch is None:
            raise UserError(f"unknown batch {batch_id!r} in {store.where}", exit_code=1)
        if batch["mode"] != "local":
            raise UserError(f"batch {batch_id} is on the queue: its workers carry on by themselves",
                            hint="start more with `reflectcli worker`; `reflectcli batch submit "
                            f"--resume {batch_id}` queues the tasks a broken submit left out",
                            exit_code=2)  # fmt: skip
        tasks = tables.tasks(batch_id)
        runs = tables.runs([t["thread_id"] for t in tasks])
        again = []
        for t in tasks:
            if (runs.get(t["thread_id"]) or {}).get("status") == "finished":
                continue
            if t["error"] and not retry_failed:
                continue
            again.append(t["n"])
            if t["error"]:
                tables.set_error(batch_id, t["n"], None)
        tables.unclaim(batch_id, again)
        store.conn.execute("UPDATE batches SET cancelled = 0 WHERE id = ?", (batch_id,))
    return len(again)
