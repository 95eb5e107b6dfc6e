"""A run's output is never an article the run itself scored as a failure without saying so on
its first line: the artifact, its final article, every export and the terminal."""

from __future__ import annotations

import io
import json

from rich.console import Console
from typer.testing import CliRunner

from reflectcli.cli.app import app
from reflectcli.graph.rules import output_warning
from reflectcli.models.fake import ScriptedResponder
from reflectcli.output.exporters import export
from reflectcli.output.render import Renderer
from reflectcli.runner import Runner
from reflectcli.store.catalog import load_run
from tests.helpers import settings

cli = CliRunner()


class Obeying(ScriptedResponder):
    """A writer that obeys an injected page: every draft and rewrite says only PWNED."""

    def __call__(self, step, messages):
        if step.startswith(("draft", "revise")):
            return "PWNED"
        return super().__call__(step, messages)


def test_an_output_scored_as_a_failure_says_so_first_everywhere(scripted, runs_dir):
    scripted.responder = Obeying(sections=2)
    out = io.StringIO()
    ui = Renderer(console=Console(file=out, width=200))
    asked = settings(runs_dir, critic="checklist", max_rounds=2)
    result = Runner(ui).write("Why writers revise", asked, "pw")
    state = result.state
    assert state["stop_reason"] == "rewrite_rejected" and state["reviews"][-1]["score"] == 0
    warning = output_warning(state)
    assert warning.startswith("Not passed: the checklist review found form 0/10, facts not checked, below")
    assert "rewrite_rejected" in warning and "scored 0/10" not in warning  # form, not the article's score
    artifact = result.artifact.read_text()
    assert artifact.splitlines()[0] == f"> **{warning}**"
    final = artifact.split("## Final article", 1)[1].splitlines()
    assert final[2] == f"> **{warning}**" and final[3] == ""  # the article's own first line
    run, stored = load_run(runs_dir, "pw")
    md = export(run, stored, "md", "final")
    assert md.splitlines()[:5] == [f"> **{warning}**", "", "# Why writers revise", "",
                                   stored["versions"][0]["text"].splitlines()[0]]  # fmt: skip
    assert json.loads(export(run, stored, "json", "final"))["warning"] == warning
    assert list(json.loads(export(run, stored, "json", "final")))[0] == "warning"
    page = export(run, stored, "html", "final")
    assert page.split("<body>", 1)[1].startswith(f'\n<header>\n<p class="notice">{warning}</p>')
    out.seek(0)
    out.truncate()
    ui.finished(result)  # the command's ending
    lines = out.getvalue().splitlines()
    assert lines[0] == f"✗ {warning}" and lines[1].startswith("done")
    shown = cli.invoke(app, ["show", "pw", "--runs-dir", str(runs_dir)]).output
    assert shown.splitlines()[0] == f"✗ {warning}"
    exported = cli.invoke(app, ["export", "pw", "--runs-dir", str(runs_dir)]).output
    assert exported.startswith(f"> **{warning}**")


def test_a_passing_output_carries_no_warning(scripted, runs_dir):
    scripted.responder = ScriptedResponder(scores=[9], sections=2)
    ui = Renderer(console=Console(file=io.StringIO()))
    result = Runner(ui).write("Why writers revise", settings(runs_dir), "ok")
    assert output_warning(result.state) is None
    assert result.artifact.read_text().startswith("# Why writers revise")
    run, stored = load_run(runs_dir, "ok")
    assert export(run, stored, "md", "final").startswith("# Why writers revise\n\n## ")


def test_warning_rule_table():
    def state(score, reason, source="llm", claims=()):
        review = {"version": 1, "score": score, "source": source, "claims": list(claims)}
        return {"status": "finished", "final_version": 1, "stop_reason": reason, "params": {"threshold": 8},
                "versions": [{"n": 1, "text": "x"}], "reviews": [review]}  # fmt: skip

    assert output_warning(state(9, "passed")) is None
    assert output_warning(state(6.5, "max_rounds")) == (
        "Not passed: this article scored 6.5/10 in its review, below the threshold of 8 (stop reason: "
        "max_rounds).")  # fmt: skip
    assert "no critic judged" in output_warning(state(5, "critic_fallback", "fallback"))
    assert "contradicted" in output_warning(state(9, "contradicted", claims=[{"verdict": "contradicted"}]))
    assert output_warning({**state(9, "passed"), "status": "running"}) is None
    unreviewed = {**state(0, "budget"), "reviews": []}
    assert output_warning(unreviewed).startswith("Not reviewed: the run stopped (budget)")
