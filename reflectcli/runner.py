"""Runs and resumes threads: builds clients and the graph, streams its updates into the run
index, the artifact and the renderer, and turns Ctrl-C / SIGTERM into a kept checkpoint."""

from __future__ import annotations

import logging
import re
import secrets
import signal
import string
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from reflectcli.config import Settings, resume_settings
from reflectcli.errors import RunInterrupted, UserError
from reflectcli.graph.human import edit_version, output_version, review_first, steer, unheeded
from reflectcli.graph.pick import more_round
from reflectcli.graph.rules import call_events, pending_step
from reflectcli.graph.state import initial_state
from reflectcli.memory.bank import Memory
from reflectcli.models.factory import api_base_for, make_client
from reflectcli.models.journal import JournaledClient
from reflectcli.output.artifacts import artifact_path
from reflectcli.output.rows import resume_hint
from reflectcli.output.summary import progress, summarize
from reflectcli.recorder import Recorder, RunResult, _quietly
from reflectcli.sources.research import (
    JournaledSearch,
    LocalRetriever,
    WebRetriever,
    library_size,
    resolve_mode,
)
from reflectcli.store.db import DB_NAME, Store, store_url, validate_thread_id

log = logging.getLogger(__name__)

MAX_TASK_CHARS = 4000
RESUME_FLAGS = ("model", "critic_model", "timeout", "api_base", "critic_api_base", "retries",
                "backoff", "interactive")  # fmt: skip


def replayable(store: Store, thread_id: str, state: dict[str, Any]) -> str:
    """A note on the answers journaled after the last checkpoint (a kill between an answer and
    its step's checkpoint): they are replayed on resume, not paid again. Empty when none."""
    saved = store.journal_count(thread_id) - len(call_events(state))
    if saved <= 0:
        return ""
    return f" ({saved} answer{'s' if saved != 1 else ''} in the journal will be replayed, not paid again)"


def new_thread_id(task: str) -> str:
    """Short, readable, unique: a slug of the task's first words plus six random characters."""
    words = re.findall(r"[a-z0-9]+", task.lower())[:4]
    slug = "-".join(words)[:28].strip("-") or "run"
    alphabet = string.ascii_lowercase + string.digits
    return f"{slug}-{''.join(secrets.choice(alphabet) for _ in range(6))}"


def check_task(task: str) -> str:
    task = (task or "").strip()
    if not task:
        raise UserError("the task is empty: say what to write, e.g. "
                        "reflectcli write \"Why do writers revise?\"", exit_code=2)  # fmt: skip
    if len(task) > MAX_TASK_CHARS:
        raise UserError(f"the task is {len(task)} characters; the limit is {MAX_TASK_CHARS}",
                        hint="shorten it to a brief", exit_code=2)  # fmt: skip
    return task


def check_question(question: str) -> str:
    """A reader's question as one line, or a one-line error when it is empty or too long."""
    question = " ".join((question or "").split())
    if not question:
        raise UserError("the question is empty: ask something about the article", exit_code=2)
    if len(question) > MAX_TASK_CHARS:
        raise UserError(f"the question is {len(question)} characters; the limit is {MAX_TASK_CHARS}",
                        exit_code=2)  # fmt: skip
    return question


@contextmanager
def signals_as_interrupt(told: threading.Event | None = None) -> Iterator[None]:
    """SIGTERM and Ctrl-C (SIGINT) raise KeyboardInterrupt while a run is going: one clean stop.

    `told` is set as well: the KeyboardInterrupt lands in whatever Python code the main thread
    runs at that moment, and where that is a finalizer or a C callback (an import's `__del__`,
    seen in CI as "Exception ignored in: 'Omit'") Python swallows it. The runner then stops at the
    next step boundary instead (Runner._told)."""

    def handler(signum, frame):
        if told is not None:
            told.set()
        raise KeyboardInterrupt

    try:
        previous = {s: signal.signal(s, handler) for s in (signal.SIGTERM, signal.SIGINT)}
    except ValueError:  # not the main thread: leave signals alone
        yield
        return
    try:
        yield
    finally:
        for signum, old in previous.items():
            signal.signal(signum, old)


class Runner(Recorder):
    """Drives one thread at a time; all output goes through `ui` (the renderer)."""

    def __init__(self, ui, should_stop: Callable[[], bool] | None = None, own_signals: bool = True):
        self.ui = ui
        self.state = {}
        self.should_stop = should_stop  # asked after each step: True stops there, like Ctrl-C
        self.own_signals = own_signals  # False: the caller handles SIGTERM (a batch worker)
        self.lease_lost = None  # (the attributes the recorder reads: recorder.Recorder)
        self.summary = None
        self._recorded = None
        self._artifact = None
        self._usage = None
        self._artifact_at = float("-inf")
        self._tally_lock = threading.Lock()
        self._answered = {}
        self._in_flight = 0
        self._told = threading.Event()  # a SIGTERM / Ctrl-C came (its exception may be swallowed)
        self._signal_depth = 0  # _signals() entered and not left

    @contextmanager
    def _signals(self) -> Iterator[None]:
        if not self.own_signals:
            yield
            return
        if not self._signal_depth:  # the outermost entry: a new command waits for a new signal
            self._told.clear()
        self._signal_depth += 1
        try:
            with signals_as_interrupt(self._told):
                yield
        finally:
            self._signal_depth -= 1

    def _stopping(self) -> bool:
        """Asked after each step: a signal came (its exception may have been swallowed) or the
        caller's `should_stop` says so."""
        return self._told.is_set() or (self.should_stop is not None and self.should_stop())

    # --- public ---------------------------------------------------------------------------

    def write(self, task: str, settings: Settings, thread_id: str | None = None,
              draft: dict[str, Any] | None = None) -> RunResult:  # fmt: skip
        """Write `task` from scratch, or (`draft`: graph/human.draft_start's state) review and
        revise the person's own text."""
        task = check_task(task)
        thread_id = validate_thread_id(thread_id) if thread_id else new_thread_id(task)
        models = self._models(settings)  # an unknown model or a missing key stops here: no run
        asked = settings.research.sources
        mode = resolve_mode(asked, settings.runs_dir, settings.research.web, task)
        if asked == "auto" and mode == "none" and library_size(settings.runs_dir):
            self.ui.notice("no relevant sources in the library for this task: writing without")
        settings = settings.model_copy(
            update={"research": settings.research.model_copy(update={"sources": mode})}
        )
        store = Store(settings.runs_dir)
        if (existing := store.get_run(thread_id)) is not None:
            store.close()
            hint = resume_hint(existing) if existing["status"] != "finished" else (
                f"`reflectcli show {thread_id}` shows it; choose another thread id")  # fmt: skip
            raise UserError(f"thread {thread_id} already exists", hint=hint)
        path = artifact_path(settings.runs_dir, thread_id)
        params = settings.run_params()
        lessons = self._memory(settings, store).recall(task, settings.memory.k, thread_id) if (
            settings.memory.enabled and settings.memory.k) else []  # fmt: skip
        start = {**initial_state(task, params, lessons), **(draft or {})}
        store.create_run(thread_id, task, params, str(path))
        store.save_state(thread_id, start)  # a resume before the first checkpoint recalls these
        store.acquire(thread_id)  # before a `resume` of the new thread could
        with self._signals():  # from here: the plan call may be in flight while the graph is built
            try:
                self.ui.started(thread_id, task, settings, path, resumed=False)
                if lessons:
                    self.ui.notice(f"recalled {len(lessons)} lesson{'s' if len(lessons) != 1 else ''} "
                                   "from earlier runs: " + "; ".join(x["text"] for x in lessons))  # fmt: skip
                graph, config = self._graph(store, thread_id, settings, models, None if draft else start)
                if draft:  # the person's draft is the draft step's result: the graph goes on at review
                    graph.update_state(config, start, as_node="draft")
                if self._told.is_set():  # a signal whose exception was swallowed while building
                    raise KeyboardInterrupt
            except KeyboardInterrupt:  # Ctrl-C / SIGTERM before the first step: the journal keeps
                _quietly(store.update_run, thread_id, status="interrupted")  # an answer already in
                _quietly(store.release, thread_id)
                _quietly(store.close)
                raise RunInterrupted(thread_id) from None
            except BaseException:  # a worker lives on: never leave the thread claimed or the store open
                _quietly(store.release, thread_id)
                _quietly(store.close)
                raise
            return self._drive(store, thread_id, settings, graph, config, None if draft else start, start)

    def resume(self, thread_id: str, runs_dir: str, flags: dict[str, Any]) -> RunResult:
        validate_thread_id(thread_id)
        store = Store.existing(runs_dir, read_only=False)  # resume never creates a database
        run = store.get_run(thread_id) if store else None
        if store is None or run is None:
            where = store.where if store is not None else Path(runs_dir) / DB_NAME
            if store is not None:
                store.close()
            raise UserError(f"unknown thread id {thread_id!r} in {where}",
                            hint="`reflectcli history` lists the runs")  # fmt: skip
        settings = resume_settings(run["settings"], {k: flags.get(k) for k in RESUME_FLAGS})
        settings = settings.model_copy(update={"runs_dir": runs_dir})
        path = artifact_path(runs_dir, thread_id)
        if run["status"] != "finished":
            stopped = run["status"] in ("interrupted", "failed")  # (a killed owner reads interrupted)
            store.acquire(thread_id)  # refuse a second process now, before reading the checkpoint
            if stopped:  # the record says so when it is finished: "resumed 1 time"
                store.update_run(thread_id, resumes=int(run.get("resumes") or 0) + 1)
            run = store.get_run(thread_id) or run  # as it is now that this process holds it
        if run["status"] == "finished":
            store.release(thread_id)
            state = store.load_state(thread_id) or {}
            store.close()
            return RunResult(thread_id, state, path, summarize(state), 0.0, already_finished=True)
        try:
            graph, config = self._graph(store, thread_id, settings, self._models(settings))
            snapshot = graph.get_state(config)
        except BaseException:
            store.release(thread_id)
            store.close()
            raise
        state = dict(snapshot.values or {})
        self.ui.started(thread_id, run["task"], settings, path, resumed=True)
        if state:
            gates = {"gate_outline": "your approval of the outline",
                     "gate_stop": "your decision after the stop",
                     "gate_steer": "your steering of the next revision",
                     "gate_pick": pending_step(state)}  # fmt: skip
            nxt = (gates.get((snapshot.next or ("",))[0]) or pending_step(state)
                   or "nothing left to run; recording the finished run")  # fmt: skip
            self.ui.notice(f"{progress(state)} → {nxt}" + replayable(store, thread_id, state))
            start = None
        elif (saved := store.load_state(thread_id) or {}).get("versions"):  # a draft from a file
            graph.update_state(config, saved, as_node="draft")
            state, start = saved, None
            self.ui.notice("your draft, not yet reviewed → review round 1")
        else:  # killed before the first checkpoint landed: start from the beginning
            recalled = saved.get("lessons")  # the same set as `write`
            start = initial_state(run["task"], settings.run_params(), recalled)
            self.ui.notice("nothing checkpointed yet → outline" + replayable(store, thread_id, {}))
        if state.get("params") and flags_changed(state["params"], settings):
            self.ui.notice("overriding for this resume: " + flags_changed(state["params"], settings))
        return self._drive(store, thread_id, settings, graph, config, start, state)

    def steer(self, thread_id: str, runs_dir: str, feedback: str | None, section: str | None = None,
              severity: str = "major", rounds: int = 1, pick: str = "off") -> RunResult:  # fmt: skip
        """Continue a finished run with the person's own critique (graph/human.py): at most
        `rounds` more rounds, with the run's own settings and budget. `pick` (ask | all): the
        person takes each proposed change or leaves it (graph/pick.py); then the critique may
        be None: the rounds apply the critic's own list."""
        store = self._finished(thread_id, runs_dir, "revise")
        run = store.get_run(thread_id) or {}
        settings = resume_settings(run["settings"]).model_copy(update={"runs_dir": runs_dir})
        store.acquire(thread_id)
        try:
            graph, config = self._graph(store, thread_id, settings, self._models(settings))
            # a finished run's checkpoints were compacted away: its snapshot seeds a new one
            checkpointed = dict(graph.get_state(config).values or {})
            state = checkpointed or store.load_state(thread_id) or {}
            try:
                if feedback is None and pick != "off":
                    update = more_round(state, rounds)
                else:
                    update = steer(state, feedback or "", section, severity, rounds)
            except ValueError as exc:
                raise UserError(str(exc), exit_code=2) from None
            update["params"] = {**state["params"], "pick": pick}  # this continuation's, not the last
            if not checkpointed:
                grown = {k: [*state.get(k, []), *update[k]] for k in ("decisions", "trace")}
                update = {**state, **update, **grown}
            graph.update_state(config, update, as_node="revise" if review_first(state) else "gate_stop")
            state = dict(graph.get_state(config).values or {})
        except BaseException:
            store.release(thread_id)
            store.close()
            raise
        path = artifact_path(runs_dir, thread_id)
        self.ui.started(thread_id, run["task"], settings, path, resumed=True)
        item = next((e.get("id") for e in reversed(update["trace"]) if e.get("kind") == "human"), None)
        more = f"up to {rounds} more round{'s' if rounds != 1 else ''}"
        self.ui.notice(f"your critique becomes {item}; {more}" if item else f"the critic's list; {more}")
        return self._drive(store, thread_id, settings, graph, config, None, state)

    def ask(self, thread_id: str, runs_dir: str, question: str, flags: dict[str, Any] | None = None,
            research: bool = False, apply: bool = False,
            section: str | None = None) -> tuple[dict[str, Any], RunResult | None]:  # fmt: skip
        """A reader's question about a finished run, answered from its output and evidence and
        checked like the article (graph/ask.py); the record joins the run's state (the snapshot,
        the index row and the artifact). `apply`: the answer becomes a revision, reviewed and
        chosen by the best-version rule, as `steer` does (then the run's result too). The same
        question asked again reuses its record: nothing is paid twice."""
        question = check_question(question)
        store = self._finished(thread_id, runs_dir, "ask")
        run = store.get_run(thread_id) or {}
        settings = resume_settings(run["settings"], {k: (flags or {}).get(k) for k in RESUME_FLAGS})
        settings = settings.model_copy(update={"runs_dir": runs_dir})
        path = artifact_path(runs_dir, thread_id)
        models = None
        try:
            store.acquire(thread_id)  # no `revise`, `edit` or second `ask` while this one writes
            # (no compaction first: the journal holds the answers of an `ask` killed before it
            # recorded them, and asking again replays them)
            state = self.state = store.load_state(thread_id) or {}
            if not state.get("versions"):
                raise UserError(f"thread {thread_id} has no article to ask about", exit_code=2)
            from reflectcli.graph.ask import same_question

            record = same_question(state, question, research)
            if record is not None:
                self.ui.notice(f"asked before (q{record['n']}): its answer, not asked again")
            else:
                models = self._models(settings)
                record, state = self._answer(store, thread_id, settings, state, question, research, models)
                self.state = state
                self._record(store, thread_id, path, run, last=True)
            if not apply:
                store.release(thread_id)
                store.close()
                return record, None
            graph, config, state = self._apply_answer(store, thread_id, settings, models, state,
                                                      record, section)  # fmt: skip
        except BaseException:
            _quietly(store.release, thread_id)
            _quietly(store.close)
            raise
        self.ui.started(thread_id, run["task"], settings, path, resumed=True)
        self.ui.notice(f"the answer to q{record['n']}: {state['questions'][record['n'] - 1]['applied']}")
        return record, self._drive(store, thread_id, settings, graph, config, None, state)

    def _answer(self, store: Store, thread_id: str, settings: Settings, state: dict[str, Any],
                question: str, research: bool,
                models: tuple[Any, Any]) -> tuple[dict[str, Any], dict[str, Any]]:  # fmt: skip
        """The question answered (graph/ask.py's Asker: the run's evidence, then the source
        library, then web research when asked and the run used it), checked by the critic
        unless the checklist reviewed; returns the record and the state that holds it."""
        from reflectcli.graph.ask import Asker

        web_used = settings.research.sources in ("web", "hybrid")
        if research and not web_used:
            self.ui.notice("the run used no web research: --research adds nothing here")
        writer, critic = self._clients(store, thread_id, models)
        library = None
        if library_size(settings.runs_dir):
            top_k = settings.research.top_k
            library = JournaledSearch(LocalRetriever(settings.runs_dir, top_k), store, thread_id,
                                      f"ask:library:{top_k}")  # fmt: skip
        web = self._retriever(store, thread_id, settings) if research and web_used else None
        checker = None if settings.critic == "checklist" else critic
        found = Asker(writer, checker, library, web)(state, question, research)
        record = found["record"]
        return record, {**state, "questions": [*(state.get("questions") or []), record],
                        "evidence": [*(state.get("evidence") or []), *found["evidence"]],
                        "trace": [*(state.get("trace") or []), *found["trace"]]}  # fmt: skip

    def _apply_answer(self, store: Store, thread_id: str, settings: Settings, models: Any,
                      state: dict[str, Any], record: dict[str, Any],
                      section: str | None) -> tuple[Any, Any, dict]:  # fmt: skip
        """`ask --apply`: the answer becomes a new section, or a critique of the section it
        concerns, and the graph is set to revise (or review first); never a contradicted answer."""
        from reflectcli.graph.ask import answer_critique, answer_section, contradicted_claims, target_section

        if wrong := contradicted_claims(record):
            raise UserError(f"not applied: the answer says “{wrong[0]['sentence']}”, which "
                            f"[{wrong[0]['source']}] contradicts", exit_code=1,
                            hint="ask again, or say what to change with `reflectcli revise`")  # fmt: skip
        try:
            index = target_section(state, record, section)
        except ValueError as exc:
            raise UserError(str(exc), exit_code=2) from None
        store.compact(thread_id)  # the answer is recorded: the revision starts from the snapshot
        graph, config = self._graph(store, thread_id, settings, models or self._models(settings))
        if index is None:
            graph.update_state(config, answer_section(state, record), as_node="revise")
        else:
            update = answer_critique(state, record, index)
            grown = {k: [*state.get(k, []), *update[k]] for k in ("decisions", "trace")}
            graph.update_state(config, {**state, **update, **grown},
                               as_node="revise" if review_first(state) else "gate_stop")  # fmt: skip
        return graph, config, dict(graph.get_state(config).values or {})

    def output_of(self, thread_id: str, runs_dir: str) -> dict[str, Any]:
        """The finished run's output version ({n, text, ...}), for the person to edit."""
        store = self._finished(thread_id, runs_dir, "edit")
        try:
            return output_version(store.load_state(thread_id) or {})
        finally:
            store.close()

    def edit(self, thread_id: str, runs_dir: str, text: str, base: int) -> dict[str, Any] | None:
        """The person's edit of version `base` becomes the run's newest version and its output
        (graph/human.py `edit_version`): the snapshot, the index row and the artifact, in one
        step. None when the text is unchanged (nothing is recorded)."""
        store = self._finished(thread_id, runs_dir, "edit")
        try:
            store.acquire(thread_id)  # no `revise` or second `edit` while this one writes
            try:
                store.compact(thread_id)  # a finished run's snapshot is the run: no stale checkpoint
                state = store.load_state(thread_id) or {}
                now = output_version(state)["n"] if state.get("versions") else None
                if now != base:
                    raise UserError(f"thread {thread_id} changed while you edited (its output is "
                                    f"now version {now}, you edited version {base})",
                                    hint=f"run `reflectcli edit {thread_id}` again", exit_code=1)  # fmt: skip
                try:
                    update = edit_version(state, text)
                except ValueError as exc:
                    raise UserError(f"your edit: {exc}", exit_code=2) from None
                if update is None:
                    return None
                self.state = update
                run = store.get_run(thread_id) or {}
                self._record(store, thread_id, artifact_path(runs_dir, thread_id), run, last=True)
                return update["versions"][-1]
            finally:
                store.release(thread_id)
        finally:
            store.close()

    @staticmethod
    def _finished(thread_id: str, runs_dir: str, verb: str) -> Store:
        """The open store of a finished run (a one-line error otherwise)."""
        validate_thread_id(thread_id)
        store = Store.existing(runs_dir, read_only=False)
        run = store.get_run(thread_id) if store else None
        if store is None or run is None:
            if store is not None:
                store.close()
            raise UserError(f"unknown thread id {thread_id!r} in {runs_dir}",
                            hint="`reflectcli history` lists the runs")  # fmt: skip
        if run["status"] != "finished":
            store.close()
            raise UserError(
                f"thread {thread_id} is {run['status']}, not finished: {verb} works on a finished run",
                exit_code=2,
                hint=resume_hint(run),
            )
        return store

    # --- internals --------------------------------------------------------------------------

    def _models(self, settings: Settings) -> tuple[Any, Any]:
        """The writer and critic clients, checked (known model, credentials) before any call."""
        writer = make_client(settings.model, settings)
        same = settings.critic == "checklist" or (
            settings.critic_name == settings.model and api_base_for(settings, "critic") == settings.api_base
        )  # the checklist calls no model
        critic = writer if same else make_client(settings.critic_name, settings, "critic")
        for client in {id(writer): writer, id(critic): critic}.values():
            if hasattr(client, "preflight"):
                client.preflight()
        return writer, critic

    def _tally(self, kind: str, data: dict[str, Any]) -> dict[str, Any]:
        """The run so far, for a call's cost line: tokens and cost of the calls in the state
        plus those answered since it was last checkpointed, and the calls in flight."""
        with self._tally_lock:
            if kind == "call_started":
                self._in_flight += 1
            elif kind in ("call_finished", "call_failed"):
                self._in_flight = max(0, self._in_flight - 1)
            if kind in ("call_finished", "call_replayed"):
                self._answered[data["step"]] = data["completion"]
            calls = [(e["prompt_tokens"] + e["completion_tokens"], e.get("cost"))
                     for e in call_events(self.state)]  # fmt: skip
            calls += [(c.tokens, c.cost) for c in self._answered.values()]
            costs = [cost for _, cost in calls if cost is not None]
            return {"run_tokens": sum(t for t, _ in calls), "run_cost": sum(costs) if costs else None,
                    "in_flight": self._in_flight}  # fmt: skip

    def _clients(self, store: Store, thread_id: str, models: tuple[Any, Any]):
        def listener(kind: str, data: dict[str, Any]) -> None:
            self.ui.call_event(kind, {**data, **self._tally(kind, data)}, self.state)

        writer, critic = models
        for client in {id(writer): writer, id(critic): critic}.values():
            if hasattr(client, "notify"):
                client.notify = self.ui.notice
            if hasattr(client, "download"):
                client.download = self.ui.download
            if hasattr(client, "progress"):
                client.progress = lambda step, tokens: self.ui.call_event(
                    "call_progress", {"step": step, "tokens": tokens}, self.state
                )
        return (JournaledClient(writer, store, thread_id, listener),
                JournaledClient(critic, store, thread_id, listener))  # fmt: skip

    def _graph(self, store: Store, thread_id: str, settings: Settings, models: tuple[Any, Any],
               start: dict[str, Any] | None = None):  # fmt: skip
        """The graph and its config; `start`: a new run's first state, whose plan call may be
        sent before the graph's imports (`_plan_ahead`)."""
        writer, critic = self._clients(store, thread_id, models)
        if start is not None:
            self._plan_ahead(writer, start)
        from reflectcli.graph.build import build_graph, recursion_limit

        retriever = self._retriever(store, thread_id, settings)
        learner = None
        if settings.memory.enabled:
            memory = self._memory(settings, store)

            def learner(state: dict[str, Any]) -> dict[str, Any]:
                result = memory.learn(thread_id, state)
                heard = {c["id"]: memory.heed(thread_id, c, state.get("task", ""))["action"]
                         for c in unheeded(state)}  # fmt: skip
                return {**result, "heeded": heard}

        graph = build_graph(writer, critic, store.checkpointer(), settings.interactive, retriever,
                            learner)  # fmt: skip
        config = {
            "configurable": {"thread_id": thread_id},
            "recursion_limit": recursion_limit(settings.max_sections, settings.max_rounds),
        }
        return graph, config

    @staticmethod
    def _plan_ahead(writer: JournaledClient, start: dict[str, Any]) -> None:
        """A new run's plan request, sent now, while the graph is imported (LangGraph's import
        is most of a process's time before its first call): the plan step's call with the same
        request takes its answer. Only for a remote model (one that waits on the network, not
        the CPU) and a run without a budget (the plan's call must not have to be refused)."""
        params = start.get("params") or {}
        policy = params.get("policy") or {}
        ahead = getattr(writer.inner, "sends_ahead", False) and not writer.tiny  # (a tiny one asks questions)
        if not ahead or policy.get("max_tokens") is not None or policy.get("max_cost") is not None:
            return
        from reflectcli.graph.nodes import PLAN_TOKENS
        from reflectcli.writing import prompts
        from reflectcli.writing.schemas import outline_schema

        limit = params["max_sections"]
        messages = prompts.plan_messages(start["task"], limit, params.get("language"),
                                         example=not writer.takes_schema)  # as Nodes.plan asks  # fmt: skip
        writer.prefetch(messages, step="plan", json_schema=outline_schema(limit), max_tokens=PLAN_TOKENS)

    @staticmethod
    def _memory(settings: Settings, store: Store) -> Memory:
        return Memory(settings.runs_dir, settings.memory.half_life_days, store=store)

    def _retriever(self, store: Store, thread_id: str, settings: Settings):
        """Where the run's searches go (None without sources), journaled per run."""
        research = settings.research
        inner: LocalRetriever | WebRetriever
        if research.sources == "local":
            inner = LocalRetriever(settings.runs_dir, research.top_k)
        elif research.sources in ("web", "hybrid"):
            from reflectcli.models.remote import web_search

            search = web_search(research.web or "", research.web_api_base, settings.timeout,
                                settings.retries, settings.backoff)  # fmt: skip
            inner = WebRetriever(search, settings.runs_dir, research.top_k, research.fetch,
                                 local=research.sources == "hybrid",
                                 allow_private=research.allow_private,
                                 workers=settings.concurrency or 1, proxy=research.proxy)  # fmt: skip
        else:
            return None
        label = f"{research.sources}:{research.web or 'library'}:{research.top_k}"
        return JournaledSearch(inner, store, thread_id, label)


def warm() -> None:
    """What a run needs, imported before a worker process takes its first task (once a
    process, not in the middle of a run's first step): the graph and its checkpointer for the
    store in force, the renderer, the HTTP client for OpenAI-compatible servers. litellm is
    imported only by a task whose model needs it."""
    import httpx  # noqa: F401
    import langgraph.graph  # noqa: F401

    from reflectcli.graph import build  # noqa: F401
    from reflectcli.models import openai_http  # noqa: F401
    from reflectcli.output import render  # noqa: F401

    if store_url():
        from langgraph.checkpoint.postgres import PostgresSaver  # noqa: F401
    else:
        from langgraph.checkpoint.sqlite import SqliteSaver  # noqa: F401


def flags_changed(saved: dict[str, Any], settings: Settings) -> str:
    now = settings.run_params()
    changed = [f"{k}={now[k]}" for k in RESUME_FLAGS if saved.get(k) != now.get(k)]
    return ", ".join(changed)
