"""`reflectcli eval`: suites, runs that are ordinary runs, a judge in both orders, the report's
numbers (a position-biased judge shows consistency 0), and resuming without paying twice."""

from __future__ import annotations

import json
import re

import pytest
from typer.testing import CliRunner

from reflectcli.cli.app import app
from reflectcli.errors import RunInterrupted, UserError
from reflectcli.eval import stats
from reflectcli.eval.run import Evaluation, report
from reflectcli.eval.suites import load, parse
from reflectcli.models.fake import IMPROVED, FakeClient, ScriptedResponder, install_fake
from reflectcli.store.db import Store
from tests.helpers import FailOnce, quiet_ui, settings

GRADES = ("interest", "coherence", "relevance", "coverage", "accuracy", "completeness",
          "readability", "structure")  # fmt: skip


def fair_judge(step, messages):
    """Prefers the article holding the revision's improvement, whatever its position."""
    prompt = messages[-1]["content"]
    if step.startswith("pair"):
        a = re.search(r"<article_A>\n(.*?)\n</article_A>", prompt, re.S).group(1)
        b = re.search(r"<article_B>\n(.*?)\n</article_B>", prompt, re.S).group(1)
        winner = "A" if IMPROVED in a and IMPROVED not in b else "B" if IMPROVED in b else "tie"
        return json.dumps({"winner": winner, "reason": "One article gives an example."})
    grade = 4 if IMPROVED in prompt else 3
    return json.dumps(dict.fromkeys(GRADES, grade))


def first_judge(step, messages):
    """Always prefers whatever is shown first."""
    if step.startswith("pair"):
        return json.dumps({"winner": "A", "reason": "The first one."})
    return json.dumps(dict.fromkeys(GRADES, 3))


@pytest.fixture
def judge():
    client = FakeClient(model="judge/x", responder=fair_judge)
    undo = install_fake("judge", lambda model: client)
    yield client
    undo()


TASKS = [{"n": i, "line": i, "task": f"Task {i} about revising", "reference": None,
          "tags": ["odd" if i % 2 else "even"], "overrides": {}} for i in (1, 2, 3)]  # fmt: skip


def test_final_vs_first_in_both_orders(scripted, judge, runs_dir):
    scripted.responder = ScriptedResponder(scores=[6, 9], sections=2)
    eval_id = Evaluation(quiet_ui(), runs_dir).start(
        "mine", TASKS, settings(runs_dir, threshold=8), "judge/x"
    )
    data = report(runs_dir, eval_id)
    assert data["models"] == {"writer": "fake/w", "critic": "fake/w"}
    s = data["summary"]
    assert s["judged"] == 3 and s["win"] == 1.0 and s["loss"] == 0 and s["position_consistency"] == 1.0
    assert s["win_interval"] == [1.0, 1.0]
    assert all(v == 1.0 for v in s["rubric_gain"].values()) and s["mean_rounds"] == 2
    assert set(data["by_tag"]) == {"odd", "even"} and data["by_tag"]["odd"]["tasks"] == 2
    pair_steps = [c["step"] for c in judge.history if c["step"].startswith("pair")]
    # and the equal-length copies: the revision added a sentence at the end of a section, so the
    # sections' openings are the same text (a tie nobody pays for) and their closings are judged
    kinds = ("ab", "ba", "eq_tail_ab", "eq_tail_ba")
    assert sorted(pair_steps) == sorted(f"pair:{n}:{k}" for n in (1, 2, 3) for k in kinds)
    ab = next(c for c in judge.history if c["step"] == "pair:1:ab")["messages"][-1]["content"]
    assert IMPROVED in ab.split("<article_B>")[1] and IMPROVED not in ab.split("<article_B>")[0]
    # the runs are ordinary runs
    history = CliRunner().invoke(app, ["history", "--runs-dir", str(runs_dir), "--json"])
    assert {r["thread_id"] for r in json.loads(history.output)} == {f"e-{eval_id}-00{n}" for n in (1, 2, 3)}


def test_a_position_biased_judge_is_reported_not_hidden(scripted, judge, runs_dir):
    scripted.responder = ScriptedResponder(scores=[6, 9], sections=2)
    judge.responder = first_judge
    eval_id = Evaluation(quiet_ui(), runs_dir).start(
        "mine", TASKS, settings(runs_dir, threshold=8), "judge/x"
    )
    s = report(runs_dir, eval_id)["summary"]
    assert s["position_consistency"] == 0.0 and s["tie"] == 1.0 and s["win"] == 0.0
    shown = CliRunner().invoke(app, ["eval", "report", eval_id, "--runs-dir", str(runs_dir)])
    text = " ".join(shown.output.split())
    assert "position consistency 0%" in text and "leans on position" in text


def contrary_judge(step, messages):
    """Prefers the first draft (the article without the revision's improvement), both orders."""
    prompt = messages[-1]["content"]
    if step.startswith("pair"):
        a = re.search(r"<article_A>\n(.*?)\n</article_A>", prompt, re.S).group(1)
        return json.dumps({"winner": "B" if IMPROVED in a else "A", "reason": "The plainer one."})
    return json.dumps(dict.fromkeys(GRADES, 2 if IMPROVED in prompt else 3))


def test_a_revision_that_made_things_worse_is_headlined_with_its_regressions(scripted, judge, runs_dir):
    scripted.responder = ScriptedResponder(scores=[6, 9], sections=2)
    judge.responder = contrary_judge
    eval_id = Evaluation(quiet_ui(), runs_dir).start(
        "mine", TASKS, settings(runs_dir, threshold=8), "judge/x"
    )
    data = report(runs_dir, eval_id)
    assert data["summary"]["loss"] == 1.0 and data["summary"]["position_consistency"] == 1.0
    assert [r["n"] for r in data["regressions"]] == [1, 2, 3]
    assert all(r["outcome"] == "first" and r["rubric_gain"] == -1 for r in data["regressions"])
    shown = CliRunner().invoke(app, ["eval", "report", eval_id, "--runs-dir", str(runs_dir)])
    text = " ".join(shown.output.split())
    assert text.index("WORSE") < text.index("final vs first draft") and "worst regressions" in text
    assert f"e-{eval_id}-001" in text  # each regression names its run, for `diff`


@pytest.mark.parametrize("case", ["unusable judge", "nothing revised"])
def test_consistency_counts_only_pairs_the_judge_decided(scripted, judge, runs_dir, case):
    scripted.responder = ScriptedResponder(scores=[6, 9] if case == "unusable judge" else [9], sections=2)
    if case == "unusable judge":
        judge.responder = lambda step, messages: "I like both." if step.startswith("pair") else (
            json.dumps(dict.fromkeys(GRADES, 3)))  # fmt: skip
    eval_id = Evaluation(quiet_ui(), runs_dir).start(
        "mine", TASKS, settings(runs_dir, threshold=8), "judge/x"
    )
    s = report(runs_dir, eval_id)["summary"]
    assert s["judged"] == 3 and s["tie"] == 1.0 and s["decided"] == 0
    assert s["position_consistency"] is None  # not 100 %: no order was decided by the judge
    shown = CliRunner().invoke(app, ["eval", "report", eval_id, "--runs-dir", str(runs_dir)])
    assert "position consistency unknown" in " ".join(shown.output.split())


def test_an_interrupted_eval_resumes_without_paying_twice(backend, scripted, judge, runs_dir):
    scripted.responder = FailOnce(
        ScriptedResponder(scores=[6, 9], sections=2), "review:r2", KeyboardInterrupt()
    )
    evaluation = Evaluation(quiet_ui(), runs_dir)
    with pytest.raises(RunInterrupted):
        evaluation.start("mine", TASKS, settings(runs_dir, threshold=8), "judge/x")
    (eval_id,) = [e["id"] for e in __import__("reflectcli.eval.run", fromlist=["x"]).evaluations(runs_dir)]
    assert report(runs_dir, eval_id)["summary"]["judged"] == 0  # task 1 was interrupted mid-run
    writer_calls = len(scripted.history)
    evaluation.resume(eval_id)
    data = report(runs_dir, eval_id)
    assert data["summary"]["judged"] == 3 and data["eval"]["status"] == "finished"
    steps = [c["step"] for c in scripted.history[writer_calls:]]
    assert steps[0] == "review:r2" and "plan" in steps  # task 1 resumed, tasks 2-3 written
    judged = [c["step"] for c in judge.history]
    # 3 tasks x (2 rubrics + 2 orders + the equal-length closings' 2 orders), each once
    assert len(judged) == len(set(judged)) == 18
    Evaluation(quiet_ui(), runs_dir).resume(eval_id)  # nothing left: nothing paid
    assert len(judge.history) == 18


def test_a_run_that_kept_its_first_draft_costs_no_judgement(scripted, judge, runs_dir):
    scripted.responder = ScriptedResponder(scores=[9], sections=2)
    eval_id = Evaluation(quiet_ui(), runs_dir).start(
        "mine", TASKS[:1], settings(runs_dir, threshold=8), "judge/x"
    )
    assert [c["step"] for c in judge.history] == ["rubric:1:first"]
    s = report(runs_dir, eval_id)["summary"]
    assert s["tie"] == 1.0 and s["rubric_gain"]["interest"] == 0


def test_suites_and_their_errors(tmp_path):
    assert len(load(None, "smoke")[1]) == 5 and len(load(None, "standard")[1]) >= 30
    bad = tmp_path / "s.jsonl"
    bad.write_text('{"task": "ok"}\nnot json\n{"task": ""}\n{"task": "x", "tags": "a"}\n'
                   '{"task": "x", "overrides": {"colour": 1}}\n')  # fmt: skip
    with pytest.raises(UserError) as err:
        load(str(bad), None)
    lines = str(err.value).splitlines()
    assert [line.split(":")[1] for line in lines] == ["2", "3", "4", "5"]
    assert "unknown override 'colour'" in lines[-1]
    with pytest.raises(UserError, match="no tasks"):
        parse("# only a comment\n", "x")


def test_the_eval_commands(backend, scripted, judge, runs_dir, tmp_path):
    scripted.responder = ScriptedResponder(scores=[6, 9], sections=2)
    run = CliRunner().invoke(app, ["eval", "run", "--builtin", "smoke", "--limit", "2", "--model", "fake/w",
                                   "--judge", "judge/x", "--runs-dir", str(runs_dir)])  # fmt: skip
    assert run.exit_code == 0, run.output
    # 2 tasks, each judged as written and on the copies' closings: 4 pairs, all consistent, are
    # too few to tell the judge from one blind to the texts (5 at least): no verdict
    shown = " ".join(run.output.split())
    assert "final vs first draft over 2 tasks: no verdict (judge order-consistent on 100% of 4 pairs: too " \
           "few pairs to tell it from a judge blind to the texts; 5 at least)" in shown  # fmt: skip
    assert "win 100%" not in shown and "tie 0%" not in shown
    listed = json.loads(
        CliRunner().invoke(app, ["eval", "list", "--json", "--runs-dir", str(runs_dir)]).output
    )
    eval_id = listed[0]["id"]
    assert listed[0]["judged"] == 2 and listed[0]["status"] == "finished"
    page = tmp_path / "r.html"
    made = CliRunner().invoke(app, ["eval", "report", eval_id, "--html", "-o", str(page), "--runs-dir",
                                    str(runs_dir)])  # fmt: skip
    assert made.exit_code == 0 and "<svg" in page.read_text() and (page.stat().st_mode & 0o777) == 0o600
    data = json.loads(CliRunner().invoke(app, ["eval", "report", eval_id, "--json", "--runs-dir",
                                               str(runs_dir)]).output)  # fmt: skip
    assert data["summary"]["win"] == 1.0 and data["summary"]["verdict"]["given"] is False  # the numbers stay
    assert data["judge"]["reliability"] == data["summary"]["verdict"]["judge"]
    assert data["judge"]["reliability"]["pairs"] == 4 and data["judge"]["reliability"]["needed"] is None
    assert "no verdict (judge order-consistent on 100% of 4 pairs" in page.read_text()
    three = CliRunner().invoke(app, ["eval", "run", "--builtin", "smoke", "--limit", "3", "--model", "fake/w",
                                     "--judge", "judge/x", "--runs-dir", str(runs_dir)])  # fmt: skip
    shown = " ".join(three.output.split())
    assert "final vs first draft over 3 tasks: win 100%" in shown  # 6 of 6 pairs: a verdict
    note = "[judge: order-consistent on 100% of 6 pairs · self-agreement (rubric vs pairwise) 100% of 3 " \
           "tasks]"  # fmt: skip
    assert note in shown
    same = CliRunner().invoke(app, ["eval", "run", "--builtin", "smoke", "--limit", "1", "--model", "fake/w",
                                    "--runs-dir", str(runs_dir)])  # fmt: skip
    assert same.exit_code == 2 and "the judge fake/w is also the writer and the critic" in " ".join(
        same.output.split()) and "Traceback" not in same.output  # fmt: skip
    writer = scripted.responder  # the writer judges its own texts: allowed, and said first
    scripted.responder = lambda step, m: (
        fair_judge if step.startswith(("pair", "rubric")) else writer)(step, m)  # fmt: skip
    same = CliRunner().invoke(app, ["eval", "run", "--builtin", "smoke", "--limit", "1", "--model", "fake/w",
                                    "--judge-same", "--runs-dir", str(runs_dir)])  # fmt: skip
    scripted.responder = writer
    assert same.exit_code == 0, same.output
    assert " ".join(same.output.split()).index("JUDGE NOT INDEPENDENT (--judge-same): the judge fake/w") < (
        " ".join(same.output.split()).index("final vs first draft"))  # fmt: skip
    missing = CliRunner().invoke(app, ["eval", "report", "nope", "--runs-dir", str(runs_dir)])
    assert missing.exit_code == 1 and "unknown eval 'nope'" in missing.output

    def memory_on() -> list[bool]:
        runs = json.loads(CliRunner().invoke(app, ["history", "--json", "--runs-dir", str(runs_dir)]).output)
        with Store(runs_dir) as store:
            return [store.get_run(r["thread_id"])["settings"]["memory"]["enabled"] for r in runs]

    assert memory_on() == [False] * 6  # the tasks are independent of each other by default
    CliRunner().invoke(app, ["eval", "run", "--builtin", "smoke", "--limit", "1", "--model", "fake/w",
                             "--judge", "judge/x", "--memory", "--runs-dir", str(runs_dir)])  # fmt: skip
    assert sorted(memory_on()) == [False] * 6 + [True]


def test_bootstrap_and_combine():
    assert stats.combine({"winner": "B"}, {"winner": "A"})["outcome"] == "final"
    assert stats.combine({"winner": "A"}, {"winner": "A"})["outcome"] == "tie"  # split
    assert stats.combine({"winner": "both_bad"}, {"winner": "tie"})["consistent"]
    low, high = stats.bootstrap([1.0] * 7 + [0.0] * 3)
    assert 0.3 <= low < 0.7 < high <= 1.0


def test_against_a_second_configuration(scripted, judge, runs_dir, tmp_path):
    """A/B: config B (here: one round, so its final is its first draft) against config A (two
    rounds, the revision has the improvement): the fair judge prefers A's final in both orders."""
    scripted.responder = ScriptedResponder(scores=[6, 9], sections=2)
    b = tmp_path / "b.toml"
    b.write_text('model = "fake/w"\nmax_rounds = 1\nmax_sections = 2\n')
    args = ["eval", "run", "--builtin", "smoke", "--limit", "2", "--model", "fake/w", "--judge",
            "judge/x", "--against", str(b), "--runs-dir", str(runs_dir)]  # fmt: skip
    run = CliRunner().invoke(app, args)
    assert run.exit_code == 0, run.output
    eval_id = json.loads(
        CliRunner().invoke(app, ["eval", "list", "--json", "--runs-dir", str(runs_dir)]).output
    )[0]["id"]
    data = report(runs_dir, eval_id)
    assert data["against"]["judged"] == 2 and data["against"]["b_loss"] == 1.0
    assert data["against"]["position_consistency"] == 1.0 and data["against"]["rubric_gain_b_over_a"] == -1
    threads = {r["thread_id"] for r in json.loads(CliRunner().invoke(
        app, ["history", "--json", "--runs-dir", str(runs_dir)]).output)}  # fmt: skip
    assert f"e-{eval_id}-001b" in threads and f"e-{eval_id}-002b" in threads
    assert "config B's final vs config A's over 2 tasks: B wins 0%" in " ".join(run.output.split())
    missing = CliRunner().invoke(app, ["eval", "run", "--builtin", "smoke", "--against", "nope.toml",
                                       "--runs-dir", str(runs_dir)])  # fmt: skip
    assert missing.exit_code == 2 and "no such config file" in missing.output


def test_a_bad_override_value_stops_before_the_eval_exists(scripted, judge, runs_dir, tmp_path):
    suite = tmp_path / "s.jsonl"
    suite.write_text('{"task": "A fine task"}\n{"task": "Another task", "overrides": {"threshold": 42}}\n')
    run = CliRunner().invoke(app, ["eval", "run", str(suite), "--model", "fake/w", "--judge", "judge/x",
                                   "--runs-dir", str(runs_dir)])  # fmt: skip
    assert run.exit_code == 2, run.output
    assert f"{suite}:2: config key 'threshold'" in " ".join(run.output.split())
    assert "Traceback" not in run.output and "validation error" not in run.output
    listed = CliRunner().invoke(app, ["eval", "list", "--json", "--runs-dir", str(runs_dir)])
    assert json.loads(listed.output or "[]") == []  # no eval left "running"
    assert scripted.history == []  # and no model was called


def test_a_suite_line_names_what_is_wrong_with_it():
    bad = ('{"task": "x", "tags": "a"}\n{"task": "x", "id": true}\n{"task": "x", "length": 0}\n'
           '{"foo": 1}\n[1]\n{"task": "x", "zzz": 1}\n')  # fmt: skip
    with pytest.raises(UserError) as err:
        parse(bad, "s")
    assert str(err.value).splitlines()[:6] == [
        's:1: "tags" must be a list of strings',
        's:2: "id" must be a string or a whole number',
        's:3: "length" must be a whole number of words, at least 1',
        's:4: "task" (or DeepResearch Bench\'s "prompt") must be a non-empty string',
        "s:5: each line must be a JSON object",
        "s:6: unknown key 'zzz' (known: task, overrides, reference, tags, length, id, prompt, topic, "
        "language)",
    ]
