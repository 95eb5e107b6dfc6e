"""`reflectcli edit ID`: the person's own edit of a finished run's output becomes a version of
theirs (its diff stored), the run's output, and the base of the next revision."""

from __future__ import annotations

import json
import sys

from typer.testing import CliRunner

from reflectcli.cli.app import app
from reflectcli.models.fake import TITLES, ScriptedResponder, prompt_text

TASK = "Why do writers revise their drafts?"
MINE = "Toni Morrison rewrote the last page of Beloved many times."


def invoke(*args, **kwargs):
    return CliRunner().invoke(app, list(args), **kwargs)


def editor(tmp_path, body: str) -> str:
    """$EDITOR: a script that runs `body` with the file's path as `path`."""
    script = tmp_path / "ed.py"
    script.write_text(f"import sys, pathlib\npath = pathlib.Path(sys.argv[1])\n{body}\n", encoding="utf-8")
    return f"{sys.executable} {script}"


def state_of(thread, runs_dir):
    return json.loads(invoke("show", thread, "--json", "--runs-dir", str(runs_dir)).output)["state"]


def finished(scripted, runs_dir, thread="me"):
    scripted.responder = ScriptedResponder(scores=[9, 9.5], sections=2)
    result = invoke("write", TASK, "--model", "fake/w", "--runs-dir", str(runs_dir), "--thread-id", thread)
    assert result.exit_code == 0, result.output
    return state_of(thread, runs_dir)


def test_your_edit_becomes_the_output_and_the_base_of_the_next_revision(
    scripted, runs_dir, tmp_path, monkeypatch
):
    before = finished(scripted, runs_dir)
    base = before["final_version"]
    append = f"text = path.read_text(); path.write_text(text.rstrip() + '\\n\\n{MINE}\\n')"
    monkeypatch.setenv("EDITOR", editor(tmp_path, append))
    monkeypatch.delenv("VISUAL", raising=False)
    result = invoke("edit", "me", "--runs-dir", str(runs_dir))
    assert result.exit_code == 0, result.output
    state = state_of("me", runs_dir)
    mine = state["versions"][-1]
    assert mine["kind"] == "edit" and mine["by"] == "human" and mine["base"] == base
    old = next(v for v in before["versions"] if v["n"] == base)["text"]
    assert mine["text"] == old.rstrip() + f"\n\n{MINE}\n"  # what the editor saved, byte for byte
    assert f"+{MINE}" in mine["diff"] and state["final_version"] == mine["n"]
    assert state["status"] == "finished" and state["outline"] == before["outline"]
    assert MINE in (runs_dir / "me.md").read_text().split("## Final article", 1)[1]
    assert not list(runs_dir.glob("me-v*.md"))  # the editor's file is gone once recorded
    diff = invoke("diff", "me", str(base), str(mine["n"]), "--runs-dir", str(runs_dir))
    assert MINE in diff.output
    # the critic's revision starts from your text, and keeps it
    calls = len(scripted.history)
    scripted.responder = ScriptedResponder(scores=[9, 9.2, 9.7], sections=2)  # yours 9.2, then 9.7
    again = invoke("revise", "me", "Open with a date.", "--section", "1", "--runs-dir", str(runs_dir))
    assert again.exit_code == 0, again.output
    steps = [c["step"] for c in scripted.history[calls:]]
    assert steps == ["review:r2", "revise:r3:s1", "review:r3"], steps  # your edit is reviewed first
    assert MINE in prompt_text(scripted.history[calls]["messages"])
    assert MINE not in scripted.history[calls + 1]["messages"][-1]["content"]  # section 1 only
    after = state_of("me", runs_dir)
    assert after["versions"][-1]["base"] == mine["n"] and MINE in after["versions"][-1]["text"]
    assert [r["version"] for r in after["reviews"]][-2:] == [mine["n"], after["versions"][-1]["n"]]
    assert after["decisions"][-2]["reason"] == "human"  # applied whatever the edit's score
    assert after["final_version"] == after["versions"][-1]["n"]  # 9.7 beats your 9.2


def test_an_unchanged_file_records_nothing(scripted, runs_dir, tmp_path, monkeypatch):
    before = finished(scripted, runs_dir)
    monkeypatch.setenv("VISUAL", editor(tmp_path, "pass"))
    result = invoke("edit", "me", "--runs-dir", str(runs_dir))
    assert result.exit_code == 0 and "unchanged" in result.output, result.output
    assert state_of("me", runs_dir)["versions"] == before["versions"]
    same = next(v for v in before["versions"] if v["n"] == before["final_version"])["text"]
    result = invoke("edit", "me", "--file", "-", "--runs-dir", str(runs_dir), input=same)
    assert "unchanged" in result.output
    assert len(state_of("me", runs_dir)["versions"]) == len(before["versions"])


def test_edit_from_a_file_renames_a_section_and_refuses_what_it_cannot_do(
    scripted, runs_dir, tmp_path, monkeypatch
):
    before = finished(scripted, runs_dir)
    text = next(v for v in before["versions"] if v["n"] == before["final_version"])["text"]
    renamed = tmp_path / "mine.md"
    renamed.write_text(text.replace(f"## {TITLES[1]}", "## A title of mine"), encoding="utf-8")
    result = invoke("edit", "me", "--file", str(renamed), "--runs-dir", str(runs_dir))
    assert result.exit_code == 0, result.output
    titles = [s["title"] for s in state_of("me", runs_dir)["outline"]["sections"]]
    assert titles == [TITLES[0], "A title of mine"]
    monkeypatch.delenv("VISUAL", raising=False)
    monkeypatch.delenv("EDITOR", raising=False)
    scripted.responder = ScriptedResponder(scores=[9], sections=2)
    invoke("write", TASK, "--model", "fake/w", "--runs-dir", str(runs_dir), "--thread-id", "other")
    empty = tmp_path / "empty.md"
    empty.write_text("   \n", encoding="utf-8")
    failing = editor(tmp_path, "path.write_text('changed'); sys.exit(3)")
    for args, env, message, code in [
        (["edit", "me"], {}, "no editor: set $VISUAL or $EDITOR", 2),
        (["edit", "me"], {"EDITOR": failing}, "exited with status 3: nothing recorded", 1),
        (["edit", "nope", "--file", str(renamed)], {}, "unknown thread id 'nope'", 1),
        (["edit", "me", "--file", str(tmp_path / "missing.md")], {}, "cannot read", 2),
        (["edit", "me", "--file", str(empty)], {}, "your edit: the file is empty", 2),
    ]:
        for key, value in env.items():
            monkeypatch.setenv(key, value)
        versions = len(state_of("me", runs_dir)["versions"])
        result = invoke(*args, "--runs-dir", str(runs_dir))
        monkeypatch.delenv("EDITOR", raising=False)
        flat = " ".join(result.output.split())
        assert result.exit_code == code and message in flat and "Traceback" not in flat, (args, result.output)
        assert len(state_of("me", runs_dir)["versions"]) == versions
