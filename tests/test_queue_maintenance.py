"""The queue workers' upkeep: a maintenance failure is a warning naming the job and is counted
in `batch status`; a task whose thread stays busy is retried a few times, then reported."""

from __future__ import annotations

import asyncio
import json
import logging
import time
from types import SimpleNamespace

import pytest
from typer.testing import CliRunner

from reflectcli.batch import queue
from reflectcli.batch.local import snapshot
from reflectcli.cli.app import app
from reflectcli.errors import ModelError, RunBusy
from reflectcli.store.batches import BatchTables
from reflectcli.store.db import Store


class Jobs:
    """A job manager whose stalled-job query fails once, then finds job 41, which cannot be
    put back (the failures the old loop logged at debug level and forgot)."""

    def __init__(self):
        self.calls = 0

    async def get_stalled_jobs(self, queue, seconds_since_heartbeat):
        self.calls += 1
        if self.calls == 1:
            raise ConnectionError("server closed the connection unexpectedly")
        return [SimpleNamespace(id=41, worker_id=None)]

    async def execute_query_all_async(self, query, job_id, worker_id):  # the guarded requeue
        raise RuntimeError(f'Job was not found or not in "doing" status (job id: {job_id})')


def test_maintenance_failures_are_warnings_with_the_job_and_counted_in_batch_status(runs_dir, caplog):
    with Store(runs_dir) as store:
        tables = BatchTables(store.conn)
        tables.create("b1", "tasks.jsonl", "queue", {"model": "m"},
                      [{"line": 1, "thread_id": "t1", "task": "x", "overrides": {}}])  # fmt: skip
        tables.set_job("b1", 1, 41)
    jobs = Jobs()

    async def loop():
        app_ = SimpleNamespace(job_manager=jobs, connector=jobs)
        task = asyncio.create_task(queue._requeue_stalled(app_, 0.01, 1, str(runs_dir)))
        while jobs.calls < 3:
            await asyncio.sleep(0.01)
        task.cancel()

    with caplog.at_level(logging.WARNING, logger="reflectcli.batch.queue"):
        asyncio.run(loop())
    warnings = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert any("stalled-job check failed" in w and "server closed" in w for w in warnings), warnings
    assert any("job 41" in w and "could not go back on the queue" in w for w in warnings), warnings
    status = snapshot(runs_dir, "b1")
    assert status["queue_faults"]["count"] >= 2  # the failed check (no job) and job 41's
    assert "job id: 41" in status["queue_faults"]["last"]
    out = CliRunner().invoke(app, ["batch", "status", "b1", "--runs-dir", str(runs_dir)])
    assert out.exit_code == 0, out.output
    assert "queue maintenance failures" in out.output
    shown = json.loads(CliRunner().invoke(app, ["batch", "status", "b1", "--json", "--runs-dir",
                                                str(runs_dir)]).output)  # fmt: skip
    assert shown["queue_faults"]["count"] == status["queue_faults"]["count"]


def test_a_busy_thread_is_retried_a_few_times_then_not():
    strategy = queue._retry_strategy()
    busy = RunBusy("thread t1 is being run by another process (pid 7 on elsewhere)")
    decisions = []
    for n in range(1, queue.BUSY_ATTEMPTS + 3):
        busy.busy = n  # attempts in a row that found the same claim holding it (write_job counts)
        decisions.append(strategy.get_retry_decision(exception=busy, job=SimpleNamespace(attempts=0)))
    retried = [d is not None for d in decisions]
    assert retried == [True] * (queue.BUSY_ATTEMPTS - 1) + [False] * 3
    fault = ModelError("provider down", transient=True)
    fault.faults = 1
    assert strategy.get_retry_decision(exception=fault, job=SimpleNamespace(attempts=9)) is not None


def test_kills_and_requeues_do_not_use_up_a_busy_threads_attempts(runs_dir, fake, backend):
    """The job's attempts count every requeue after a kill; a task found busy was failed once
    those reached BUSY_ATTEMPTS (a lost task: a live worker held the run, it was later killed,
    and nobody ran the failed job again). Only attempts in a row against one holder's claim
    count; a new claim (a takeover, another owner) starts again."""
    with Store(runs_dir) as store:
        tables = BatchTables(store.conn)
        tables.create("b1", "tasks.jsonl", "queue", {"model": "fake/w"},
                      [{"line": 1, "thread_id": "t1", "task": "Why do writers revise?",
                        "overrides": {}}])  # fmt: skip
        store.create_run("t1", "Why do writers revise?", {"model": "fake/w"}, "t1.md")
        store.conn.execute(
            "UPDATE runs SET status = 'running', owner_pid = 7, owner_host = 'elsewhere', "
            "lease_until = ?, generation = 3 WHERE thread_id = 't1'",
            (time.time() + 600,),
        )  # fmt: skip  (a live claim on another host)
    strategy = queue._retry_strategy()

    def attempt(job_attempts: int):
        job = SimpleNamespace(attempts=job_attempts)
        context = SimpleNamespace(additional_context={"runs_dir": str(runs_dir)}, job=job,
                                  should_abort=lambda: False)  # fmt: skip
        with pytest.raises(RunBusy) as caught:
            queue.write_job(context, "b1", 1)
        return strategy.get_retry_decision(exception=caught.value, job=job)

    # four kills and requeues have spent the job's attempts already
    decisions = [attempt(4 + i) for i in range(queue.BUSY_ATTEMPTS)]
    assert [d is not None for d in decisions] == [True] * (queue.BUSY_ATTEMPTS - 1) + [False]
    with Store(runs_dir) as store:
        task = BatchTables(store.conn).task("b1", 1)
        assert "still so after 5 attempts" in task["error"] and "pid 7" in task["error"]
        store.conn.execute("UPDATE runs SET generation = 4 WHERE thread_id = 't1'")  # another claim
    assert attempt(20) is not None


def test_a_stalled_job_taken_again_since_is_not_put_back_on_the_queue(pg_url):
    """Two workers' stalled-job checks race: one requeues a dead worker's job, a live worker
    takes it, then the other (its stalled list read seconds earlier) requeued it again, so a
    third worker found the thread busy under the live one. The requeue now happens only while
    the job is still the stalled worker's."""
    import psycopg

    async def scenario():
        app = queue.make_app(pg_url, sync=False)
        async with app.open_async():
            await app.schema_manager.apply_schema_async()
            job_id = await app.tasks[queue.TASK].configure(queue=queue.QUEUE).defer_async(batch_id="b", n=1)
            with psycopg.connect(pg_url, autocommit=True) as conn:
                dead, live = (conn.execute("INSERT INTO procrastinate_workers (last_heartbeat) VALUES "
                                           f"(now() - interval '{age} seconds') RETURNING id").fetchone()[0]
                              for age in (60, 0))  # fmt: skip
                conn.execute("UPDATE procrastinate_jobs SET status = 'doing', worker_id = %s WHERE id = %s",
                             (dead, job_id))  # fmt: skip
                manager = app.job_manager
                (stale,) = await manager.get_stalled_jobs(queue=queue.QUEUE, seconds_since_heartbeat=5)
                assert (stale.id, stale.worker_id) == (job_id, dead)
                conn.execute("UPDATE procrastinate_jobs SET worker_id = %s WHERE id = %s", (live, job_id))
                assert await queue.requeue_if_still_stalled(app, stale) is False  # the live worker's now
                row = conn.execute("SELECT status, worker_id, attempts FROM procrastinate_jobs WHERE id = %s",
                                   (job_id,)).fetchone()  # fmt: skip
                assert row == ("doing", live, 0)
                conn.execute("UPDATE procrastinate_jobs SET worker_id = %s WHERE id = %s", (dead, job_id))
                assert await queue.requeue_if_still_stalled(app, stale) is True  # still stalled: back
                row = conn.execute("SELECT status, attempts FROM procrastinate_jobs WHERE id = %s",
                                   (job_id,)).fetchone()  # fmt: skip
                assert row == ("todo", 1)

    asyncio.run(scenario())


def test_a_jobs_end_is_written_only_by_the_fetch_that_holds_it(pg_url):
    """A worker stalled past its lease: its job was put back on the queue and fetched again
    (by another worker, or the same one later). The stale fetch's finish and retry write
    nothing; the current fetch's finish does."""
    import psycopg
    from procrastinate import jobs

    async def scenario():
        app = queue.make_app(pg_url, sync=False)
        async with app.open_async():
            await app.schema_manager.apply_schema_async()
            await app.tasks[queue.TASK].configure(queue=queue.QUEUE).defer_async(batch_id="b", n=1)
            manager = app.job_manager
            first = await manager.register_worker()
            stale = await manager.fetch_job(queues=[queue.QUEUE], worker_id=first)
            with psycopg.connect(pg_url, autocommit=True) as conn:
                conn.execute("SELECT procrastinate_retry_job_v2(%s, now(), NULL, NULL, NULL)", (stale.id,))
                second = await manager.register_worker()
                current = await manager.fetch_job(queues=[queue.QUEUE], worker_id=second)
                assert current.id == stale.id and current.attempts == stale.attempts + 1

                def row():
                    return conn.execute("SELECT status, worker_id, attempts FROM procrastinate_jobs "
                                        "WHERE id = %s", (stale.id,)).fetchone()  # fmt: skip

                doing = row()
                await manager.finish_job(stale, jobs.Status.SUCCEEDED, delete_job=False)
                await manager.retry_job(stale)
                assert row() == doing == ("doing", second, 1)  # the stale fetch changed nothing
                await manager.finish_job(current, jobs.Status.SUCCEEDED, delete_job=False)
                assert row()[0] == "succeeded"

    asyncio.run(scenario())


def test_workers_find_every_table_made_so_a_worker_needs_no_schema_session(pg_url, runs_dir):
    """`worker` makes the queue's, the store's and the checkpoints' tables before its worker
    processes start: none of them then takes the schema lock (a third connection, beside its
    pool's and procrastinate's, which the 16-worker bench counted as the 33rd)."""
    from langgraph.checkpoint.postgres import PostgresSaver

    queue.prepare(runs_dir)
    with Store(runs_dir) as store:
        assert store.conn.execute("SELECT to_regclass('procrastinate_jobs') IS NOT NULL").fetchone()[0]
        assert store._saver_ready(len(PostgresSaver.MIGRATIONS))
    queue.prepare(runs_dir)  # again: nothing is missing, nothing happens
