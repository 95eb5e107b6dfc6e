"""Kill anywhere, lose nothing; one process per thread; many processes per database.

Real `reflectcli` processes against the scripted OpenAI-compatible server on 127.0.0.1:

- one logical run killed again and again (SIGKILL in one run; SIGTERM and SIGINT alternating in
  another, at the same time), at every point the uninterrupted run passes through: in the
  middle of each call, between each answer and its checkpoint (the call journal's case) and at
  each step boundary. Each time: the expected exit, an intact database, a resumable run; at the
  end: no completed request sent again and the same article as the uninterrupted run;
- a second process on a running thread is refused at once; a killed owner leaves no lock;
- 8 processes writing 8 threads into one new database at the same time all finish.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from typer.testing import CliRunner

from reflectcli.cli.app import app
from reflectcli.store.db import Store
from tests.crashkit import (
    MODEL,
    TASK,
    Child,
    Kill,
    KillScript,
    install_points,
    integrity,
    outcome,
    resent_after_completion,
    run_chain,
    run_row,
    run_state,
)
from tests.openai_server import OpenAIServer, loopback_fixture, step_of

SCORES = (6.0, 9.5)  # one revision, then a pass: plan, 3 drafts, review, revise, review
SECTIONS = 3


@pytest.fixture(autouse=True)
def offline_env(monkeypatch):
    loopback_fixture(monkeypatch, REFLECTCLI_BACKOFF="0")


def write_args(server: OpenAIServer, thread: str, runs: str = "runs") -> list[str]:
    return ["write", TASK, "--model", MODEL, "--api-base", server.base_url, "--runs-dir", runs,
            "--thread-id", thread, "--sections", str(SECTIONS), "--max-rounds", "2",
            "--threshold", "9"]  # fmt: skip


def uninterrupted(tmp: Path) -> tuple[list[str], list[str], dict]:
    """The run without interruptions (in-process): the points it passes, in order, its
    completed calls and its outcome."""
    points: list[str] = []
    with OpenAIServer(reply=KillScript(SCORES, SECTIONS)) as server:
        server.on_request = lambda record: points.append(f"call:{record.step}")
        undo = install_points(points.append)
        try:
            result = CliRunner().invoke(app, write_args(server, "base", str(tmp / "base")))
        finally:
            undo()
        assert result.exit_code == 0, result.output
        calls = [r.step for r in server.wait_completed(len(server.records))]
    state = run_state(tmp / "base" / "reflect.db", "base")
    assert state["stop_reason"] == "passed" and len(state["reviews"]) == 2
    return points, calls, outcome(state)


def kill_points(points: list[str]) -> list[str]:
    """Every deterministic point of a run: each call (in the middle of it), each answer before
    its checkpoint, each step's writes saved before its checkpoint, each step boundary from the
    end of the first node on."""
    keep = []
    for point in points:
        kind, _, rest = point.partition(":")
        if kind in ("call", "journal") or (kind in ("writes", "checkpoint") and int(rest) >= 1):
            keep.append(point)
    return keep


def chain(tmp: Path, name: str, kills: list[Kill], calls: list[str], expected: dict) -> dict:
    """One logical run, killed at each of `kills` in turn, then resumed to the end."""
    work = tmp / name
    work.mkdir()
    script = KillScript(SCORES, SECTIONS)
    with OpenAIServer(reply=script) as server:
        killed = run_chain(work, script, name, write_args(server, name), kills)
        final = Child(work, f"{name}-final", ["resume", name, "--runs-dir", "runs"])
        assert final.finish() == 0, final.describe()
        assert "done passed" in final.stdout, final.describe()
        completed = server.wait_completed(len(calls))
        assert resent_after_completion(server) == {}, "a completed request was sent again"
        assert [r.step for r in completed] == calls  # every answer paid for exactly once
        in_call = sum(k.point.startswith("call:") for k in kills)
        assert server.count == len(calls) + in_call  # + each request cut off mid-call, once more
    db = work / "runs" / "reflect.db"
    assert integrity(db) == "ok"
    assert outcome(run_state(db, name)) == expected
    row = run_row(db, name)
    assert (row["status"], row["stop_reason"], row["calls"]) == ("finished", "passed", len(calls))
    artifact = (work / "runs" / f"{name}.md").read_text(encoding="utf-8")
    assert "## Final article" in artifact and expected["final"].splitlines()[-1] in artifact
    # a kill between an answer and its checkpoint: the next process replayed it, not re-sent it
    outputs = [(work / f"{name}-{i:02d}.out").read_text() for i in range(1, len(kills))]
    outputs.append(final.stdout)
    for kill, after in zip(kills, outputs, strict=True):
        if kill.point.startswith("journal:"):
            assert "replayed from the journal" in " ".join(after.split()), after
    return {"kills": len(killed), "seconds": [round(k.seconds, 1) for k in killed]}


@pytest.mark.slow
def test_killed_anywhere_loses_nothing(tmp_path, backend):
    """Two logical runs at once, each killed at every other point of those this backend takes
    (SQLite the even points of the uninterrupted run, PostgreSQL the odd ones, each also every
    kind of point and the last): run `kill9` by SIGKILL, run `term-int` by SIGTERM and SIGINT
    in turn (those exit 130 with the resume command). After all the kills (6+ per run), `resume`
    finishes each with the article of the uninterrupted run, and no request whose answer had
    completed was ever sent again."""
    points, calls, expected = uninterrupted(tmp_path)
    assert calls == ["plan", "draft:s1", "draft:s2", "draft:s3", "review:r1", "revise:r2",
                     "review:r2"]  # fmt: skip
    every = kill_points(points)
    kinds = {p.split(":")[0] for p in every}
    assert kinds == {"call", "journal", "writes", "checkpoint"} and len(every) >= 30, every
    # The backends share the points: SQLite the even ones, PostgreSQL the odd ones (the same
    # code above the store), so together they kill at every point, and each at every kind of
    # point and at the last boundary (the suite's time: each kill is a process start)
    chosen = [p for i, p in enumerate(every) if i % 2 == (0 if backend is None else 1)]
    chosen += [p for p in ([every[-1]] if every[-1] not in chosen else [])]
    for kind in sorted(kinds - {p.split(":")[0] for p in chosen}):
        chosen.append(next(p for p in every if p.startswith(kind + ":")))
    chosen.sort(key=every.index)
    kill9 = [Kill(p, signal.SIGKILL) for p in chosen[0::2]]
    if chosen[-1] not in chosen[0::2]:
        kill9.append(Kill(chosen[-1], signal.SIGKILL))  # the last boundary: after the end
    term_int = [Kill(p, (signal.SIGTERM, signal.SIGINT)[i % 2]) for i, p in
                enumerate(chosen[1::2])]  # fmt: skip
    assert len(kill9) >= 6 and len(term_int) >= 6
    assert {p.split(":")[0] for p in chosen} == kinds

    with ThreadPoolExecutor(2) as pool:
        a = pool.submit(chain, tmp_path, "kill9", kill9, calls, expected)
        b = pool.submit(chain, tmp_path, "term-int", term_int, calls, expected)
        results = {"kill9": a.result(), "term-int": b.result()}
    print(results)


# --- one process per thread ----------------------------------------------------------------------


def test_a_dead_owner_leaves_no_lock(tmp_path, backend):
    """The claim on a thread is a pid; a live one refuses, a dead one (kill -9) does not."""
    store = Store(tmp_path / "runs")
    store.create_run("t", TASK, {"model": MODEL}, "t.md")
    sleeper = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        store.conn.execute("UPDATE runs SET owner_pid = ?, owner_host = ? WHERE thread_id = 't'",
                           (sleeper.pid, os.uname().nodename))  # fmt: skip
        assert store.get_run("t")["status"] == "running"
        with pytest.raises(Exception, match=f"being run by another process \\(pid {sleeper.pid}\\)"):
            store.acquire("t")
    finally:
        sleeper.kill()
        sleeper.wait()
    assert store.get_run("t")["status"] == "interrupted"
    store.acquire("t")  # the owner is dead: no stuck lock
    assert store.get_run("t")["owner_pid"] == os.getpid()
    store.release("t")
    assert store.get_run("t")["owner_pid"] is None


@pytest.mark.slow
def test_second_process_on_a_running_thread_is_refused(tmp_path, backend):
    """While `write` runs thread `busy`, `resume busy` in another process stops at once with one
    line naming the owner's pid (exit 1). After a SIGKILL of the owner, two `resume`s started in
    the same instant: one finishes the run, the other is refused."""
    script = KillScript(SCORES, SECTIONS)
    with OpenAIServer(reply=script) as server:
        hold = script.hold("draft:s2")
        owner = Child(tmp_path, "owner", write_args(server, "busy"))
        try:
            owner.wait_until(hold.arrived.is_set, "the request draft:s2")
            started = time.monotonic()
            second = Child(tmp_path, "second", ["resume", "busy", "--runs-dir", "runs"])
            code = second.finish(60)
            took = time.monotonic() - started
            assert code == 1, second.describe()
            lines = second.stderr.strip().splitlines()
            assert len(lines) == 1, second.describe()
            assert f"thread busy is being run by another process (pid {owner.proc.pid})" in lines[0]
            assert second.stdout.strip() == ""  # refused before it printed anything else
            assert "Traceback" not in second.stdout + second.stderr
            assert took < 15, f"refused after {took:.1f}s"
            assert server.count == 3  # plan, draft:s1, draft:s2: the second process sent nothing
            owner.proc.send_signal(signal.SIGKILL)
            assert owner.finish(30) == -signal.SIGKILL
        finally:
            hold.release.set()
            owner.kill()
        # the owner is dead: no stuck lock. Two resumes race for it: exactly one gets it.
        start = {"CRASH_START_AT": str(time.time() + 2)}
        racers = [Child(tmp_path, f"racer{i}", ["resume", "busy", "--runs-dir", "runs"], env=start)
                  for i in range(2)]  # fmt: skip
        codes = sorted(racer.finish() for racer in racers)
        assert codes == [0, 1], "\n".join(racer.describe() for racer in racers)
        winner, loser = sorted(racers, key=lambda racer: racer.proc.returncode)
        assert "done passed" in winner.stdout
        assert f"being run by another process (pid {winner.proc.pid})" in loser.stderr
        assert resent_after_completion(server) == {}
    assert integrity(tmp_path / "runs" / "reflect.db") == "ok"


# --- many processes, one database ----------------------------------------------------------------


@pytest.mark.slow
def test_eight_processes_write_into_one_new_database(tmp_path, backend):
    """8 `write` processes on 8 threads, one runs dir with no database yet (they race to create
    and migrate it), their first requests held until all 8 have arrived so that the runs
    overlap: every one finishes, none says "database is locked", the database is intact."""
    n = 8
    responder = KillScript(SCORES, SECTIONS)
    barrier = threading.Barrier(n, timeout=120)

    def reply(body):
        action = responder(body)
        if step_of(body) == "plan":
            barrier.wait()
        return action

    with OpenAIServer(reply=reply) as server:
        start = {"CRASH_START_AT": str(time.time() + 4)}  # all open the new database at once
        children = [Child(tmp_path, f"w{i}", write_args(server, f"w{i}"), env=start)
                    for i in range(n)]  # fmt: skip
        try:
            codes = [child.finish(240) for child in children]
        finally:
            for child in children:
                child.kill()
        for child, code in zip(children, codes, strict=True):
            assert code == 0, child.describe()
            assert "database is locked" not in child.stdout + child.stderr
        assert server.count == 7 * n  # (the 8 runs send identical prompts: no per-hash check)
    db = tmp_path / "runs" / "reflect.db"
    assert integrity(db) == "ok"
    finals = set()
    for i in range(n):
        row = run_row(db, f"w{i}")
        assert (row["status"], row["stop_reason"], row["calls"]) == ("finished", "passed", 7)
        finals.add(outcome(run_state(db, f"w{i}"))["final"])
    assert len(finals) == 1  # the same script gives the same article, whatever the interleaving


OPENER = """
import sys, time
from reflectcli.store.db import Store
runs, start, me = sys.argv[1], float(sys.argv[2]), sys.argv[3]
time.sleep(max(0.0, start - time.time()))
store = Store(runs)
store.create_run(me, "task", {"model": "m"}, me + ".md")
store.acquire(me)
for i in range(20):
    store.update_run(me, calls=i)
    store.journal_put(f"{me}-{i}", me, "draft:s1", {"model": "m", "text": "x"})
print("ok")
"""


def test_processes_opening_a_new_database_at_once(tmp_path, backend):
    """8 processes create and migrate the same new reflect.db in the same milliseconds, three
    times over: SQLite answers "database is locked" at once (no busy wait) to a switch to WAL
    that races another opener, so the store retries it."""
    for attempt in range(3):
        runs = tmp_path / f"runs{attempt}"
        start = time.time() + 1.0
        procs = [subprocess.Popen([sys.executable, "-c", OPENER, str(runs), str(start), f"p{attempt}-{i}"],
                                  stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
                 for i in range(8)]  # fmt: skip
        outputs = [proc.communicate(timeout=60)[0] for proc in procs]
        assert all(out.strip() == "ok" for out in outputs), outputs
        assert integrity(runs / "reflect.db") == "ok"
