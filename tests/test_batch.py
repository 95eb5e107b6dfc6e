"""Batches: `batch run` (worker processes on this machine, either store) and `batch submit` +
`worker` (procrastinate's queue on a real PostgreSQL), against the scripted OpenAI-compatible
server on 127.0.0.1: kills, faults, cancels, SIGTERM, bad task files."""

from __future__ import annotations

import json
import os
import re
import signal
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

from reflectcli.batch.execute import RETRIES
from reflectcli.cli.app import app
from tests.crashkit import MODEL, Child, KillScript, closed_port, resent_after_completion
from tests.helpers import raw_db
from tests.openai_server import OpenAIServer, loopback_fixture

SCORES = (6.0, 9.5)  # plan, 3 drafts, review, revise, review: 7 calls a task
CALLS = 7


@pytest.fixture(autouse=True)
def offline_env(monkeypatch):
    loopback_fixture(monkeypatch, REFLECTCLI_BACKOFF="0")


def tasks_file(work: Path, n: int, extra: list[dict] | None = None) -> Path:
    path = work / "tasks.jsonl"
    lines = [{"task": f"Why do writers revise, case {i}?", "thread_id": f"t{i}"} for i in range(n)]
    path.write_text("\n".join(json.dumps(x) for x in [*lines, *(extra or [])]) + "\n")
    return path


def model_args(server: OpenAIServer) -> list[str]:
    return ["--model", MODEL, "--api-base", server.base_url, "--runs-dir", "runs", "--threshold", "9",
            "--max-rounds", "2"]  # fmt: skip


def status_of(work: Path, batch_id: str) -> dict:
    out = CliRunner().invoke(app, ["batch", "status", batch_id, "--json", "--runs-dir", str(work / "runs")])
    assert out.exit_code == 0, out.output
    return json.loads(out.output)


def batch_id_in(text: str) -> str:
    return next(w for w in text.split() if w.startswith("b2"))


def live_owner(work: Path, server: OpenAIServer | None = None, step: str = "draft:s2") -> int:
    """The pid of the process running a thread now (a worker's child): with `server`, the
    thread whose `step` request arrived last (the held one)."""
    sql, args = "SELECT owner_pid FROM runs WHERE status = 'running' AND owner_pid IS NOT NULL", ()
    if server is not None:
        with server.lock:
            held = [r for r in server.records if r.step == step][-1]
        case = re.search(r"case (\d+)", json.dumps(held.body["messages"])).group(1)
        sql, args = sql + " AND thread_id = ?", (f"t{case}",)
    with raw_db(work / "runs") as db:
        row = db.execute(sql, args).fetchone()
    return int(row[0])


# --- the task file ---------------------------------------------------------------------------------


def test_a_task_file_with_bad_lines_starts_nothing(tmp_path, fake):
    path = tmp_path / "tasks.jsonl"
    path.write_text("\n".join([
        json.dumps({"task": "Fine task", "thread_id": "ok1"}),
        "{not json",
        json.dumps({"task": ""}),
        json.dumps({"task": "x", "thread_id": "bad id!"}),
        json.dumps({"task": "y", "overrides": {"threshold": 12}}),
        json.dumps({"task": "z", "overrides": {"colour": "red"}}),
        json.dumps({"task": "w", "thread_id": "ok1"}),
        json.dumps({"task": "v", "extra": 1}),
        "# a comment, and a blank line:", "",
    ]) + "\n")  # fmt: skip
    out = CliRunner().invoke(app, ["batch", "run", str(path), "--model", "fake/w", "--runs-dir", "runs"])
    assert out.exit_code == 2, out.output
    lines = out.output.removeprefix("error: ").strip().splitlines()
    assert [line.split(": ", 1)[0] for line in lines[:7]] == [f"{path}:{n}" for n in range(2, 9)]
    text = " ".join(out.output.split())
    for expected in ("not JSON", '"task" must be a non-empty string', "invalid thread id 'bad id!'",
                     "override --threshold", "unknown override 'colour'",
                     "thread id 'ok1' is also on line 1", "unknown key 'extra'"):  # fmt: skip
        assert expected in text, expected
    assert "Traceback" not in out.output
    assert not (tmp_path / "runs").exists()


def test_the_queue_needs_postgres_and_an_unknown_batch_is_one_line(tmp_path, fake):
    path = tasks_file(tmp_path, 1)
    out = CliRunner().invoke(app, ["batch", "submit", str(path), "--model", "fake/w", "--runs-dir", "runs"])
    assert out.exit_code == 2 and "the job queue needs the PostgreSQL store" in out.output
    out = CliRunner().invoke(app, ["worker", "--runs-dir", "runs"])
    assert out.exit_code == 2 and "the job queue needs the PostgreSQL store" in out.output
    (tmp_path / "runs").mkdir()
    out = CliRunner().invoke(app, ["batch", "status", "b2-nope", "--runs-dir", "runs"])
    assert out.exit_code == 1 and "unknown batch 'b2-nope'" in out.output
    assert len(out.output.strip().splitlines()) == 1


# --- batch run: this machine ------------------------------------------------------------------------


@pytest.mark.slow
def test_batch_run_survives_a_killed_worker_and_pays_no_call_twice(tmp_path, backend):
    """4 tasks, 2 at once: both runs are threads of one worker process, each held in the middle
    of a call when the process is killed -9: both tasks go back and a new process resumes each
    thread from its checkpoint. Every task finishes; no request whose answer had completed was
    sent again; history and status agree."""
    script = KillScript(SCORES, 3)
    with OpenAIServer(reply=script) as server:
        holds = [script.hold("draft:s2"), script.hold("draft:s2")]
        child = Child(tmp_path, "batch", ["batch", "run", str(tasks_file(tmp_path, 4)), "--jobs", "2",
                                          *model_args(server)])  # fmt: skip
        try:
            for hold in holds:
                child.wait_until(hold.arrived.is_set, "two held draft:s2, one per run")
            victim = live_owner(tmp_path, server)
            with raw_db(tmp_path / "runs") as db:  # both runs in flight are that one process's
                owners = db.execute("SELECT DISTINCT owner_pid FROM runs "
                                    "WHERE owner_pid IS NOT NULL").fetchall()  # fmt: skip
            assert [r[0] for r in owners] == [victim]
            os.kill(victim, signal.SIGKILL)
            script.release_all()
            assert child.finish(240) == 0, child.describe()
        finally:
            script.release_all()
            child.kill()
        assert resent_after_completion(server) == {}
        assert server.count == 4 * CALLS + 2  # + the two requests cut off by the kill, once more
    status = status_of(tmp_path, batch_id_in(child.stdout))
    assert status["counts"] == {"queued": 0, "running": 0, "done": 4, "failed": 0, "cancelled": 0}
    assert sorted(r["attempts"] for r in status["items"]) == [1, 1, 2, 2]  # the killed ones: twice
    assert "4 done" in child.stdout
    history = CliRunner().invoke(app, ["history", "--json", "--runs-dir", str(tmp_path / "runs")])
    assert sorted(r["status"] for r in json.loads(history.output)) == ["finished"] * 4


@pytest.mark.slow
def test_batch_run_retries_a_failing_provider_then_marks_the_task_failed(tmp_path):
    """A task whose server is unreachable: tried 3 times with pauses, then failed with its one-line
    error (exit 1); the other tasks finish."""
    script = KillScript(SCORES, 3)
    with OpenAIServer(reply=script) as server:
        dead = {"task": "This one cannot reach its model", "thread_id": "down",
                "overrides": {"api_base": f"http://127.0.0.1:{closed_port()}/v1", "retries": 0}}  # fmt: skip
        child = Child(tmp_path, "batch", ["batch", "run", str(tasks_file(tmp_path, 2, [dead])), "--jobs", "2",
                                          *model_args(server)])  # fmt: skip
        assert child.finish(240) == 1, child.describe()
        assert server.count == 2 * CALLS
    status = status_of(tmp_path, batch_id_in(child.stdout))
    assert status["counts"]["done"] == 2 and status["counts"]["failed"] == 1
    failed = next(r for r in status["items"] if r["status"] == "failed")
    assert failed["thread_id"] == "down" and failed["attempts"] == 1
    assert failed["faults"] == RETRIES  # tried RETRIES times (2 s and 4 s apart), then failed
    assert "gave up after 1 attempts" in failed["error"] and "\n" not in failed["error"]


# --- the queue: PostgreSQL and `reflectcli worker` -------------------------------------------------------


def submit(work: Path, server: OpenAIServer, n: int, env: dict) -> str:
    child = Child(work, "submit", ["batch", "submit", str(tasks_file(work, n)), *model_args(server)], env=env)
    assert child.finish() == 0, child.describe()
    return batch_id_in(child.stdout)


def test_runs_at_once_in_threads_share_no_stateful_stemmer():
    """Runs at once are threads of one process: the title check's Snowball stemmer keeps its
    word in itself, and one shared by 16 runs raised IndexError mid-word (bench_batch, 16 at
    once). Each thread has its own now: 8 threads stem as one does."""
    import threading

    from reflectcli.writing.titles import content_stems

    texts = [f"Why do writers revise their drafts, and how revisions change arguments {i}" * 3
             for i in range(200)]  # fmt: skip
    expected = [content_stems(t) for t in texts]
    failures, results = [], {}

    def work(k: int) -> None:
        try:
            results[k] = [content_stems(t) for t in texts for _ in range(3)][::3]
        except Exception as exc:  # noqa: BLE001 - what a shared stemmer raised
            failures.append(exc)

    threads = [threading.Thread(target=work, args=(k,)) for k in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not failures and all(r == expected for r in results.values())


def test_runs_at_once_are_spread_over_one_process_per_sixteen_at_most_one_a_core(monkeypatch):
    from reflectcli.batch.execute import shares

    assert shares(1, cores=2) == [1] and shares(4, cores=2) == [4] and shares(16, cores=2) == [16]
    assert shares(17, cores=2) == [9, 8] and shares(32, cores=2) == [16, 16]
    assert shares(64, cores=2) == [32, 32]
    assert shares(32, cores=1) == [32] and shares(48, cores=8) == [16, 16, 16] and shares(2, cores=8) == [2]
    monkeypatch.setenv("REFLECTCLI_RUNS_PER_PROCESS", "8")
    assert shares(16, cores=2) == [8, 8]


@pytest.mark.slow
@pytest.mark.parametrize("command", ["worker", "batch run"])
def test_one_worker_process_runs_many_tasks_at_once(tmp_path, pg_url, command):
    """`worker --concurrency 4` and `batch run --jobs 4`: four runs at once, all in one worker
    process (four plans held at the server together, one owner pid), and every task done once."""
    script = KillScript(SCORES, 3)
    env = {"REFLECTCLI_LEASE_SECONDS": "5"}
    with OpenAIServer(reply=script) as server:
        holds = [script.hold("plan") for _ in range(4)]
        if command == "worker":
            batch = submit(tmp_path, server, 6, env)
            child = Child(tmp_path, "w", ["worker", "--concurrency", "4", "--burst", "--runs-dir", "runs"],
                          env=env)  # fmt: skip
        else:
            child = Child(tmp_path, "b", ["batch", "run", str(tasks_file(tmp_path, 6)), "--jobs", "4",
                                          *model_args(server)], env=env)  # fmt: skip
        try:
            for hold in holds:
                child.wait_until(hold.arrived.is_set, "four plans at once")
            with raw_db(tmp_path / "runs") as db:
                owners = {r[0] for r in db.execute("SELECT owner_pid FROM runs WHERE owner_pid IS NOT NULL")}
            assert len(owners) == 1, owners
            script.release_all()
            assert child.finish(240) == 0, child.describe()
        finally:
            script.release_all()
            child.kill()
        assert resent_after_completion(server) == {}
        assert server.count == 6 * CALLS + 4  # a held request is dropped when released: sent again
    if command == "batch run":
        batch = batch_id_in(child.stdout)
    assert status_of(tmp_path, batch)["counts"]["done"] == 6


@pytest.mark.slow
def test_two_workers_share_a_batch(tmp_path, pg_url):
    """Two `worker` commands on one queued batch: both are running a job at the same moment, and
    together they finish every task once."""
    script = KillScript(SCORES, 3)
    env = {"REFLECTCLI_LEASE_SECONDS": "3"}
    with OpenAIServer(reply=script) as server:
        batch = submit(tmp_path, server, 6, env)
        holds = [script.hold("plan"), script.hold("plan")]
        args = ["worker", "--burst", "--runs-dir", "runs"]
        workers = [Child(tmp_path, f"w{i}", args, env=env) for i in range(2)]
        try:
            for hold in holds:  # one job in each worker at once
                workers[0].wait_until(hold.arrived.is_set, "a job in each worker")
            script.release_all()
            for worker in workers:
                assert worker.finish(240) == 0, worker.describe()
        finally:
            script.release_all()
            for worker in workers:
                worker.kill()
        assert resent_after_completion(server) == {}
    status = status_of(tmp_path, batch)
    assert status["counts"]["done"] == 6 and status["finished"]
    with raw_db(tmp_path / "runs") as db:
        used = db.execute("SELECT worker FROM batch_tasks WHERE batch_id = ?", (batch,))
        workers_used = {r[0] for r in used}
        jobs = dict(db.execute("SELECT status, COUNT(*) FROM procrastinate_jobs GROUP BY status").fetchall())
    assert len(workers_used) == 2
    assert jobs == {"succeeded": 6}


@pytest.mark.slow
def test_a_killed_worker_job_is_resumed_by_another(tmp_path, pg_url):
    """kill -9 of the worker process in the middle of a call: after the lease (3 s) another
    worker puts the job back on the queue, takes it and resumes the thread from its checkpoint:
    the batch finishes and no completed call is paid again."""
    script = KillScript(SCORES, 3)
    env = {"REFLECTCLI_LEASE_SECONDS": "3"}
    with OpenAIServer(reply=script) as server:
        batch = submit(tmp_path, server, 2, env)
        hold = script.hold("draft:s2")
        first = Child(tmp_path, "first", ["worker", "--runs-dir", "runs"], env=env)
        second = None
        try:
            first.wait_until(hold.arrived.is_set, "a held draft:s2")
            victim = live_owner(tmp_path, server)
            first.proc.send_signal(signal.SIGKILL)  # the parent first: it would start another process
            os.kill(victim, signal.SIGKILL)
            hold.release.set()
            started = time.monotonic()
            second = Child(tmp_path, "second", ["worker", "--runs-dir", "runs"], env=env)
            while not status_of(tmp_path, batch)["finished"]:
                assert time.monotonic() - started < 180, second.describe()
                time.sleep(0.5)
            second.proc.send_signal(signal.SIGTERM)
            assert second.finish(60) == 130, second.describe()
        finally:
            script.release_all()
            for child in (first, second):
                if child is not None:
                    child.kill()
        assert resent_after_completion(server) == {}
        assert server.count == 2 * CALLS + 1
    status = status_of(tmp_path, batch)
    assert status["counts"]["done"] == 2


@pytest.mark.slow
def test_sigterm_stops_a_worker_after_its_step_and_requeues_the_job(tmp_path, pg_url):
    script = KillScript(SCORES, 3)
    env = {"REFLECTCLI_LEASE_SECONDS": "3"}
    with OpenAIServer(reply=script) as server:
        batch = submit(tmp_path, server, 1, env)
        hold = script.hold("draft:s2")
        worker = Child(tmp_path, "worker", ["worker", "--runs-dir", "runs"], env=env)
        try:
            worker.wait_until(hold.arrived.is_set, "a held draft:s2")
            worker.proc.send_signal(signal.SIGTERM)
            time.sleep(1)
            hold.release.set()  # the call is retried, answered, checkpointed: then it stops
            assert worker.finish(120) == 130, worker.describe()
        finally:
            script.release_all()
            worker.kill()
        with raw_db(tmp_path / "runs") as db:
            job = db.execute("SELECT status, attempts FROM procrastinate_jobs").fetchone()
        assert job[0] == "todo", job  # back on the queue
        assert status_of(tmp_path, batch)["counts"]["queued"] == 1
        done = Child(tmp_path, "done", ["worker", "--burst", "--runs-dir", "runs"], env=env)
        assert done.finish(120) == 0, done.describe()
        assert resent_after_completion(server) == {}
        assert server.count == CALLS + 1  # the held request, sent once more after its drop
    assert status_of(tmp_path, batch)["counts"]["done"] == 1


@pytest.mark.slow
def test_a_cancelled_batch_starts_nothing(tmp_path, pg_url):
    """A worker started on a fresh database (before any submit) finds nothing and exits (with
    --burst); a cancelled batch's jobs never start."""
    script = KillScript(SCORES, 3)
    with OpenAIServer(reply=script) as server:
        early = Child(tmp_path, "early", ["worker", "--burst", "--runs-dir", "runs"])
        assert early.finish(120) == 0, early.describe()
        batch = submit(tmp_path, server, 3, {})
        out = CliRunner().invoke(app, ["batch", "cancel", batch, "--runs-dir", str(tmp_path / "runs")])
        assert out.exit_code == 0 and "3 queued jobs dropped" in out.output
        worker = Child(tmp_path, "worker", ["worker", "--burst", "--runs-dir", "runs"])
        assert worker.finish(120) == 0, worker.describe()
        assert server.count == 0
    assert status_of(tmp_path, batch)["counts"]["cancelled"] == 3


@pytest.mark.slow
def test_a_submit_cut_short_is_completed_by_submit_resume(tmp_path, pg_url):
    """Tasks recorded but never queued (the submit was killed after recording the batch):
    `batch submit --resume` queues exactly those, and a worker writes them."""
    from reflectcli.batch import local
    from reflectcli.batch.tasks import load
    from tests.helpers import settings

    script = KillScript(SCORES, 3)
    with OpenAIServer(reply=script) as server:
        base = settings(tmp_path / "runs", model=MODEL, api_base=server.base_url, threshold=9, max_rounds=2)
        items = load(tasks_file(tmp_path, 2), base)
        batch = local.create(tmp_path / "runs", "tasks.jsonl", "queue", base.run_params(), items)
        assert status_of(tmp_path, batch)["counts"]["queued"] == 2
        again = CliRunner().invoke(app, ["batch", "submit", "--resume", batch, "--json", "--runs-dir",
                                         str(tmp_path / "runs")])  # fmt: skip
        assert again.exit_code == 0, again.output
        assert json.loads(again.output)["queued"] == 2
        twice = CliRunner().invoke(app, ["batch", "submit", "--resume", batch, "--json", "--runs-dir",
                                         str(tmp_path / "runs")])  # fmt: skip
        assert json.loads(twice.output)["queued"] == 0  # nothing is queued twice
        worker = Child(tmp_path, "worker", ["worker", "--burst", "--runs-dir", "runs"])
        assert worker.finish(180) == 0, worker.describe()
        assert server.count == 2 * CALLS
    assert status_of(tmp_path, batch)["counts"]["done"] == 2


@pytest.mark.slow
def test_a_worker_whose_parent_is_killed_stops_too(tmp_path, pg_url):
    """kill -9 of the `worker` command: its process (in a process group of its own) gets a
    SIGTERM from the kernel and stops, instead of working on unsupervised."""
    worker = Child(tmp_path, "worker", ["worker", "--runs-dir", "runs"])
    children: list[int] = []
    try:
        path = Path(f"/proc/{worker.proc.pid}/task/{worker.proc.pid}/children")
        worker.wait_until(lambda: bool(path.read_text().split()), "the worker's process", timeout=120)
        children = [int(pid) for pid in path.read_text().split()]
        worker.proc.send_signal(signal.SIGKILL)
        worker.proc.wait(10)
        deadline = time.monotonic() + 60
        while any(Path(f"/proc/{pid}").exists() and "zombie" not in _state(pid) for pid in children):
            assert time.monotonic() < deadline, "the worker's process outlived it"
            time.sleep(0.2)
    finally:
        for pid in children:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        worker.kill()


def _state(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/status").read_text().split("State:")[1].split("\n")[0].lower()
    except (OSError, IndexError):
        return "zombie"
