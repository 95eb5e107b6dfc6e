"""One owner per run: fencing tokens, leases on the database's clock, process start times.

Each claim of a run bumps its generation (the fencing token); a process whose claim was taken
over writes nothing more for the run, and stops with one line. A real PostgreSQL
(tests/pgserver.py) backs the `postgres` cases and the two-process test."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

import reflectcli.store.db as db
from reflectcli.cli.app import app
from reflectcli.errors import LostClaim, RunBusy
from reflectcli.models.fake import ScriptedResponder
from reflectcli.store.db import Store, owner_alive, process_start
from tests.helpers import raw_db

TASK = "Why do writers revise?"


def records(runs_dir, thread: str) -> dict:
    """Everything the store holds for a thread (our tables and LangGraph's), comparable."""
    with raw_db(runs_dir) as conn:
        row = dict(conn.execute("SELECT * FROM runs WHERE thread_id = ?", (thread,)).fetchone())
        out = {"run": {k: v for k, v in row.items() if k not in ("lease_until",)}}
        for table in ("run_state", "run_usage", "call_journal"):
            out[table] = sorted(map(tuple, conn.execute(f"SELECT * FROM {table} WHERE thread_id = ?",
                                                        (thread,)).fetchall()))  # fmt: skip
        out["checkpoints"] = conn.execute("SELECT COUNT(*) FROM checkpoints WHERE thread_id = ?",
                                          (thread,)).fetchone()[0]  # fmt: skip
        store = Store(runs_dir)
        try:
            tables = store._langgraph_tables()
        finally:
            store.close()
        for table in tables:  # LangGraph's rows too, byte for byte (repr: bytes, JSON, dicts)
            found = conn.execute(f"SELECT * FROM {table} WHERE thread_id = ?", (thread,))
            out[f"rows of {table}"] = sorted(repr(tuple(r)) for r in found)
    return out


def test_a_stale_claims_writes_fail_and_change_nothing(backend, runs_dir):
    """Two claims of one run, one after the other: the first store's every owner write (status,
    snapshot, usage, journal, compaction, renewal, release) fails or is refused, in its own
    transaction, and leaves the second owner's rows as they were."""
    first = Store(runs_dir)
    first.create_run("t", TASK, {"model": "m"}, "t.md")
    one = first.acquire("t")
    second = Store(runs_dir)
    two = second.acquire("t")  # (the same process: its own claim, taken again)
    assert (one, two) == (1, 2) and second.generation("t") == 2
    second.update_run("t", status="finished", rounds=2)
    second.save_state("t", {"status": "finished"})
    second.journal_put("k2", "t", "plan", {"model": "m", "text": "new owner's"})
    before = first.get_run("t"), first.load_state("t"), first.journal_get("k2")
    writes = {
        "status": lambda: first.update_run("t", status="failed", error="stale"),
        "snapshot": lambda: first.save_state("t", {"status": "stale"}),
        "usage": lambda: first.save_usage(
            "t", {"m": {"calls": 9, "prompt_tokens": 1, "completion_tokens": 1, "cost": None}}
        ),
        "journal": lambda: first.journal_put("k1", "t", "plan", {"model": "m", "text": "stale"}),
        "compact": lambda: first.compact("t"),
        "transaction": lambda: first.transaction().__enter__(),
        "checkpoint": lambda: first.check_claim("t"),
    }
    for name, write in writes.items():
        with pytest.raises(LostClaim, match="lost its claim on the run"):
            write()
        assert (first.get_run("t"), first.load_state("t"), first.journal_get("k2")) == before, name
    assert first.journal_get("k1") is None
    assert first.renew("t") is False and second.renew("t") is True
    first.release("t")  # its own claim only: the new owner keeps the run
    assert first.get_run("t")["owner_pid"] == os.getpid() and first.get_run("t")["generation"] == 2
    second.release("t")
    assert second.get_run("t")["owner_pid"] is None
    first.close(), second.close()


def test_a_run_taken_over_mid_run_stops_with_one_line_and_writes_nothing(scripted, backend, runs_dir):
    """In the middle of a run another claim is taken (as a second host does once the first one's
    lease lapsed): the run stops at its next write with one line, exit 1, and neither marks the
    run failed nor touches the new owner's rows or the artifact."""
    taken = {}

    class TakenOver(ScriptedResponder):
        def __call__(self, step, messages):
            if step == "draft:s2" and not taken:
                other = Store(runs_dir)
                other.acquire("over")
                other.update_run("over", status="running", stop_reason="the new owner's")
                taken["records"] = records(runs_dir, "over")
                taken["store"] = other
            return super().__call__(step, messages)

    scripted.responder = TakenOver(scores=[8.0], sections=3)
    out = CliRunner().invoke(app, ["write", TASK, "--model", "fake/w", "--runs-dir", str(runs_dir),
                                   "--thread-id", "over", "--threshold", "7"])  # fmt: skip
    assert out.exit_code == 1, out.output
    assert "lost its claim on the run" in out.output and "Traceback" not in out.output
    errors = [line for line in out.output.splitlines() if line.startswith("error:")]
    assert len(errors) == 1 and out.output.strip().endswith(errors[0]), out.output  # its last line
    after = records(runs_dir, "over")
    assert after == taken["records"]
    assert after["run"]["status"] == "running" and after["run"]["error"] is None
    assert after["run"]["stop_reason"] == "the new owner's"
    taken["store"].release("over")
    taken["store"].close()


def take_over(runs_dir, thread: str):
    """What a second host does once this process's lease lapsed: it claims the run, writes its
    own rows and artifact. Returns its store and what it left (rows, the artifact's bytes)."""
    other = Store(runs_dir)
    other.acquire(thread)
    other.conn.execute("UPDATE runs SET owner_host = 'host-b' WHERE thread_id = ?", (thread,))
    other.update_run(thread, status="running", stop_reason="the new owner's", error=None)
    other.save_state(thread, {"task": TASK, "status": "the new owner's"})
    other.journal_put("new-owner", thread, "plan", {"model": "m", "text": "the new owner's"})
    (runs_dir / f"{thread}.md").write_text("# the new owner's artifact\n")
    return other, records(runs_dir, thread), (runs_dir / f"{thread}.md").read_bytes()


@pytest.mark.parametrize("path", ["answered call", "failed call", "interrupt", "finish"])
def test_a_stale_owner_writes_nothing_on_any_path_and_says_who_took_the_run(scripted, backend, runs_dir,
                                                                         monkeypatch, path):  # fmt: skip
    """The run is taken over (by host-b) while this process runs it, then this process's step
    ends each way a step can: its call answered, its call failed, an interrupt (Ctrl-C, SIGTERM,
    a worker's stop) right after a recorded step, and the run's finish. Each time it stops with
    LostClaim naming host-b, and the new owner's artifact and rows (ours and LangGraph's) are
    byte for byte as it left them: the stale owner's final record, status and artifact are
    never written."""
    from reflectcli.errors import ModelError
    from reflectcli.graph.nodes import Nodes
    from reflectcli.runner import Runner
    from tests.helpers import quiet_ui, settings

    taken: dict = {}

    class TakenOver(ScriptedResponder):
        def __call__(self, step, messages):
            if step == "draft:s2" and not taken and path in ("answered call", "failed call"):
                taken["store"], taken["rows"], taken["artifact"] = take_over(runs_dir, "over")
                if path == "failed call":
                    raise ModelError("fake/w: the provider failed for good", hint="resume later")
            return super().__call__(step, messages)

    scripted.responder = TakenOver(scores=[8.0], sections=3)

    def should_stop() -> bool:
        if path == "interrupt" and not taken and len(runner.state.get("sections") or []) == 2:
            taken["store"], taken["rows"], taken["artifact"] = take_over(runs_dir, "over")
            return True
        return False

    finalize = Nodes.finalize

    def late(self, state):
        if path == "finish" and not taken:
            taken["store"], taken["rows"], taken["artifact"] = take_over(runs_dir, "over")
        return finalize(self, state)

    monkeypatch.setattr(Nodes, "finalize", late)
    runner = Runner(quiet_ui(), should_stop=should_stop)
    with pytest.raises(LostClaim) as lost:
        runner.write(TASK, settings(runs_dir, threshold=7), "over")
    assert taken, "the takeover never happened"
    assert lost.value.owner == f"pid {os.getpid()} on host-b"
    assert "taken over by pid" in lost.value.message and "host-b" in lost.value.message
    assert records(runs_dir, "over") == taken["rows"]
    assert (runs_dir / "over.md").read_bytes() == taken["artifact"]
    taken["store"].close()


def test_a_stale_owner_says_in_one_line_who_took_the_run_and_exits_1(scripted, runs_dir):
    """Through the CLI, a run taken over whose call then fails: one line naming the new owner's
    host, exit 1, no traceback, no "Continue with: reflectcli resume"."""
    from reflectcli.errors import ModelError

    taken: dict = {}

    class TakenOver(ScriptedResponder):
        def __call__(self, step, messages):
            if step == "draft:s2" and not taken:
                taken["store"], taken["rows"], taken["artifact"] = take_over(runs_dir, "one")
                raise ModelError("fake/w: the provider failed for good")
            return super().__call__(step, messages)

    scripted.responder = TakenOver(scores=[8.0], sections=3)
    out = CliRunner().invoke(app, ["write", TASK, "--model", "fake/w", "--runs-dir", str(runs_dir),
                                   "--thread-id", "one"])  # fmt: skip
    assert out.exit_code == 1, out.output
    errors = [line for line in out.output.splitlines() if line.startswith("error:")]
    assert len(errors) == 1 and "taken over by pid" in errors[0] and "host-b" in errors[0], out.output
    assert "resume" not in out.output.replace("`reflectcli history`", "") and "Traceback" not in out.output
    assert records(runs_dir, "one") == taken["rows"]
    taken["store"].close()


def test_a_stale_checkpoint_is_refused_inside_its_own_transaction(backend, runs_dir):
    """The checkpointer checks the claim as the first statement of the checkpoint's own
    transaction: a put after a takeover raises LostClaim and leaves no checkpoint row; the
    owner's put commits."""
    from langgraph.checkpoint.base import empty_checkpoint

    first = Store(runs_dir)
    first.create_run("cp", TASK, {"model": "m"}, "cp.md")
    first.acquire("cp")
    saver = first.checkpointer()
    config = {"configurable": {"thread_id": "cp", "checkpoint_ns": ""}}
    saved = saver.put(config, empty_checkpoint(), {"source": "input", "step": -1}, {})
    assert saver.get_tuple(saved) is not None
    second = Store(runs_dir)
    second.acquire("cp")
    with pytest.raises(LostClaim):
        saver.put(config, empty_checkpoint(), {"source": "input", "step": 0}, {})
    with pytest.raises(LostClaim):
        saver.put_writes(saved, [("x", 1)], "task-1")
    assert len(list(saver.list({"configurable": {"thread_id": "cp"}}))) == 1  # the owner's one only
    first.close(), second.close()


def test_a_live_owner_elsewhere_is_not_taken_over_whatever_this_hosts_clock_says(pg_url, runs_dir,
                                                                               monkeypatch):  # fmt: skip
    """The lease is granted and judged by PostgreSQL's now(): a host whose clock runs an hour
    ahead (faked by an offset in this process) still sees the live owner's lease as running,
    and cannot take the run; by its own clock the lease would have lapsed long ago."""
    owner = Store(runs_dir)
    owner.create_run("skew", TASK, {"model": "m"}, "skew.md")
    owner.acquire("skew")
    owner.conn.execute("UPDATE runs SET owner_host = 'elsewhere' WHERE thread_id = 'skew'")
    real = time.time
    monkeypatch.setattr(db.time, "time", lambda: real() + 3600)  # this host: an hour ahead
    other = Store(runs_dir)
    run = other.get_run("skew")
    assert run["lease_until"] < time.time()  # a judgement by this host's clock would take it
    assert run["status"] == "running" and run["lease_live"]
    with pytest.raises(RunBusy, match="being run by another process"):
        other.acquire("skew")
    assert owner.renew("skew")  # and the owner's renewals are by the database's clock too
    assert other.get_run("skew")["lease_until"] < real() + 3600
    monkeypatch.setattr(db.time, "time", lambda: real() - 3600)  # an hour behind: no longer
    owner.conn.execute("UPDATE runs SET lease_until = EXTRACT(EPOCH FROM now()) - 1 WHERE thread_id = 'skew'")
    assert other.get_run("skew")["status"] == "interrupted"  # lapsed, whatever this clock says
    assert other.acquire("skew") == 2
    other.close(), owner.close()


def test_a_reused_pid_is_not_an_owner(backend, runs_dir):
    """On one host the owner is its pid and its start time: another process living under the
    same pid (started at another time) does not hold the run."""
    sleeper = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"])
    try:
        start = process_start(sleeper.pid)
        assert start is not None and start == process_start(sleeper.pid)
        store = Store(runs_dir)
        store.create_run("pid", TASK, {"model": "m"}, "pid.md")
        for started, alive in ((start, True), (start - 1, False), (None, True)):
            store.conn.execute("UPDATE runs SET status = 'running', owner_pid = ?, owner_host = ?, "
                               "owner_started = ? WHERE thread_id = 'pid'",
                               (sleeper.pid, db.HOST, started))  # fmt: skip
            run = store.get_run("pid")
            assert owner_alive(run) is alive and run["status"] == ("running" if alive else "interrupted")
        store.conn.execute("UPDATE runs SET owner_started = ? WHERE thread_id = 'pid'", (start,))
        with pytest.raises(RunBusy, match=f"pid {sleeper.pid}"):
            store.acquire("pid")
        store.conn.execute("UPDATE runs SET owner_started = ? WHERE thread_id = 'pid'", (start + 7,))
        store.acquire("pid")  # the pid was reused: the run is this process's to take
        assert store.get_run("pid")["owner_started"] == process_start(os.getpid())
        store.close()
    finally:
        sleeper.kill()
        sleeper.wait()


@pytest.mark.slow
def test_a_stopped_owner_continued_after_a_takeover_changes_nothing(pg_url, tmp_path):
    """Two processes standing for two hosts on one PostgreSQL. The first is stopped (SIGSTOP)
    in the middle of a model call, past its 1 s lease; the second takes the run over and
    finishes it. The first is then continued (SIGCONT) and its call answered: it exits 1 with
    one line, and the finished run's records (index row, snapshot, usage, journal,
    checkpoints, artifact) are exactly as the second left them."""
    from tests.crashkit import MODEL, Child, KillScript
    from tests.openai_server import OpenAIServer, step_of

    script = KillScript(scores=(6.0, 9.5), sections=3)
    held, release, seen = threading.Event(), threading.Event(), []

    def reply(body):
        if step_of(body) == "draft:s2" and not seen:  # the first owner's call: held till the end
            seen.append(1)
            held.set()
            release.wait(120)
        return script(body)

    env = {"REFLECTCLI_LEASE_SECONDS": "1", "LITELLM_LOCAL_MODEL_COST_MAP": "True"}
    runs = tmp_path / "runs"
    with OpenAIServer(reply=reply) as server:
        args = ["write", TASK, "--model", MODEL, "--api-base", server.base_url, "--runs-dir", "runs",
                "--thread-id", "fence", "--threshold", "9", "--max-rounds", "2"]  # fmt: skip
        first = Child(tmp_path, "first", args, env={**env, "CRASH_HOST": "host-a"})
        try:
            first.wait_until(held.is_set, "the first owner's draft:s2 call")
            os.kill(first.proc.pid, signal.SIGSTOP)

            def lapsed() -> bool:
                with raw_db(runs) as conn:
                    return bool(conn.execute("SELECT lease_until < EXTRACT(EPOCH FROM now()) FROM runs "
                                             "WHERE thread_id = 'fence'").fetchone()[0])  # fmt: skip

            deadline = time.monotonic() + 30
            while not lapsed():
                assert time.monotonic() < deadline, "the stopped owner's lease never lapsed"
                time.sleep(0.1)
            second = Child(tmp_path, "second", ["resume", "fence", "--runs-dir", "runs"],
                           env={**env, "CRASH_HOST": "host-b"})  # fmt: skip
            assert second.finish() == 0, second.describe()
            before = records(runs, "fence")
            artifact = (runs / "fence.md").read_text()
            assert before["run"]["status"] == "finished" and before["run"]["generation"] == 2
            assert before["run"]["owner_pid"] is None and before["checkpoints"] == 0
        finally:
            release.set()
            os.kill(first.proc.pid, signal.SIGCONT)
        code = first.finish()
    output = first.stdout + first.stderr
    errors = [line for line in output.splitlines() if line.startswith("error:")]
    assert code == 1, first.describe()
    assert len(errors) == 1 and "lost its claim on the run" in errors[0], first.describe()
    assert "Traceback" not in output
    assert records(runs, "fence") == before
    assert (runs / "fence.md").read_text() == artifact
    listed = json.loads(CliRunner().invoke(app, ["history", "--json", "--runs-dir", str(runs)]).output)
    assert [(r["thread_id"], r["status"]) for r in listed] == [("fence", "finished")]


def test_process_start_reads_field_22_even_with_spaces_in_the_name(tmp_path):
    """The command name in /proc/<pid>/stat may hold spaces and ')': fields are counted after
    the last ')'."""
    assert process_start(os.getpid()) == int(Path(f"/proc/{os.getpid()}/stat").read_text()
                                              .rsplit(")", 1)[1].split()[19])  # fmt: skip
    assert process_start(2**22 + 12345) is None  # no such process
