"""Independent steps at once (issue 27): the sections of a parallel draft, a research step's
searches and a web search's page fetches run up to `concurrency` at a time and are merged in
outline order whatever order the answers arrive in; `--max-cost` refuses a call whose estimate
exceeds what is left; each call's cost line. Kills while several calls are in flight are in
test_crash.py's style below (real processes, marked slow)."""

from __future__ import annotations

import io
import threading
import time

import pytest
from rich.console import Console

from reflectcli.graph.controller import Rules, budget_spent
from reflectcli.models.fake import TITLES, FakeClient, ScriptedResponder, install_fake
from reflectcli.output.render import Renderer
from reflectcli.pool import in_order
from reflectcli.runner import Runner
from reflectcli.sources.library import add_web_results
from tests.helpers import quiet_ui, settings
from tests.openai_server import loopback_fixture
from tests.search_server import SearchServer

TASK = "Why do writers revise their drafts?"
WAIT = 5.0  # seconds a held answer waits for the one it must follow (never reached when parallel)


class InFlight:
    """A responder wrapper that counts the calls in flight (the most at once too) and records
    the order in which answers left."""

    def __init__(self, responder, hold=None):
        self.responder, self.hold = responder, hold or (lambda step: None)
        self.lock = threading.Lock()
        self.now = self.most = 0
        self.answered: list[str] = []

    def __call__(self, step, messages):
        with self.lock:
            self.now += 1
            self.most = max(self.most, self.now)
        try:
            self.hold(step)
            return self.responder(step, messages)
        finally:
            with self.lock:
                self.now -= 1
                self.answered.append(step)


def run(runs_dir, **flags):
    return Runner(quiet_ui()).write(TASK, settings(runs_dir, threshold=7, **flags))


def test_sections_answered_in_reverse_order_are_merged_in_outline_order(scripted, runs_dir):
    """Section 3 answers first, then 2, then 1 (each waits for the one after it): the article,
    the sections and the trace still read 1, 2, 3. Sequential drafting could not pass this:
    section 1 would wait WAIT seconds for a section 2 that is never asked."""
    done = {f"draft:s{i}": threading.Event() for i in (1, 2, 3)}
    late = []

    def hold(step):
        after = {"draft:s1": "draft:s2", "draft:s2": "draft:s3"}.get(step)
        if after and not done[after].wait(WAIT):
            late.append(step)

    counter = InFlight(scripted.responder, hold)

    def responder(step, messages):
        try:
            return counter(step, messages)
        finally:
            if step in done:
                done[step].set()

    scripted.responder = responder
    started = time.monotonic()
    state = run(runs_dir, draft="parallel", concurrency=4).state
    assert not late and time.monotonic() - started < WAIT
    assert [s for s in counter.answered if s.startswith("draft")] == ["draft:s3", "draft:s2", "draft:s1"]
    assert counter.most == 3  # all three sections in flight at once
    assert [f"(draft:s{i})" in body for i, body in enumerate(state["sections"], 1)] == [True] * 3
    drafts = [e["step"] for e in state["trace"] if e.get("node") == "draft" and "step" in e]
    assert drafts == ["draft:s1", "draft:s2", "draft:s3"]
    text = state["versions"][0]["text"]
    assert text.index(TITLES[0]) < text.index(TITLES[1]) < text.index(TITLES[2])
    assert state["status"] == "finished"


def test_concurrency_caps_the_calls_in_flight(scripted, runs_dir):
    scripted.responder = ScriptedResponder(scores=[8], sections=5)
    gate = threading.Barrier(2, timeout=WAIT)  # two sections must be in flight together

    def hold(step):
        if step in ("draft:s1", "draft:s2"):
            gate.wait()

    counter = InFlight(scripted.responder, hold)
    scripted.responder = counter
    state = run(runs_dir, draft="parallel", concurrency=2, max_sections=5).state
    assert counter.most == 2 and len(state["sections"]) == 5


def test_parallel_prompts_carry_the_neighbours_goals_not_the_earlier_sections(scripted, runs_dir):
    run(runs_dir, draft="parallel")
    prompts = {c["step"]: c["messages"][-1]["content"] for c in scripted.history}
    middle = prompts["draft:s2"]
    assert f"Before it (section 1): {TITLES[0]}: Explain {TITLES[0].lower()}." in middle
    assert f"After it (section 3): {TITLES[2]}: Explain {TITLES[2].lower()}." in middle
    assert "Sections already written" not in middle and "(draft:s1)" not in middle
    assert "Before it" not in prompts["draft:s1"] and "After it" not in prompts["draft:s3"]


def test_sequential_drafting_is_unchanged(scripted, runs_dir):
    run(runs_dir, draft="sequential", concurrency=4)
    prompts = {c["step"]: c["messages"][-1]["content"] for c in scripted.history}
    assert "Sections already written" in prompts["draft:s2"] and "(draft:s1)" in prompts["draft:s2"]
    assert "Before it" not in prompts["draft:s2"]


def test_pool_keeps_input_order_and_raises_the_first_failure():
    def slow_first(x):
        time.sleep(0.05 if x == 0 else 0)
        if x == 3:
            raise ValueError("three")
        return x * 10

    assert in_order(slow_first, [0, 1, 2], 3) == [0, 10, 20]
    with pytest.raises(ValueError, match="three"):
        in_order(slow_first, [0, 1, 2, 3], 4)
    assert in_order(slow_first, [], 4) == []


# --- the budget: an estimate before each call ---------------------------------------------------


@pytest.mark.parametrize(("cost", "estimate", "refused"), [
    (0.10, None, None),  # no estimate: only what is spent counts
    (0.10, 0.89, None),  # fits exactly under the budget
    (0.10, 0.95, "may cost up to $0.9500, more than the $0.9000 left"),
    (1.00, 0.00, "spent of a $1.0000 budget"),
    (None, 0.50, None),  # an unknown price never trips
])  # fmt: skip
def test_budget_spent_checks_the_estimate_against_what_is_left(cost, estimate, refused):
    why = budget_spent(Rules(threshold=8, max_rounds=3, max_cost=1.0), 0, cost,
                       estimate if cost is not None else None)  # fmt: skip
    assert (why is None) if refused is None else (refused in why)


@pytest.fixture
def priced():
    client = FakeClient("priced/w", ScriptedResponder(scores=[8], sections=3), price=1e-6)
    undo = install_fake("priced", lambda model: client)
    yield client
    undo()


def test_max_cost_refuses_a_call_whose_estimate_exceeds_what_is_left(priced, runs_dir):
    """The plan's estimate (its prompt and its 600-token cap) fits under $0.0012; a section's
    (a 1024-token cap) does not: the section is never sent. Checked after the call, as before,
    it would have been sent (nothing had reached the budget yet)."""
    s = settings(runs_dir, model="priced/w", threshold=7)
    s = s.model_copy(update={"policy": s.policy.model_copy(update={"max_cost": 0.0012})})
    state = Runner(quiet_ui()).write(TASK, s).state
    assert priced.steps() == ["plan"]
    assert state["stop_reason"] == "budget"
    note = next(e["note"] for e in state["trace"] if e.get("kind") == "budget")
    assert "budget reached before draft: the next call may cost up to $0.001" in note
    spent = sum(e["cost"] for e in state["trace"] if "step" in e)
    assert 0 < spent <= 0.0012


def test_parallel_calls_reserve_their_estimates(runs_dir):
    """Three sections at once, room for two: whichever asks third finds its estimate plus the
    two in flight over the budget and is refused before it is sent (checked against what is
    spent alone, all three would go: the plan cost ~$0.0002 and each estimate is ~$0.0012)."""
    client = FakeClient("priced/w", ScriptedResponder(scores=[8], sections=3), price=1e-6)
    inner, estimate = client.responder, client.estimate_cost
    asked: list[str] = []
    all_asked = threading.Event()  # every section's estimate was made: answers may go

    def estimating(messages, **kw):
        asked.append(kw["step"])
        if len([a for a in asked if a.startswith("draft")]) == 3:
            all_asked.set()
        return estimate(messages, **kw)

    def responder(step, messages):
        if step.startswith("draft"):
            all_asked.wait(WAIT)  # held in flight until the third section has asked
        return inner(step, messages)

    client.estimate_cost = estimating
    client.responder = responder
    undo = install_fake("priced", lambda model: client)
    try:
        s = settings(runs_dir, model="priced/w", threshold=7, draft="parallel", concurrency=3)
        s = s.model_copy(update={"policy": s.policy.model_copy(update={"max_cost": 0.0033})})
        state = Runner(quiet_ui()).write(TASK, s).state
    finally:
        undo()
    assert len([s for s in client.steps() if s.startswith("draft")]) == 2
    assert "review:r1" not in client.steps()
    assert state["stop_reason"] == "budget" and len(state.get("sections") or []) < 3
    note = next(e["note"] for e in state["trace"] if e.get("kind") == "budget")
    assert "the next call may cost up to" in note
    assert len([e for e in state["trace"] if e.get("node") == "draft" and "step" in e]) == 2


def test_a_token_budget_counts_the_calls_in_flight(scripted, runs_dir):
    """Six sections at once under a token budget with room for the plan and one section: the
    calls in flight count as spent by what they may take (prompt and whole cap), so one section
    goes and the rest are refused; the run crosses its budget by at most one call, as it does
    one call at a time. Counted against what is spent alone, all six went (a 400-token budget
    used 1,411 tokens in issue 36)."""
    first = Runner(quiet_ui()).write(TASK, settings(runs_dir / "a", threshold=7, max_sections=6,
                                                    draft="parallel", concurrency=6)).state  # fmt: skip
    calls = {e["step"]: e["prompt_tokens"] + e["completion_tokens"] for e in first["trace"] if "step" in e}
    drafts = [v for k, v in calls.items() if k.startswith("draft")]
    budget = calls["plan"] + min(drafts) // 2  # crossed by any one section
    counter = InFlight(scripted.responder, lambda step: None)
    many = threading.Event()

    def hold(step):  # a section waits (a little) for others to be in flight with it
        if step.startswith("draft"):
            if counter.now >= 3:
                many.set()
            many.wait(1.0)

    counter.hold = hold
    scripted.responder = counter
    s = settings(runs_dir / "b", threshold=7, max_sections=6, draft="parallel", concurrency=6)
    s = s.model_copy(update={"policy": s.policy.model_copy(update={"max_tokens": budget})})
    state = Runner(quiet_ui()).write(TASK, s).state
    used = sum(e["prompt_tokens"] + e["completion_tokens"] for e in state["trace"] if "step" in e)
    sent = [e for e in state["trace"] if e.get("node") == "draft" and "step" in e]
    assert state["stop_reason"] == "budget"
    assert len(sent) == 1 and counter.most == 1
    assert used <= budget + max(drafts)
    note = next(e["note"] for e in state["trace"] if e.get("kind") == "budget")
    assert "in the calls in flight" in note


# --- the cost line -----------------------------------------------------------------------------


def test_each_call_prints_its_cost_line_and_the_run_so_far(priced, runs_dir):
    out = io.StringIO()
    ui = Renderer(console=Console(file=out, width=200), quiet=False)
    state = Runner(ui).write(TASK, settings(runs_dir, model="priced/w", threshold=7)).state
    lines = [line for line in out.getvalue().splitlines() if "✓" in line and " sent" in line]
    calls = [e for e in state["trace"] if "step" in e]
    assert len(lines) == len(calls) == 5
    running = 0.0
    for line, call in zip(lines, calls, strict=True):
        running += call["cost"]
        assert f"{call['prompt_tokens']:,} sent · {call['completion_tokens']:,} received" in line
        assert f"${call['cost']:.4f} · run " in line and line.rstrip().endswith(f"${running:.4f}")
    text = next(runs_dir.glob("*.md")).read_text()  # the artifact's trace has the same columns
    assert "| sent (cached) | received | cost | run cost |" in text
    assert f"${running:.4f} |" in text


# --- research at once ------------------------------------------------------------------------


@pytest.fixture
def offline(monkeypatch):
    loopback_fixture(monkeypatch, REFLECTCLI_BACKOFF="0")


def test_a_web_search_fetches_its_pages_at_once_and_keeps_their_order(offline, runs_dir):
    with SearchServer(page_delay=0.4) as server:
        results = [{"title": t, "url": f"{server.base_url}/page/{n}", "snippet": ""}
                   for n, (t, _) in enumerate(server.pages[:3])]  # fmt: skip
        ids, refused = add_web_results(runs_dir, results, allow_private=True, workers=3)
        assert server.most_in_flight == 3  # all three at once (their time is the bench's to measure)
    assert not refused and len(ids) == 3
    from reflectcli.sources import library

    titles = {s["id"]: s["title"] for s in library.sources(runs_dir)}
    assert [titles[i] for i in ids] == [t for t, _ in SearchServer().pages[:3]]


@pytest.mark.slow  # litellm's import (its web search): ~10 s on a busy machine
def test_parallel_drafting_researches_every_section_in_one_step(offline, scripted, runs_dir):
    ui = quiet_ui()
    nodes: list[str] = []
    shown = ui.node_done
    ui.node_done = lambda node, update, state: (nodes.append(node), shown(node, update, state))
    with SearchServer(page_delay=0.2) as server:
        research = {"sources": "web", "web": "searxng", "web_api_base": server.base_url,
                    "allow_private": True}  # fmt: skip
        state = Runner(ui).write(TASK, settings(runs_dir, threshold=7, draft="parallel",
                                                concurrency=4, research=research)).state  # fmt: skip
        # pages fetched at once, each once for the whole run (searches that share a page wait for
        # the one fetch in flight: sources/pages.py)
        assert server.most_in_flight >= 3 and set(server.page_requests.values()) == {1}
    assert nodes[:3] == ["plan", "research", "draft"]  # one research step, one draft step
    searches = [e for e in state["trace"] if e.get("kind") == "search"]
    assert [e["section"] for e in searches] == [1, 2, 3]
    assert len(state["research"]["sections"]) == 3 and state["status"] == "finished"
    ids = [i for e in searches for i in e["ids"]]
    assert ids and [e["id"] for e in state["evidence"]] == list(dict.fromkeys(ids))


# --- kills while several calls are in flight (real processes) ------------------------------------


def parallel_args(server, thread: str, runs: str = "runs") -> list[str]:
    return ["write", "Why do writers revise?", "--model", "openai/test-model", "--api-base",
            server.base_url, "--runs-dir", runs, "--thread-id", thread, "--sections", "3",
            "--max-rounds", "2", "--threshold", "9", "--draft", "parallel",
            "--concurrency", "4"]  # fmt: skip


@pytest.mark.slow
def test_a_parallel_draft_killed_with_calls_in_flight_resumes_repeating_none(tmp_path, offline):
    """Kill 1 (SIGKILL): section 1 answered, sections 2 and 3 in flight (held by the server).
    Kill 2 (SIGKILL) in the resume: section 2's answer journaled, its step not checkpointed,
    section 3 held in flight (so that no answer can be written and not yet journaled: that
    window belongs to bench_inflight.py). The last resume finishes with the uninterrupted run's
    article, and no request whose answer had completed was ever sent again."""
    from typer.testing import CliRunner

    from reflectcli.cli.app import app
    from tests.crashkit import (
        Child,
        Kill,
        KillScript,
        effective_status,
        integrity,
        kill_at,
        outcome,
        resent_after_completion,
        run_state,
    )
    from tests.openai_server import OpenAIServer

    with OpenAIServer(reply=KillScript((6.0, 9.5), 3)) as server:
        result = CliRunner().invoke(app, parallel_args(server, "base", str(tmp_path / "base")))
        assert result.exit_code == 0, result.output
        paid = sorted(r.step for r in server.wait_completed(len(server.records)))
    expected = outcome(run_state(tmp_path / "base" / "reflect.db", "base"))
    assert expected["status"] == "finished" and len(expected["calls"]) == 7

    work = tmp_path / "chain"
    work.mkdir()
    db = work / "runs" / "reflect.db"
    script = KillScript((6.0, 9.5), 3)
    with OpenAIServer(reply=script) as server:
        second = script.hold("draft:s2")  # held too: two sections in flight at the first kill
        child, code = kill_at(work, "par-00", parallel_args(server, "par"), script,
                              Kill("call:draft:s3"))  # fmt: skip
        assert code == -9 and second.arrived.is_set(), child.describe()
        assert "draft:s1" in [r.step for r in server.completed]
        script.release_all()
        script.hold("draft:s3")  # the resume's section 3 stays in flight
        child, code = kill_at(work, "par-01", ["resume", "par", "--runs-dir", "runs"], script,
                              Kill("journal:draft:s2"))  # fmt: skip
        assert code == -9, child.describe()
        script.release_all()
        assert integrity(db) == "ok" and effective_status(db, "par") == "interrupted"
        final = Child(work, "par-final", ["resume", "par", "--runs-dir", "runs"])
        assert final.finish() == 0, final.describe()
        assert resent_after_completion(server) == {}, "a completed request was sent again"
        completed = [r.step for r in server.wait_completed(len(paid))]
        assert sorted(completed) == paid  # each answer paid for exactly once
        assert "replayed from the journal" in " ".join(final.stdout.split()), final.stdout
    assert outcome(run_state(work / "runs" / "reflect.db", "par")) == expected


def test_a_remote_clients_estimate_is_the_prompts_tokens_and_the_whole_cap_priced(offline):
    """litellm's tokenizer and price map, offline: the estimate is the most the call can cost."""
    from reflectcli.models.remote import LiteLLMClient, _litellm

    client = LiteLLMClient("openai/gpt-4o-mini", api_base="http://127.0.0.1:9")
    messages = [{"role": "user", "content": "Write section 1 of 3 about printing. " * 20}]
    litellm = _litellm()
    prompt = litellm.token_counter(model="openai/gpt-4o-mini", messages=messages)
    a, b = litellm.cost_per_token(model="openai/gpt-4o-mini", prompt_tokens=prompt, completion_tokens=900)
    assert client.estimate_cost(messages, max_tokens=900) == pytest.approx(a + b)
    assert client.estimate_cost(messages, max_tokens=900) > client.estimate_cost(messages, max_tokens=10)
    assert LiteLLMClient("openai/no-such-model-x").estimate_cost(messages, max_tokens=900) is None


def test_the_live_view_shows_one_spinner_per_call_in_flight():
    ui = Renderer(console=Console(file=io.StringIO(), force_terminal=True, width=120))
    state = {"outline": {"sections": [{"title": t} for t in TITLES[:3]]}}
    for step in ("draft:s1", "draft:s2", "draft:s3"):
        ui.call_event("call_started", {"step": step, "model": "m"}, state)
    assert len(ui._progress.tasks) == 3
    ui.call_event("call_failed", {"step": "draft:s2", "model": "m"}, state)
    shown = [t.description for t in ui._progress.tasks]
    assert len(shown) == 2 and TITLES[0] in shown[0] and TITLES[2] in shown[1]
    ui.close()
