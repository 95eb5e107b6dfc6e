"""Nothing of the writer's is lost without a word: a revision that drops a section, a licence, a
table or a code block of the version it revised is rejected for that part, and the trace says
so; the checklist reads code, HTML and tables as what they are, never as prose."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from reflectcli.cli.app import app
from reflectcli.models.fake import ScriptedResponder, prompt_text
from reflectcli.writing.checklist import review_article
from reflectcli.writing.parts import describe, lost_parts, parts
from reflectcli.writing.textops import section_bodies

README = """# Tidy

A small tool that tidies folders.

## Install

Install it with pip:

```
pip install tidy
```

## Usage

| option | meaning |
|---|---|
| `-n` | dry run |

<!-- keep this list in sync with cli.py -->
Run `tidy DIR` to sort a folder.

## Why

Folders fill up, and sorting them by hand takes an afternoon.

## License

Copyright (c) 2021 Ada Tidy

Permission is hereby granted, free of charge, to any person obtaining a copy of this software.
"""
TITLES = ["Install", "Usage", "Why", "License"]
PROSE = "The tool is easy to set up, and a reader can start using it within a minute of reading."


def test_the_parts_of_a_readme():
    kinds = [(p.kind, p.shown) for p in parts(README)]
    assert ("code", "pip install tidy") in kinds
    assert ("table", "| option | meaning |") in kinds
    assert ("html", "<!-- keep this list in sync with cli.py -->") in kinds
    assert ("licence", "Copyright (c) 2021 Ada Tidy") in kinds
    assert [s for k, s in kinds if k == "heading"] == ["Tidy", "Install", "Usage", "Why", "License"]
    assert parts("A driving licence is needed to rent a car, and a licence costs money.") == []


@pytest.mark.parametrize(
    ("title", "old", "new", "kind"),
    [
        ("Install", "Install it with pip:\n\n```\npip install tidy\n```", PROSE, "code"),
        ("Usage", "| option | meaning |\n|---|---|\n| `-n` | dry run |", PROSE, "table"),
        ("License", "MIT. Use it as you like.", "Free to use.", "licence"),
        ("Notes", "Some notes.\n\n### Caveats\n\nIt is slow.", "Some notes. It is slow.", "heading"),
        ("Notes", "<!-- generated -->\nText.", "Text.", "html"),
    ],
)
def test_what_a_rewrite_drops_is_found(title, old, new, kind):
    lost = lost_parts(old, new, title)
    assert [p.kind for p in lost] == [kind]
    assert describe(lost)


def test_what_a_rewrite_keeps_is_not_lost():
    old = "Install it:\n\n```\npip install tidy\n```\n\n### Caveats\n\nSlow."
    new = "Install it with pip, then run it:\n\n    pip install tidy\n\n#### Caveats\n\nIt is slow."
    assert lost_parts(old, new) == []  # the same code indented, the heading demoted


class Critic(ScriptedResponder):
    """Names every section; the writer turns each section into one paragraph of prose."""

    @staticmethod
    def rewrite(body: str) -> str:
        return PROSE if any(mark in body for mark in ("```", "|", "Copyright")) else body + " It is clearer."

    def __call__(self, step, messages):
        if step.startswith("review"):
            score = 6 if step == "review:r1" else 9
            items = [{"section": t, "issue": f"Add one concrete example to {t}.", "severity": "major"}
                     for t in TITLES]  # fmt: skip
            return json.dumps({"score": score, "dimensions": dict.fromkeys(
                ("accuracy", "completeness", "readability", "structure"), score),
                "feedback": "The draft is clear but abstract; it needs examples.",
                "improvements": items if score < 9 else []})  # fmt: skip
        if step.startswith("revise"):
            prompt = prompt_text(messages)
            if "<section>" in prompt:  # one section
                return self.rewrite(prompt.split("<section>\n", 1)[1].split("\n</section>", 1)[0])
            article = prompt.split("<article>\n", 1)[1].split("\n</article>", 1)[0]
            asked = prompt.split("</article>", 1)[1]
            named = [t for t in TITLES if f"\n## {t}\n" in asked or "Rewrite the whole" in asked]
            bodies = dict(zip(TITLES, section_bodies(article, TITLES), strict=True))
            return "\n\n".join(f"## {t}\n\n{self.rewrite(bodies[t])}" for t in named)
        return super().__call__(step, messages)


@pytest.mark.parametrize("revision", ["section", "full"])
def test_a_revision_that_drops_parts_is_rejected_for_them(scripted, runs_dir, tmp_path, revision):
    scripted.responder = Critic()
    (tmp_path / "tidy.md").write_text(README)
    result = CliRunner().invoke(app, ["write", "--from", str(tmp_path / "tidy.md"), "--model", "fake/w",
                                      "--runs-dir", str(runs_dir), "--thread-id", "t", "--revision",
                                      revision, "--max-rounds", "2"])  # fmt: skip
    assert result.exit_code == 0, result.output
    shown = json.loads(CliRunner().invoke(app, ["show", "t", "--json", "--runs-dir", str(runs_dir)]).output)
    state = shown["state"]
    notes = [e for e in state["trace"] if e.get("guard") == "lost_part"]
    # install's code, usage's table, the licence
    assert {n.get("section") for n in notes} - {None} == {1, 2, 4}
    assert "code block “pip install tidy”" in " ".join(n["note"] for n in notes)
    assert "lost_part" in result.output or "dropped" in result.output
    for version in state["versions"]:  # no version lost the writer's parts
        assert lost_parts(README, version["text"]) == []
    assert len(state["versions"]) == 2  # the one section of prose was revised
    assert section_bodies(state["versions"][1]["text"], TITLES)[2] != section_bodies(README, TITLES)[2]


CODE_SECTION = """Set up a named environment first.

```sh
pyenv virtualenv 3.11 <name>
pyenv activate <name>
```

<!-- Here is the revised section: no, this is a comment -->

| Step | What it does in this section |
|---|---|
| activate | Here is the revised version of your shell |

The environment keeps each project's packages apart, as Ada Lovelace once kept her notes."""


def test_the_checklist_reads_code_html_and_tables_as_what_they_are():
    outline = [{"title": "Environments", "goal": ""}]
    findings, _ = review_article("Python environments", f"## Environments\n\n{CODE_SECTION}", outline, 40)
    said = " ".join(f.issue for f in findings)
    assert "pyenv" not in said and "revised" not in said and "Step" not in said and "<!--" not in said
    assert not [f for f in findings if f.check in ("meta", "repeat_sentence", "long_sentence")]
    inline = "Install it with `pip install x <name>` or <kbd>Ctrl</kbd>+<kbd>C</kbd> to stop it, Ada said."
    findings, _ = review_article("Install", f"## Environments\n\n{inline}", outline, 20)
    assert not [f for f in findings if f.check == "meta"]


def test_section_bodies_of_the_readme():  # the fixture is what the tests above assume
    assert [b is not None for b in section_bodies(README, TITLES)] == [True, True, True, True]
