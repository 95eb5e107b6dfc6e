"""Change by change: `revise ID --pick` and `write --from FILE --pick` (graph/pick.py) on the fake
model, answered by a scripted person; the real terminal is tests/test_pick_tmux.py."""

from __future__ import annotations

import json
import re

import pytest
from typer.testing import CliRunner

from reflectcli.cli.app import app
from reflectcli.models.fake import IMPROVED, TITLES, ScriptedResponder, article_of, prompt_text, review_json
from reflectcli.runner import Runner
from reflectcli.writing.textops import section_bodies
from tests.helpers import quiet_ui, settings

TASK = "Why do writers revise their drafts?"
ISSUES = ("Open with the day a first draft failed.", "Name one writer who rewrote a book.",
          "End with what the reader should do next.")  # fmt: skip


class ScriptedUI(type(quiet_ui())):
    """A renderer at a 'terminal' that answers each gate from a list."""

    def __init__(self, answers):
        super().__init__(console=quiet_ui().console)
        self.answers = list(answers)
        self.questions = []

    def can_ask(self):
        return bool(self.answers)

    def ask(self, question, state):
        self.questions.append(question)
        return self.answers.pop(0)


class ThreeAsks(ScriptedResponder):
    """A critic that asks for one change in each of three sections, every round."""

    def __call__(self, step, messages):
        if step.startswith("review"):
            round_no = int(step.split(":r")[1].split(":")[0])
            score = self.scores[min(round_no, len(self.scores)) - 1]
            items = [{"section": TITLES[i], "issue": ISSUES[i], "severity": "major"} for i in range(3)]
            return review_json(score, items)
        if step.startswith("revise") and "Rewrite only these sections" in prompt_text(messages):
            prompt = prompt_text(messages)  # several sections in one call: each comes back changed
            named = re.search(r"Rewrite only these sections[^\n]*\n((?:## .*\n)+)", prompt).group(1)
            bodies = section_bodies(article_of(prompt), list(TITLES[: self.sections]))
            return "\n\n".join(f"## {t[3:]}\n\n{bodies[TITLES.index(t[3:])]} {IMPROVED}"
                                 for t in named.splitlines())  # fmt: skip
        return super().__call__(step, messages)


def finished(scripted, runs_dir, thread="me", **flags):
    scripted.responder = ThreeAsks(scores=[6, 9], sections=3)
    flags = {"max_rounds": 1, "threshold": 9, **flags}
    return Runner(quiet_ui()).write(TASK, settings(runs_dir, **flags), thread)


def picked(runs_dir, answers, thread="me", feedback=None, **kw):
    ui = ScriptedUI(answers)
    result = Runner(ui).steer(thread, str(runs_dir), feedback, pick="ask", **kw)
    return result, ui


def test_three_changes_accepted_rejected_edited_make_exactly_that_version(scripted, runs_dir):
    first = finished(scripted, runs_dir).state
    old = section_bodies(first["versions"][-1]["text"], list(TITLES[:3]))
    result, ui = picked(runs_dir, [
        {"action": "go"}, {"action": "accept"}, {"action": "reject"},
        {"action": "edit", "body": "My own ending: reread it tomorrow."},
    ])  # fmt: skip
    assert [q["gate"] for q in ui.questions] == ["steer", "pick", "pick", "pick"]
    assert [q["title"] for q in ui.questions[1:]] == list(TITLES[:3])
    assert ui.questions[1]["items"][0]["issue"] == ISSUES[0]  # the critique that asked for it
    state = result.state
    version = state["versions"][-1]
    assert version["kind"] == "revision" and version["base"] == 1
    new = section_bodies(version["text"], list(TITLES[:3]))
    proposed = ui.questions[1]["new"]
    assert new == [proposed, old[1], "My own ending: reread it tomorrow."]
    # every byte outside the accepted and edited bodies is the base's
    assert version["text"].replace(proposed, old[0]).replace(new[2], old[2]) == first["versions"][-1]["text"]
    assert [p["answer"] for p in version["picked"]] == ["accept", "reject", "edit"]
    critiques = state["critiques"]
    assert critiques["r1.2"]["status"] == "rejected"
    pref = critiques["p1"]
    assert pref["by"] == "human" and pref["kind"] == "preference" and pref["of"] == "r1.2"
    assert pref["issue"] == f"Do not: {ISSUES[1]}" and pref["applied_in"] is not None
    assert len(state["reviews"]) == 2 and state["status"] == "finished"  # reviewed as usual
    assert state["learned"]["heeded"] == ["p1"]  # told to the memory, as your critiques are


def test_strike_and_add_steer_what_the_revision_applies(scripted, runs_dir):
    finished(scripted, runs_dir)
    before = len(scripted.history)
    result, ui = picked(runs_dir, [
        {"action": "go", "strike": ["r1.1"], "add": [{"issue": "Cut the last sentence.", "section": "3"}]},
        {"action": "all"},
    ])  # fmt: skip
    sent = json.dumps([c["messages"] for c in scripted.history[before:]])
    assert ISSUES[0] not in sent and ISSUES[1] in sent and "Cut the last sentence." in sent
    state = result.state
    assert state["critiques"]["r1.1"]["status"] == "struck"
    added = state["critiques"]["h1"]
    assert added["by"] == "human" and added["section"] == TITLES[2]
    assert [p["answer"] for p in state["versions"][-1]["picked"]] == ["accept", "accept"]
    assert len(ui.questions) == 2  # `all` took the second change without asking
    assert any(c.get("of") == "r1.1" for c in state["critiques"].values())  # struck: a preference


def test_turning_down_a_rewrite_of_your_own_critique_makes_no_preference_against_it(scripted, runs_dir):
    finished(scripted, runs_dir)
    result, _ = picked(runs_dir, [{"action": "go"}, {"action": "reject"}], feedback="Open with a real case.",
                       section="1")  # fmt: skip
    critiques = result.state["critiques"]
    assert critiques["h1"]["status"] == "rejected"
    assert not any(c.get("kind") == "preference" for c in critiques.values())


def test_rejecting_every_change_makes_no_version_and_says_so(scripted, runs_dir):
    finished(scripted, runs_dir)
    result, _ = picked(runs_dir, [{"action": "go"}, {"action": "reject"}, {"action": "reject"},
                                  {"action": "reject"}])  # fmt: skip
    state = result.state
    assert len(state["versions"]) == 1 and state["stop_reason"] == "human_rejected"
    assert state["status"] == "finished" and state["final_version"] == 1
    assert state["decisions"][-1]["reason"] == "human"


def test_a_kill_between_answers_resumes_at_the_next_change(scripted, runs_dir):
    finished(scripted, runs_dir)
    ui = ScriptedUI([{"action": "go"}, {"action": "accept"}, {"action": "reject"}])
    result = Runner(ui).steer("me", str(runs_dir), None, pick="ask")
    assert result.waiting["gate"] == "pick" and result.waiting["index"] == 3  # no more answers: it waits
    calls = len(scripted.history)
    again = ScriptedUI([{"action": "accept"}])
    state = Runner(again).resume("me", str(runs_dir), {}).state
    assert [(q["gate"], q["index"]) for q in again.questions] == [("pick", 3)]
    assert [p["answer"] for p in state["versions"][-1]["picked"]] == ["accept", "reject", "accept"]
    assert [c["step"] for c in scripted.history[calls:]] == ["review:r2"]  # no rewrite asked again


def test_accept_all_asks_nothing_and_records_each_change(scripted, runs_dir):
    finished(scripted, runs_dir)
    result = Runner(quiet_ui()).steer("me", str(runs_dir), None, pick="all")
    version = result.state["versions"][-1]
    assert [p["answer"] for p in version["picked"]] == ["accept"] * 3


def test_write_from_a_file_picks_each_round(scripted, runs_dir, tmp_path):
    draft = tmp_path / "draft.md"
    draft.write_text("".join(f"## {TITLES[i]}\n\nMy paragraph {i} about revising drafts today.\n\n"
                             for i in range(3)))  # fmt: skip
    scripted.responder = ThreeAsks(scores=[6, 9], sections=3)
    ui = ScriptedUI([{"action": "go"}, {"action": "accept"}, {"action": "quit"}])
    s = settings(runs_dir, max_rounds=3, threshold=9.5, pick="ask")
    from reflectcli.cli.write import _read_draft

    task, start = _read_draft(str(draft), None, [])
    state = Runner(ui).write(task, s, "mine", start).state
    picked_ = state["versions"][-1]["picked"]
    assert [p["answer"] for p in picked_] == ["accept", "skip", "skip"]
    assert len(state["reviews"]) == 2 and state["status"] == "finished"  # quit: its review is the last


def test_pick_refuses_without_a_terminal_in_one_line(scripted, runs_dir):
    finished(scripted, runs_dir)
    result = CliRunner().invoke(app, ["revise", "me", "--pick", "--runs-dir", str(runs_dir)])
    assert result.exit_code == 2 and "--pick asks you at a terminal" in result.output
    assert "--accept-all" in result.output and "Traceback" not in result.output
    plain = CliRunner().invoke(app, ["revise", "me", "--runs-dir", str(runs_dir)])
    assert plain.exit_code == 2 and "say what to change" in plain.output
    took = CliRunner().invoke(app, ["revise", "me", "--accept-all", "--runs-dir", str(runs_dir)])
    assert took.exit_code == 0, took.output


@pytest.mark.parametrize("feedback", ["Open with a real case from a newsroom."])
def test_your_critique_with_pick(scripted, runs_dir, feedback):
    finished(scripted, runs_dir)
    result, ui = picked(runs_dir, [{"action": "go"}, {"action": "accept"}], feedback=feedback,
                        section="1")  # fmt: skip
    assert [i["id"] for i in ui.questions[0]["items"]] == ["h1"]
    assert result.state["critiques"]["h1"]["applied_in"] == 2
    assert [p["answer"] for p in result.state["versions"][-1]["picked"]] == ["accept"]


def test_ctrl_c_at_a_change_keeps_the_answers_given(scripted, runs_dir):
    from reflectcli.errors import RunInterrupted

    class Interrupting(ScriptedUI):
        def ask(self, question, state):
            if question["gate"] == "pick" and question["index"] == 2:
                raise KeyboardInterrupt
            return super().ask(question, state)

    finished(scripted, runs_dir)
    with pytest.raises(RunInterrupted):
        Runner(Interrupting([{"action": "go"}, {"action": "accept"}, {"action": "x"}])).steer(
            "me", str(runs_dir), None, pick="ask"
        )
    again = ScriptedUI([{"action": "reject"}, {"action": "accept"}])
    state = Runner(again).resume("me", str(runs_dir), {}).state
    assert [q["index"] for q in again.questions] == [2, 3]
    assert [p["answer"] for p in state["versions"][-1]["picked"]] == ["accept", "reject", "accept"]
