import pytest

from reflectcli.writing.textops import assemble, clean_article, clean_section, rewrite_guard

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
