import json

import pytest

from reflectcli.models.fake import review_json
from reflectcli.runner import Runner
from reflectcli.writing.markdown import headings
from reflectcli.writing.textops import (
    assemble,
    clean_article,
    clean_section,
    find_loop,
    replace_bodies,
    rewrite_guard,
    section_bodies,
    trim_generation,
)
from tests.helpers import quiet_ui, readme, settings

PREV = "x" * 777


@pytest.mark.parametrize(
    ("candidate", "guard"),
    [
        ("", "empty"),
        ("   \n ", "empty"),
        ("x" * 300, "too_short"),
        ("x" * 35_000, "too_long"),  # the seed's 777 -> 35,000 blow-up
        ("x" * 389, None),
        ("x" * 4_662, None),
    ],
)
def test_rewrite_guard(candidate, guard):
    assert rewrite_guard(PREV, candidate) == guard


def test_clean_section_drops_repeated_heading_and_fences():
    assert clean_section("```\n## Why\n\nBody text.\n```", "Why") == "Body text."
    assert clean_section("**Why:**\nBody.", "Why") == "Body."


def test_clean_article_drops_chatter_before_first_section():
    text = "Sure! Here is the revised article:\n\n## A\n\nOne.\n\n## B\n\nTwo."
    assert clean_article(text) == "## A\n\nOne.\n\n## B\n\nTwo."
    assert clean_article("```markdown\n## A\n\nOne.\n```") == "## A\n\nOne."


def test_assemble_joins_sections_under_headings():
    outline = [{"title": "A", "goal": ""}, {"title": "B", "goal": ""}]
    assert assemble(outline, ["one", "two"]) == "## A\n\none\n\n## B\n\ntwo"


# --- Markdown, not patterns: the symptoms of issue 21 --------------------------------------

RESULTS = (
    "## Method\n\nWe timed the loop.\n\n```python\n# Results\nprint(times)\n```\n\n"
    "## Results\n\nIt took 3 s.\n\n## Discussion\n\nFast enough."
)


def test_a_results_comment_in_a_fence_is_not_the_results_section():
    titles = ["Method", "Results", "Discussion"]
    assert section_bodies(RESULTS, titles) == [
        "We timed the loop.\n\n```python\n# Results\nprint(times)\n```", "It took 3 s.", "Fast enough."
    ]  # fmt: skip
    new = replace_bodies(RESULTS, titles, {1: "It took 2 s."})
    assert new == RESULTS.replace("It took 3 s.", "It took 2 s.")


PRINT_TITLES = ["Before the press", "Spread of print", "Readers and writers"]


def test_a_drafted_code_block_with_section_titles_as_comments_erases_nothing(fake, runs_dir):
    """The issue's draft: section 1 ends in a code block whose comments repeat the next titles."""
    bodies = [
        "Scribes copied books by hand.\n\n```python\n# Spread of print\ncopies = 1\n"
        "## Readers and writers\nreaders = copies * 10\n```",
        "Presses spread along trade routes.",
        "More readers made more writers.",
    ]
    answers = {f"draft:s{i + 1}": body for i, body in enumerate(bodies)}
    plan = json.dumps({"sections": [{"title": t, "goal": "g"} for t in PRINT_TITLES]})
    fake.responder = lambda step, messages: plan if step == "plan" else (
        answers.get(step) or review_json(9, section=PRINT_TITLES[0]))  # fmt: skip
    state = Runner(quiet_ui()).write("How print spread", settings(runs_dir, threshold=8), None).state
    draft = state["versions"][0]["text"]
    assert [h.title for h in headings(draft)] == PRINT_TITLES
    assert section_bodies(draft, PRINT_TITLES) == bodies


def test_a_rewrites_sub_heading_never_takes_over_the_section_it_names():
    """Round 1's rewrite of Intro holds `### Setup`; round 2 still finds `## Setup` as Setup."""
    text = "## Intro\n\nWhy.\n\n## Setup\n\nInstall it.\n\n## Use\n\nRun it."
    titles = ["Intro", "Setup", "Use"]
    body = clean_section("Why, better.\n\n### Setup\n\nA note on setup.", "Intro", titles)
    assert body == "Why, better.\n\n### Setup\n\nA note on setup."  # a sub-heading of Intro's
    sub = replace_bodies(text, titles, {0: body})
    assert section_bodies(sub, titles) == [body, "Install it.", "Run it."]
    assert clean_section("Why, better.\n\n## Setup\n\nInstall.", "Intro", titles) == "Why, better."


def test_a_phrase_that_prose_repeats_is_no_loop():
    """Names of bodies, legal phrases and links recur in real prose; a loop runs to the end."""
    prose = (
        "The United Nations Educational, Scientific and Cultural Organization was founded in 1945. "
        "Its charter was signed in London. Today the United Nations Educational, Scientific and "
        "Cultural Organization has 194 member states, and its seat is in Paris."
    )
    assert find_loop(prose) is None and trim_generation(prose, "stop") == (prose, None)
    assert find_loop(readme("rich")) is None  # it links rich.console.Console.status twice in a row


@pytest.mark.parametrize(
    "looped",
    [
        "Revision matters. " + "The draft is a record of what the writer thought. " * 40,
        "Start. " + "we keep writing the same sentence again and again here. " * 3 + "we keep wri",
        "修改很重要。" + "初稿只是记录了作者当时的想法而已。" * 6,  # a CJK character is a word
        "Revision matters. "
        + " ".join(f"Revision is important to every writer. It helps writer {i}." for i in range(5)),
        "```markdown\nRevision matters. " + "The draft is a record of what the writer thought. " * 8,
        "- Revision matters.\n" + "- The draft is a record of what the writer thought at the time.\n" * 5,
    ],
    ids=["sentence", "partial last copy", "chinese", "varied sentences", "inside a markdown fence", "list"],
)
def test_a_loop_is_caught_and_cut_back_to_its_first_copy(looped):
    text, cut = trim_generation(looped, "length")
    assert cut == "loop" and len(text) < len(looped) * 0.6


@pytest.mark.parametrize(
    "text",
    [
        "Intro.\n\n```python\n" + "print('the same line of code again and again here')\n" * 8 + "```",
        "| a | b |\n|---|---|\n" + "| the same cell of the table again | again and again here |\n" * 8,
        "> " + "the same quoted words of the speech again and again here " * 4,
    ],
    ids=["code", "table", "quotation"],
)
def test_code_tables_and_quotations_are_never_read_for_loops(text):
    assert find_loop(text) is None


def test_a_title_of_punctuation_only_is_compared_as_written():
    assert clean_section("## ...\n\n```\ncode\n```", "...", ["...", "B"]) == "```\ncode\n```"
    assert clean_section("```\ncode\n```", "...", ["...", "B"]) == "```\ncode\n```"


def test_the_token_estimate_counts_each_wide_character_as_one():
    """The estimate's two ways of counting (none for ASCII, a regex otherwise) agree with the
    character-by-character rule: code points above U+2E7F count one token each."""
    from hypothesis import given
    from hypothesis import settings as hsettings
    from hypothesis import strategies as st

    from reflectcli.writing.textops import estimate_tokens

    def by_hand(text):
        wide = sum(1 for ch in text if ord(ch) > 0x2E7F)
        return (len(text) - wide) // 4 + wide + 1

    @hsettings(max_examples=300, deadline=None)
    @given(st.text())
    def agrees(text):
        assert estimate_tokens(text) == by_hand(text)

    agrees()
    assert estimate_tokens("abcdefgh") == 3 and estimate_tokens("\u2e7f\u2e80中文") == 4
