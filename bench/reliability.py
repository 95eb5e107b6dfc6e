"""Reliability report: random kills and random provider faults, then resume.

Part 1, kills: logical runs (7 model calls each: plan, 3 sections, review, revision, review)
against the scripted OpenAI-compatible server on 127.0.0.1, each run killed with SIGKILL again
and again (`write`, then `resume`, each a real process) at random points, seeded:

- `time`       a random moment 0.2-7 s after the process started (imports included);
- `completed`  0-40 ms after the server finished writing the k-th answer of that process;
- `call`       while the server holds the j-th request of that process (in the middle of a call).

After each kill: PRAGMA integrity_check. After the last kill of a run, `resume` (in this process,
through the CLI) finishes it; its article must equal the uninterrupted run's.

Part 2, faults: runs in this process through the CLI where each request attempt meets, at
random, a 429, 500, 503, a timeout, a dropped connection or (rarely) a 401; the retries are
bounded (2), a failed run is resumed until it finishes.

Columns: `attempts` kill points delivered / fault scripts run; `resumed OK` runs that then
finished with the uninterrupted run's article; `repeated calls` requests sent again although
their answer had been recorded (journal or checkpoint) before the kill; `in flight` requests
sent again whose answer the server had written but the killed process had not yet recorded
(a window of milliseconds that no client can close); `corrupt DBs` failed integrity checks;
`leaked secrets` files or outputs holding the planted API key (every byte under the work dir:
databases with their WAL, artifacts, exports, stdout/stderr).

    python bench/reliability.py [--kills 50] [--faults 50] [--seed 1] [--jobs 2] [--parallel]

With --parallel the runs draft their three sections at once (`--draft parallel --concurrency
4`), so a `call` or `completed` kill lands while the other sections' requests are in flight.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import signal
import sqlite3
import sys
import tempfile
import threading
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from typer.testing import CliRunner  # noqa: E402

from reflectcli.cli.app import app  # noqa: E402
from tests.crashkit import (  # noqa: E402
    MODEL,
    TASK,
    Child,
    KillScript,
    integrity,
    outcome,
    run_row,
    run_state,
)
from tests.openai_server import (  # noqa: E402
    OpenAIServer,
    delay,
    drop,
    error,
    loopback_only,
    step_of,
)

KEY = "sk-test-SECRET-7f3a9c"
SCORES, SECTIONS = (6.0, 9.5), 3
KILLS_PER_RUN = 5
cli = CliRunner()


MODE: list[str] = []  # --parallel: ["--draft", "parallel", "--concurrency", "4"]


def write_args(base_url: str, thread: str, runs: str) -> list[str]:
    return ["write", TASK, "--model", MODEL, "--api-base", base_url, "--runs-dir", runs,
            "--thread-id", thread, "--sections", str(SECTIONS), "--max-rounds", "2",
            "--threshold", "9", *MODE]  # fmt: skip


def baseline(work: Path) -> dict:
    with OpenAIServer(reply=KillScript(SCORES, SECTIONS)) as server:
        result = cli.invoke(app, write_args(server.base_url, "base", str(work / "base")))
        assert result.exit_code == 0, result.output
    return outcome(run_state(work / "base" / "reflect.db", "base"))


# --- part 1: kills ---------------------------------------------------------------------------


class Counting:
    """The server's reply for one logical run: counts requests and answers per process, holds
    the j-th request or kills the process after the k-th answer when told to."""

    def __init__(self):
        self.script = KillScript(SCORES, SECTIONS)
        self.lock = threading.Lock()
        self.done_at: dict[int, float] = {}  # request index -> when its answer was written
        self.new_process(None, None)

    def new_process(self, pid: int | None, plan: tuple | None) -> None:
        with self.lock:
            self.pid, self.plan = pid, plan
            self.requests = self.answers = 0
            self.killed_at: float | None = None
            self.held = threading.Event()
            self.release = threading.Event()
            self.killed = threading.Event()

    def __call__(self, body):
        with self.lock:
            self.requests += 1
            hold = self.plan and self.plan[0] == "call" and self.requests == self.plan[1]
        if hold:
            self.held.set()
            self.release.wait(120)
            return drop()
        return self.script(body)

    def on_complete(self, record) -> None:
        with self.lock:
            self.done_at[record.index] = time.time()
            self.answers += 1
            trigger = self.plan and self.plan[0] == "completed" and self.answers == self.plan[1]
            pid = self.pid
        if trigger and pid:
            time.sleep(self.plan[2])
            self.kill(pid)

    def kill(self, pid: int) -> None:
        with self.lock:
            if self.killed_at is None:
                self.killed_at = time.time()
        os.kill(pid, signal.SIGKILL)
        self.killed.set()


@dataclass
class KillRun:
    thread: str
    kills: list[str] = field(default_factory=list)
    corrupt: int = 0
    errors: list[str] = field(default_factory=list)
    # per kill: requests seen by the server by then, when the kill was sent, answers journaled
    journaled: list[tuple[int, float, set[str]]] = field(default_factory=list)
    finished: bool = False
    repeated: int = 0
    cut_off: int = 0
    in_flight: int = 0
    seconds: float = 0.0


def journal_texts(db: Path, thread: str) -> set[str]:
    """Answers recorded for `thread`: journaled, or in the checkpointed state's versions."""
    if not db.exists():
        return set()
    conn = sqlite3.connect(db)
    try:
        rows = conn.execute("SELECT answer FROM call_journal WHERE thread_id = ?", (thread,))
        return {json.loads(answer).get("text") for (answer,) in rows} - {None}  # not spent: rows
    except sqlite3.OperationalError:
        return set()
    finally:
        conn.close()


def kill_run(work: Path, index: int, plans: list[tuple], server: OpenAIServer, reply: Counting,
             ) -> KillRun:  # fmt: skip
    thread = f"k{index:02d}"
    result = KillRun(thread)
    db = work / "runs" / "reflect.db"
    started = time.monotonic()
    for n, plan in enumerate(plans):
        exists = db.exists() and bool(run_row(db, thread))
        args = (["resume", thread, "--runs-dir", "runs"] if exists
                else write_args(server.base_url, thread, "runs"))  # fmt: skip
        child = Child(work, f"{thread}-{n}", args, env={"OPENAI_API_KEY": KEY})
        reply.new_process(child.proc.pid, plan)
        kind = plan[0]
        if kind == "time":
            deadline = time.monotonic() + plan[1]
            while time.monotonic() < deadline and child.proc.poll() is None:
                time.sleep(0.005)
            if child.proc.poll() is None:
                reply.kill(child.proc.pid)
        elif kind == "call":
            while not reply.held.is_set() and child.proc.poll() is None:
                time.sleep(0.005)
            if reply.held.is_set():
                time.sleep(0.1)
                reply.kill(child.proc.pid)
        code = child.finish(180)
        killed_at = reply.killed_at
        reply.release.set()
        reply.new_process(None, None)
        if code != -signal.SIGKILL:  # the run ended before the kill point came
            if code != 0:
                result.errors.append(f"{thread}-{n}: exit {code}: {child.stderr.strip()[-300:]}")
            break
        result.kills.append(f"{kind}:{plan[1]}" + (f"+{plan[2] * 1000:.0f}ms" if kind == "completed" else ""))
        if db.exists():
            check = integrity(db)
            if check != "ok":
                result.corrupt += 1
                result.errors.append(f"{thread}-{n}: integrity_check: {check}")
        result.journaled.append((server.count, killed_at or time.time(), journal_texts(db, thread)))
    result.seconds = time.monotonic() - started
    return result


def finish_kill_run(work: Path, result: KillRun, server: OpenAIServer, reply: Counting,
                    expected: dict) -> None:  # fmt: skip
    db = work / "runs" / "reflect.db"
    if result.errors:
        return
    if not (db.exists() and run_row(db, result.thread)):
        args = write_args(server.base_url, result.thread, str(work / "runs"))
    else:
        args = ["resume", result.thread, "--runs-dir", str(work / "runs")]
    out = cli.invoke(app, args)
    (work / f"{result.thread}-final.out").write_text(out.output + (out.stderr or ""))
    if out.exit_code != 0:
        result.errors.append(f"final resume: exit {out.exit_code}: {out.output[-300:]}")
        return
    if integrity(db) != "ok":
        result.corrupt += 1
    got = outcome(run_state(db, result.thread))
    if got != expected:
        result.errors.append(f"{result.thread}: outcome differs from the uninterrupted run")
        return
    result.finished = True
    # Requests sent again after an identical one had completed: `repeated` if its answer had
    # been journaled before the kill that preceded the resend; `in flight` if the answer was
    # written before that kill but not yet journaled; answers written after the kill signal,
    # to a process already dying, are cut-off calls like the held ones and not counted.
    first_done: dict[str, int] = {}
    with server.lock:
        records = list(server.records)
    for record in records:
        if record.hash in first_done:
            before = [k for k in result.journaled if k[0] < record.index]
            if not before:
                continue
            _, killed_at, recorded = before[-1]
            done = reply.done_at.get(first_done[record.hash], 0.0)
            text = reply.script.responder(step_of(record.body), record.body["messages"])
            if text in recorded:
                result.repeated += 1
            elif done < killed_at:
                result.in_flight += 1
            else:
                result.cut_off += 1
        if record.completed:
            first_done.setdefault(record.hash, record.index)


def random_plans(rng: random.Random, n: int) -> list[tuple]:
    plans = []
    for _ in range(n):
        kind = rng.choice(["time", "completed", "call"])
        if kind == "time":
            plans.append(("time", round(rng.uniform(0.2, 7.0), 2)))
        elif kind == "completed":
            plans.append(("completed", rng.randint(1, 3), round(rng.uniform(0.0, 0.04), 3)))
        else:
            plans.append(("call", rng.randint(1, 3)))
    return plans


def kills_part(root: Path, total: int, seed: int, jobs: int, expected: dict) -> dict:
    rng = random.Random(seed)
    runs, delivered, index = [], 0, 0
    started = time.monotonic()
    servers = []
    with ThreadPoolExecutor(jobs) as pool:
        pending = []
        while delivered < total:
            # plan enough runs for the kills still missing (some end before their last kill)
            while len(pending) < jobs and delivered + sum(p[3] for p in pending) < total:
                work = root / f"kill-{index:02d}"
                work.mkdir()
                reply = Counting()
                server = OpenAIServer(reply=reply).start()
                server.on_complete = reply.on_complete
                servers.append(server)
                plans = random_plans(rng, min(KILLS_PER_RUN, total - delivered
                                              - sum(p[3] for p in pending)))  # fmt: skip
                future = pool.submit(kill_run, work, index, plans, server, reply)
                pending.append((future, work, (server, reply), len(plans)))
                index += 1
            future, work, (server, reply), planned = pending.pop(0)
            result = future.result()
            delivered += len(result.kills)
            runs.append((result, work, server, reply))
            print(f"  run {result.thread}: {len(result.kills)} kills "
                  f"({', '.join(result.kills)}) in {result.seconds:.0f}s", flush=True)  # fmt: skip
        for future, work, (server, reply), _ in pending:
            result = future.result()
            delivered += len(result.kills)
            runs.append((result, work, server, reply))
    for result, work, server, reply in runs:
        finish_kill_run(work, result, server, reply, expected)
        server.stop()
    results = [r for r, *_ in runs]
    return {
        "attempts": sum(len(r.kills) for r in results),
        "runs": len(results),
        "resumed": sum(r.finished for r in results),
        "resumed_kills": sum(len(r.kills) for r in results if r.finished),
        "repeated": sum(r.repeated for r in results),
        "in_flight": sum(r.in_flight for r in results),
        "cut_off": sum(r.cut_off for r in results),
        "corrupt": sum(r.corrupt for r in results),
        "errors": [e for r in results for e in r.errors],
        "kinds": Counter(k.split(":")[0] for r in results for k in r.kills),
        "seconds": time.monotonic() - started,
    }


# --- part 2: faults ----------------------------------------------------------------------------


FAULTS = ("429", "500", "503", "timeout", "drop")


class RandomFaults:
    def __init__(self, rng: random.Random, p: float = 0.3, p401: float = 0.03):
        self.rng, self.p, self.p401 = rng, p, p401
        self.injected: Counter[str] = Counter()

    def __call__(self, step: str, attempt: int):
        roll = self.rng.random()
        if roll < self.p401:
            self.injected["401"] += 1
            return error(401)
        if roll < self.p401 + self.p:
            kind = self.rng.choice(FAULTS)
            self.injected[kind] += 1
            if kind == "timeout":
                return delay(1.5)
            if kind == "drop":
                return drop()
            return error(int(kind))
        return None


def faults_part(root: Path, total: int, seed: int, expected: dict) -> dict:
    started = time.monotonic()
    stats = Counter()
    injected: Counter[str] = Counter()
    errors = []
    work = root / "faults"
    work.mkdir()
    runs = work / "runs"
    for i in range(total):
        faults = RandomFaults(random.Random(f"{seed}-{i}"))
        script = KillScript(SCORES, SECTIONS, faults=faults)
        thread = f"f{i:02d}"
        with OpenAIServer(reply=script) as server:
            args = write_args(server.base_url, thread, str(runs)) + ["--timeout", "0.5"]
            out = cli.invoke(app, args)
            tries = 0
            outputs = [out.output + (out.stderr or "")]
            while out.exit_code != 0 and tries < 20:
                lines = [ln for ln in (out.stderr or "").splitlines() if ln.strip()]
                if out.exit_code != 1 or len(lines) != 1 or not lines[0].startswith("error: "):
                    errors.append(f"{thread}: exit {out.exit_code}, not one error line: {lines}")
                    break
                stats["failed then resumed"] += 1
                tries += 1
                out = cli.invoke(app, ["resume", thread, "--runs-dir", str(runs)])
                outputs.append(out.output + (out.stderr or ""))
            (work / f"{thread}.out").write_text("\n".join(outputs))
            resent = sum(n - 1 for n in Counter(r.hash for r in server.completed).values())
        injected += faults.injected
        stats["repeated"] += resent
        if out.exit_code == 0 and outcome(run_state(runs / "reflect.db", thread)) == expected:
            stats["resumed"] += 1
        else:
            errors.append(f"{thread}: did not finish with the uninterrupted article")
    stats["corrupt"] += integrity(runs / "reflect.db") != "ok"
    return {"attempts": total, "injected": injected, "errors": errors,
            "seconds": time.monotonic() - started, **stats}  # fmt: skip


# --- report ------------------------------------------------------------------------------------


def leaked(root: Path) -> list[str]:
    needles = (KEY.encode(), b"SECRET")
    return [str(p) for p in root.rglob("*") if p.is_file()
            and any(n in p.read_bytes() for n in needles)]  # fmt: skip


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--kills", type=int, default=50, help="kill points (default 50)")
    parser.add_argument("--faults", type=int, default=50, help="fault scripts (default 50)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--jobs", type=int, default=2, help="runs killed at the same time")
    parser.add_argument("--parallel", action="store_true",
                        help="draft the sections at once (--draft parallel --concurrency 4): "
                        "kills land while several calls are in flight")  # fmt: skip
    opts = parser.parse_args()
    if opts.parallel:
        MODE[:] = ["--draft", "parallel", "--concurrency", "4"]

    loopback_only(os.environ.__setitem__, lambda var: os.environ.pop(var, None),
                  OPENAI_API_KEY=KEY, REFLECTCLI_RETRIES="2", REFLECTCLI_BACKOFF="0")  # fmt: skip
    with tempfile.TemporaryDirectory(prefix="reflect-reliability-") as tmp:
        root = Path(tmp)
        os.chdir(root)
        expected = baseline(root)
        print(f"kills: {opts.kills} SIGKILL points, seed {opts.seed}, {opts.jobs} runs at a time"
              + (", parallel drafting" if opts.parallel else ""),
              flush=True)  # fmt: skip
        kills = kills_part(root, opts.kills, opts.seed, opts.jobs, expected) if opts.kills else None
        print(f"faults: {opts.faults} random fault scripts, seed {opts.seed}", flush=True)
        faults = faults_part(root, opts.faults, opts.seed, expected) if opts.faults else None
        leaks = leaked(root)

    print()
    print("| part | attempts | resumed OK | repeated calls | in flight | corrupt DBs "
          "| leaked secrets | time |")  # fmt: skip
    print("|---|---|---|---|---|---|---|---|")
    failed = False
    if kills:
        ok = kills["resumed_kills"]
        print(f"| kills (SIGKILL) | {kills['attempts']} kills in {kills['runs']} runs | "
              f"{ok}/{kills['attempts']} ({100 * ok / max(1, kills['attempts']):.0f}%) | "
              f"{kills['repeated']} | {kills['in_flight']} | {kills['corrupt']} | "
              f"{len([p for p in leaks if '/kill-' in p])} | {kills['seconds']:.0f}s |")  # fmt: skip
        failed |= bool(kills["errors"] or kills["repeated"] or kills["corrupt"]
                       or ok < kills["attempts"])  # fmt: skip
    if faults:
        ok = faults.get("resumed", 0)
        print(f"| faults | {faults['attempts']} scripts | {ok}/{faults['attempts']} "
              f"({100 * ok / max(1, faults['attempts']):.0f}%) | {faults.get('repeated', 0)} | "
              f"- | {faults.get('corrupt', 0)} | {len([p for p in leaks if '/faults/' in p])} | "
              f"{faults['seconds']:.0f}s |")  # fmt: skip
        failed |= bool(faults["errors"] or faults.get("repeated") or faults.get("corrupt"))
    print()
    if kills:
        kinds = ", ".join(f"{k} {n}" for k, n in sorted(kills["kinds"].items()))
        print(f"kill points: {kinds}; answers written after the kill signal, to a dying "
              f"process (cut off mid-call, not counted): {kills['cut_off']}")  # fmt: skip
    if faults:
        inj = ", ".join(f"{k} {n}" for k, n in sorted(faults["injected"].items()))
        print(f"faults injected: {inj}; runs that failed and were resumed: "
              f"{faults.get('failed then resumed', 0)}")  # fmt: skip
    for e in (kills or {}).get("errors", []) + (faults or {}).get("errors", []):
        print("ERROR", e)
    for p in leaks:
        print("LEAK", p)
    failed |= bool(leaks)
    target = "target: 100% resumed, 0 repeated, 0 corrupt, 0 leaked"
    print(f"{target}: {'MET' if not failed else 'NOT MET'}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
