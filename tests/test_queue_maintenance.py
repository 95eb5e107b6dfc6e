"""The queue workers' upkeep: a maintenance failure is a warning naming the job and is counted
in `batch status`; a task whose thread stays busy is retried a few times, then reported."""

from __future__ import annotations

import asyncio
import json
import logging
from types import SimpleNamespace

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
        return [SimpleNamespace(id=41)]

    async def retry_job(self, job):
        raise RuntimeError(f'Job was not found or not in "doing" status (job id: {job.id})')


def test_maintenance_failures_are_warnings_with_the_job_and_counted_in_batch_status(runs_dir, caplog):
    with Store(runs_dir) as store:
        tables = BatchTables(store.conn)
        tables.create("b1", "tasks.jsonl", "queue", {"model": "m"},
                      [{"line": 1, "thread_id": "t1", "task": "x", "overrides": {}}])  # fmt: skip
        tables.set_job("b1", 1, 41)
    jobs = Jobs()

    async def loop():
        task = asyncio.create_task(queue._requeue_stalled(SimpleNamespace(job_manager=jobs), 0.01, 1,
                                                          str(runs_dir)))  # fmt: skip
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
    decisions = [strategy.get_retry_decision(exception=busy, job=SimpleNamespace(attempts=a))
                 for a in range(queue.BUSY_ATTEMPTS + 2)]  # fmt: skip
    retried = [d is not None for d in decisions]
    assert retried == [True] * (queue.BUSY_ATTEMPTS - 1) + [False] * 3
    fault = ModelError("provider down", transient=True)
    fault.faults = 1
    assert strategy.get_retry_decision(exception=fault, job=SimpleNamespace(attempts=9)) is not None
