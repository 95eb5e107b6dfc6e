"""Section revision: sections are the outline's titles, untouched bytes stay untouched, and a
rewrite never adds headings, whatever the model answers."""

from __future__ import annotations

import re

import pytest

from reflectcli.graph.revise import Reviser, plan_revision
from reflectcli.models.fake import FakeClient
from reflectcli.writing.markdown import headings
from reflectcli.writing.textops import (
    clean_section,
    cut_loop,
    find_loop,
    locate_sections,
    replace_bodies,
    section_bodies,
    strip_chatter,
    trim_generation,
)

TITLES = ["Why revise", "How to revise", "What changes"]

ODD = {
    "canonical": "## Why revise\n\nOne.\n\n## How to revise\n\nTwo.\n\n## What changes\n\nThree.",
    "single newline after heading": "## Why revise\nOne.\n## How to revise\nTwo.\n## What changes\nThree.\n",
    "extra blank lines": "## Why revise\n\n\n\nOne.\n\n\n\n## How to revise\n\nTwo.\n\n\n"
    "## What changes\n\nThree.\n\n\n",
    "text before the first heading": "A preface line.\n\n## Why revise\n\nOne.\n\n## How to revise\n\nTwo."
    "\n\n## What changes\n\nThree.",
    "trailing spaces in a heading": "## Why revise   \n\nOne.\n\n## How to revise \t\n\nTwo.\n\n"
    "## What changes\n\nThree.",
    "inner ## line in a section": "## Why revise\n\nOne.\n\n## A note\n\nStill one.\n\n## How to revise"
    "\n\nTwo.\n\n## What changes\n\nThree.",
    "inner ### line in a section": "## Why revise\n\nOne.\n\n### A note\n\nStill one.\n\n## How to revise"
    "\n\nTwo.\n\n## What changes\n\nThree.",
    "a fence with heading-like comments": "## Why revise\n\nOne.\n\n```python\n# How to revise\n## What "
    "changes\nx = 1\n```\n\n## How to revise\n\nTwo.\n\n## What changes\n\nThree.",
    "setext headings": "Why revise\n==========\n\nOne.\n\nHow to revise\n-------------\n\nTwo.\n\n"
    "What changes\n------------\n\nThree.",
    "a sub-heading named like a later section": "## Why revise\n\nOne.\n\n### What changes\n\nSub.\n\n"
    "## How to revise\n\nTwo.\n\n## What changes\n\nThree.",
    "other heading levels": "# Why revise\n\nOne.\n\n### How to revise\n\nTwo.\n\n## What changes:\n\nThree.",
    "crlf": "## Why revise\r\n\r\nOne.\r\n\r\n## How to revise\r\n\r\nTwo.\r\n\r\n"
    "## What changes\r\n\r\nThree.",
}  # fmt: skip


@pytest.mark.parametrize("name", list(ODD))
@pytest.mark.parametrize("target", [0, 1, 2])
def test_untouched_bytes_stay_untouched(name, target):
    text = ODD[name]
    spans = locate_sections(text, TITLES)
    assert None not in spans, name
    new = replace_bodies(text, TITLES, {target: "NEW BODY"})
    span = spans[target]
    old_body = text[span.body_start : span.body_end]
    lead = old_body[: len(old_body) - len(old_body.lstrip())]
    trail = old_body[len(old_body.rstrip()) :]
    # everything outside the target's body, byte for byte, with its surrounding whitespace kept
    assert (
        new
        == text[: span.body_start]
        + (lead or "\n\n")
        + "NEW BODY"
        + (trail or ("\n\n" if span.body_end < len(text) else ""))
        + text[span.body_end :]
    )
    bodies = section_bodies(new, TITLES)
    assert bodies[target] == "NEW BODY"
    assert [b for i, b in enumerate(bodies) if i != target] == [
        b for i, b in enumerate(section_bodies(text, TITLES)) if i != target
    ]


def test_a_deeper_heading_belongs_to_its_section_and_a_sibling_ends_it():
    bodies = section_bodies(ODD["inner ### line in a section"], TITLES)
    assert bodies[0] == "One.\n\n### A note\n\nStill one."
    # a heading of the section's own level is the next section (of no outline title): not ours
    assert section_bodies(ODD["inner ## line in a section"], TITLES)[0] == "One."


def test_a_missing_title_is_none_and_cannot_be_replaced():
    text = "## Why revise\n\nOne.\n\n## Something else\n\nTwo."
    assert section_bodies(text, TITLES)[1:] == [None, None]
    with pytest.raises(ValueError):
        replace_bodies(text, TITLES, {1: "x"})


WHOLE = (
    "Here is the revised section:\n\n## Why revise\n\nOld one.\n\n## How to revise\n\n"
    "Two, better.\n\n## What changes\n\nOld three.\n\nI hope this helps!"
)


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        (WHOLE, "Two, better."),  # the whole article: our part only
        ("## How to revise\n\nBetter two.", "Better two."),
        ("Better two.\n\n## What changes\n\nThree again.", "Better two."),  # cut at a new section
        ("Better two.\n\n# Conclusion\n\nMore.", "Better two.\n\n### Conclusion\n\nMore."),  # demoted
        ("Better two.\n\nAside\n-----\n\nMore.", "Better two.\n\n### Aside\n\nMore."),  # setext too
        ("**How to revise:**\nBetter two.", "Better two."),
        ("```markdown\nBetter two.\n```", "Better two."),
        ("Sure! Here is the rewritten text:\n\nBetter two.\n\nNote: I added an example.", "Better two."),
        ("Better two.\n\n### A sub-point\n\nStill two.", "Better two.\n\n### A sub-point\n\nStill two."),
        (
            "Better two.\n\n### What changes\n\nThree.",
            "Better two.\n\n### What changes\n\nThree.",
        ),  # a sub-heading
        (
            "Better two.\n\n```python\n# What changes\n## Why revise\nx = 1\n```",
            "Better two.\n\n```python\n# What changes\n## Why revise\nx = 1\n```",
        ),  # code is not headings
        ("<section>\nBetter two.\n</section>", "Better two."),  # the prompt's delimiters echoed
    ],
)
def test_a_section_answer_never_adds_a_section(answer, expected):
    """Whatever the answer holds, the body has no heading at or above its section's level (##)
    and none naming an outline section: nothing in it can become a section next round."""
    body = clean_section(answer, "How to revise", TITLES)
    assert body == expected
    assert all(h.level > 2 for h in headings(body))
    text = replace_bodies(ODD["canonical"], TITLES, {1: body})
    assert section_bodies(text, TITLES) == ["One.", body, "Three."]  # it stays one section's body


def test_strip_chatter_keeps_real_content():
    text = "Revision is work.\n\nIt pays."
    assert strip_chatter(text) == text
    assert strip_chatter("Here are the revised sections:\n- a\n- b") == "- a\n- b"
    assert strip_chatter("Sure! Here it is:\n\nRevision is work.") == "Revision is work."
    # a section's own first or last sentence is not chatter about the answer
    for human in ("Here are three ideas:\n- a\n- b", "The following musicians played on it:\n\n- Ringo",
                  "Revision is work.\n\nNote: this applies to version 3 only.",
                  "It pays.\n\nThis version of the library supports Python 3.8."):  # fmt: skip
        assert strip_chatter(human) == human


def state_with(text: str, improvements: list[dict]) -> dict:
    items = [{**imp, "id": f"r1.{i}"} for i, imp in enumerate(improvements, 1)]
    review = {"round": 1, "version": 1, "score": 6, "feedback": "f", "source": "llm",
              "improvements": items}  # fmt: skip
    return {
        "task": "Why do writers revise?",
        "params": {
            "policy": {"revision": "section"},
            "language": None,
            "section_tokens": 300,
            "threshold": 8,
            "max_rounds": 3,
        },  # fmt: skip
        "outline": {"sections": [{"title": t, "goal": ""} for t in TITLES]},
        "versions": [{"n": 1, "round": 0, "kind": "draft", "text": text}],
        "reviews": [review],
        "decisions": [{"round": 1, "decision": "revise", "reason": "below_threshold"}],
        "trace": [],
    }


@pytest.mark.parametrize("name", list(ODD))
def test_the_reviser_keeps_other_sections_byte_for_byte(name):
    text = ODD[name]
    state = state_with(text, [{"section": "How to revise", "issue": "Add an example.",
                               "severity": "major"}])  # fmt: skip
    writer = FakeClient().enqueue(WHOLE)  # answers with the whole article
    update = Reviser(writer)(state)
    new = update["versions"][0]["text"]
    span = locate_sections(text, TITLES)[1]
    assert new.startswith(text[: span.body_start])  # everything before section 2's body
    assert new.endswith(text[span.body_end :])  # everything after it
    assert section_bodies(new, TITLES)[1] == "Two, better."
    assert len(re.findall(r"^#{1,3} ", new, re.M)) == len(re.findall(r"^#{1,3} ", text, re.M))
    assert writer.steps() == ["revise:r2:s2"]


def test_a_section_rewrite_sends_the_section_not_the_article():
    long = {t: " ".join(f"{t} sentence {i}." for i in range(120)) for t in TITLES}
    text = "\n\n".join(f"## {t}\n\n{b}" for t, b in long.items())
    state = state_with(text, [{"section": "What changes", "issue": "Cut.", "severity": "minor"}])
    writer = FakeClient().enqueue(long["What changes"])
    Reviser(writer)(state)
    prompt = writer.history[0]["messages"][-1]["content"]
    assert long["What changes"] in prompt
    assert long["Why revise"] not in prompt and long["How to revise"][:300] not in prompt


def test_most_sections_named_are_rewritten_in_one_call():
    text = ODD["canonical"]
    imps = [{"section": t, "issue": f"Improve {t}.", "severity": "major"} for t in TITLES]
    state = state_with(text, imps)
    plan = plan_revision(state, state["versions"][0], state["reviews"][0], 2)
    assert plan["together"] and plan["targets"] == [0, 1, 2]
    answer = "\n\n".join(f"## {t}\n\nNew {i}." for i, t in enumerate(TITLES))
    writer = FakeClient().enqueue(answer)
    update = Reviser(writer)(state)
    assert writer.steps() == ["revise:r2"]
    assert section_bodies(update["versions"][0]["text"], TITLES) == ["New 0.", "New 1.", "New 2."]


def test_the_plan_weighs_the_article_each_cached_section_rewrite_reads():
    """With prompt_cache on every section rewrite carries the reviewed article, read from the
    provider's cache: cheap at a tenth of the input price, not at the full price."""
    long = {t: " ".join(f"{t} sentence {i}." for i in range(120)) for t in TITLES}
    text = "\n\n".join(f"## {t}\n\n{b}" for t, b in long.items())
    imps = [{"section": t, "issue": f"Improve {t}.", "severity": "major"} for t in TITLES[:2]]
    state = state_with(text, imps)
    base, review = state["versions"][0], state["reviews"][0]
    assert not plan_revision(state, base, review, 2)["together"]  # no article in a rewrite
    assert not plan_revision(state, base, review, 2, cached=0.1)["together"]
    assert plan_revision(state, base, review, 2, cached=1.0)["together"]  # the article 2× in full
    answer = "\n\n".join(f"## {t}\n\nNew {i}, longer than before." for i, t in enumerate(TITLES[:2]))
    writer = FakeClient(caches_prompts=True, cache_share=1.0).enqueue(answer)
    Reviser(writer)(state)
    assert writer.steps() == ["revise:r2"]


def test_a_section_missing_from_a_together_answer_keeps_its_text():
    imps = [{"section": t, "issue": f"Improve {t}.", "severity": "major"} for t in TITLES]
    state = state_with(ODD["canonical"], imps)
    writer = FakeClient().enqueue("## Why revise\n\nNew one, longer.\n\n## What changes\n\nNew three.")
    update = Reviser(writer)(state)
    assert section_bodies(update["versions"][0]["text"], TITLES) == [
        "New one, longer.", "Two.", "New three."
    ]  # fmt: skip
    assert any(e.get("guard") == "missing" for e in update["trace"])


def test_every_rewrite_rejected_makes_no_version():
    state = state_with(ODD["canonical"], [{"section": "Why revise", "issue": "x", "severity": "major"}])
    update = Reviser(FakeClient().enqueue(""))(state)
    assert "versions" not in update and update["rejected"] == 2


# --- loops and cut generations -------------------------------------------------------------


def test_find_loop_ignores_prose_and_finds_repetition():
    prose = (
        "The printing press changed how ideas spread. The printing press also changed who could "
        "read. In the history of the printing press, few inventions mattered more."
    )
    assert find_loop(prose) is None
    looped = "Start. " + "we keep writing the same sentence again and again here. " * 4
    assert find_loop(looped) == looped.index("we keep", 10)
    text, cut = cut_loop(looped)
    assert cut and text == "Start. we keep writing the same sentence again and again here."


def test_a_text_stopped_by_the_cap_is_cut_to_its_last_sentence():
    text, cut = trim_generation("One full sentence. Another one. And a half", "length")
    assert (text, cut) == ("One full sentence. Another one.", "length")
    assert trim_generation("Complete.", "stop") == ("Complete.", None)


def test_a_rewrite_of_a_deeper_section_keeps_its_headings_below_it():
    state = state_with(ODD["other heading levels"], [{"section": "How to revise", "issue": "x",
                                                      "severity": "major"}])  # fmt: skip
    writer = FakeClient().enqueue("Two.\n\n### Sub\n\nOk.")  # the section is a ### one
    new = Reviser(writer)(state)["versions"][0]["text"]
    assert section_bodies(new, TITLES) == ["One.", "Two.\n\n#### Sub\n\nOk.", "Three."]
