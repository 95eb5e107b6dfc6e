"""Real, human-written text through every guard that can cut or reject model text: the READMEs
of installed packages (on every machine with the test extra) as a capable writer's answers.
Nothing of them may be cut as a loop, lost to cleaning, or rejected as a rewrite."""

from __future__ import annotations

import json

import pytest
from markdown_it import MarkdownIt

from reflectcli.models.fake import review_json
from reflectcli.runner import Runner
from reflectcli.writing.textops import clean_article, clean_section, section_bodies, trim_generation
from tests.helpers import quiet_ui, readme, settings

PACKAGES = ("rich", "typer", "pydantic", "trafilatura", "httpx", "openai", "ruff", "charset-normalizer")


def readme_sections(package: str, most: int = 5) -> list[tuple[str, str]]:
    """A README's `##` sections (title, body with its sub-headings and code), the first `most`;
    split by markdown-it's own tokens, not by the code under test."""
    text = readme(package).replace("\r\n", "\n")
    lines = text.split("\n")
    tokens = MarkdownIt("commonmark").enable("table").parse(text)
    found = [(int(t.tag[1:]), tokens[i + 1].content, *t.map) for i, t in enumerate(tokens)
             if t.type == "heading_open" and t.level == 0]  # fmt: skip
    out = []
    for i, (level, title, _, first) in enumerate(found):
        last = next((g[2] for g in found[i + 1 :] if g[0] <= 2), len(lines))
        body = "\n".join(lines[first:last]).strip()
        if level == 2 and len(body) >= 200 and title not in {t for t, _ in out}:
            out.append((title, body))
    return out[:most]


@pytest.mark.parametrize("package", PACKAGES)
def test_a_real_section_is_kept_whole_by_every_cleaner(package):
    sections = readme_sections(package)
    titles = [t for t, _ in sections]
    assert len(sections) >= 2, package
    article = "\n\n".join(f"## {t}\n\n{b}" for t, b in sections)
    for title, body in sections:
        assert trim_generation(body, "stop") == (body, None)
        assert clean_section(body, title, titles) == body
        assert clean_section(f"## {title}\n\n{body}", title, titles) == body
    assert clean_article(article) == article
    assert section_bodies(article, titles) == [b for _, b in sections]


class RealWriter:
    """A writer answering with a README's real sections: drafts, then a revision of them all."""

    def __init__(self, sections: list[tuple[str, str]]):
        self.sections = sections

    def __call__(self, step: str, messages: list[dict[str, str]]) -> str:
        kind = step.split(":")[0]
        if kind == "plan":
            return json.dumps({"sections": [{"title": t, "goal": "g"} for t, _ in self.sections]})
        if kind == "draft":
            return self.sections[int(step.split(":s")[1]) - 1][1]
        if kind == "review":
            return review_json(6 if step == "review:r1" else 9, section=self.sections[0][0])
        if kind == "revise":
            if ":s" in step:  # one section
                return self.sections[int(step.split(":s")[1]) - 1][1]
            return "\n\n".join(f"## {t}\n\n{b}" for t, b in self.sections)
        raise AssertionError(step)


@pytest.mark.parametrize("mode", ["full", "section"])
@pytest.mark.parametrize("package", PACKAGES[:4])
def test_a_writer_answering_with_real_sections_loses_nothing(fake, runs_dir, package, mode):
    sections = readme_sections(package)
    fake.responder = RealWriter(sections)
    flags = {"threshold": 8, "max_rounds": 2, "max_sections": len(sections), "policy": {"revision": mode}}
    state = Runner(quiet_ui()).write("Explain it.", settings(runs_dir, **flags), None).state
    cuts = [e for e in state["trace"] if e.get("kind") in {"loop", "truncated", "guard"}]
    assert not cuts, cuts
    titles = [t for t, _ in sections]
    assert [v["kind"] for v in state["versions"]] == ["draft", "revision"]  # the rewrite stood
    for version in state["versions"]:
        assert section_bodies(version["text"], titles) == [b for _, b in sections]
