"""The checklist critic: each check on text made to fail it, the score formula, and a run it reviews."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from reflectcli.cli.app import app
from reflectcli.config import load_settings
from reflectcli.models.fake import ScriptedResponder
from reflectcli.writing.checklist import MAJOR_CEILING, Finding, checklist_review, score_findings

OUTLINE = [
    {"title": "Why first drafts fall short", "goal": "What a first draft misses."},
    {"title": "How revision helps", "goal": "What revising changes for the reader."},
]
TASK = "Why do writers revise their drafts?"
GOOD = (
    "A first draft is where a writer finds out what they think about the subject. For example, "
    "Joan Didion said she wrote to learn what she was thinking, and her drafts show ideas arriving "
    "out of order. The argument of a draft is often buried in its middle, and a reader who meets it "
    "there has to work to find it. Writers who revise move that argument to the front, cut the "
    "detours and keep the details that carry the point."
)
GOOD2 = (
    "Revision lets a writer read the draft as a stranger would, which is the only way to see where "
    "a reader gets lost. In 1950, the editor Maxwell Perkins told his writers to cut every sentence "
    "that did not move the story, and their books grew clearer for it. Revising is also where a "
    "writer checks each claim, trims repeated words and gives every paragraph one job. The result "
    "is shorter, plainer and easier to trust than the first try."
)


def article(*bodies: str) -> str:
    return "\n\n".join(f"## {s['title']}\n\n{b}" for s, b in zip(OUTLINE, bodies, strict=True))


def checks(review: dict) -> set[str]:
    return {i["check"] for i in review["improvements"]}


def test_a_good_article_has_no_findings_and_passes():
    review = checklist_review(TASK, article(GOOD, GOOD2), OUTLINE, 80)
    assert review["improvements"] == [], review["improvements"]
    assert review["score"] >= 9 and "Accuracy is not checked" in review["feedback"]


@pytest.mark.parametrize(
    ("second", "check", "quoted"),
    [
        ("Revision helps.", "short", "2 words of about 80"),
        (GOOD2 + " In this section, we will explore why revising matters.", "meta", "In this section"),
        (GOOD2 + " Here is the revised section: <paragraph>Keep what is good.", "meta", "Delete"),
        (GOOD2 + " In this case, I'd like to explore how authors shine.", "meta", "I'd like to"),
        ("In today's fast-paced world, " + GOOD2, "filler", "today's fast-paced world"),
        (GOOD2 + " " + GOOD2.split(". ")[0] + ".", "repeat_sentence", "already stands"),
        ("The weather in Paris was lovely and warm that spring. Tourists came to see the tower and to "
         "buy bread from the bakeries near the river. The trains were full and the hotels were busy "
         "all summer long, and the cafes stayed open late.", "off_topic", "The weather in Paris"),
    ],
)  # fmt: skip
def test_each_check_names_the_section_and_the_sentence(second, check, quoted):
    review = checklist_review(TASK, article(GOOD, second), OUTLINE, 80)
    found = [i for i in review["improvements"] if i["check"] == check]
    assert found, review["improvements"]
    assert found[0]["section"] == "How revision helps" and quoted in found[0]["issue"]
    if found[0]["severity"] == "major":
        assert review["score"] <= MAJOR_CEILING  # a major finding never passes


def test_a_missing_section_and_minor_checks():
    text = "## Why first drafts fall short\n\n" + GOOD
    review = checklist_review(TASK, text, OUTLINE, 80)
    assert {"missing"} <= checks(review)
    plain = "Writers revise because drafts are rough and unclear to readers. " * 1
    rough = plain + ("They rewrite the draft because the draft is very unique and at the end of the "
                     "day it is what it is, and so they go back over every sentence and every word "
                     "until the whole of the draft says exactly what they want it to say.")  # fmt: skip
    review = checklist_review(TASK, article(GOOD, rough), OUTLINE, 80)
    assert {"example", "long_sentence", "prose"} <= checks(review), review["improvements"]
    assert review["score"] <= MAJOR_CEILING  # no example at all is a major finding


def test_uncited_facts_are_found_only_when_there_is_evidence():
    evidence = [[], [{"id": "S1", "text": "Perkins edited Hemingway."}]]
    with_sources = checklist_review(TASK, article(GOOD, GOOD2), OUTLINE, 80, evidence)
    assert "uncited" in checks(with_sources) and "[S1]" in with_sources["improvements"][0]["issue"]
    cited = GOOD2.replace("for it.", "for it [S1].").replace("1950, the", "1950 [S1], the")
    assert "uncited" not in checks(checklist_review(TASK, article(GOOD, cited), OUTLINE, 80, evidence))


def test_the_score_formula():
    major = Finding("A", "short", "completeness", "major", "x")
    minor = Finding("A", "prose", "readability", "minor", "y")
    assert score_findings([], accuracy_checked=False) == (10.0, dict.fromkeys(
        ("accuracy", "completeness", "readability", "structure"), 10.0))  # fmt: skip
    overall, dims = score_findings([major, minor], accuracy_checked=False)
    assert dims["completeness"] == 7.5 and dims["readability"] == 9.0 and dims["structure"] == 10
    assert dims["accuracy"] == round((7.5 + 9 + 10) / 3, 1)  # not measured: the others' mean
    assert overall == 6.5  # 10 - 2.5 - 1
    assert score_findings([major], True)[0] == MAJOR_CEILING  # 7.5, but a major finding is open
    two = [minor, Finding("B", "long", "readability", "minor", "z")]
    assert score_findings(two, True)[0] == 8.0
    three = [*two, Finding("B", "x", "structure", "minor", "")]
    assert score_findings(three, True)[0] == 7.0  # three minor findings: below the default 8
    many = [Finding("A", "prose", "readability", "minor", str(i)) for i in range(9)]
    assert score_findings(many, accuracy_checked=True)[1]["readability"] == 5.0  # one check: at most 5


def test_findings_that_are_gone_are_addressed():
    first = checklist_review(TASK, article(GOOD, "Revision helps."), OUTLINE, 80)
    items = [{**imp, "id": f"r1.{i}"} for i, imp in enumerate(first["improvements"], 1)]
    second = checklist_review(TASK, article(GOOD, GOOD2), OUTLINE, 80, open_items=items)
    assert second["addressed"] == [i["id"] for i in items]


def test_the_embedded_model_is_reviewed_by_the_checklist_unless_a_critic_is_named(tmp_path):
    assert load_settings(None, flags={"model": "local/smollm2"}).critic == "checklist"
    named = load_settings(None, flags={"model": "local/smollm2", "critic_model": "openai/x"})
    assert named.critic == "llm"
    assert load_settings(None, flags={"model": "openai/x"}).critic == "llm"
    assert load_settings(None, flags={"model": "openai/x", "critic": "checklist"}).critic == "checklist"


def test_a_run_reviewed_by_the_checklist(scripted, runs_dir):
    scripted.responder = ScriptedResponder(scores=[9], sections=2)
    args = ["--runs-dir", str(runs_dir), "--thread-id", "ck", "--max-rounds", "2"]
    result = CliRunner().invoke(app, ["write", TASK, "--model", "fake/w", "--critic", "checklist", *args])
    assert result.exit_code == 0, result.output
    assert not any(c["step"].startswith("review") for c in scripted.history)  # no critic call
    text = (runs_dir / "ck.md").read_text()
    assert "source: checklist" in text and "Checklist review" in text
    shown = " ".join(result.output.split())
    assert "checklist" in shown and ("passed the checklist" in shown or "done max_rounds" in shown
                                     or "done no_new_critique" in shown)  # fmt: skip


@pytest.mark.parametrize(
    ("title", "why"),
    [
        ("Why Do Writers Revise Their Drafts?", "repeats the task"),
        ("Why do writer revise their draft", "repeats the task"),
        ("This is why many writers make it all worth while.", "ends with '.'"),
        ("19th Century,", "ends with ','"),
        ("to answer with javascript code", "starts in lower case"),
        ("Write the introduction here", "an instruction"),
        ("and the rest of it", "a fragment"),
        ("The blank page", "shares no word with the task"),
        ("The formation of writers' habits is one of the most fascinating things ever seen", "words long"),
    ],
)
def test_titles_that_cannot_head_a_section(title, why):
    from reflectcli.writing.titles import title_problem

    assert why in (title_problem(title, TASK, strict=True) or "")


GOOD_TITLES = ["How revision helps", "Revising in practice", "Why first drafts fall short", "What drafts do"]


@pytest.mark.parametrize("title", [*GOOD_TITLES, "Drafts: a short history"])
def test_titles_that_can(title):
    from reflectcli.writing.titles import title_problem

    assert title_problem(title, TASK, strict=True) is None


def test_an_outline_drops_sections_that_cannot_head_one_and_refuses_when_none_can():
    from pydantic import ValidationError

    from reflectcli.writing.schemas import Outline

    sections = [{"title": "Why do writers revise their drafts?"}, {"title": "How revision helps"},
                {"title": "19th Century,"}]  # fmt: skip
    outline = Outline.model_validate({"sections": sections}, context={"task": TASK, "strict": True})
    assert [s.title for s in outline.sections] == ["How revision helps"] and len(outline.dropped) == 2
    assert len(Outline.model_validate({"sections": sections}).sections) == 3  # no task, no rule
    with pytest.raises(ValidationError, match="repeats the task"):
        Outline.model_validate({"sections": [sections[0], sections[2]]}, context={"task": TASK})
    # a capable writer may give a section to one example the task does not name
    assert title_problem_free("The Vellmar psalter", "The history of printing")


def title_problem_free(title: str, task: str) -> bool:
    from reflectcli.writing.titles import title_problem

    return title_problem(title, task) is None and title_problem(title, task, strict=True) is not None
