"""`reflectcli write --from FILE.md`: the person's draft is version 1, byte for byte; its headings
are the outline; `--keep` locks sections no revision may touch."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from reflectcli.cli.app import app
from reflectcli.models.fake import ScriptedResponder, article_of, prompt_text
from reflectcli.writing.textops import section_bodies

DRAFT = """# Why drafts need a second look

A short note before the sections.

## What a first draft is

A first draft is where a writer finds out what they think.

```python
# What a first draft is
print("a comment, not a heading")
```

### A smaller point

It often hides its point in the middle.

## Why revising helps

Revision lets the writer see the piece as a reader would.
"""
TITLES = ["What a first draft is", "Why revising helps"]
EXAMPLE = " For example, Joan Didion rewrote her openings many times."


def invoke(*args, **kwargs):
    return CliRunner().invoke(app, list(args), **kwargs)


class Critic(ScriptedResponder):
    """Reviews name both sections; a section revision appends a sentence."""

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
                body = prompt.split("<section>\n", 1)[1].split("\n</section>", 1)[0]
                return body + EXAMPLE
            article = article_of(prompt)
            named = [t for t in TITLES if f"\n## {t}\n" in prompt.split("</article>", 1)[1]]
            bodies = dict(zip(TITLES, section_bodies(article, TITLES), strict=True))
            return "\n\n".join(f"## {t}\n\n{bodies[t]}{EXAMPLE}" for t in named)
        raise AssertionError(f"no {step} in a run from a file")


def state_of(runs_dir, thread):
    return json.loads(invoke("show", thread, "--json", "--runs-dir", str(runs_dir)).output)["state"]


def test_a_draft_is_version_1_byte_for_byte_and_its_headings_are_the_outline(scripted, runs_dir, tmp_path):
    scripted.responder = Critic()
    (tmp_path / "mine.md").write_text(DRAFT)
    result = invoke("write", "--from", str(tmp_path / "mine.md"), "--model", "fake/w", "--runs-dir",
                    str(runs_dir), "--thread-id", "mine")  # fmt: skip
    assert result.exit_code == 0, result.output
    state = state_of(runs_dir, "mine")
    assert state["versions"][0]["text"] == DRAFT and state["versions"][0]["kind"] == "file"
    assert [s["title"] for s in state["outline"]["sections"]] == TITLES
    assert state["task"] == "Why drafts need a second look"  # the file's own title
    assert not any(c["step"].startswith(("plan", "draft")) for c in scripted.history)
    revised = state["versions"][-1]["text"]
    assert revised.startswith("# Why drafts need a second look\n\nA short note before the sections.\n\n")
    assert all("Joan Didion" in b for b in section_bodies(revised, TITLES))
    assert "# What a first draft is\nprint(" in revised  # the code comment stayed in its code


def test_keep_locks_a_section(scripted, runs_dir, tmp_path):
    scripted.responder = Critic()
    (tmp_path / "mine.md").write_text(DRAFT)
    result = invoke("write", "--from", str(tmp_path / "mine.md"), "--keep", "What a first draft",
                    "--model", "fake/w", "--runs-dir", str(runs_dir), "--thread-id", "kept")  # fmt: skip
    assert result.exit_code == 0, result.output
    state = state_of(runs_dir, "kept")
    first = section_bodies(DRAFT, TITLES)[0]
    for version in state["versions"]:
        assert section_bodies(version["text"], TITLES)[0] == first  # never touched
    assert "Joan Didion" in section_bodies(state["versions"][-1]["text"], TITLES)[1]
    assert not any(":s1" in c["step"] for c in scripted.history if c["step"].startswith("revise"))
    assert state["locked"] == [0] and "locked" in " ".join(e.get("note", "") for e in state["trace"])


def test_a_file_without_headings_is_one_section_and_stdin_works(scripted, runs_dir):
    plain = "Writers revise because first drafts hide their point.\nA second pass finds it.\n"
    scripted.responder = ScriptedResponder(scores=[9], sections=1)
    result = invoke("write", "Why revise?", "--from", "-", "--model", "fake/w", "--runs-dir", str(runs_dir),
                    "--thread-id", "plain", input=plain)  # fmt: skip
    assert result.exit_code == 0, result.output
    state = state_of(runs_dir, "plain")
    assert state["versions"][0]["text"] == plain and state["task"] == "Why revise?"
    assert len(state["outline"]["sections"]) == 1


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--from", "missing.md"], "cannot read missing.md"),
        (["--from", "empty.md"], "empty.md: the file is empty"),
        (["--from", "mine.md", "--keep", "Nope"], "--keep 'Nope': no such section"),
        (["--keep", "x", "A task"], "--keep goes with --from FILE"),
        ([], "say what to write"),
    ],
)
def test_bad_drafts_are_one_line(fake, runs_dir, tmp_path, args, message):
    (tmp_path / "empty.md").write_text("  \n")
    (tmp_path / "mine.md").write_text(DRAFT)
    result = invoke("write", *args, "--model", "fake/w", "--runs-dir", str(runs_dir))
    assert result.exit_code == 2 and message in " ".join(result.output.split()), result.output
    assert not runs_dir.exists()


def test_review_is_the_critic_only_and_a_run(scripted, runs_dir, tmp_path):
    scripted.responder = Critic()
    (tmp_path / "mine.md").write_text(DRAFT)
    report = tmp_path / "report.md"
    result = invoke("review", str(tmp_path / "mine.md"), "--model", "fake/w", "--runs-dir", str(runs_dir),
                    "--thread-id", "rev", "--json", "-o", str(report))  # fmt: skip
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert data["score"] == 6 and [i["section"] for i in data["improvements"]] == TITLES
    assert [c["step"] for c in scripted.history] == ["review:r1"]  # no revision
    text = report.read_text()
    assert text.startswith(f"# Review of {tmp_path / 'mine.md'}") and "Add one concrete example" in text
    listed = json.loads(invoke("history", "--json", "--runs-dir", str(runs_dir)).output)
    assert [r["thread_id"] for r in listed] == ["rev"]
    state = state_of(runs_dir, "rev")
    assert state["versions"] == [{"n": 1, "round": 0, "kind": "file", "text": DRAFT}]
