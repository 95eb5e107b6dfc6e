"""Kill-and-resume machinery shared by tests/test_crash.py, tests/test_security.py and
bench/reliability.py. No pytest here: failures are AssertionErrors.

Named points of a run (the same names in a recording and in a kill schedule):

- `call:<step>`        the request of <step> reached the server (the test's server holds it:
                       a kill there lands in the middle of a call)
- `journal:<step>`     the answer of <step> is in the call journal, the node has not finished
                       (the hard case: answered and paid, not checkpointed)
- `writes:<S>`         the writes of the step that checkpoint S records are saved, checkpoint S
                       is not (a resume gets that step's output back as a cached update)
- `checkpoint:<S>`     checkpoint S (LangGraph's superstep S) landed: a step boundary

`install_points(callback)` reports the last three from inside a process (the server reports
`call:`); `tests/crash_child.py` runs the real CLI and pauses at one of them so that a test can
kill it exactly there.
"""

from __future__ import annotations

import json
import os
import select
import signal
import socket
import sqlite3
import subprocess
import sys
import threading
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from reflectcli.models.fake import ScriptedResponder
from tests.openai_server import PROXY_VARS, Action, OpenAIServer, answer, drop, step_of

MODEL = "openai/test-model"
TASK = "Why do writers revise?"
PROCESS_TIMEOUT = 120.0  # one child: ~5 s of `import litellm` (more on a busy machine)
CHILD = Path(__file__).with_name("crash_child.py")
ROOT = Path(__file__).resolve().parent.parent
KILLED_BY = {signal.SIGKILL: -signal.SIGKILL, signal.SIGTERM: 130, signal.SIGINT: 130}


# --- points inside a process -----------------------------------------------------------------


def install_points(callback: Callable[[str], None]) -> Callable[[], None]:
    """Call `callback(point)` right after each journal write, between a step's saved writes and
    its checkpoint, and right after each checkpoint save (see the module doc); returns the undo
    function."""
    from langgraph.checkpoint.postgres import PostgresSaver
    from langgraph.checkpoint.sqlite import SqliteSaver

    from reflectcli.store.db import Store

    journal_put = Store.journal_put
    originals = {saver: (saver.put, saver.put_writes) for saver in (SqliteSaver, PostgresSaver)}
    saved: dict[str, threading.Event] = {}  # checkpoint id -> its tasks' writes are saved
    lock = threading.Lock()

    def original(self) -> tuple:  # the saver's own methods (a subclass, e.g. the fenced one, shares them)
        return next(originals[c] for c in type(self).__mro__ if c in originals)

    def writes_saved(checkpoint_id: str | None) -> threading.Event:
        with lock:
            return saved.setdefault(str(checkpoint_id), threading.Event())

    def journal_put_hook(self, key, thread_id, step, answer):
        journal_put(self, key, thread_id, step, answer)
        callback(f"journal:{step}")

    def put_writes_hook(self, config, writes, task_id, task_path=""):
        original(self)[1](self, config, writes, task_id, task_path)
        writes_saved(config["configurable"].get("checkpoint_id")).set()

    def put_hook(self, config, checkpoint, metadata, new_versions):
        step = metadata.get("step")
        parent = config["configurable"].get("checkpoint_id")
        # LangGraph saves a step's writes and its checkpoint on two threads, in either order:
        # wait for the writes, so that `writes:<S>` is the moment they are saved and checkpoint
        # S is not (on resume the step is not run again: its writes come back as cached)
        if isinstance(step, int) and step >= 1 and writes_saved(parent).wait(10):
            callback(f"writes:{step}")
        result = original(self)[0](self, config, checkpoint, metadata, new_versions)
        callback(f"checkpoint:{step}")
        return result

    Store.journal_put = journal_put_hook
    for saver in originals:
        saver.put, saver.put_writes = put_hook, put_writes_hook

    def undo() -> None:
        Store.journal_put = journal_put
        for saver, (put, put_writes) in originals.items():
            saver.put, saver.put_writes = put, put_writes

    return undo


def pause_at(point: str, marker: Path) -> None:
    """In a child: at `point`, write `marker` and wait until a signal arrives (a SIGKILL ends
    the wait for good; after SIGTERM/SIGINT the run's own handlers take over). Any thread may
    reach the point, so the wait watches the signal wakeup fd, not a handler."""
    wake_r, wake_w = os.pipe()
    os.set_blocking(wake_w, False)
    signal.set_wakeup_fd(wake_w)
    reached = threading.Event()

    def callback(seen: str) -> None:
        if seen != point or reached.is_set():
            return
        reached.set()
        tmp = marker.with_suffix(".tmp")
        tmp.write_text(f"{os.getpid()} {threading.current_thread().name}\n")
        os.replace(tmp, marker)
        select.select([wake_r], [], [], PROCESS_TIMEOUT)

    install_points(callback)


# --- the server's side: a scripted run whose requests can be held ------------------------------


@dataclass
class Hold:
    step: str
    arrived: threading.Event = field(default_factory=threading.Event)
    release: threading.Event = field(default_factory=threading.Event)


class KillScript:
    """Replies for a whole run (ScriptedResponder, chosen by the step found in the prompt).
    `hold(step)` arms a hold on the next request of that step: the server signals `arrived`,
    waits for `release`, then drops the connection (so that request never completes).
    `faults(step, attempt)` may return an Action instead of the answer (bench fault scripts)."""

    def __init__(self, scores: Sequence[float] = (6.0, 9.5), sections: int = 3, faults=None):
        self.responder = ScriptedResponder(scores=scores, sections=sections)
        self.faults = faults
        self.attempts: Counter[str] = Counter()
        self._holds: list[Hold] = []
        self._lock = threading.Lock()

    def hold(self, step: str) -> Hold:
        hold = Hold(step)
        with self._lock:
            self._holds.append(hold)
        return hold

    def release_all(self) -> None:
        with self._lock:
            holds, self._holds = self._holds, []
        for hold in holds:
            hold.release.set()

    def __call__(self, body: dict[str, Any]) -> Action:
        step = step_of(body)
        with self._lock:
            hold = next((h for h in self._holds if h.step == step and not h.arrived.is_set()), None)
            if hold is not None:
                hold.arrived.set()
            self.attempts[step] += 1
            attempt = self.attempts[step]
        if hold is not None:
            hold.release.wait(PROCESS_TIMEOUT)
            return drop()
        if self.faults is not None:
            action = self.faults(step, attempt)
            if action is not None:
                return action
        return answer(self.responder(step, body["messages"]))


def resent_after_completion(server: OpenAIServer) -> dict[str, int]:
    """Requests sent again after an identical one had completed: {step: times}. Must be empty."""
    seen: set[str] = set()
    again: Counter[str] = Counter()
    with server.lock:
        records = list(server.records)
    for record in records:
        if record.hash in seen:
            again[record.step] += 1
        if record.completed:
            seen.add(record.hash)
    return dict(again)


def closed_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


# --- child processes ---------------------------------------------------------------------------


def default_signals() -> None:
    """In a child, before exec: SIGINT and SIGTERM back to their defaults. A test run started
    with SIGINT ignored (`nohup python -m pytest &`, some CI runners) would otherwise hand the
    ignore on, and the child would never see the Ctrl-C a test sends it."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)


def child_env(work: Path, **extra: str) -> dict[str, str]:
    """A child `reflectcli`'s environment: no user config, no proxies, a test key, no backoff."""
    home = work / "home"
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("REFLECTCLI_", "OPENAI_", "LITELLM_", "CRASH_")) and k.upper() not in PROXY_VARS
    }
    if os.environ.get("REFLECTCLI_STORE"):  # the store in force (a test's PostgreSQL) goes along
        env["REFLECTCLI_STORE"] = os.environ["REFLECTCLI_STORE"]
    env.update(
        HOME=str(home),
        XDG_CONFIG_HOME=str(home / ".config"),
        XDG_CACHE_HOME=str(home / ".cache"),
        XDG_DATA_HOME=str(home / ".local" / "share"),
        REFLECTCLI_CONFIG_DIR=str(home / ".config" / "reflectcli"),
        OPENAI_API_KEY="sk-test",
        REFLECTCLI_BACKOFF="0",
        NO_PROXY="127.0.0.1,localhost",
        PYTHONUNBUFFERED="1",
        NO_COLOR="1",
        # the tree under test, whatever copy of reflectcli pip installed
        PYTHONPATH=os.pathsep.join([str(ROOT), *filter(None, [os.environ.get("PYTHONPATH")])]),
    )
    env.update(extra)
    return env


class Child:
    """`python -m reflectcli ARGS` in `work` (or, with `pause` or CRASH_START_AT in `env`,
    tests/crash_child.py: the same CLI, stopping at that point or starting at that time);
    output goes to files, so no pipe can fill up."""

    def __init__(self, work: Path, name: str, args: Sequence[str], pause: str | None = None,
                 env: dict[str, str] | None = None):  # fmt: skip
        self.work, self.name, self.pause = work, name, pause
        self.out_path, self.err_path = work / f"{name}.out", work / f"{name}.err"
        self.marker = work / f"{name}.paused"
        extra = dict(env or {})
        if pause:
            extra.update(CRASH_PAUSE=pause, CRASH_MARKER=str(self.marker))
        if pause or "CRASH_START_AT" in extra or "CRASH_HOST" in extra:
            cmd = [sys.executable, str(CHILD), *args]
        else:
            cmd = [sys.executable, "-m", "reflectcli", *args]
        self.started = time.monotonic()
        with open(self.out_path, "wb") as out, open(self.err_path, "wb") as err:
            self.proc = subprocess.Popen(
                cmd, cwd=work, env=child_env(work, **extra), stdout=out, stderr=err,
                stdin=subprocess.DEVNULL, preexec_fn=default_signals,
            )  # fmt: skip

    @property
    def stdout(self) -> str:
        return self.out_path.read_text(encoding="utf-8", errors="replace")

    @property
    def stderr(self) -> str:
        return self.err_path.read_text(encoding="utf-8", errors="replace")

    def describe(self) -> str:
        return (f"{self.name} (pause {self.pause}): exit {self.proc.returncode}\n"
                f"stdout:\n{self.stdout}\nstderr:\n{self.stderr}")  # fmt: skip

    def wait_until(self, ready: Callable[[], bool], what: str,
                   timeout: float = PROCESS_TIMEOUT) -> None:  # fmt: skip
        """Poll `ready()`; fail (with the output) if the child ends first or time runs out."""
        deadline = time.monotonic() + timeout
        while not ready():
            if self.proc.poll() is not None:
                raise AssertionError(f"the child ended before {what}:\n{self.describe()}")
            if time.monotonic() > deadline:
                self.kill()
                raise AssertionError(f"timed out waiting for {what}:\n{self.describe()}")
            time.sleep(0.01)

    def wait_paused(self) -> None:
        self.wait_until(self.marker.exists, f"pause point {self.pause}")

    def finish(self, timeout: float = PROCESS_TIMEOUT) -> int:
        try:
            return self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            self.kill()
            raise AssertionError(f"the child did not end in {timeout}s:\n{self.describe()}") from None

    def kill(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait(10)


# --- the database ------------------------------------------------------------------------------


# With REFLECTCLI_STORE set (the `backend` fixture's postgres case) these read PostgreSQL, and
# `db` names only the runs folder (its parent).


def _on_postgres() -> bool:
    return bool(os.environ.get("REFLECTCLI_STORE"))


def _select(db: Path, sql: str, args: tuple = ()) -> Any:
    from reflectcli.store.db import Store

    store = Store(db.parent)
    try:
        row = store.conn.execute(sql, args).fetchone()
        return dict(row) if row is not None else None
    finally:
        store.close()


def integrity(db: Path) -> str:
    if _on_postgres():  # the server keeps its own pages whole; every table must still read
        for table in ("runs", "run_state", "call_journal"):
            _select(db, f"SELECT COUNT(*) AS n FROM {table}")
        return "ok"
    conn = sqlite3.connect(db)
    try:
        return conn.execute("PRAGMA integrity_check").fetchone()[0]
    finally:
        conn.close()


def private_modes(folder: Path) -> dict[str, int]:
    """The permission bits of a runs folder ("(folder)") and of every file in it."""
    modes = {p.name: p.stat().st_mode & 0o777 for p in folder.iterdir()}
    return {"(folder)": folder.stat().st_mode & 0o777, **modes}


def run_row(db: Path, thread: str) -> dict[str, Any]:
    if _on_postgres():
        return _select(db, "SELECT * FROM runs WHERE thread_id = ?", (thread,)) or {}
    conn = sqlite3.connect(db)
    conn.row_factory = sqlite3.Row
    try:
        row = conn.execute("SELECT * FROM runs WHERE thread_id = ?", (thread,)).fetchone()
        return dict(row) if row else {}
    finally:
        conn.close()


def run_state(db: Path, thread: str) -> dict[str, Any]:
    if _on_postgres():
        row = _select(db, "SELECT state FROM run_state WHERE thread_id = ?", (thread,))
        return json.loads(row["state"]) if row else {}
    conn = sqlite3.connect(db)
    try:
        row = conn.execute("SELECT state FROM run_state WHERE thread_id = ?", (thread,)).fetchone()
        return json.loads(row[0]) if row else {}
    finally:
        conn.close()


def outcome(state: dict[str, Any]) -> dict[str, Any]:
    """What must not depend on interruptions: every version's text, the reviews, decisions and
    the chosen final article (not timings, not the replay flags)."""
    final = state.get("final_version")
    versions = state.get("versions") or []
    return {
        "status": state.get("status"),
        "stop_reason": state.get("stop_reason"),
        "outline": [s["title"] for s in (state.get("outline") or {}).get("sections", [])],
        "versions": [(v["n"], v["kind"], v["text"]) for v in versions],
        "reviews": [
            (r["round"], r["version"], r["score"], r["source"]) for r in state.get("reviews") or []
        ],  # fmt: skip
        "decisions": [(d["round"], d["decision"], d["reason"]) for d in state.get("decisions") or []],
        "final": next((v["text"] for v in versions if v["n"] == final), None),
        "calls": sorted(e["step"] for e in state.get("trace") or [] if e.get("step")),
    }


# --- a kill chain: one logical run, killed again and again ----------------------------------


@dataclass
class Kill:
    point: str
    sig: signal.Signals = signal.SIGKILL


@dataclass
class Killed:
    kill: Kill
    exit_code: int
    seconds: float
    integrity: str
    status: str
    stderr: str


def kill_at(work: Path, name: str, args: Sequence[str], script: KillScript, kill: Kill,
            settle: float = 0.2) -> tuple[Child, int]:  # fmt: skip
    """Start a child and kill it at `kill.point` with `kill.sig`; returns it and its exit code."""
    if kill.point.startswith("call:"):
        hold = script.hold(kill.point.removeprefix("call:"))
        child = Child(work, name, args)
        try:
            child.wait_until(hold.arrived.is_set, f"the request {kill.point}")
            time.sleep(settle)  # the call is well under way
            child.proc.send_signal(kill.sig)
            code = child.finish(30)
        finally:
            hold.release.set()
            child.kill()
        return child, code
    child = Child(work, name, args, pause=kill.point)
    try:
        child.wait_paused()
        child.proc.send_signal(kill.sig)
        code = child.finish(30)
    finally:
        child.kill()
    return child, code


def run_chain(work: Path, script: KillScript, thread: str, write_args: Sequence[str],
              kills: Sequence[Kill], runs: str = "runs") -> list[Killed]:  # fmt: skip
    """`write`, then `resume` again and again: each process killed at the next point. Checks
    every kill's exit code (and, for SIGTERM/SIGINT, the resume hint) and the database after it."""
    db = work / runs / "reflect.db"
    done: list[Killed] = []
    for i, kill in enumerate(kills):
        args = list(write_args) if i == 0 else ["resume", thread, "--runs-dir", runs]
        started = time.monotonic()
        child, code = kill_at(work, f"{thread}-{i:02d}", args, script, kill)
        expected = KILLED_BY[kill.sig]
        assert code == expected, f"kill {i} at {kill.point} ({kill.sig.name}):\n{child.describe()}"
        if kill.sig != signal.SIGKILL:
            assert f"reflectcli resume {thread}" in child.stderr, child.describe()
            assert "Traceback" not in child.stderr, child.describe()
        check = integrity(db)
        assert check == "ok", f"after kill {i} at {kill.point}: integrity_check says {check}"
        modes = private_modes(db.parent)
        assert modes == {"(folder)": 0o700} | {name: 0o600 for name in modes if name != "(folder)"}, modes
        status = effective_status(db, thread)
        assert status == "interrupted", f"after kill {i} at {kill.point}: status {status}"
        done.append(Killed(kill, code, time.monotonic() - started, check, status, child.stderr))
    return done


def effective_status(db: Path, thread: str) -> str:
    from reflectcli.store.db import effective_status as status_of

    row = run_row(db, thread)
    return status_of(row) if row else "missing"
