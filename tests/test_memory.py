"""Reflection memory: lessons learned from critiques, recalled into later runs, merged, decayed,
superseded, pinned and forgotten; learning stored once even when the step is repeated."""

from __future__ import annotations

import json
import re
import threading

import pytest
from typer.testing import CliRunner

from reflectcli.cli.app import app
from reflectcli.errors import RunInterrupted
from reflectcli.memory import lessons as rules
from reflectcli.memory.bank import Memory
from reflectcli.models.fake import LESSON_FIX, LessonScenario, prompt_text
from reflectcli.runner import Runner
from reflectcli.store.db import Store
from reflectcli.store.memory import MemoryTables
from tests.helpers import quiet_ui, settings

FIX = LESSON_FIX
DAY = 86400.0
Scenario = LessonScenario


def revised(issue: str, before: float, after: float) -> dict:
    """A run's state: a draft reviewed at `before` asking for `issue`, one revision for it,
    reviewed at `after` with nothing more to ask."""
    return {
        "task": "Why revise?",
        "reviews": [
            {"round": 1, "version": 1, "score": before, "source": "llm",
             "improvements": [{"issue": issue, "section": ""}]},
            {"round": 2, "version": 2, "score": after, "source": "llm", "improvements": []},
        ],
        "versions": [{"n": 1, "kind": "draft", "round": 0},
                     {"n": 2, "kind": "revision", "base": 1, "round": 1}],
    }  # fmt: skip


def write(runs_dir, task="Why do writers revise their drafts?", **flags):
    return Runner(quiet_ui()).write(task, settings(
        runs_dir, max_sections=2, max_rounds=3, threshold=8, **flags))  # fmt: skip


def test_a_lesson_learned_in_one_run_saves_a_round_in_the_next(fake, runs_dir, backend):
    fake.responder = Scenario()
    first = write(runs_dir)
    assert first.summary["rounds"] == 2 and first.state["stop_reason"] == "passed"
    learned = first.state["learned"]
    assert len(learned["written"]) == 1 and not learned["merged"]
    lesson = Memory(runs_dir).show(learned["written"][0])
    assert lesson["text"] == FIX and lesson["evidence"][0]["kind"] == "worked"
    assert (
        lesson["evidence"][0]["score_change"] == 3 and lesson["evidence"][0]["thread_id"] == first.thread_id
    )
    second = write(runs_dir, task="Why do editors ask writers to revise?")
    assert [x["text"] for x in second.state["lessons"]] == [FIX]
    assert second.summary["rounds"] == 1 and second.state["stop_reason"] == "passed"
    drafts = [prompt_text(c["messages"]) for c in fake.history[-4:] if c["step"].startswith("draft")]
    assert drafts and all(FIX in d for d in drafts)
    review = next(c for c in reversed(fake.history) if c["step"] == "review:r1")
    assert "Known weaknesses" in prompt_text(review["messages"])
    control = write(runs_dir, task="Why do poets revise?", memory={"enabled": False})
    assert control.summary["rounds"] == 2 and not control.state["lessons"]
    assert control.state.get("learned") is None
    shown = CliRunner().invoke(app, ["show", second.thread_id, "--runs-dir", str(runs_dir)])
    assert "Lessons recalled" in shown.output and FIX in shown.output
    assert "## Lessons recalled" in second.artifact.read_text()
    stats = json.loads(CliRunner().invoke(app, ["stats", "--runs-dir", str(runs_dir), "--json"]).output)
    assert stats["memory"]["with lessons"]["mean_rounds"] == 1
    assert stats["memory"]["without"]["mean_rounds"] == 2


def test_a_recurring_critique_is_merged_not_duplicated(fake, runs_dir, backend):
    fake.responder = Scenario()
    write(runs_dir, memory={"k": 0})  # learns, recalls nothing
    fake.responder = Scenario("Give every section a concrete example.")
    third = write(runs_dir, task="How do editors work?", memory={"k": 0})
    assert third.state["learned"]["merged"] and not third.state["learned"]["written"]
    (lesson,) = Memory(runs_dir).list()
    assert lesson["seen"] == 2 and lesson["strength"] == pytest.approx(2.0, abs=0.01)
    events = [e["event"] for e in Memory(runs_dir).show(lesson["id"])["events"]]
    assert events == ["memory_write", "memory_merge"]


def test_learning_is_stored_once_even_when_the_step_runs_again(fake, runs_dir, monkeypatch, backend):
    fake.responder = Scenario()
    real = Memory.learn
    calls = []

    def learn_then_die(self, thread_id, state):
        result = real(self, thread_id, state)
        calls.append(result)
        if len(calls) == 1:
            raise KeyboardInterrupt  # stored, not checkpointed: as a kill right after the commit
        return result

    monkeypatch.setattr(Memory, "learn", learn_then_die)
    with pytest.raises(RunInterrupted) as err:
        write(runs_dir)
    resumed = Runner(quiet_ui()).resume(err.value.thread_id, str(runs_dir), {})
    assert resumed.state["status"] == "finished"
    assert len(calls) == 2 and calls[1].get("repeated") and calls[1]["written"] == calls[0]["written"]
    assert len(Memory(runs_dir).list()) == 1
    assert "already stored" in " ".join(e.get("note", "") for e in resumed.state["trace"])


def test_a_run_killed_before_its_first_checkpoint_resumes_with_the_lessons_it_recalled(
    fake, runs_dir, monkeypatch, backend
):
    fake.responder = Scenario()
    memory = Memory(runs_dir)
    memory.add(FIX)
    real = Runner._graph

    def die_once(self, *args):
        monkeypatch.setattr(Runner, "_graph", real)
        raise KeyboardInterrupt  # the run row exists, no checkpoint yet

    monkeypatch.setattr(Runner, "_graph", die_once)
    with pytest.raises(RunInterrupted):  # Ctrl-C before the first step: the run is left interrupted
        Runner(quiet_ui()).write("Why do writers revise their drafts?", settings(
            runs_dir, max_sections=2, max_rounds=3, threshold=8), thread_id="early")  # fmt: skip
    memory.add("Open every section with a concrete example of revising drafts.")  # would rank first now
    resumed = Runner(quiet_ui()).resume("early", str(runs_dir), {})
    assert resumed.state["status"] == "finished"
    assert [x["text"] for x in resumed.state["lessons"]] == [FIX]


def test_no_usable_critique_teaches_nothing():
    state = {"task": "x", "reviews": [{"round": 1, "version": 1, "score": 5, "source": "fallback",
                                       "improvements": [{"issue": FIX, "section": ""}]}]}  # fmt: skip
    assert rules.learn(state) == []


def test_decay_archives_and_pinning_keeps(runs_dir, backend):
    now = [1_000_000.0]
    memory = Memory(runs_dir, half_life_days=10, clock=lambda: now[0])
    kept = memory.add("Open with a concrete case.")
    fading = memory.add("Cut every adverb you can find.")
    memory.pin(kept)
    now[0] += 10 * DAY
    (fade,) = [x for x in memory.list() if x["id"] == fading]
    assert fade["strength_now"] == pytest.approx(1.0)  # 2.0 halved once
    now[0] += 30 * DAY  # 1.0 → 0.125 < 0.25: no longer recalled, archived at the next learning
    assert [x["id"] for x in memory.recall("anything", k=5)] == [kept]
    assert memory.metabolize() == [fading]
    statuses = {x["id"]: x["status"] for x in memory.list(everything=True)}
    assert statuses == {kept: "active", fading: "archived"}
    assert [e["event"] for e in memory.show(fading)["events"]] == ["memory_add", "memory_decay"]
    assert memory.list()[0]["strength_now"] == pytest.approx(2.0)  # pinned: no decay


def test_a_lesson_that_made_a_draft_worse_is_superseded(runs_dir, backend):
    memory = Memory(runs_dir)
    old = memory.add("Add a concrete example to every section.")
    state = revised("Add concrete examples to each section.", 7, 5)
    result = memory.learn("t1", state)
    assert result["superseded"] == [old]
    gone = memory.show(old)
    assert gone["status"] == "superseded" and gone["superseded_by"]
    new = memory.show(gone["superseded_by"])
    assert new["supersedes"] == [old] and "Apply with care" in new["text"]
    assert new["evidence"][0]["score_change"] == -2
    assert [x["id"] for x in memory.list()] == [new["id"]]  # the superseded one is not recalled
    again = memory.learn("t2", state)  # the careful lesson made it worse too: one prefix, not two
    assert again["superseded"] == [new["id"]]
    newest = memory.show(memory.show(new["id"])["superseded_by"])
    assert newest["text"] == new["text"] and newest["text"].count("Apply with care") == 1


def test_a_critique_asking_for_the_opposite_supersedes_the_lesson(runs_dir, backend):
    memory = Memory(runs_dir)
    old = memory.add("Shorten the introduction.")
    pinned = memory.add("Cut the introduction to two sentences.")
    memory.pin(pinned)
    state = revised("Expand the introduction with the case of a real draft.", 6, 8)
    result = memory.learn("t1", state)
    assert result["superseded"] == [old] and len(result["written"]) == 1
    gone = memory.show(old)
    assert gone["status"] == "superseded" and gone["superseded_by"] == result["written"][0]
    assert "opposite" in " ".join(e["detail"] for e in gone["events"] if e["event"] == "memory_supersede")
    assert memory.show(pinned)["status"] == "active"  # a pinned lesson is yours: it stays
    assert rules.opposes("Shorten the long introduction.", "Expand the long introduction.")
    assert not rules.same("Shorten the long introduction.", "Expand the long introduction.")
    assert not rules.opposes("Add a concrete example.", "Remove the vague claims in the ending.")
    assert not rules.opposes("Explain the lessons of the case study.", "Add a case study.")  # words
    assert not rules.opposes("Expand the conclusion.", "Remove the repeated sentence from the conclusion.")
    assert not rules.opposes("Address the counterargument in the conclusion.", "Tighten the conclusion.")
    for forbidding in (
        "Don\u2019t add statistics to the introduction.",
        "You shouldn\u2019t add statistics to the introduction.",
    ):
        assert rules.opposes("Add statistics to the introduction.", forbidding)  # a critic's curly apostrophe


def test_an_opposite_critique_is_never_merged_into_the_lesson_it_contradicts(runs_dir):
    memory = Memory(runs_dir)
    state = revised("Shorten the long introduction.", 6, 8)
    expand = memory.add("Expand the long introduction.")
    learned = memory.learn("t1", state)  # "shorten" worked: it replaces "expand", not reinforces it
    assert learned["merged"] == [] and learned["superseded"] == [expand]
    shorten = learned["written"][0]
    worse = revised("Expand the long introduction.", 6, 4)
    # evidence against expanding is not evidence against shortening
    assert memory.learn("t2", worse)["superseded"] == []
    assert memory.show(shorten)["status"] == "active"


def test_forget_removes_it_from_the_index_too(runs_dir, backend):
    memory = Memory(runs_dir)
    lesson = memory.add("Quote the colophon exactly.")
    assert memory.recall("colophon quotes", k=3)[0]["id"] == lesson
    memory.forget(lesson)
    store = Store(runs_dir)
    assert MemoryTables(store.conn).matching('"colophon"') == {}
    store.close()
    assert memory.recall("colophon quotes") == []


def test_recall_ranks_relevant_and_scoped_lessons(runs_dir, backend):
    memory = Memory(runs_dir)
    general = memory.add("Define every technical term when it first appears.")
    printing = memory.add("Name the printer and the year of each book.", scope="printing")
    other = memory.add("Name the team and the season of each match.", scope="football")
    chosen = [x["id"] for x in memory.recall("The history of printing in Venice", k=5)]
    assert chosen[0] == printing and general in chosen and other not in chosen
    howto = memory.add("Number the steps.", scope="how-to")
    short = memory.add("Say which model each claim is about.", scope="AI")
    assert {howto, short} <= {x["id"] for x in memory.recall("A how-to on AI tools", k=5)}
    assert howto not in {x["id"] for x in memory.recall("Why writers revise how they work", k=5)}


def test_concurrent_runs_learn_without_duplicates(runs_dir, backend):
    state = {
        "task": "Why revise?",
        "reviews": [{"round": 1, "version": 1, "score": 6, "source": "llm",
                     "improvements": [{"issue": FIX, "section": ""}]},
                    {"round": 2, "version": 2, "score": 9, "source": "llm", "improvements": []}],
        "critiques": {"r1.1": {"id": "r1.1", "issue": FIX, "round": 1, "status": "addressed",
                               "closed_in": 2}},
    }  # fmt: skip
    Store(runs_dir).close()
    barrier = threading.Barrier(6)
    errors = []

    def learn(n):
        try:
            barrier.wait()
            Memory(runs_dir).learn(f"t{n}", state)
        except Exception as exc:  # noqa: BLE001 - reported by the assert below
            errors.append(exc)

    threads = [threading.Thread(target=learn, args=(n,)) for n in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    (lesson,) = Memory(runs_dir).list()
    assert lesson["seen"] == 6


def test_the_memory_commands(runs_dir, backend):
    def run(*args):
        return CliRunner().invoke(app, ["memory", *args, "--runs-dir", str(runs_dir)])

    assert "no lessons" in run("list").output
    assert run("add", "Open with a concrete case").output.strip() == "added lesson 1"
    assert run("pin", "1").exit_code == 0
    assert run("edit", "1", "Open with one concrete case").exit_code == 0
    listed = json.loads(run("list", "--json").output)
    assert listed[0]["text"] == "Open with one concrete case" and listed[0]["pinned"]
    shown = run("show", "1").output
    assert "memory_add" in shown and "memory_pin" in shown and "memory_edit" in shown
    missing = run("show", "9")
    assert missing.exit_code == 1 and "no lesson 9" in missing.output and "Traceback" not in missing.output
    assert "forgot lesson 1" in run("forget", "1").output
    assert run("list", "--all").output.startswith("no lessons")


def test_similarity_is_on_content_stems():
    assert rules.same("Add a concrete example to every section.", "Give each section a concrete example.")
    assert not rules.same("Shorten the introduction.", "Expand the introduction.")
    assert rules.lesson_text("develop this section (85 words) with one concrete example") == (
        "Develop this section with one concrete example.")  # fmt: skip


@pytest.mark.parametrize(("a", "b"), [
    ("Add statistics to the introduction.", "Do not add statistics to the introduction."),
    ("Avoid adding examples.", "Add examples."),
    ("Use a formal tone.", "Use an informal tone."),
    ("Write in the active voice.", "Write in the passive voice."),
    ("Expand related work to cover recent methods.", "Shorten related work to cover recent methods."),
    ("Give a more explicit comparison with prior work.", "Give a more implicit comparison with prior work."),
])  # fmt: skip
def test_negations_and_antonyms_are_opposites_never_the_same(a, b):
    assert not rules.same(a, b) and not rules.same(b, a)
    assert rules.opposes(a, b) and rules.opposes(b, a)


def test_a_short_lesson_does_not_absorb_a_longer_one_holding_its_stems():
    assert not rules.same("Add examples.", "Add examples of revision from famous novelists' drafts.")
    assert rules.same("Add examples.", "Add examples to each section.")
    assert rules.same("Add a concrete example to every section.", "Add concrete examples to each section.")


def test_an_opposite_lesson_supersedes_and_a_longer_one_is_written_not_merged(runs_dir):
    memory = Memory(runs_dir)
    stats = memory.add("Add statistics to the introduction.")
    short = memory.add("Add examples.")
    state = revised("Do not add statistics to the introduction.", 6, 8)
    learned = memory.learn("t1", state)
    assert learned["merged"] == [] and learned["superseded"] == [stats]
    longer = revised("Add examples of revision from famous novelists' drafts.", 6, 8)
    learned = memory.learn("t2", longer)
    assert learned["merged"] == [] and len(learned["written"]) == 1
    assert memory.show(short)["status"] == "active"


RUN_LOCAL = re.compile(r"\[S\d|\br\d+\.\d+|\bC\d+\b|\bsection \d|\bparagraph \d+(?! sentences)", re.I)


def test_lessons_never_hold_run_local_ids():
    state = revised("Add a concrete example to section 2 [S3].", 6, 8)
    state["reviews"][0]["improvements"] += [
        {"issue": "Resolve r1.2 and claim C3 in paragraph 4: the ending overstates the cost.", "section": ""},
        {"issue": "Keep each paragraph 3 sentences long or shorter.", "section": ""},
    ]
    texts = [lesson["text"] for lesson in rules.learn(state)]
    assert texts and not [t for t in texts if RUN_LOCAL.search(t)]
    assert "Add a concrete example." in texts  # the id goes with the words that lead to it
    assert "Keep each paragraph 3 sentences long or shorter." in texts  # a count is not an id


def test_a_claim_correction_is_not_learned_as_a_general_rule(runs_dir):
    """Seen: 'Correct or remove the claim "…": [S2, S3] is unsupported', asked in two rounds,
    became a `recurring` lesson scoped `general`, recalled into unrelated runs."""
    claim = ('Correct or remove the claim "Printing made books cheap within ten years": [S2, S3] '
             "is unsupported (the source gives no dates); say only what the source says")  # fmt: skip
    state = revised(claim, 6, 8)
    state["reviews"][1]["improvements"] = [{"issue": claim, "section": ""}]  # asked again
    state["reviews"].append({"round": 3, "version": 3, "score": 9, "source": "llm", "improvements": []})
    assert rules.learn(state) == []
    tagged = revised("Cite a source for every date in the history section.", 6, 8)
    tagged["reviews"][0]["improvements"][0]["origin"] = "claim"
    assert rules.learn(tagged) == []
    assert Memory(runs_dir).learn("t1", state)["written"] == []


def _two_sections(first: str, second: str) -> str:
    return f"## Why\n\n{first}\n\n## How\n\n{second}\n"


@pytest.mark.parametrize(("after", "min_gain", "worse"), [
    (6.8, 0.5, []),  # a fall of 0.2 is noise under min_gain 0.5
    (6.5, 0.5, ["Cut the list of tools in How to one sentence."]),  # exactly min_gain: worse
    (5.0, 0.5, ["Cut the list of tools in How to one sentence."]),
    (6.8, 0.1, ["Cut the list of tools in How to one sentence."]),
])  # fmt: skip
def test_worse_needs_min_gain_and_only_the_sections_that_changed(after, min_gain, worse):
    """Seen: any fall, even 0.2, marked every applied lesson worse, also those for sections the
    revision did not touch."""
    state = revised("Add a dated example to Why.", 7, after)
    state["reviews"][0]["improvements"] = [
        {"issue": "Add a dated example to Why.", "section": "Why"},
        {"issue": "Cut the list of tools in How to one sentence.", "section": "How"},
    ]
    state["params"] = {"policy": {"min_gain": min_gain}}
    state["outline"] = {"sections": [{"title": "Why"}, {"title": "How"}]}
    state["versions"][0]["text"] = _two_sections("Writers revise.", "Tools: pen, paper, ink.")
    state["versions"][1]["text"] = _two_sections("Writers revise.", "A pen is enough.")  # How only
    assert [f["text"] for f in rules.learn(state) if f["kind"] == "worse"] == worse
