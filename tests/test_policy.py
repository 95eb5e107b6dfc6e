"""The revision controller in whole runs: policy config, weighted scores, saturation, repeated
critique, budgets, best version and rollback, known issues, section-level revision, critique
tracking, a separate critic, and the human gate."""

from __future__ import annotations

import json

import pytest

from reflectcli.config import load_settings
from reflectcli.errors import ConfigError, ModelError
from reflectcli.models.fake import (
    IMPROVED,
    FakeClient,
    ScriptedResponder,
    install_fake,
    prompt_text,
    review_json,
)
from reflectcli.runner import Runner
from reflectcli.writing.textops import section_bodies
from tests.helpers import FailOnce, quiet_ui, settings

TASK = "Why do writers revise their drafts?"


def run(runs_dir, thread_id=None, ui=None, **flags):
    policy = flags.pop("policy", {})
    s = settings(runs_dir, **flags)
    s = s.model_copy(update={"policy": s.policy.model_copy(update=policy)})
    return Runner(ui or quiet_ui()).write(TASK, s, thread_id)


# --- config ------------------------------------------------------------------------------


def test_policy_table_and_hoisted_keys(tmp_path):
    (tmp_path / "config.toml").write_text(
        "[policy]\nthreshold = 9\nmax_rounds = 6\nmin_gain = 0.2\npatience = 3\n"
        'revision = "full"\nmax_tokens = 5000\nweights = { accuracy = 2, structure = 1 }\n'
        "minimums = { readability = 6 }\n"
    )
    s = load_settings()
    assert (s.threshold, s.max_rounds) == (9, 6)
    p = s.policy
    assert (p.min_gain, p.patience, p.revision, p.max_tokens) == (0.2, 3, "full", 5000)
    assert p.weights == {"accuracy": 2, "structure": 1} and p.minimums == {"readability": 6}
    assert load_settings(flags={"policy": {"revision": "section"}}).policy.revision == "section"


@pytest.mark.parametrize(
    ("toml", "message"),
    [
        ("threshold = 8\n[policy]\nthreshold = 9\n", "set both at the top level and in [policy]"),
        ("[policy]\nweights = { style = 1 }\n", "unknown dimension 'style'"),
        ("[policy]\nminimums = { accuracy = 11 }\n", "accuracy must be between 0 and 10"),
        ("[policy]\nrevision = 'paragraph'\n", "config key 'policy.revision'"),
        ("[policy]\nmax_cost = -1\n", "config key 'policy.max_cost'"),
        ("[policy]\npatience = 0\n", "config key 'policy.patience'"),
        ("[policy]\nweights = { accuracy = 0 }\n", "at least one weight must be above 0"),
    ],
)
def test_policy_errors(tmp_path, toml, message):
    (tmp_path / "config.toml").write_text(toml)
    with pytest.raises(ConfigError) as err:
        load_settings()
    assert message in err.value.message


# --- the rules in whole runs -------------------------------------------------------------


def test_default_revision_is_section():
    assert load_settings().policy.revision == "section"


def test_weighted_overall_score(scripted, runs_dir):
    scripted.responder = None
    scripted.enqueue(
        json.dumps({"sections": [{"title": "Why", "goal": "g"}]}), "Body text here.",
        review_json(6, accuracy=9, completeness=9, readability=3, structure=3),
    )  # fmt: skip
    state = run(runs_dir, threshold=7, max_rounds=1, max_sections=1,
                policy={"weights": {"accuracy": 1, "completeness": 1}}).state  # fmt: skip
    review = state["reviews"][0]
    assert review["critic_score"] == 6 and review["score"] == 9
    assert state["stop_reason"] == "passed"


def test_minimum_blocks_a_pass(scripted, runs_dir):
    scripted.responder = None
    scripted.enqueue(
        json.dumps({"sections": [{"title": "Why", "goal": "g"}]}), "Body text here.",
        review_json(9, structure=4),
    )  # fmt: skip
    state = run(runs_dir, threshold=8, max_rounds=1, max_sections=1,
                policy={"minimums": {"structure": 6}}).state  # fmt: skip
    assert state["stop_reason"] == "max_rounds"
    assert "structure 4 < minimum 6" in state["decisions"][0]["detail"]


def test_saturation_stops_a_stalled_run(scripted, runs_dir):
    scripted.responder.scores = [6, 6.2, 6.3, 6.4, 6.5, 6.6]
    with_rule = run(runs_dir, threshold=9, max_rounds=8,
                    policy={"min_gain": 0.5, "patience": 2}).state  # fmt: skip
    assert with_rule["stop_reason"] == "saturated" and len(with_rule["reviews"]) == 3
    without = run(runs_dir, threshold=9, max_rounds=6, policy={"min_gain": 0}).state
    assert without["stop_reason"] == "max_rounds" and len(without["reviews"]) == 6


def same_critique(scores):
    """A critic that words the same complaint a little differently each round."""
    responder = ScriptedResponder(scores=scores, sections=2)
    wording = ["Add a concrete example.", "Add a concrete example!", "add a concrete example"]

    def answer(step, messages):
        if step.startswith("review"):
            n = int(step.split(":r")[1][0])
            imp = {"section": "Section 1", "issue": wording[n - 1], "severity": "major"}
            return review_json(scores[n - 1], improvements=[imp])
        return responder(step, messages)

    return answer


def test_repeated_critique_stops_a_run_that_no_longer_gains(scripted, runs_dir):
    scripted.responder = same_critique([6, 6.2, 6.4])
    state = run(runs_dir, threshold=9, max_rounds=5, max_sections=2).state
    assert state["stop_reason"] == "no_new_critique" and len(state["reviews"]) == 2


def test_repeated_critique_does_not_stop_a_climbing_score(scripted, runs_dir):
    """5 -> 6 -> 8 against a threshold of 8 in 3 rounds: the same complaint reworded each time,
    but the score keeps rising, so the run goes on and passes."""
    scripted.responder = same_critique([5, 6, 8])
    state = run(runs_dir, threshold=8, max_rounds=3, max_sections=2).state
    assert state["stop_reason"] == "passed" and len(state["reviews"]) == 3


def test_budget_stops_before_a_call_and_overshoots_by_at_most_one(scripted, runs_dir):
    scripted.responder.scores = [5, 6, 7, 8]
    result = run(runs_dir, threshold=9, max_rounds=4, policy={"max_tokens": 2000})
    state = result.state
    assert state["stop_reason"] == "budget" and state["status"] == "finished"
    calls = [e for e in state["trace"] if "step" in e]
    before_last = sum(e["prompt_tokens"] + e["completion_tokens"] for e in calls[:-1])
    assert before_last < 2000 <= result.summary["tokens"]
    assert any(e.get("kind") == "budget" for e in state["trace"])
    assert state["decisions"][-1]["reason"] == "budget"


def test_budget_during_drafting_keeps_a_partial_article(scripted, runs_dir):
    state = run(runs_dir, policy={"max_tokens": 300}).state
    assert state["stop_reason"] == "budget"
    assert state["versions"][0]["kind"] == "partial"
    assert len(state["sections"]) < 3


def test_best_version_wins_with_rollback_and_known_issues(scripted, runs_dir):
    scripted.responder.scores = [7, 6, 6.5]
    result = run(runs_dir, threshold=9, max_rounds=3, policy={"min_gain": 0, "revision": "full"})
    state = result.state
    assert [r["score"] for r in state["reviews"]] == [7, 6, 6.5]
    rollbacks = [e for e in state["trace"] if e.get("kind") == "rollback"]
    assert len(rollbacks) == 1 and "revising from the best, version 1" in rollbacks[0]["note"]
    assert state["versions"][2]["base"] == 1  # version 3 was written from version 1
    assert state["decisions"][1]["reason"] == "regressed"
    assert state["final_version"] == 1 and result.summary["final_score"] == 7
    assert state["known_issues"] and state["known_issues"][0]["id"] == "r1.1"
    artifact = result.artifact.read_text()
    assert "## Known issues" in artifact and "(r1.1)" in artifact


def test_section_revision_rewrites_only_named_sections(scripted, runs_dir):
    scripted.responder.scores = [6, 7, 9]
    state = run(runs_dir, threshold=8.5, max_rounds=3).state
    steps = scripted.steps()
    assert "revise:r2:s1" in steps and "revise:r3:s2" in steps
    assert not any(s.startswith("revise") and s.count(":") == 1 for s in steps)
    titles = [s["title"] for s in state["outline"]["sections"]]
    v1, v2, v3 = (section_bodies(v["text"], titles) for v in state["versions"])
    assert v2[0] == v1[0] + " " + IMPROVED  # the named section changed
    assert v2[1:] == v1[1:]  # the others are byte for byte the same
    assert v3[0] == v2[0] and v3[2] == v2[2] and v3[1] != v2[1]


def test_section_revision_crash_keeps_finished_sections(scripted, runs_dir):
    responder = ScriptedResponder(scores=[6, 9], sections=3)

    def two_sections(step, messages):
        if step.startswith("draft"):  # long sections: one call per named section is cheaper
            return " ".join(f"Sentence {i} of {step} says something new." for i in range(80))
        if step == "review:r1":
            return review_json(
                6,
                improvements=[
                    {"section": "Section 1", "issue": "Add an example.", "severity": "major"},
                    {"section": "Section 3", "issue": "Cite a source.", "severity": "minor"},
                ],
            )
        return responder(step, messages)

    scripted.responder = FailOnce(two_sections, "revise:r2:s3", ModelError("provider down"))
    with pytest.raises(ModelError):
        run(runs_dir, thread_id="sec", threshold=8)
    result = Runner(quiet_ui()).resume("sec", str(runs_dir), {})
    assert result.state["stop_reason"] == "passed"
    steps = scripted.steps()
    assert steps.count("revise:r2:s1") == 1 and steps.count("revise:r2:s3") == 2
    assert "revise:r2:s2" not in steps


def test_full_revision_rewrites_the_article_in_one_call(scripted, runs_dir):
    scripted.responder.scores = [6, 9]
    state = run(runs_dir, threshold=8, policy={"revision": "full"}).state
    assert "revise:r2" in scripted.steps() and state["stop_reason"] == "passed"


def test_critique_tracking(scripted, runs_dir):
    responder = ScriptedResponder(scores=[6, 7, 9], sections=2)

    def tracking(step, messages):
        if step == "review:r2":
            assert "[r1.1]" in prompt_text(messages)  # the open item is shown to the critic
            data = json.loads(review_json(7, round_no=2))
            data["addressed"] = ["r1.1"]
            return json.dumps(data)
        return responder(step, messages)

    scripted.responder = tracking
    result = run(runs_dir, threshold=8.5, max_rounds=3, max_sections=2)
    critiques = result.state["critiques"]
    assert critiques["r1.1"]["status"] == "addressed" and critiques["r1.1"]["closed_in"] == 2
    assert critiques["r2.1"]["status"] == "open"
    artifact = result.artifact.read_text()
    assert "## Critiques" in artifact and "| r1.1 | 1 |" in artifact and "addressed (round 2)" in artifact


def test_separate_critic_has_its_own_usage(scripted, runs_dir):
    critic = FakeClient(model="critic/cheap", responder=ScriptedResponder(scores=[9]))
    undo = install_fake("critic", lambda model: critic)
    try:
        result = run(runs_dir, threshold=8, critic_model="critic/cheap")
    finally:
        undo()
    assert critic.steps() == ["review:r1"]
    assert "review:r1" not in scripted.steps()
    from reflectcli.output.summary import usage_by_model

    usage = usage_by_model(result.state)
    assert set(usage) == {"fake/writer", "critic/cheap"} and usage["critic/cheap"]["calls"] == 1


# --- the human gate ----------------------------------------------------------------------


class ScriptedUI(type(quiet_ui())):
    """A renderer that 'asks' by popping scripted answers (None: no terminal)."""

    def __init__(self, answers):
        base = quiet_ui()
        super().__init__(console=base.console)
        self.answers = list(answers)
        self.questions = []

    def can_ask(self):
        return bool(self.answers)

    def ask(self, question, state):
        self.questions.append(question)
        return self.answers.pop(0)


def test_gate_outline_edit_and_stop_accept(scripted, runs_dir):
    scripted.responder.scores = [6, 6.1, 6.2]
    ui = ScriptedUI([
        {"action": "edit", "sections": [{"title": "Mine", "goal": "g"}, {"title": "Yours"}]},
        {"action": "accept"},
    ])  # fmt: skip
    state = run(runs_dir, ui=ui, interactive=True, threshold=9, max_rounds=5).state
    assert [q["gate"] for q in ui.questions] == ["outline", "stop"]
    assert [s["title"] for s in state["outline"]["sections"]] == ["Mine", "Yours"]
    assert state["outline"]["source"] == "human"
    assert state["accepted"] is True and state["status"] == "finished"
    assert [d["decision"] for d in state["decisions"] if d["reason"] == "human"] == ["edit", "accept"]


def test_gate_regenerate_and_one_more_round(scripted, runs_dir):
    scripted.responder.scores = [6, 6.1, 6.2, 9]
    ui = ScriptedUI([{"action": "regenerate"}, {"action": "approve"}, {"action": "more"}])
    state = run(runs_dir, ui=ui, interactive=True, threshold=9, max_rounds=5).state
    assert scripted.steps()[:2] == ["plan", "plan:g2"]
    assert state["extra_rounds"] == 1 and state["stop_reason"] == "passed"
    assert len(state["reviews"]) == 4


def test_without_a_terminal_the_run_waits_and_resume_asks_again(scripted, runs_dir):
    from reflectcli.store.db import Store

    first = run(runs_dir, thread_id="gate", ui=ScriptedUI([]), interactive=True)
    assert first.waiting == {"gate": "outline", "outline": first.state["outline"]["sections"]}
    assert Store(runs_dir).get_run("gate")["status"] == "waiting"
    assert scripted.steps() == ["plan"]
    again = Runner(ScriptedUI([])).resume("gate", str(runs_dir), {})
    assert again.waiting["gate"] == "outline" and scripted.steps() == ["plan"]
    ui = ScriptedUI([{"action": "approve"}])
    done = Runner(ui).resume("gate", str(runs_dir), {})
    assert done.waiting is None and done.state["status"] == "finished"
    assert ui.questions[0]["gate"] == "outline" and scripted.steps().count("plan") == 1


def test_cli_interactive_without_tty_waits(scripted, runs_dir):
    from typer.testing import CliRunner

    from reflectcli.cli.app import app

    result = CliRunner().invoke(
        app,
        [
            "write",
            TASK,
            "--model",
            "fake/w",
            "--runs-dir",
            str(runs_dir),
            "--interactive",
            "--thread-id",
            "w1",
        ],
    )
    assert result.exit_code == 0, result.output
    assert "waiting for approval of the outline" in result.output
    assert "reflectcli resume w1 --interactive" in result.output


def test_overall_contradicting_the_dimensions_is_adjusted(scripted, runs_dir):
    scripted.responder = None
    scripted.enqueue(
        json.dumps({"sections": [{"title": "Why", "goal": "g"}]}), "Body text here.",
        review_json(10, accuracy=3, completeness=4, readability=5, structure=4),
    )  # fmt: skip
    state = run(runs_dir, threshold=8, max_rounds=1, max_sections=1).state
    review = state["reviews"][0]
    assert review["critic_score"] == 10 and review["score"] == 4
    assert state["stop_reason"] == "max_rounds"
    assert any(e.get("kind") == "adjusted" for e in state["trace"])
