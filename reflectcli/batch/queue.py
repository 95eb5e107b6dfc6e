"""`batch submit` and `worker`: the tasks of a batch as jobs on procrastinate's PostgreSQL queue,
taken by `reflectcli worker` processes on any number of machines.

Job ↔ thread: each job carries (batch id, task number); the task row holds its job id and its
thread id. A worker process runs several jobs at once (procrastinate's concurrency, each job in a
thread of its own: a run waits on its model, not the CPU; `execute.shares` spreads a worker's
`--concurrency` over one process per RUNS_PER_PROCESS runs) and sends procrastinate's heartbeat;
one whose heartbeat stops (kill -9, a dead host) has its jobs put back on the queue by the other
workers after the lease (REFLECTCLI_LEASE_SECONDS, default 60), and whoever takes each resumes
its thread from its checkpoint: no completed call is paid twice. A job's row is written only by
the worker that fetched it, at that fetch (its worker id and attempt: `FINISH_IF_STILL_MINE`), so
a worker that was stalled past its lease and wakes up changes neither the run (fenced: LostClaim)
nor the job its successor now runs. A provider that keeps failing: the job is
retried with growing pauses (RETRIES attempts), then marked failed with its one-line error.
SIGTERM / Ctrl-C on a worker: the running job stops after its current step (checkpointed), goes
back on the queue, and the worker exits.
"""

from __future__ import annotations

import asyncio
import logging
import multiprocessing
import os
import signal
import sys
import time
from pathlib import Path
from typing import Any

from reflectcli.batch.execute import RETRIES, TASKS, pool_for, run_task, shares, warm
from reflectcli.batch.local import _one_line, detach
from reflectcli.errors import LostClaim, RunBusy, RunInterrupted, UserError
from reflectcli.retry import retryable
from reflectcli.store.batches import BatchTables
from reflectcli.store.db import HOST, Store, lease_seconds, store_url

QUEUE = "reflectcli"
TASK = "reflectcli.write"
BUSY_ATTEMPTS = 5  # attempts at a task whose thread another live process holds, then reported
log = logging.getLogger(__name__)


def require_url() -> str:
    url = store_url()
    if not url:
        raise UserError("the job queue needs the PostgreSQL store",
                        hint="set REFLECTCLI_STORE=postgresql://... (or --store, or `store` in "
                        "config.toml); on one machine, `reflectcli batch run` needs none",
                        exit_code=2)  # fmt: skip
    return url


def _retry_strategy():
    from procrastinate import BaseRetryStrategy, RetryDecision
    from procrastinate.exceptions import JobAborted

    class Retry(BaseRetryStrategy):
        """A worker shut down mid-job: straight back on the queue. The provider's fault: again
        after 2, 4, … s, RETRIES attempts in all. A thread still held by a process whose lease
        has not lapsed: again after the lease, until BUSY_ATTEMPTS attempts in a row found that
        same claim holding it (then failed, its holder named in the task's error; the job's own
        attempts also count kills and requeues, so they are not what is capped). Anything
        else: failed."""

        def get_retry_decision(self, *, exception: BaseException, job: Any):
            if isinstance(exception, JobAborted):  # asked only when the worker is shutting down
                return RetryDecision(retry_in={"seconds": 0})
            if isinstance(exception, LostClaim):  # the run went to another process: if this job
                # is still this fetch's (FINISH_IF_STILL_MINE), look again after the lease
                return RetryDecision(retry_in={"seconds": max(1, int(lease_seconds()))})
            if isinstance(exception, RunBusy):
                if exception.busy is None or exception.busy >= BUSY_ATTEMPTS:  # set by write_job
                    return None
                return RetryDecision(retry_in={"seconds": max(1, int(lease_seconds()))})
            faults = getattr(exception, "faults", RETRIES)  # counted per task: restarts are not faults
            if (pause := TASKS.retry_in(exception, faults)) is not None:
                return RetryDecision(retry_in={"seconds": int(pause)})
            return None

    return Retry()


def make_app(url: str, sync: bool = True):
    """procrastinate's App on the store's database (connections without prepared statements:
    PgBouncer in transaction mode works), with our one task registered. Its pool holds one
    connection: a worker polls for jobs (no LISTEN connection held open), so a worker process
    needs two in all, this one and the store's."""
    import procrastinate

    from reflectcli.store.pg import named

    kwargs = {"prepare_threshold": None, **named(url, "queue")}
    connector = (
        procrastinate.SyncPsycopgConnector(conninfo=url, min_size=1, max_size=1, kwargs=kwargs)
        if sync
        else procrastinate.PsycopgConnector(conninfo=url, min_size=1, max_size=1, kwargs=kwargs)
    )
    app = procrastinate.App(connector=connector)
    app.task(name=TASK, queue=QUEUE, pass_context=True, retry=_retry_strategy())(write_job)
    guard_job_rows(app.job_manager)
    return app


# A job's end (finished, failed, aborted, or back on the queue) is written only while its row is
# still this fetch's: status doing, this worker's id, the attempt it was fetched at. A worker
# stalled past its lease whose job was requeued (and perhaps taken by another worker) since then
# would otherwise mark that other worker's job succeeded or failed under it.
_STILL_MINE = """
WITH mine AS (
    SELECT id FROM procrastinate_jobs
     WHERE id = %(job_id)s AND status = 'doing' AND worker_id IS NOT DISTINCT FROM %(worker_id)s
       AND attempts = %(attempts)s
       FOR UPDATE
)
"""
FINISH_IF_STILL_MINE = _STILL_MINE + (
    "SELECT procrastinate_finish_job_v1(id, %(status)s::procrastinate_job_status, %(delete_job)s) "
    "IS NULL AS done FROM mine"
)
RETRY_IF_STILL_MINE = _STILL_MINE + (
    "SELECT procrastinate_retry_job_v2(id, %(retry_at)s, %(new_priority)s, %(new_queue_name)s, "
    "%(new_lock)s) IS NULL AS done FROM mine"
)


def guard_job_rows(manager) -> None:
    """Make the job manager's finish_job and retry_job write only a job still this fetch's."""

    async def finish_job(job, status, delete_job: bool) -> None:
        rows = await manager.connector.execute_query_all_async(
            FINISH_IF_STILL_MINE, job_id=job.id, worker_id=job.worker_id, attempts=job.attempts,
            status=status.value, delete_job=delete_job,
        )  # fmt: skip
        if not rows:
            log.warning("job %s is no longer this worker's: its end was not recorded here", job.id)

    async def retry_job(job, retry_at=None, priority=None, queue=None, lock=None) -> None:
        from procrastinate import utils

        rows = await manager.connector.execute_query_all_async(
            RETRY_IF_STILL_MINE, job_id=job.id, worker_id=job.worker_id, attempts=job.attempts,
            retry_at=retry_at or utils.utcnow(), new_priority=priority, new_queue_name=queue,
            new_lock=lock,
        )  # fmt: skip
        if not rows:
            log.warning("job %s is no longer this worker's: it was not put back here", job.id)

    manager.finish_job = finish_job
    manager.retry_job = retry_job


def ensure_schema(app, store: Store) -> None:
    """procrastinate's tables, once per database. The schema lock (a session-level advisory
    lock) is taken only when they are missing, as for the store's own migrations, so that a
    submit or a worker behind PgBouncer's transaction pooling never holds one."""

    def missing() -> bool:
        return store.conn.execute("SELECT to_regclass('procrastinate_jobs') IS NULL").fetchone()[0]

    if not missing():
        return
    with store._schema_lock():
        if missing():  # another process may have made them while this one waited
            app.schema_manager.apply_schema()


def prepare(runs_dir: str | Path) -> None:
    """Every table a worker process needs, before any starts: the queue's, the store's and
    LangGraph's checkpoints'. A worker process then never opens a session of its own for the
    schema lock: it holds its pool's connection and procrastinate's, two in all (the first run
    of each new database used to set the checkpoint tables up behind a third)."""
    app = make_app(require_url())
    with Store(runs_dir) as store:
        with app.open():
            ensure_schema(app, store)
        made = store.conn.execute("SELECT to_regclass('checkpoint_migrations') IS NOT NULL").fetchone()[0]
        if not made:  # LangGraph's tables (its import, ~1 s of CPU, only then; procrastinate's
            store.checkpointer()  # connection closed: this process holds two at most)


def submit(runs_dir: str | Path, batch_id: str) -> list[int]:
    """Put the batch's tasks that have no job yet on the queue (all of them, for a batch just
    recorded; after a submit cut short, the rest); the new job ids, in task order. Each job id
    is recorded as soon as it exists."""
    url = require_url()
    app = make_app(url)
    with Store(runs_dir) as store, app.open():
        ensure_schema(app, store)
        tables = BatchTables(store.conn)
        batch = tables.get(batch_id)
        if batch is None or batch["mode"] != "queue":
            raise UserError(f"no queued batch {batch_id!r} in {store.where}", exit_code=1)
        ids = []
        for task in tables.tasks(batch_id):
            if task["job_id"] is not None:
                continue
            job_id = (
                app.tasks[TASK]
                .configure(queue=QUEUE, lock=task["thread_id"])
                .defer(batch_id=batch_id, n=task["n"])
            )  # one lock per thread: never two jobs of it at once
            tables.set_job(batch_id, task["n"], job_id)
            ids.append(job_id)
    return ids


def cancel(runs_dir: str | Path, batch_id: str) -> dict[str, int]:
    """Cancel a batch: queued jobs will not start; running ones stop after their current step.
    Runs already finished stay."""
    with Store(runs_dir) as store:
        tables = BatchTables(store.conn)
        batch = tables.get(batch_id)
        if batch is None:
            raise UserError(f"unknown batch {batch_id!r} in {store.where}", exit_code=1)
        tables.cancel(batch_id)
        tasks = tables.tasks(batch_id)
    counts = {"cancelled": 0, "stopping": 0}
    job_ids = [t["job_id"] for t in tasks if t["job_id"]]
    if batch["mode"] != "queue" or not job_ids:
        return counts
    app = make_app(require_url())
    with app.open():
        manager = app.job_manager
        for job_id in job_ids:
            if manager.cancel_job_by_id(job_id):  # still queued
                counts["cancelled"] += 1
            elif manager.cancel_job_by_id(job_id, abort=True):  # running: asked to stop
                counts["stopping"] += 1
    return counts


# --- the job ------------------------------------------------------------------------------------


def write_job(context, batch_id: str, n: int) -> str:
    """One task: write or resume its thread. Runs in a worker thread of the worker process."""
    runs_dir = context.additional_context["runs_dir"]
    with Store(runs_dir) as store:
        tables = BatchTables(store.conn)
        batch, task = tables.get(batch_id), tables.task(batch_id, n)
        if batch is None or task is None or batch["cancelled"]:
            return "cancelled"
        tables.started(batch_id, n, f"{HOST}:{os.getpid()}")
    from procrastinate.exceptions import JobAborted

    try:
        outcome = run_task(runs_dir, batch, task, should_stop=context.should_abort)
    except RunInterrupted as exc:
        raise JobAborted(f"stopped after a step of {task['thread_id']}") from exc
    except LostClaim as exc:  # another process runs the thread now: its rows stay untouched, and
        print(f"worker: {exc.message}", file=sys.stderr, flush=True)  # the job's only if still ours
        raise
    except RunBusy as exc:
        with Store(runs_dir) as store:
            tables = BatchTables(store.conn)
            exc.busy = busy = tables.busy(batch_id, n, exc.generation)  # read by the retry strategy
            if busy >= BUSY_ATTEMPTS:
                tables.set_error(batch_id, n, f"{_one_line(exc)} (still so after {BUSY_ATTEMPTS} "
                                 "attempts)")  # fmt: skip
        raise
    except Exception as exc:
        faults = RETRIES
        if retryable(exc):
            with Store(runs_dir) as store:
                faults = BatchTables(store.conn).fault(batch_id, n)
            # read by the retry strategy; `exc` is any exception (a provider's too), so the
            # attribute is ours, set on an object whose class does not declare it
            exc.faults = faults  # type: ignore[attr-defined]
        if faults >= RETRIES:
            with Store(runs_dir) as store:
                BatchTables(store.conn).set_error(batch_id, n, _one_line(exc))
        raise
    with Store(runs_dir) as store:
        BatchTables(store.conn).set_error(batch_id, n, None)
    return outcome


# --- worker processes -------------------------------------------------------------------------


def record_fault(runs_dir: str, job_id: int | None, kind: str, exc: BaseException) -> None:
    """A maintenance loop's failure, kept for `batch status` (best effort: the database may
    be what failed; the warning in the log is there either way)."""
    try:
        with Store(runs_dir) as store:
            BatchTables(store.conn).add_queue_fault(job_id, f"{HOST}:{os.getpid()}", kind, _one_line(exc))
    except Exception as again:
        log.warning("could not record the %s failure of job %s: %s", kind, job_id, again)


# procrastinate's own retry (its SQL function), only if the job is still the stalled worker's:
# the row is locked and read again first, so a job that went back on the queue and was taken by
# a live worker since the stalled list was read (another process's requeue: a few seconds on a
# loaded machine) is left to that worker.
REQUEUE_IF_STILL_STALLED = """
WITH still AS (
    SELECT id FROM procrastinate_jobs
     WHERE id = %(job_id)s AND status = 'doing' AND worker_id IS NOT DISTINCT FROM %(worker_id)s
       FOR UPDATE
)
SELECT procrastinate_retry_job_v2(id, now(), NULL, NULL, NULL) IS NULL AS retried FROM still
"""


async def requeue_if_still_stalled(app, job) -> bool:
    """Put a stalled job back on the queue unless a live worker has taken it meanwhile."""
    rows = await app.connector.execute_query_all_async(
        REQUEUE_IF_STILL_STALLED, job_id=job.id, worker_id=job.worker_id
    )
    return bool(rows)


async def _requeue_stalled(app, every: float, stalled_after: float, runs_dir: str) -> None:
    """Jobs whose worker stopped sending heartbeats go back on the queue (unless taken again
    since: see REQUEUE_IF_STILL_STALLED). A failure is a warning naming the job, and a row in
    queue_faults (`batch status` counts them)."""
    while True:
        await asyncio.sleep(every)
        try:
            stalled = await app.job_manager.get_stalled_jobs(
                queue=QUEUE, seconds_since_heartbeat=stalled_after
            )
        except Exception as exc:  # the database is away for a moment: next time
            log.warning("stalled-job check failed (no job read): %s", _one_line(exc))
            await asyncio.to_thread(record_fault, runs_dir, None, "stalled-check", exc)
            continue
        for job in stalled:
            try:
                if await requeue_if_still_stalled(app, job):
                    log.warning("job %s of a dead worker went back on the queue", job.id)
            except Exception as exc:
                log.warning("job %s of a dead worker could not go back on the queue: %s", job.id,
                            _one_line(exc))  # fmt: skip
                await asyncio.to_thread(record_fault, runs_dir, job.id, "requeue", exc)


# Work left for a burst worker: a job due on the queue, or one this worker is running
WORK_LEFT = """
SELECT EXISTS (SELECT 1 FROM procrastinate_jobs WHERE queue_name = %(queue)s AND (
    (status = 'todo' AND (scheduled_at IS NULL OR scheduled_at <= now()))
    OR (status = 'doing' AND worker_id = %(worker_id)s))) AS left
"""


async def _until_done(app, worker, every: float = 0.5) -> None:
    """`--burst`: stop the worker once no job is due and none of its own is running (its own
    `wait=False` stops at the first empty fetch and aborts the jobs still running, which with
    several at once are most of them)."""
    while True:
        await asyncio.sleep(every)
        if worker.worker_id is None:
            continue
        try:
            row = await app.connector.execute_query_one_async(WORK_LEFT, queue=QUEUE,
                                                              worker_id=worker.worker_id)  # fmt: skip
        except Exception as exc:  # the database is away for a moment: next time
            log.warning("burst check failed: %s", _one_line(exc))
            continue
        if not row["left"]:
            worker.stop()
            return


async def _serve(runs_dir: str, burst: bool, runs: int) -> None:
    from concurrent.futures import ThreadPoolExecutor

    lease = lease_seconds()
    # procrastinate runs a sync job in the loop's default executor: one thread a run (its own
    # default is min(32, cores + 4) threads, 6 here), and a few for record_fault's calls
    asyncio.get_running_loop().set_default_executor(ThreadPoolExecutor(runs + 2, thread_name_prefix="run"))
    app = make_app(require_url(), sync=False)
    async with app.open_async():
        worker = app._worker(
            queues=[QUEUE], concurrency=runs, wait=True, name=f"{HOST}:{os.getpid()}",
            additional_context={"runs_dir": runs_dir}, shutdown_graceful_timeout=0,
            update_heartbeat_interval=max(0.5, lease / 6), stalled_worker_timeout=lease,
            fetch_job_polling_interval=0.5, abort_job_polling_interval=1.0,
            install_signal_handlers=True, listen_notify=False,
        )  # fmt: skip
        side = [asyncio.create_task(_requeue_stalled(app, max(0.5, lease / 3), lease, runs_dir))]
        if burst:
            side.append(asyncio.create_task(_until_done(app, worker)))
        try:
            await worker.run()
        finally:
            for task in side:
                task.cancel()


def serve(runs_dir: str, burst: bool = False, runs: int = 1) -> None:
    """One worker process: up to `runs` jobs at once until stopped (or, with `burst`, until the
    queue is empty). In its own process group: a terminal's Ctrl-C reaches the parent alone, which
    passes on one SIGTERM (a second signal would make procrastinate stop at once, mid-step); a
    SIGTERM too when the parent dies (`kill -9`), until procrastinate's own handler is in place."""
    stopping = {"early": False}
    signal.signal(signal.SIGTERM, lambda *_: stopping.update(early=True))
    detach()
    pool_for(runs)
    if store_url():
        from reflectcli.store.pg import keep_pools

        keep_pools()  # one pool for the process's life, not one per job
    logging.getLogger("procrastinate").setLevel(logging.WARNING)
    warm()  # ready means ready to run a task: its imports are paid before the first one
    if stopping["early"]:
        return
    try:
        asyncio.run(_serve(runs_dir, burst, runs))
    except KeyboardInterrupt:
        pass


def run_workers(runs_dir: str | Path, concurrency: int, burst: bool = False) -> int:
    """`reflectcli worker`: `concurrency` runs at once, in one worker process per
    RUNS_PER_PROCESS of them (`execute.shares`: 16 are one process, 32 two); SIGINT /
    SIGTERM are passed on, and each run stops after its current step. A process that dies
    (kill -9) is started again; its runs go back on the queue after the lease and resume
    anywhere. The exit code: 0, or 130."""
    prepare(runs_dir)
    context = multiprocessing.get_context("spawn")

    def start(runs: int):
        proc = context.Process(target=serve, args=(str(runs_dir), burst, runs))
        proc.start()
        return proc

    split = shares(concurrency)
    procs = [start(runs) for runs in split]
    stopped = {"signal": 0}

    def forward(signum, frame) -> None:
        stopped["signal"] = signum
        for proc in procs:
            if proc.is_alive():
                os.kill(proc.pid, signal.SIGTERM)

    previous = {s: signal.signal(s, forward) for s in (signal.SIGINT, signal.SIGTERM)}
    pause = 1.0  # between restarts of processes that keep dying (the database is down, say)
    try:
        while any(proc.is_alive() for proc in procs):
            for i, proc in enumerate(procs):
                proc.join(0.2)
                if proc.exitcode not in (None, 0) and not stopped["signal"]:
                    print(f"worker: process {proc.pid} died ({proc.exitcode}); its jobs go back on "
                          f"the queue after the lease; starting another in {pause:.0f} s",
                          file=sys.stderr)  # fmt: skip
                    time.sleep(pause)
                    pause = min(60.0, pause * 2)
                    procs[i] = start(split[i])
    finally:
        for s, handler in previous.items():
            signal.signal(s, handler)
    print(f"worker: {len(procs)} process{'es' if len(procs) != 1 else ''} stopped", file=sys.stderr)
    return 130 if stopped["signal"] else 0
