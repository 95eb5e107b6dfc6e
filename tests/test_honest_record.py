"""The record says what happened (issue 35 part 5): a checklist pass measures form, and every
view says so ("form 6.9/10, facts not checked") rather than the article's score; the record names
who reviewed, numbers versions and rounds alike, counts the guards that fired, says a run was
interrupted and resumed, and the Markdown export carries the article's title."""

from __future__ import annotations

import io
import json
import re

from rich.console import Console
from typer.testing import CliRunner

from reflectcli.cli.app import app
from reflectcli.mcp.views import run_view, status_view
from reflectcli.models.fake import ScriptedResponder
from reflectcli.output import rows
from reflectcli.output.exporters import export
from reflectcli.output.render import Renderer
from reflectcli.output.summary import summarize
from reflectcli.runner import Runner
from reflectcli.store.catalog import load_run
from reflectcli.writing.rubric import score_words
from tests.helpers import quiet_ui, settings

cli = CliRunner()
FORM = re.compile(r"form \d+(\.\d+)?/10, facts not checked")


def invoke(*args):
    result = cli.invoke(app, [str(a) for a in args])
    assert result.exit_code == 0, result.output
    return result.output


def checklist_run(scripted, runs_dir, thread="cl", out=None):
    scripted.responder = ScriptedResponder(sections=2)
    ui = Renderer(console=Console(file=out, width=200)) if out is not None else quiet_ui()
    result = Runner(ui).write(
        "Why writers revise", settings(runs_dir, critic="checklist", max_rounds=2), thread
    )
    ui.finished(result)  # the ending the command prints
    return result


def test_score_words_derive_form_from_the_review_source():
    assert score_words(6.9, "llm") == "6.9/10"
    assert score_words(6.9, "checklist", {"evidence": []}) == "form 6.9/10, facts not checked"
    assert (
        score_words(6.9, "checklist", {"evidence": [{"id": "S1"}]})
        == "form 6.9/10, claims checked against sources"
    )
    review = {"score": 6.9, "source": "checklist", "dimensions": dict.fromkeys(
        ("accuracy", "completeness", "readability", "structure"), 9.2)}  # fmt: skip
    (name, score), (dim, accuracy), *_ = rows.dimension_rows(review, {"evidence": []})
    assert (name, score, dim, accuracy) == ("form", 6.9, "accuracy", None)  # not a score it did not check
    assert rows.dimension_rows({**review, "source": "llm"}, {})[1] == ("accuracy", 9.2)


def test_the_terminal_shows_a_checklist_pass_as_form(scripted, runs_dir):
    out = io.StringIO()
    checklist_run(scripted, runs_dir, out=out)
    text = out.getvalue()
    round_line = next(line for line in text.splitlines() if line.startswith("Round 1:"))
    assert FORM.search(round_line) and "checklist" in round_line, round_line
    assert not re.search(r"accuracy\s+\d", text)  # "accuracy  not checked"
    assert re.search(r"accuracy\s+not checked", text)
    done = next(line for line in text.splitlines() if line.startswith("done"))
    assert "final form " in done and "facts not checked" in done and "final score" not in done, done


def test_the_record_and_every_view_say_form_and_who_reviewed(scripted, runs_dir):
    result = checklist_run(scripted, runs_dir)
    record = result.artifact.read_text()
    assert "critic: the checklist (rules, no model)" in record and "critic model" not in record
    assert re.search(r"## Review, round 1: form [\d.]+/10, facts not checked \(version 1", record)
    assert "| accuracy | not checked |" in record
    run, state = load_run(runs_dir, "cl")
    for fmt in ("report", "html"):
        page = export(run, state, fmt, "final")
        assert FORM.search(page), fmt
        assert not re.search(r"Review, round \d: [\d.]+/10", page), fmt
    data = json.loads(export(run, state, "json", "final"))
    assert data["scored"] == "form" and data["facts_checked"] is False
    assert data["summary"]["scored"] == "form" and data["summary"]["final_score"] is not None  # kept
    assert FORM.fullmatch(data["document"]["meta"]["score"])
    history = invoke("history", "--runs-dir", runs_dir)
    assert re.search(r"form [\d.]+→[\d.]+", history), history
    show = invoke("show", "cl", "--runs-dir", runs_dir)
    assert "critic the checklist (rules, no model)" in show and "not checked" in show
    assert "the checklist scores form, facts not checked" in show
    assert "mean form (the checklist's; facts not checked)" in invoke("stats", "--runs-dir", runs_dir)
    assert re.search(r"version 1 \(round 1: form [\d.]+/10, facts not checked\)",
                     invoke("diff", "cl", "1", "2", "--runs-dir", runs_dir))  # fmt: skip
    status, view = status_view(run, state), run_view(run, state)
    assert status["scored"] == "form" and FORM.fullmatch(status["final_words"])
    assert status["critic"] == "the checklist (rules, no model)"
    assert view["reviews"][0]["scored"] == "form" and view["reviews"][0]["facts_checked"] is False


def test_a_critic_model_run_keeps_its_score_words(scripted, runs_dir):
    scripted.responder = ScriptedResponder(scores=[9], sections=2)
    result = Runner(quiet_ui()).write("Why writers revise", settings(runs_dir), "llm")
    record = result.artifact.read_text()
    assert "critic model: fake/" in record and "form" not in record.split("## Outline")[0]
    assert "## Review, round 1: 9/10 (version 1, source: llm)" in record
    run, state = load_run(runs_dir, "llm")
    assert json.loads(export(run, state, "json", "final"))["scored"] == "critic"


def test_versions_are_numbered_as_the_rounds_that_review_them(scripted, runs_dir):
    result = checklist_run(scripted, runs_dir)
    record = result.artifact.read_text()
    assert "## Version 1 (draft; reviewed in round 1)" in record
    assert "## Version 2 (revision after round 1; reviewed in round 2)" in record
    assert "## Review, round 2:" in record and "(version 2, source: checklist)" in record
    assert "round 0" not in record


def test_the_markdown_export_has_the_article_title(scripted, runs_dir):
    checklist_run(scripted, runs_dir)
    md = invoke("export", "cl", "--runs-dir", runs_dir)
    assert "\n# Why writers revise\n\n## " in md
    out = runs_dir / "x.md"
    invoke("export", "cl", "-o", out, "--runs-dir", runs_dir)
    assert "# Why writers revise\n" in out.read_text()


def test_guards_count_what_fired():
    state = {"trace": [
        {"node": "revise", "kind": "echo", "at": "2026-01-01T00:00:00.000", "note": "removed 2"},
        {"node": "revise", "kind": "guard", "at": "2026-01-01T00:00:00.000", "note": "rejected"},
        {"node": "review", "kind": "checklist", "at": "2026-01-01T00:00:00.000", "note": "5 findings"},
    ]}  # fmt: skip
    s = summarize(state)
    assert s["guards"] == 2 and s["guards_fired"] == {"echo": 1, "guard": 1}


def test_a_bad_api_base_fails_at_once_in_one_line(tmp_path):
    """`--api-base not-a-url` is refused before any call or retry (it once took 12 s)."""
    import time

    started = time.perf_counter()
    result = cli.invoke(app, ["write", "Why revise?", "--model", "openai/x", "--api-base", "not-a-url",
                              "--runs-dir", str(tmp_path / "runs")])  # fmt: skip
    took = time.perf_counter() - started
    assert result.exit_code != 0 and took < 3, (took, result.output)
    lines = [line for line in result.output.splitlines() if line.strip()]
    assert len(lines) == 1 and "api_base" in lines[0] and "not-a-url" in lines[0], result.output
    assert not (tmp_path / "runs" / "reflect.db").exists() or "thread" not in result.output


def test_a_running_run_is_not_offered_a_resume(runs_dir):
    """A run a live process owns: `show` says where it runs, and a command that needs it
    finished says to wait, never to `resume` it (that process would refuse)."""
    import os
    import subprocess
    import sys

    from reflectcli.store.db import Store

    store = Store(runs_dir)
    store.create_run("busy", "Why revise?", {"model": "fake/w"}, "busy.md")
    sleeper = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        store.conn.execute("UPDATE runs SET owner_pid = ?, owner_host = ? WHERE thread_id = 'busy'",
                           (sleeper.pid, os.uname().nodename))  # fmt: skip
        store.conn.commit()
        store.close()
        show = invoke("show", "busy", "--runs-dir", runs_dir)
        assert f"Running now (pid {sleeper.pid}" in show and "reflectcli resume" not in show, show
        busy = cli.invoke(app, ["revise", "busy", "more dates", "--runs-dir", str(runs_dir)])
        assert busy.exit_code != 0 and "wait for it to finish" in busy.output, busy.output
        assert "reflectcli resume" not in busy.output
    finally:
        sleeper.kill()
        sleeper.wait()


def test_a_run_stopped_and_resumed_says_so_when_finished(scripted, runs_dir):
    """Ctrl-C after the outline (interrupted), then a failure mid-draft, then a resume to the end:
    the record, `show` and the JSON export say it was resumed twice; a run that went straight
    through says nothing of the kind, and resuming a finished run counts nothing."""
    import pytest

    from reflectcli.errors import ModelError, RunInterrupted

    class FailsOnce(ScriptedResponder):
        failed = False

        def __call__(self, step, messages):
            if step == "draft:s2" and not FailsOnce.failed:
                FailsOnce.failed = True
                raise ModelError("fake/w: the provider failed")
            return super().__call__(step, messages)

    scripted.responder = FailsOnce(scores=[8.5], sections=2)
    config = settings(runs_dir, threshold=8)
    stop = Runner(quiet_ui(), should_stop=lambda: True)  # stops after the first step
    with pytest.raises(RunInterrupted):
        stop.write("Why writers revise", config, "twice")
    with pytest.raises(ModelError):
        Runner(quiet_ui()).resume("twice", str(runs_dir), {})
    result = Runner(quiet_ui()).resume("twice", str(runs_dir), {})
    assert result.state["status"] == "finished"
    artifact = (runs_dir / "twice.md").read_text(encoding="utf-8")
    assert "resumed 2 times after it stopped unfinished" in artifact
    assert "resumed 2 times" in " ".join(invoke("show", "twice", "--runs-dir", runs_dir).split())
    assert json.loads(invoke("export", "twice", "-f", "json", "--runs-dir", runs_dir))["run"]["resumes"] == 2
    assert Runner(quiet_ui()).resume("twice", str(runs_dir), {}).already_finished
    assert "resumed 2 times" in (runs_dir / "twice.md").read_text(encoding="utf-8")

    scripted.responder = ScriptedResponder(scores=[8.5], sections=2)
    Runner(quiet_ui()).write("Why writers revise", config, "straight")
    assert "resumed" not in (runs_dir / "straight.md").read_text(encoding="utf-8").split("## Outline")[0]


def test_exporting_a_run_with_no_draft_yet_says_to_wait_while_it_runs(runs_dir):
    """A run another live process holds, not yet drafted: `export` says it is running (pid, host),
    not to resume it; once its owner is gone, the hint is the resume."""
    from reflectcli.store.db import Store

    store = Store(runs_dir)
    store.create_run("early", "Why writers revise", {"model": "fake/w"}, str(runs_dir / "early.md"))
    store.acquire("early")  # this process: a live owner
    result = cli.invoke(app, ["export", "early", "--runs-dir", str(runs_dir)])
    assert result.exit_code != 0 and "no draft yet" in result.output
    assert "running now (pid" in " ".join(result.output.split()) and "reflectcli resume" not in result.output
    store.release("early")
    store.update_run("early", status="interrupted")
    store.close()
    result = cli.invoke(app, ["export", "early", "--runs-dir", str(runs_dir)])
    assert "reflectcli resume early" in " ".join(result.output.split())
