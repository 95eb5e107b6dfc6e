"""Drives a run and records it: streams the graph from a start (or the checkpoint) to its end
or a human gate, and after every step brings the run index, the snapshot and the Markdown
artifact up to the graph's state in one fenced transaction; turns Ctrl-C, SIGTERM and a lost
store into the run's status. The Runner (runner.py) builds what a run needs and calls `_drive`."""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from reflectcli.errors import LostClaim, RunInterrupted, UserError
from reflectcli.output import artifacts
from reflectcli.output.artifacts import artifact_path, render_artifact
from reflectcli.output.summary import summarize, usage_by_model
from reflectcli.store.db import Store, make_private_dirs

log = logging.getLogger(__name__)

# A step recorded sooner than this after the artifact's last write leaves the artifact to the next
# step or the run's end: with a real model every step waits longer than this, so each is written;
# a burst of instant steps (replayed from the journal, a scripted model) is not re-rendered each
# time. The index row and the snapshot are written every step all the same.
ARTIFACT_EVERY = 0.25  # seconds


@dataclass
class RunResult:
    thread_id: str
    state: dict[str, Any]
    artifact: Path
    summary: dict[str, Any]
    elapsed: float
    already_finished: bool = False
    waiting: dict[str, Any] | None = None  # the question a human gate is waiting on


class Recorder:
    """The Runner's driving and recording half (a mixin: it shares the Runner's `ui`, `state`,
    `should_stop` and signal handling)."""

    ui: Any  # the renderer
    state: dict[str, Any]  # the graph's state as last streamed
    should_stop: Callable[[], bool] | None  # asked after each step: True stops there
    lease_lost: Any  # while a run goes: the store's lost-claim event
    summary: dict[str, Any] | None  # summarize(self.state), once per step
    _recorded: dict[str, Any] | None  # the state the index and artifact hold
    _artifact: str | None  # the artifact's text as last written
    _usage: dict[str, Any] | None  # the run_usage rows as last written
    _artifact_at: float  # time.monotonic() of that write
    _tally_lock: threading.Lock  # calls at once report from several threads
    _answered: dict[str, Any]  # step -> answer not yet in self.state

    def _signals(self) -> Any:  # Ctrl-C and SIGTERM as KeyboardInterrupt while the graph runs
        raise NotImplementedError

    def _stopping(self) -> bool:  # after each step: a signal came, or `should_stop` says so
        raise NotImplementedError

    def _drive(self, store, thread_id, settings, graph, config, start, state=None) -> RunResult:
        """Stream the graph from `start` (None = resume from the checkpoint) to its end."""
        if store.generation(thread_id) is None:  # (write, resume and steer hold it already)
            store.acquire(thread_id)
        path = artifact_path(settings.runs_dir, thread_id)
        make_private_dirs(path.parent)  # on a shared store, this host may not have the folder yet
        run = {**(store.get_run(thread_id) or {}), "status": "running"}
        started = time.monotonic()
        self.state = dict(state or start or {})
        self.summary, self._recorded, self._artifact, self._usage = None, None, None, None
        self._artifact_at = float("-inf")
        waiting = None
        ending: tuple[str | None, str | None] = (None, None)  # the index row's status and error
        outcome: BaseException | None = None  # what the command reports, once the run is recorded
        try:
            try:
                store.update_run(thread_id, status="running", error=None,
                                 model=settings.model, critic_model=settings.reviewer)  # fmt: skip
                with self._signals(), store.keep_alive(thread_id) as lost:
                    self.lease_lost = lost
                    waiting = self._stream(store, thread_id, graph, config, start, path, run)
                if waiting is not None:
                    ending = ("waiting", None)
                elif self.state.get("status") == "finished":
                    store.compact(thread_id)
            except LostClaim:  # another process owns the run now: write nothing more for it
                raise
            except KeyboardInterrupt:
                ending, outcome = ("interrupted", None), RunInterrupted(thread_id)
            except UserError as exc:
                ending, outcome = ("failed", exc.message), exc
            except Exception as exc:
                ending, outcome = ("failed", f"{type(exc).__name__}: {exc}"), exc
                if type(exc).__module__.startswith("psycopg"):  # the store went away mid-run
                    first = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
                    outcome = UserError(f"the PostgreSQL store failed: {first}",
                                        hint=f"when it is back: reflectcli resume {thread_id}")  # fmt: skip
                    outcome.__cause__ = exc
            self._settle(store, thread_id, path, run, *ending, quiet=outcome is not None)
            _quietly(store.release, thread_id) if outcome is not None else store.release(thread_id)
        except LostClaim as exc:  # in the run or at its record: the new owner's run, untouched
            exc = exc if exc.owner else store_lost(store, exc)
            _quietly(store.close)
            raise exc from None
        except BaseException:
            _quietly(store.release, thread_id)
            _quietly(store.close)
            raise
        _quietly(store.close)
        if outcome is not None:
            raise outcome from outcome.__cause__
        summary = self.summary if self._recorded is self.state else summarize(self.state)
        return RunResult(thread_id, self.state, path, summary, time.monotonic() - started,
                         waiting=waiting)  # fmt: skip

    def _settle(self, store, thread_id, path, run, status: str | None, error: str | None, *,
                quiet: bool) -> None:  # fmt: skip
        """The run's last record from this process, in one fenced transaction: its status (how
        the process ended) and its rows and artifact as the state is. A claim lost meanwhile
        raises LostClaim with nothing written. `quiet`: another error is on its way out, and the
        store itself may be what failed (a lost PostgreSQL connection): its error is the one to
        report (the checkpoint already holds every finished step), so a failure here is logged."""
        try:
            with store.transaction():
                if status is not None:
                    store.update_run(thread_id, status=status, error=error)
                if self.state:  # the artifact says how the process ended, like the row
                    ended = status or (store.get_run(thread_id) or {}).get("status")
                    self._record(store, thread_id, path, {**run, "status": ended}, last=True)
        except LostClaim:
            raise
        except Exception as exc:
            if not quiet:
                raise
            log.debug("while stopping: the run's last record failed: %s", exc)

    def _stream(self, store, thread_id, graph, config, start, path, run) -> dict | None:
        """Run the graph; at a human gate ask the UI, or leave the run waiting (returned).

        The state shown and recorded is the graph's own (stream mode `values`, emitted after each
        step): the runner never folds updates into a copy of its own. A step replayed on resume
        (its writes were saved before a kill, its checkpoint was not) comes back as a cached
        update; it is shown again but cannot be counted twice."""
        command: Any = start
        while True:
            question = None
            done: list[tuple[str, dict[str, Any]]] = []
            stream = graph.stream(command, config, stream_mode=["updates", "values"], durability="sync")
            for mode, chunk in stream:
                if mode == "values":  # at a gate it also carries `__interrupt__`
                    with self._tally_lock:
                        self.state = {k: v for k, v in chunk.items() if not k.startswith("__")}
                        self._answered.clear()
                    if done:
                        self._record(store, thread_id, path, run)
                        for node, update in done:
                            self.ui.node_done(node, update, self.state)
                        done = []
                        if self.lease_lost is not None and self.lease_lost.is_set():
                            raise store.lost(thread_id)  # a renewal found another claim, or none
                        if self._stopping():
                            raise KeyboardInterrupt  # the step is checkpointed: stop here
                    continue
                for node, update in chunk.items():
                    if node == "__interrupt__":
                        question = update[0].value
                    elif not node.startswith("__") and update:
                        done.append((node, update))
            if question is None:
                return None
            answer = self.ui.ask(question, self.state) if self.ui.can_ask() else None
            if answer is None:
                return question
            from langgraph.types import Command

            command = Command(resume=answer)

    def _record(self, store: Store, thread_id: str, path: Path, run: dict[str, Any], *,
                last: bool = False) -> None:  # fmt: skip
        """After every step: the index row and the artifact catch up with the state, both from
        one summary of it (kept for the result), in one fenced transaction: the claim is checked
        first and held to the commit, so nothing is written, not even the artifact's file, once
        another process took the run (LostClaim). The artifact is written at most every
        ARTIFACT_EVERY seconds but always when the run is finished and at the `last` record of
        a process (whatever stopped it). Recording the same state again (at the end of a run)
        rewrites an artifact whose text changed (a step left to it, the process's status)."""
        if self._recorded is self.state:
            text = self._artifact_text(thread_id, run)
            if text is not None:
                with store.transaction():
                    artifacts.write_private(path, text)
                self._wrote(text)
            return
        s = self.summary = summarize(self.state)
        fields = {k: s[k] for k in RECORDED}
        if self.state.get("status") == "finished":
            fields["status"] = "finished"
        due = time.monotonic() - self._artifact_at >= ARTIFACT_EVERY
        text = None
        if last or due or self.state.get("status") == "finished":
            text = self._artifact_text(thread_id, run)
        usage = usage_by_model(self.state)
        store.record(thread_id, fields, stored_state(self.state),
                     usage if usage != self._usage else None,  # a step without a call: unchanged
                     (lambda: artifacts.write_private(path, text)) if text is not None else None)  # fmt: skip
        self._recorded, self._usage = self.state, usage
        if text is not None:
            self._wrote(text)

    def _artifact_text(self, thread_id: str, run: dict[str, Any]) -> str | None:
        """The artifact as the state is now, or None when that is the text last written."""
        text = render_artifact(self.state, thread_id, run, self.summary)
        return None if text == self._artifact else text

    def _wrote(self, text: str) -> None:
        self._artifact, self._artifact_at = text, time.monotonic()


# the run-index columns every step's record sets from the summary
RECORDED = ("rounds", "first_score", "best_score", "final_score", "stop_reason", "calls", "tokens", "cost",
            "fallbacks", "sources_used", "citations_removed", "claims", "claims_supported",
            "lessons_recalled", "estimated_tokens")  # fmt: skip


def store_lost(store: Store, exc: LostClaim) -> LostClaim:
    """`exc`, naming the run's owner now when the store can say (a lost claim found by the
    lease renewal or a journal write names nobody)."""
    found = store.lost(exc.thread_id)
    return found if found.owner else exc


def _quietly(fn, *args: Any, **kwargs: Any) -> Any:
    """Book-keeping while another error is on its way out: a failure here is logged, not raised."""
    try:
        return fn(*args, **kwargs)
    except Exception as exc:
        log.debug("while stopping: %s failed: %s", getattr(fn, "__name__", fn), exc)
        return None


def stored_state(state: dict[str, Any]) -> dict[str, Any]:
    """The snapshot kept in run_state. A finished run drops its drafted section bodies: they
    are version 1, word for word."""
    if state.get("status") == "finished" and state.get("versions"):
        return {k: v for k, v in state.items() if k != "sections"}
    return state
