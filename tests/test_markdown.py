"""The one Markdown model: byte-exact sections on generated documents (fences, `###` headings,
setext headings, HTML blocks, tables), and the reader and the HTML export seeing the same headings."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from reflectcli.output.exporters import markdown_to_html
from reflectcli.sources.readers import read_path
from reflectcli.writing.markdown import headings
from reflectcli.writing.textops import locate_sections, replace_bodies, section_bodies

WORD = st.text(alphabet="abcdefghijklmnop", min_size=2, max_size=7)


def blocks(titles: list[str]) -> st.SearchStrategy[str]:
    """One block of a body; the code-like ones hold heading-like lines naming outline titles."""
    named = st.sampled_from(titles)
    sentence = st.lists(WORD, min_size=1, max_size=8).map(lambda w: " ".join(w).capitalize() + ".")
    return st.one_of(
        st.lists(sentence, min_size=1, max_size=3).map(" ".join),
        st.tuples(st.sampled_from(["```", "~~~", "```python", "````text"]), named, named).map(
            lambda f: f"{f[0]}\n# {f[1]}\n## {f[2]}\nx = 1\n{f[0][0] * max(3, len(f[0].rstrip('ptyhonex')))}"
        ),
        named.map(lambda t: f"    # {t}\n    ## {t}"),  # indented code
        named.map(lambda t: f"<div>\n# {t}\n## {t}\n</div>"),  # an HTML block
        named.map(lambda t: f"| # {t} | b |\n|---|---|\n| ## {t} | 2 |"),  # a table
        st.tuples(st.sampled_from(["###", "####"]), st.one_of(named, WORD)).map(lambda h: f"{h[0]} {h[1]}"),
        named.map(lambda t: f"> # {t}"),  # a quotation
    )


@st.composite
def documents(draw):
    titles = draw(st.lists(WORD, min_size=1, max_size=5, unique=True).map(lambda ws: [w.title() for w in ws]))
    body = st.lists(blocks(titles), min_size=1, max_size=4).map("\n\n".join)
    bodies = [draw(body) for _ in titles]
    styles = [draw(st.sampled_from(["atx", "closed", "setext"])) for _ in titles]
    preface = draw(st.sampled_from(["", "A preface.\n\n", "# The article\n\n"]))
    return titles, bodies, styles, preface, draw(body)


def build(titles, bodies, styles, preface) -> str:
    heading = {"atx": "## {}", "closed": "## {} ##", "setext": "{}\n" + "-" * 5}
    return preface + "\n\n".join(
        f"{heading[s].format(t)}\n\n{b}" for t, b, s in zip(titles, bodies, styles, strict=True)
    )


@settings(max_examples=80, deadline=None)
@given(documents(), st.data())
def test_sections_of_generated_documents_are_found_and_replaced_byte_for_byte(doc, data):
    titles, bodies, styles, preface, new = doc
    text = build(titles, bodies, styles, preface)
    assert section_bodies(text, titles) == bodies
    k = data.draw(st.integers(0, len(titles) - 1))
    replaced = replace_bodies(text, titles, {k: new})
    assert replaced == build(titles, [new if i == k else b for i, b in enumerate(bodies)], styles, preface)
    assert section_bodies(replaced, titles) == [new if i == k else b for i, b in enumerate(bodies)]
    spans = locate_sections(text, titles)
    assert all(s.level == 2 for s in spans)


def test_only_real_headings_are_headings():
    text = (
        "Title\n=====\n\n```python\n# Results\n```\n\n    # indented\n\n<div>\n# html\n</div>\n\n"
        "> # quoted\n\nSub\n---\n\n### Deep ###\n"
    )
    assert [(h.level, h.title) for h in headings(text)] == [(1, "Title"), (2, "Sub"), (3, "Deep")]
    first = headings(text)[0]
    assert text[first.start : first.end] == "Title\n====="


def test_the_markdown_reader_splits_at_headings_not_at_code_comments(tmp_path):
    path = tmp_path / "notes.md"
    path.write_text(
        "# Guide\n\nIntro.\n\n## Setup\n\n```sh\n# Results\npip install x\n```\n\n## Results\n\nIt works.\n"
    )
    doc = read_path(path)
    assert doc.title == "Guide"
    assert [(s.heading, s.text) for s in doc.segments] == [
        ("Guide", "Intro."), ("Guide › Setup", "```sh\n# Results\npip install x\n```"),
        ("Guide › Results", "It works."),
    ]  # fmt: skip


def test_the_html_export_keeps_code_as_code_and_escapes_everything():
    page = markdown_to_html(
        "## Setup\n\n```python\n# Results\nx = '<b>'\n```\n\n<script>x()</script>\n\n### Deep"
    )
    assert page.count("<h2>") == 1 and "<h3>Deep</h3>" in page and "Results</h" not in page
    assert "<pre><code" in page and "&lt;script&gt;" in page and "<script" not in page


def test_the_artifact_nests_an_articles_headings_but_not_its_code():
    from reflectcli.output.artifacts import _demote

    text = "## Setup\n\n```python\n# Results\n```\n\nSub\n---\n\nText."
    assert _demote(text) == "#### Setup\n\n```python\n# Results\n```\n\n#### Sub\n\nText."


def test_a_fence_left_open_is_refused_in_a_rewrite_and_closed_in_a_draft():
    """A section whose code fence is never closed would turn every later section into code."""
    from reflectcli.writing.markdown import closed, left_open
    from reflectcli.writing.textops import assemble, rewrite_guard, section_bodies

    good = "Intro words.\n\n```python\nprint(1)\n```"
    broken = good + " A sentence glued to the closing fence."
    assert not left_open(good) and left_open(broken) and left_open("~~~~\ncode\n```")
    assert rewrite_guard(good, broken) == "left_open"
    assert rewrite_guard(broken, broken + " more") is None  # it was open before: not this rewrite's doing
    outline = [{"title": "One"}, {"title": "Two"}]
    assert section_bodies(assemble(outline, [broken, "Second."]), ["One", "Two"])[1] is None
    repaired = assemble(outline, [closed(broken), "Second."])
    assert section_bodies(repaired, ["One", "Two"])[1] == "Second."
    assert closed("~~~~\ncode\n```").endswith("\n~~~~") and closed(good) == good
