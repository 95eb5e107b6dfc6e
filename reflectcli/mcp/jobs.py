"""Runs that outlive the tool call that started them: each goes on in a thread of the server's
process, reports its steps as events (round, score, decision) that any call following it turns
into progress notifications, and stops at its next checkpoint when asked (a cancelled `write`,
the `cancel` tool, a client gone): the runner's `should_stop`, which ends the run exactly as
Ctrl-C does (status `interrupted`, the checkpoint kept, `resume` carries on).

One thread per run; the registry refuses a second run of a thread this server is running
already (the store's claim is per process: it refuses other processes, this refuses other
calls). No MCP SDK here: the server turns these events into notifications."""

from __future__ import annotations

import io
import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from reflectcli.errors import RunBusy, RunInterrupted, UserError

log = logging.getLogger(__name__)

ENDED = ("finished", "interrupted", "failed", "waiting")


def one_line(exc: BaseException) -> str:
    """An error as the CLI prints it: its message and hint on one line (never a traceback)."""
    if isinstance(exc, UserError):
        return exc.message + (f" ({exc.hint})" if exc.hint else "")
    if isinstance(exc, RunInterrupted):
        return f"interrupted; the checkpoint is kept. Continue with write(resume={exc.thread_id!r})"
    import sqlite3

    if isinstance(exc, sqlite3.DatabaseError):
        return f"the runs database (reflect.db) cannot be used: {exc}"
    first = (str(exc).strip().splitlines() or [""])[0]
    return f"unexpected {type(exc).__name__}: {first}".rstrip(": ")


@dataclass
class Job:
    """One run going on in this server: its events, how it ended, and its stop switch."""

    thread_id: str
    kind: str  # write | resume | revise | review
    events: list[dict[str, Any]] = field(default_factory=list)
    status: str = "starting"  # starting → running → one of ENDED
    error: str | None = None
    result: Any = None  # the runner's RunResult when it ended without an error
    stop: threading.Event = field(default_factory=threading.Event)
    _cond: threading.Condition = field(default_factory=threading.Condition)

    def emit(self, kind: str, message: str, **data: Any) -> None:
        with self._cond:
            self.events.append({"seq": len(self.events) + 1, "kind": kind, "message": message, **data})
            self._cond.notify_all()

    def end(self, status: str, error: str | None = None, result: Any = None) -> None:
        with self._cond:
            self.status, self.error, self.result = status, error, result
            self._cond.notify_all()

    @property
    def done(self) -> bool:
        return self.status in ENDED

    def wait(self, seen: int, timeout: float) -> list[dict[str, Any]]:
        """The events after the first `seen`, once there are any (or the run ended, or
        `timeout` passed): blocks a worker thread, never the server's event loop."""
        with self._cond:
            self._cond.wait_for(lambda: len(self.events) > seen or self.done, timeout)
            return list(self.events[seen:])

    def wait_started(self, timeout: float) -> None:
        with self._cond:
            self._cond.wait_for(lambda: self.status != "starting", timeout)


def event_ui(job: Job):
    """What the runner reports to, for a run without a terminal: a silent renderer whose node
    results become the job's events. Everything else the renderer does (spinners, prompts)
    goes nowhere; a human gate is never asked (the run waits, as in a pipe)."""
    from rich.console import Console

    from reflectcli.output.render import Renderer

    class EventUI(Renderer):
        def started(self, thread_id, task, settings, path, resumed: bool) -> None:
            with job._cond:
                job.status = "running"
            job.emit(
                "started",
                f"{'resuming' if resumed else 'started'} {thread_id}",
                resumed=resumed,
                threshold=settings.threshold,
                max_rounds=settings.max_rounds,
            )

        def notice(self, message: str) -> None:
            job.emit("notice", message)

        def warn(self, message: str) -> None:
            job.emit("warning", message)

        def call_event(self, kind: str, data: dict[str, Any], state: dict[str, Any]) -> None:
            if kind == "call_replayed":
                job.emit(
                    "replayed",
                    f"{data['step']}: answer replayed from the journal, not paid again",
                    step=data["step"],
                )

        def node_done(self, node: str, update: dict[str, Any], state: dict[str, Any]) -> None:
            step_events(job, node, update, state)

        def can_ask(self) -> bool:
            return False

    return EventUI(console=Console(file=io.StringIO(), width=100), quiet=True)


def step_events(job: Job, node: str, update: dict[str, Any], state: dict[str, Any]) -> None:
    """A finished step as events: the outline, each section drafted, each review's round and
    score, each decision, each revision, the end."""
    if node == "plan" and update.get("outline"):
        titles = [s["title"] for s in state["outline"]["sections"]]
        job.emit("outline", f"outline: {len(titles)} sections", sections=titles)
    elif node == "draft" and update.get("sections"):
        done, planned = (
            len(state.get("sections") or []),
            len((state.get("outline") or {}).get("sections") or []),
        )
        job.emit("draft", f"drafted section {done}/{planned}", section=done, sections=planned)
    elif node == "review" and update.get("reviews"):
        r = state["reviews"][-1]
        threshold = (state.get("params") or {}).get("threshold")
        job.emit(
            "review",
            f"round {r['round']}: score {r['score']:g}/10 (threshold {threshold:g}, {r['source']})",
            round=r["round"],
            score=r["score"],
            threshold=threshold,
            source=r["source"],
            version=r["version"],
        )
    elif (node == "decide" or node.startswith("gate_")) and state.get("decisions"):
        d = state["decisions"][-1]
        job.emit(
            "decision",
            f"round {d['round']}: {d['decision']} ({d['reason']}): {d['detail']}",
            round=d["round"],
            decision=d["decision"],
            reason=d["reason"],
        )
    elif node == "revise" and update.get("versions"):
        v = state["versions"][-1]
        job.emit("revision", f"version {v['n']} written (round {v.get('round')})", version=v["n"])
    elif node == "finalize":
        job.emit(
            "finalized",
            f"finished: {state.get('stop_reason')}, output version {state.get('final_version')}",
            stop_reason=state.get("stop_reason"),
            final_version=state.get("final_version"),
        )


class Jobs:
    """The runs this server is running, by thread id."""

    def __init__(self) -> None:
        self._jobs: dict[str, Job] = {}
        self._lock = threading.Lock()
        self._threads: list[threading.Thread] = []

    def get(self, thread_id: str) -> Job | None:
        with self._lock:
            return self._jobs.get(thread_id)

    def start(self, thread_id: str, kind: str, body: Callable[[Job], Any]) -> Job:
        """Run `body(job)` (it drives the runner) in a new thread; refuses a thread that a run
        of this server is running now."""
        with self._lock:
            running = self._jobs.get(thread_id)
            if running is not None and not running.done:
                raise RunBusy(
                    f"thread {thread_id} is being run by this server already ({running.kind})",
                    hint="follow it with status(thread, wait=...) or stop it with cancel(thread)",
                )
            job = self._jobs[thread_id] = Job(thread_id, kind)
            worker = threading.Thread(
                target=self._run, args=(job, body), name=f"run-{thread_id}", daemon=True
            )
            self._threads.append(worker)
        worker.start()
        return job

    @staticmethod
    def _run(job: Job, body: Callable[[Job], Any]) -> None:
        try:
            result = body(job)
        except RunInterrupted as exc:
            job.emit("interrupted", one_line(exc))
            job.end("interrupted", one_line(exc))
        except BaseException as exc:  # a thread of ours: whatever it was, the job says it in one line
            if not isinstance(exc, UserError):
                log.exception("run %s failed", job.thread_id)
            job.emit("failed", one_line(exc))
            job.end("failed", one_line(exc))
        else:
            status = "waiting" if getattr(result, "waiting", None) is not None else "finished"
            job.emit(status, f"{status}: {job.thread_id}")
            job.end(status, result=result)

    def stop_all(self) -> list[Job]:
        """Ask every running job to stop at its next checkpoint; the ones still going."""
        with self._lock:
            going = [j for j in self._jobs.values() if not j.done]
        for job in going:
            job.stop.set()
        return going

    def join(self, timeout: float) -> bool:
        """Wait up to `timeout` seconds for every run's thread to end; True when all did."""
        deadline = time.monotonic() + timeout
        with self._lock:
            threads = list(self._threads)
        for worker in threads:
            worker.join(max(0.0, deadline - time.monotonic()))
        return not any(w.is_alive() for w in threads)
