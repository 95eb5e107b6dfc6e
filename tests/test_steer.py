"""`reflectcli revise ID "feedback"`: a finished run continues with the person's own critique."""

from __future__ import annotations

import json

from typer.testing import CliRunner

from reflectcli.cli.app import app
from reflectcli.models.fake import TITLES, ScriptedResponder, prompt_text

TASK = "Why do writers revise their drafts?"


def invoke(*args):
    return CliRunner().invoke(app, list(args))


def test_a_finished_run_takes_your_critique_for_one_more_round(scripted, runs_dir):
    scripted.responder = ScriptedResponder(scores=[9, 9.5], sections=2)
    first = invoke("write", TASK, "--model", "fake/w", "--runs-dir", str(runs_dir), "--thread-id", "me",
                   "--max-rounds", "2")  # fmt: skip
    assert first.exit_code == 0 and "done passed" in first.output
    before = len(scripted.history)
    again = invoke("revise", "me", "Open with the day the first draft failed.", "--section", "2",
                   "--runs-dir", str(runs_dir))  # fmt: skip
    assert again.exit_code == 0, again.output
    steps = [c["step"] for c in scripted.history[before:]]
    assert steps == ["revise:r2:s2", "review:r2"]  # one revision of the named section, one review
    revised = prompt_text(scripted.history[before]["messages"])
    assert "Open with the day the first draft failed." in revised
    data = json.loads(invoke("show", "me", "--json", "--runs-dir", str(runs_dir)).output)
    state = data["state"]
    human = state["critiques"]["h1"]
    assert human["by"] == "human" and human["section"] == TITLES[1] and human["applied_in"] == 2
    assert state["status"] == "finished" and len(state["reviews"]) == 2
    assert any(e.get("kind") == "human" for e in state["trace"])
    assert state["decisions"][-2]["reason"] == "human"  # the grant, then the controller's stop
    shown = " ".join(invoke("show", "me", "--runs-dir", str(runs_dir)).output.split())
    assert "yours, applied in round 2" in shown


def test_revise_refuses_what_it_cannot_do(scripted, runs_dir):
    scripted.responder = ScriptedResponder(scores=[9], sections=2)
    invoke("write", TASK, "--model", "fake/w", "--runs-dir", str(runs_dir), "--thread-id", "me")
    for args, message in [
        (["nope", "x"], "unknown thread id 'nope'"),
        (["me", "   "], "the feedback is empty"),
        (["me", "Shorter.", "--section", "No such part"], "no section 'No such part'"),
        (["me", "Shorter.", "--severity", "huge"], "--severity must be major or minor"),
    ]:
        result = invoke("revise", *args, "--runs-dir", str(runs_dir))
        assert result.exit_code in (1, 2) and message in " ".join(result.output.split()), result.output
        assert "Traceback" not in result.output


def test_a_steered_run_killed_mid_revision_resumes(scripted, runs_dir):
    from tests.helpers import FailOnce

    inner = ScriptedResponder(scores=[9, 9.5], sections=2)
    scripted.responder = FailOnce(inner, "revise:r2:s1", KeyboardInterrupt())
    invoke("write", TASK, "--model", "fake/w", "--runs-dir", str(runs_dir), "--thread-id", "me")
    stopped = invoke("revise", "me", "Name one writer who rewrote a book.", "--section", "1",
                     "--runs-dir", str(runs_dir))  # fmt: skip
    assert stopped.exit_code == 130 and "reflectcli resume me" in stopped.output
    resumed = invoke("resume", "me", "--runs-dir", str(runs_dir))
    assert resumed.exit_code == 0, resumed.output
    state = json.loads(invoke("show", "me", "--json", "--runs-dir", str(runs_dir)).output)["state"]
    assert state["critiques"]["h1"]["applied_in"] == 2 and state["status"] == "finished"
    assert [c["step"] for c in scripted.history].count("review:r2") == 1


def test_your_critique_said_in_two_runs_becomes_your_lesson(scripted, runs_dir):
    """Once: kept as pending (never recalled). Again in another run: an active lesson whose
    source is you, stronger than the critic's; a third time it is reinforced by twice a critic's."""
    said = "Open with a concrete case from a real writer's notebook."
    for n, thread in enumerate(("one", "two", "three")):
        scripted.responder = ScriptedResponder(scores=[9, 9.5], sections=2)
        invoke("write", TASK, "--model", "fake/w", "--runs-dir", str(runs_dir), "--thread-id", thread)
        result = invoke("revise", thread, said, "--runs-dir", str(runs_dir))
        assert result.exit_code == 0, result.output
        lessons = json.loads(invoke("memory", "list", "--all", "--json", "--runs-dir", str(runs_dir)).output)
        mine = [x for x in lessons if x["origin"] == "human"]
        assert len(mine) == 1, lessons
        state = json.loads(invoke("show", thread, "--json", "--runs-dir", str(runs_dir)).output)["state"]
        assert state["learned"]["heeded"] == ["h1"]
        note = [e for e in state["trace"] if e.get("step") == "learn" or e.get("kind") == "memory"][-1]
        assert "your critiques: h1" in json.dumps(note), note
        if n == 0:
            assert mine[0]["status"] == "pending" and mine[0]["strength_now"] == 0
            active = json.loads(invoke("memory", "list", "--json", "--runs-dir", str(runs_dir)).output)
            assert all(x["origin"] != "human" for x in active)  # not listed, never recalled
        elif n == 1:
            assert mine[0]["status"] == "active" and mine[0]["strength_now"] >= 2.9
            first = mine[0]["strength_now"]
        else:
            assert mine[0]["strength_now"] >= min(10.0, first + 1.9)  # a person counts double
    shown = invoke("memory", "show", str(mine[0]["id"]), "--runs-dir", str(runs_dir)).output
    assert "your critique h1" in shown and "one" in shown and "two" in shown
    # resuming a finished run tells the memory nothing twice
    invoke("resume", "three", "--runs-dir", str(runs_dir))
    shown = invoke("memory", "show", str(mine[0]["id"]), "--json", "--runs-dir", str(runs_dir))
    again = json.loads(shown.output)
    assert len([e for e in again["evidence"] if e["kind"] == "human"]) == 3
