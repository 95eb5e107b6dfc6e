"""The tiny model's outline (writing/questions.py, graph/planning.py): the questions it asks,
cleaned and checked, each heading a section; the dropped ones named, the kept ones never."""

from __future__ import annotations

import json
import re

import pytest

from reflectcli.graph.planning import plan_questions
from reflectcli.models.fake import FakeClient
from reflectcli.writing.questions import PATTERN, clean_question, question_problem, usable_questions

TASK = "Why do writers revise their drafts?"


@pytest.mark.parametrize(("raw", "clean"), [
    ("1. What is compost?", "What is compost?"),
    ("2) How does compost work?", "How does compost work?"),
    ("Q3: Why do writers edit?", "Why do writers edit?"),
    ('"**Why do writers edit?**"', "Why do writers edit?"),
    ("why do writers edit? Let me know!", "Why do writers edit?"),
])  # fmt: skip
def test_numbering_marks_and_chatter_are_taken_off(raw, clean):
    assert clean_question(raw) == clean


@pytest.mark.parametrize(("question", "task", "why"), [
    ("Why do writers revise their drafts?", TASK, "repeats the task"),
    ("What is the most interesting aspect of your life?", TASK, "asks the writer"),
    ("What is the most interesting aspect of life?", TASK, "shares no word"),
    ("How does it work?", "Write a short guide to composting at home", "only a pronoun"),
    ("How can we ensure that our writers are designed to support the?", TASK, "cut off"),
    ("Can you explain what writers revise?", TASK, "asks the writer"),
    ("1", TASK, "not a whole question"),
    ("What is the most recent news article on social media?", "🌍🔥🌊", "without words"),
])  # fmt: skip
def test_a_question_that_cannot_head_a_section_is_dropped(question, task, why):
    assert why in (question_problem(question, task) or "")


def test_a_pronoun_after_a_question_naming_the_topic_is_a_follow_up():
    task = "Write a short guide to composting at home"
    assert question_problem("How does it work?", task, ["What is compost?"]) is None
    assert question_problem("How does it work?", task) is not None


def test_a_repeat_is_dropped_and_the_kept_question_is_never_named_dropped():
    answers = ["1. Why do writers edit their work?", "2. Why do writers edit their work?",
               "Why do writers edit all their work?", "Why do writers revise their drafts?",
               "How do writers choose what to cut?"]  # fmt: skip
    kept, dropped = usable_questions(answers, TASK, [], 3)
    assert kept == ["Why do writers edit their work?", "How do writers choose what to cut?"]
    # the same question twice drops nothing; a near repeat and the task itself are dropped
    assert len(dropped) == 2 and "repeats the question" in dropped[0] and "repeats the task" in dropped[1]
    assert not any(d.startswith(repr(k)) for d in dropped for k in kept)


def test_the_schema_holds_each_answer_to_a_question():
    pattern = re.compile(PATTERN)
    assert pattern.match("What is compost?")
    for bad in ("1. What is compost?", "The role of climate?", 'What is "compost"?', "What is it? And?"):
        assert not pattern.match(bad), bad


def answers(*texts: list[str]) -> FakeClient:
    """A fake writer giving these lists of questions, in turn."""
    fake = FakeClient()
    fake.enqueue(*(json.dumps({"questions": t}) for t in texts))
    return fake


def test_a_retry_asks_for_other_questions_and_keeps_the_ones_it_had():
    fake = answers(["Why do writers edit their work?", "Why do writers revise their drafts?", "How?"],
                   ["Why do writers edit their work?", "When do writers stop revising?", "What is love?"],
                   ["What is love?", "1", "2"])  # fmt: skip
    result = plan_questions(fake, TASK, 3, "plan")
    titles = [s.title for s in result.value.sections]
    assert titles == ["Why do writers edit their work?", "When do writers stop revising?"]
    assert [c.step for c in result.calls] == ["plan", "plan:retry1", "plan:retry2"]
    assert "Already asked: Why do writers edit their work?" in fake.history[1]["messages"][-1]["content"]
    assert result.source == "llm-retry"
    kept = {repr(t) for t in titles}
    assert result.value.dropped and not any(d.split(" ", 1)[0] in kept for d in result.value.dropped)


def test_fewer_than_two_usable_questions_give_the_flagged_generic_outline():
    fake = answers(["1", "2", "3"], ["1", "2", "3"], ["What is love?", "1", "2"])
    result = plan_questions(fake, TASK, 3, "plan:g2")
    assert result.source == "fallback"
    assert [c.step for c in result.calls] == ["plan:g2", "plan:g2:retry1", "plan:g2:retry2"]
    assert result.value.sections[0].title == "Writers revise their drafts: the background"


@pytest.mark.parametrize(("question", "task", "kept", "why"), [
    # the same ask in other words: besides the task's words, one's content words within the other's
    ("How to be an effective writer?", TASK, ["How does one become an effective writer?"], "asks what"),
    ("What are some ways that sleep affects our memories?", "The role of sleep in memory",
     ["How does sleep affect our memories?"], "asks what"),
    ("Are how do we know that sleep affects memories?", "The role of sleep in memory", [], "garbled"),
    ("How do sleep and dreams impact our mental health, including emotional)[/?",
     "The role of sleep in memory", [], "garbled"),
    ("What is your favorite way to use urban trees?", "The benefits of urban trees", [], "asks the writer"),
])  # fmt: skip
def test_a_repeat_in_other_words_a_garbled_or_personal_question_is_dropped(question, task, kept, why):
    assert why in (question_problem(question, task, kept) or "")


@pytest.mark.parametrize(("question", "task", "kept"), [
    ("What do writers change?", TASK, ["Why do writers revise?"]),  # one names only the task's words
    ("What is the relationship between sleep and memory?", "The role of sleep in memory",
     ["How does sleep affect memory?"]),
    ("How did the French Revolution change Europe?", "The causes of the French Revolution",
     ["What led to the French Revolution?"]),
    ("Why are they so efficient at flying over oceans & mountains?", "How do airplanes stay in the air?",
     ["How does an airplane fly?"]),
])  # fmt: skip
def test_a_different_ask_on_the_same_topic_is_kept(question, task, kept):
    assert question_problem(question, task, kept) is None


def test_a_relative_that_is_not_a_pronoun_for_the_topic():
    # seen: "How do tides work?" kept this as a follow-up, "that" read as a pronoun for the tides
    kept = ["What is the primary purpose of using tide as an energy source?"]
    why = question_problem(
        "What are the main components that make up the human body?", "How do tides work?", kept
    )
    assert "shares no word" in (why or "")
    assert question_problem("How does it affect our planet?", "How do tides work?", kept) is None
