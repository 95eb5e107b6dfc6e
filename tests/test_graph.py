"""The loop end to end on a fake model: the seed's four scenarios, guards, fallbacks, storage."""

from __future__ import annotations

import json
import os
import signal
import sqlite3

import pytest

from reflectcli.errors import ModelError, RunInterrupted
from reflectcli.models.fake import PARAGRAPH, TITLES, ScriptedResponder, review_json
from reflectcli.runner import Runner
from tests.helpers import FailOnce, quiet_ui, settings

TASK = "Why do writers revise their drafts?"


def run(runs_dir, thread_id=None, **flags):
    return Runner(quiet_ui()).write(TASK, settings(runs_dir, **flags), thread_id)


def test_basic_passes_in_round_one_without_revision(scripted, runs_dir):
    scripted.responder.scores = [8]
    result = run(runs_dir, threshold=7)
    state = result.state
    assert state["stop_reason"] == "passed" and state["status"] == "finished"
    assert len(state["reviews"]) == 1 and len(state["versions"]) == 1
    assert scripted.steps() == ["plan", "draft:s1", "draft:s2", "draft:s3", "review:r1"]
    assert [d["reason"] for d in state["decisions"]] == ["passed"]
    assert result.summary["calls"] == 5 and result.summary["tokens"] > 0


def test_high_threshold_needs_revisions(scripted, runs_dir):
    scripted.responder.scores = [7, 8.5, 9.2]
    state = run(runs_dir, threshold=9).state
    assert state["stop_reason"] == "passed"
    assert [r["score"] for r in state["reviews"]] == [7, 8.5, 9.2]
    assert [v["n"] for v in state["versions"]] == [1, 2, 3]
    assert [d["decision"] for d in state["decisions"]] == ["revise", "revise", "stop"]
    assert state["final_version"] == 3
    assert "A concrete example now supports it." in state["versions"][-1]["text"]


def test_threshold_ten_is_fenced_by_max_rounds(scripted, runs_dir):
    scripted.responder.scores = [9, 9.5]
    state = run(runs_dir, threshold=10, max_rounds=2).state
    assert state["stop_reason"] == "max_rounds"
    assert len(state["reviews"]) == 2 and len(state["versions"]) == 2
    assert state["decisions"][-1]["reason"] == "max_rounds"


@pytest.mark.parametrize("threshold", [0, 5, 10])
@pytest.mark.parametrize("answer", ["I cannot review this.", "An error occurred while editing the content.",
                                    '{"score": 10, "feedback": "Title1"}'])  # fmt: skip
def test_a_critic_that_answers_the_wrong_thing_never_passes_a_run(scripted, runs_dir, threshold, answer):
    """Every review unusable (wrong thing, error text, a placeholder): the heuristic fallback is
    reviewed instead, and the run stops without passing, at any threshold."""
    writer = ScriptedResponder(scores=[10], sections=2)
    scripted.responder = lambda step, messages: (
        answer if step.startswith("review") else writer(step, messages)
    )
    state = run(runs_dir, threshold=threshold, max_rounds=2, max_sections=2).state
    assert all(r["source"] == "fallback" for r in state["reviews"])
    assert state["stop_reason"] != "passed"
    if threshold <= 5:  # the fallback's capped score would have passed: the rule says why not
        assert state["stop_reason"] == "critic_fallback"


EDGE_REVIEW = {"score": 8, "dimensions": {"accuracy": 3, "completeness": 4, "readability": 6, "structure": 9},
               "improvements": []}  # fmt: skip


@pytest.mark.parametrize("tiny", [True, False])
@pytest.mark.parametrize("feedback", [
    ".15027 (A) A: [r] Asynchronous Execution",  # the embedded critic's review that passed at 8
    "The second section lacks a concrete example and the ending repeats the opening.",
])  # fmt: skip
def test_an_overall_far_above_its_dimensions_never_passes(scripted, runs_dir, tiny, feedback):
    """Overall 8 with dimensions 3, 4, 6, 9 (mean 5.5: a gap of 2.5, exactly the old margin)
    never passes threshold 8: a tiny critic's review is invalid (the fallback is used), a capable
    critic's overall is replaced by the dimensions' mean."""
    writer = ScriptedResponder(scores=[10], sections=2)
    scripted.tiny = tiny
    answer = json.dumps({**EDGE_REVIEW, "feedback": feedback})
    scripted.responder = lambda step, msgs: answer if step.startswith("review") else writer(step, msgs)
    state = run(runs_dir, threshold=8, max_rounds=1, max_sections=2).state
    assert state["stop_reason"] != "passed"
    assert all(r["score"] < 8 for r in state["reviews"])
    if tiny:
        assert state["reviews"][0]["source"] == "fallback"


def test_interrupt_resume_does_not_repeat_plan_or_sections(scripted, runs_dir):
    scripted.responder = FailOnce(
        ScriptedResponder(scores=[8], sections=3), "review:r1", ModelError("provider down")
    )
    with pytest.raises(ModelError):
        run(runs_dir, threshold=7)
    thread = next(p.stem for p in runs_dir.glob("*.md"))
    assert scripted.steps() == ["plan", "draft:s1", "draft:s2", "draft:s3", "review:r1"]
    result = Runner(quiet_ui()).resume(thread, str(runs_dir), {})
    assert result.state["stop_reason"] == "passed"
    steps = scripted.steps()
    assert steps == ["plan", "draft:s1", "draft:s2", "draft:s3", "review:r1", "review:r1"]
    assert steps.count("plan") == 1 and steps.count("draft:s2") == 1


def test_ctrl_c_keeps_the_checkpoint(scripted, runs_dir):
    scripted.responder = FailOnce(ScriptedResponder(scores=[8], sections=2), "draft:s2", KeyboardInterrupt())
    with pytest.raises(RunInterrupted) as err:
        run(runs_dir, max_sections=2, threshold=7)
    result = Runner(quiet_ui()).resume(err.value.thread_id, str(runs_dir), {})
    assert result.state["status"] == "finished"
    assert scripted.steps() == ["plan", "draft:s1", "draft:s2", "draft:s2", "review:r1"]


class _SignalInFinalizer:
    """Sends this process a signal from a finalizer: the handler's KeyboardInterrupt is raised in
    `__del__`, where Python swallows it ("Exception ignored in"), as CI saw during an import."""

    def __init__(self, signum):
        self.signum = signum

    def __del__(self):
        os.kill(os.getpid(), self.signum)
        for _ in range(1000):  # the handler runs at a bytecode check in here
            pass


@pytest.mark.filterwarnings("ignore::pytest.PytestUnraisableExceptionWarning")  # (swallowed on purpose)
@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT])
def test_a_signal_whose_exception_was_swallowed_still_stops_the_run(scripted, runs_dir, signum):
    ui = quiet_ui()
    node_done = ui.node_done

    def after(node, update, state):
        node_done(node, update, state)
        if node == "plan":
            _SignalInFinalizer(signum)  # dropped at once: its __del__ runs (and swallows) now

    ui.node_done = after
    scripted.responder = ScriptedResponder(scores=[8], sections=2)
    with pytest.raises(RunInterrupted) as err:
        Runner(ui).write(TASK, settings(runs_dir, max_sections=2, threshold=7))
    assert scripted.steps() == ["plan"]  # stopped at that step's end, not at the run's
    result = Runner(quiet_ui()).resume(err.value.thread_id, str(runs_dir), {})
    assert result.state["status"] == "finished"
    assert scripted.steps().count("plan") == 1


def test_rewrite_guard_keeps_previous_version(scripted, runs_dir):
    responder = ScriptedResponder(scores=[6, 7], sections=2)

    def blow_up(step, messages):
        if step.startswith("revise"):
            return f"## {TITLES[0]}\n\n" + " ".join(f"word{i}" for i in range(6000))
        return responder(step, messages)

    scripted.responder = blow_up
    state = run(runs_dir, threshold=9, max_rounds=3, max_sections=2).state
    assert len(state["versions"]) == 1  # the blow-up never became a version
    guards = [e for e in state["trace"] if e.get("kind") == "guard"]
    assert len(guards) == 1 and guards[0]["guard"] == "too_long"
    # no round is spent re-reviewing the unchanged text: the run stops, with its own reason
    assert [r["version"] for r in state["reviews"]] == [1]
    assert scripted.steps().count("review:r1") == 1 and "review:r2" not in scripted.steps()
    assert [d["reason"] for d in state["decisions"]] == ["below_threshold", "rewrite_rejected"]
    assert state["stop_reason"] == "rewrite_rejected" and state["final_version"] == 1


def test_a_looping_generation_is_cut_and_flagged(scripted, runs_dir):
    responder = ScriptedResponder(scores=[9], sections=2)

    def loops(step, messages):
        if step == "draft:s2":
            return "Revision matters. " + "The draft is a record of what the writer thought. " * 40
        return responder(step, messages)

    scripted.responder = loops
    state = run(runs_dir, threshold=8, max_sections=2).state
    body = state["sections"][1] if "sections" in state else state["versions"][0]["text"]
    assert body.count("The draft is a record of what the writer thought.") == 1
    loops_seen = [e for e in state["trace"] if e.get("kind") == "loop"]
    assert len(loops_seen) == 1 and loops_seen[0]["section"] == 2


def test_bad_critic_json_falls_back_and_the_run_goes_on(scripted, runs_dir):
    responder = ScriptedResponder(scores=[8], sections=2)

    def garbage(step, messages):
        return "I liked it a lot!" if step.startswith("review") else responder(step, messages)

    scripted.responder = garbage
    state = run(runs_dir, threshold=7, max_rounds=2, max_sections=2).state
    assert state["status"] == "finished"
    assert [r["source"] for r in state["reviews"]] == ["fallback", "fallback"]
    assert state["stop_reason"] == "max_rounds"  # a fallback score never passes
    assert scripted.steps().count("review:r1:retry2") == 1


def test_retry_source_is_recorded(scripted, runs_dir):
    responder = ScriptedResponder(scores=[8], sections=1)
    scripted.responder = responder
    scripted.enqueue(
        '{"sections": [{"title": "Why revise", "goal": "g"}]}', f"{PARAGRAPH}",
        '```json\n{"score": "eight!!"\n```', review_json(8),
    )  # fmt: skip
    state = run(runs_dir, threshold=7, max_sections=1).state
    assert state["reviews"][0]["source"] == "llm-retry"
    assert state["reviews"][0]["errors"]


def test_best_version_wins(scripted, runs_dir):
    scripted.responder.scores = [7, 6]
    result = run(runs_dir, threshold=9, max_rounds=2)
    assert result.state["final_version"] == 1
    assert result.summary["final_score"] == 7


def test_state_and_checkpoints_are_json_only_and_compacted_when_finished(scripted, runs_dir):
    scripted.responder = FailOnce(
        ScriptedResponder(scores=[6, 9], sections=3), "review:r2", ModelError("down")
    )
    with pytest.raises(ModelError):
        run(runs_dir, threshold=8, thread_id="j1")
    db = sqlite3.connect(runs_dir / "reflect.db")
    types = {row[0] for row in db.execute("SELECT DISTINCT type FROM checkpoints")}
    types |= {row[0] for row in db.execute("SELECT DISTINCT type FROM writes")}
    assert "msgpack" in types and "pickle" not in types
    assert types <= {"msgpack", "json", "null", None}
    assert db.execute("SELECT COUNT(*) FROM call_journal").fetchone()[0] == 6
    state = Runner(quiet_ui()).resume("j1", str(runs_dir), {}).state
    assert json.loads(json.dumps(state)) == state
    assert db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    for table in ("checkpoints", "writes", "call_journal"):  # compacted away when finished
        assert db.execute(f"SELECT COUNT(*) FROM {table}").fetchone()[0] == 0
    saved = json.loads(db.execute("SELECT state FROM run_state").fetchone()[0])
    assert saved == {k: v for k, v in state.items() if k != "sections"}  # = version 1


def test_run_index_and_artifact_are_written(scripted, runs_dir):
    scripted.responder.scores = [6, 8.5]
    result = run(runs_dir, threshold=8)
    with sqlite3.connect(runs_dir / "reflect.db") as db:
        db.row_factory = sqlite3.Row
        row = dict(db.execute("SELECT * FROM runs").fetchone())
    assert row["status"] == "finished" and row["rounds"] == 2
    assert (row["first_score"], row["final_score"], row["stop_reason"]) == (6, 8.5, "passed")
    assert row["calls"] == 7 and row["owner_pid"] is None
    text = result.artifact.read_text()
    for heading in (
        "## Outline",
        "## Version 1",
        "## Version 2",
        "## Review, round 1",
        "## Review, round 2",
        "## Decisions",
        "## Trace",
        "## Final article",
    ):
        assert heading in text  # fmt: skip
    assert oct(result.artifact.stat().st_mode & 0o777) == "0o600"


@pytest.mark.parametrize("lang", ["fr", "French", "français", "FR"])
def test_language_setting_reaches_prompts(scripted, runs_dir, lang):
    state = run(runs_dir, threshold=7, language=lang).state
    assert state["params"]["language"] == "French (français)"
    for call in scripted.history:  # plan, drafts, review: every prompt names it
        assert "only in French (français)." in call["messages"][-1]["content"], call["step"]


class Killed(BaseException):
    """Stands in for a kill: raised where the process would have died."""


@pytest.mark.parametrize("step", [1, 4, 5, 6, 7])
def test_a_step_saved_but_not_checkpointed_is_counted_once(scripted, runs_dir, step):
    """A kill after a step's writes are saved but before its checkpoint: on resume LangGraph
    hands that step's output back as a cached update. The record (versions, reviews, calls,
    decisions, usage) must equal the uninterrupted run's, with no stray keys."""
    from tests.crashkit import install_points, outcome

    scripted.responder.scores = [6, 9.5]
    base = run(runs_dir / "base", "base", threshold=9, max_rounds=2).state
    paid = len(scripted.history)

    def kill(point: str) -> None:
        if point == f"writes:{step}":
            raise Killed(point)

    undo = install_points(kill)
    try:
        with pytest.raises(Killed):
            run(runs_dir, "cut", threshold=9, max_rounds=2)
    finally:
        undo()
    result = Runner(quiet_ui()).resume("cut", str(runs_dir), {})
    state = result.state
    assert outcome(state) == outcome(base)
    assert set(state) == set(base)
    assert result.summary["calls"] == len(outcome(base)["calls"])
    stored = json.loads(
        sqlite3.connect(runs_dir / "reflect.db")
        .execute("SELECT state FROM run_state WHERE thread_id = 'cut'")
        .fetchone()[0]
    )
    assert outcome(stored) == outcome(base)
    assert len(scripted.history) - paid == paid  # no call was made twice


def test_each_call_is_timed_when_its_answer_arrived(scripted, runs_dir):
    """A call and its retry get their own times (not the time their step ended)."""
    import time as clock

    responder = ScriptedResponder(scores=[9], sections=2)
    answers = iter(["not json at all", None])

    def slow_retry(step, messages):
        clock.sleep(0.02)
        if step.startswith("review") and (bad := next(answers)) is not None:
            return bad
        return responder(step, messages)

    scripted.responder = slow_retry
    state = run(runs_dir, threshold=8, max_sections=2).state
    reviews = [e for e in state["trace"] if e.get("node") == "review" and "step" in e]
    assert [e["step"] for e in reviews] == ["review:r1", "review:r1:retry1"]
    assert reviews[0]["at"] < reviews[1]["at"]
