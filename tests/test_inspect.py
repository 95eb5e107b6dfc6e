"""history, show, export, diff, stats, delete, prune: reading past runs from our own tables."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time

import pytest
from typer.testing import CliRunner

from reflectcli.cli.app import app
from reflectcli.errors import ModelError
from reflectcli.models.fake import TITLES, ScriptedResponder
from reflectcli.runner import Runner
from tests.helpers import FailOnce, quiet_ui, raw_db, settings

cli = CliRunner()


def invoke(*args):
    return cli.invoke(app, [str(a) for a in args], catch_exceptions=False)


@pytest.fixture
def runs(scripted, runs_dir, backend):
    """Three runs: `alpha` passes in round 2, `beta` hits max_rounds, `gamma` failed mid-run."""
    scripted.responder = ScriptedResponder(scores=[6, 8.5], sections=2)
    Runner(quiet_ui()).write("Alpha: why writers revise", settings(runs_dir, threshold=8), "alpha")
    scripted.responder = ScriptedResponder(scores=[5, 6], sections=2)
    Runner(quiet_ui()).write("Beta: the <script>alert(1)</script> essay",
                             settings(runs_dir, threshold=9, max_rounds=2), "beta")  # fmt: skip
    scripted.responder = FailOnce(ScriptedResponder(scores=[7], sections=2), "review:r1",
                                  ModelError("provider down"))  # fmt: skip
    with pytest.raises(ModelError):
        Runner(quiet_ui()).write("Gamma: unfinished", settings(runs_dir), "gamma")
    return runs_dir


def test_history_lists_newest_first_with_columns(runs):
    result = invoke("history", "--runs-dir", runs)
    assert result.exit_code == 0
    lines = result.output.splitlines()
    assert lines[0].split() == ["id", "when", "status", "rounds", "score", "tokens", "task"]
    assert [line.split()[0] for line in lines[1:]] == ["gamma", "beta", "alpha"]
    assert "6→8.5" in lines[3] and "finished" in lines[3]
    assert "failed" in lines[1]


def test_history_filters_and_json(runs):
    data = json.loads(invoke("history", "--runs-dir", runs, "--json").output)
    assert [r["thread_id"] for r in data] == ["gamma", "beta", "alpha"]
    assert set(data[0]) == {
        "thread_id", "created_at", "updated_at", "status", "task", "model", "critic_model",
        "rounds", "first_score", "best_score", "final_score", "stop_reason", "calls", "tokens",
        "cost", "fallbacks", "artifact", "error",
    "sources_used", "citations_removed", "claims", "claims_supported", "lessons_recalled",
    }  # fmt: skip
    assert data[2]["stop_reason"] == "passed" and data[1]["stop_reason"] == "max_rounds"
    one = json.loads(invoke("history", "--runs-dir", runs, "--json", "--limit", "1").output)
    assert [r["thread_id"] for r in one] == ["gamma"]
    found = json.loads(invoke("history", "--runs-dir", runs, "--json", "-s", "SCRIPT").output)
    assert [r["thread_id"] for r in found] == ["beta"]
    failed = json.loads(invoke("history", "--runs-dir", runs, "--json", "--status", "failed").output)
    assert [r["thread_id"] for r in failed] == ["gamma"]
    bad = cli.invoke(app, ["history", "--runs-dir", str(runs), "--status", "nope"])
    assert bad.exit_code == 2


def test_killed_run_shows_interrupted_not_running(runs):
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    with raw_db(runs) as db:
        db.execute("UPDATE runs SET status='running', owner_pid=?, owner_host=? WHERE thread_id='gamma'",
                   (dead.pid, os.uname().nodename))  # fmt: skip
    data = json.loads(invoke("history", "--runs-dir", runs, "--json").output)
    assert data[0]["status"] == "interrupted"
    only = json.loads(invoke("history", "--runs-dir", runs, "--json", "--status",
                             "interrupted").output)  # fmt: skip
    assert [r["thread_id"] for r in only] == ["gamma"]


def test_history_on_empty_dir(runs_dir):
    result = invoke("history", "--runs-dir", runs_dir)
    assert result.exit_code == 0 and "no runs" in result.output
    assert not runs_dir.exists()  # reading creates nothing


def test_show_has_outline_scores_feedback_decisions_trace(runs):
    out = invoke("show", "alpha", "--runs-dir", runs).output
    for text in ("Outline", TITLES[0], "Scores", "Round 1 feedback", "Decisions",
                 "round 1: revise (below_threshold)", "round 2: stop (passed)", "Trace",
                 "review:r2", "artifact:"):  # fmt: skip
        assert text in out, text


def test_show_unfinished_says_where_resume_starts(runs):
    out = invoke("show", "gamma", "--runs-dir", runs).output
    assert "Resume would start at: review round 1" in out
    assert "provider down" in out


def test_show_json(runs):
    data = json.loads(invoke("show", "beta", "--runs-dir", runs, "--json").output)
    assert data["run"]["thread_id"] == "beta"
    assert data["summary"]["rounds"] == 2 and data["resume_from"] is None
    assert [r["score"] for r in data["state"]["reviews"]] == [5, 6]


def test_export_md_is_the_article_alone(runs):
    md = invoke("export", "alpha", "--runs-dir", runs).output
    assert md.startswith(f"# Alpha: why writers revise\n\n## {TITLES[0]}") and "Review" not in md
    first = invoke("export", "alpha", "--runs-dir", runs, "--version", "1").output
    assert first != md and "A concrete example now supports it." not in first
    assert invoke("export", "alpha", "--runs-dir", runs, "--version", "best").output == md


def test_export_bad_version_and_format(runs):
    bad = cli.invoke(app, ["export", "alpha", "--runs-dir", str(runs), "--version", "9"])
    assert bad.exit_code == 2 and "no version '9'" in bad.output
    fmt = cli.invoke(app, ["export", "alpha", "--runs-dir", str(runs), "-f", "odt"])
    assert fmt.exit_code == 2 and "unknown format" in fmt.output


def test_export_report_json_and_file(runs, tmp_path):
    report = invoke("export", "beta", "--runs-dir", runs, "-f", "report").output
    assert "## Decisions" in report and "## Trace" in report
    out = tmp_path / "beta.json"
    result = invoke("export", "beta", "--runs-dir", runs, "-f", "json", "-o", out)
    assert result.exit_code == 0 and f"wrote {out}" in result.output
    assert json.loads(out.read_text())["summary"]["stop_reason"] == "max_rounds"


def test_export_html_escapes_everything(runs, scripted, runs_dir):
    scripted.responder = ScriptedResponder(scores=[9], sections=1)
    scripted.enqueue('{"sections": [{"title": "Intro <img src=x onerror=alert(1)>", "goal": "g"}]}',
                     "Body with <script>steal()</script> & more.")  # fmt: skip
    Runner(quiet_ui()).write("Task <script>alert(2)</script>", settings(runs_dir, max_sections=1),
                             "evil")  # fmt: skip
    page = invoke("export", "evil", "--runs-dir", runs_dir, "-f", "html").output
    assert page.startswith("<!DOCTYPE html>") and "<style>" in page
    assert "<script" not in page.lower() and "<img" not in page.lower()
    assert "&lt;script&gt;steal()&lt;/script&gt; &amp; more." in page
    assert "&lt;img src=x onerror=alert(1)&gt;" in page


def test_diff_unified_and_word_plain_in_a_pipe(runs):
    out = invoke("diff", "alpha", "--runs-dir", runs).output
    note, rest = out.split("\n", 1)
    assert note == "version 1 (round 1: 6/10) → version 2 (round 2: 8.5/10); the output is version 2"
    assert rest.startswith("--- version 1\n+++ version 2\n")
    assert any(line.startswith("+") and "concrete example" in line for line in out.splitlines())
    assert "\x1b[" not in out
    word = invoke("diff", "alpha", "1", "2", "--word", "--runs-dir", runs).output
    assert "[+A concrete example now supports it.+]" in word
    same = invoke("diff", "alpha", "2", "2", "--runs-dir", runs).output
    assert "no differences" in same


def test_diff_by_default_shows_the_last_revision_even_when_it_was_not_kept(scripted, runs_dir):
    """A 2-round run whose revision scored lower: the output is version 1, and the default diff
    still shows what the revision changed (1 → 2), saying which one is the output; the word
    diff shows the change with a little context, not the whole article."""
    scripted.responder = ScriptedResponder(scores=[7, 6], sections=3)
    Runner(quiet_ui()).write("Why revise?", settings(runs_dir, threshold=9, max_rounds=2), "down")
    out = invoke("diff", "down", "--runs-dir", runs_dir).output
    assert out.splitlines()[0] == ("version 1 (round 1: 7/10) → version 2 (round 2: 6/10); the output is "
                                   "version 1")  # fmt: skip
    assert "no differences" not in out and "+++ version 2" in out
    word = invoke("diff", "down", "--word", "--runs-dir", runs_dir).output
    assert "[+A concrete example now supports it.+]" in word and "…" in word
    assert len(word) < len(invoke("export", "down", "-v", "2", "--runs-dir", runs_dir).output)


def test_stats(runs):
    data = json.loads(invoke("stats", "--runs-dir", runs, "--json").output)
    assert data["runs"] == 3
    assert data["by_status"] == {"finished": 2, "failed": 1}
    assert data["stop_reasons"] == {"passed": 1, "max_rounds": 1}
    assert data["mean_rounds"] == 2
    assert (data["mean_first_score"], data["mean_final_score"]) == (5.5, 7.25)
    assert data["mean_gain"] == 1.75
    assert data["fallback_rate"] == 0
    assert data["per_model"][0]["model"] == "fake/writer" and data["per_model"][0]["calls"] == 15
    text = invoke("stats", "--runs-dir", runs).output
    assert "3 runs" in text and "gain +1.75" in text
    recent = json.loads(invoke("stats", "--runs-dir", runs, "--json", "--since", "1").output)
    assert recent["runs"] == 3


def test_finished_runs_are_compacted_and_still_exportable(runs):
    with raw_db(runs) as db:
        left = dict(db.execute("SELECT thread_id, COUNT(*) FROM checkpoints GROUP BY thread_id"))
    assert set(left) == {"gamma"}  # only the unfinished run keeps checkpoints
    assert invoke("diff", "beta", "--runs-dir", runs).exit_code == 0
    exported = invoke("export", "beta", "--runs-dir", runs).output.split("\n\n", 2)  # max_rounds at 6:
    assert exported[0].startswith("> **Not passed") and exported[1].startswith("# Beta")
    assert exported[2].startswith(f"## {TITLES[0]}")


def test_delete_and_prune(runs, backend):
    result = invoke("delete", "beta", "--runs-dir", runs)
    assert result.exit_code == 0 and not (runs / "beta.md").exists()
    missing = cli.invoke(app, ["show", "beta", "--runs-dir", str(runs)])
    assert missing.exit_code == 1 and "unknown thread id 'beta'" in missing.output
    assert "would delete 0 runs" in invoke("prune", "--older-than", "1", "--dry-run",
                                           "--runs-dir", runs).output  # fmt: skip
    with raw_db(runs) as db:
        db.execute("UPDATE runs SET updated_at = ?", (time.time() - 10 * 86400,))
    out = invoke("prune", "--older-than", "5", "--runs-dir", runs).output
    assert "deleted 2 runs" in out
    assert json.loads(invoke("history", "--json", "--runs-dir", runs).output) == []
    langgraph = ("checkpoint_blobs", "checkpoint_writes") if backend else ("writes",)
    with raw_db(runs) as db:
        for table in ("runs", "run_state", "run_usage", "checkpoints", "call_journal", *langgraph):
            assert db.execute(f"SELECT COUNT(*) FROM {table}").fetchone()[0] == 0, table


def test_read_commands_import_neither_litellm_nor_langgraph(runs):
    for args in (["history"], ["show", "alpha"], ["export", "alpha", "-f", "html"],
                 ["diff", "alpha"], ["stats"]):  # fmt: skip
        proc = subprocess.run(
            [sys.executable, "-X", "importtime", "-m", "reflectcli", *args, "--runs-dir",
             str(runs)], capture_output=True, text=True, check=True,
        )  # fmt: skip
        imported = {line.split("|")[-1].strip() for line in proc.stderr.splitlines()}
        assert not {m for m in imported if m.startswith(("litellm", "langgraph"))}, args


def test_history_says_when_nothing_matches(runs):
    out = invoke("history", "--search", "zzz", "--runs-dir", runs).output
    assert out.startswith("no run matches in")


def test_a_database_from_an_older_version_is_upgraded_by_a_read_command(runs):
    """A new migration (the source library) must not make `history` refuse an existing
    database: a read command applies what is missing, then reads."""
    with raw_db(runs) as db:
        db.execute("DELETE FROM _migrations WHERE name = '004_sources'")
        db.execute("DROP TABLE chunk_index")
        db.execute("DROP TABLE chunks")
        db.execute("DROP TABLE sources")
    result = invoke("history", "--runs-dir", runs)
    assert result.exit_code == 0 and "alpha" in result.output, result.output
    with raw_db(runs) as db:
        assert db.execute("SELECT 1 FROM _migrations WHERE name = '004_sources'").fetchone()


def test_show_and_the_artifact_say_why_a_review_answer_was_rejected(scripted, runs_dir):
    inner = ScriptedResponder(scores=[9], sections=2)
    scripted.responder = lambda step, messages: (
        "not json at all" if step == "review:r1" else inner(step, messages)
    )
    Runner(quiet_ui()).write("Why do writers revise their drafts?", settings(runs_dir), "rej")
    shown = " ".join(invoke("show", "rej", "--runs-dir", str(runs_dir)).output.split())
    assert "answer 1 rejected: " in shown
    assert "- answer 1 rejected: " in (runs_dir / "rej.md").read_text()


def test_the_html_page_shares_no_local_path_numbers_references_once_and_lists_known_issues():
    from reflectcli.output.exporters import export_html

    source = {"id": "S1", "source_id": 1, "title": "Notes", "location": "/home/someone/private/notes.md",
              "kind": "md", "page": None, "heading": "Print", "text": "He printed in Mainz."}  # fmt: skip
    issue = {"id": "r1.1", "section": "Mainz", "issue": "Name the year.", "severity": "major"}
    version = {"n": 1, "round": 0, "kind": "draft", "text": "## Mainz\n\nHe printed there [S1]."}
    state = {"task": "Printing", "evidence": [source], "reviews": [], "decisions": [], "versions": [version],
             "known_issues": [issue]}  # fmt: skip
    page = export_html({"thread_id": "t"}, state, version)
    assert "/home/someone" not in page and "notes.md" in page
    assert "<ol" not in page and '<li id="ref-S1">[S1]' in page  # numbered once, by its id
    assert "<h2>Mainz</h2>" in page  # the article's sections are the page's h2, as the appendices
    assert "<h2>Known issues</h2>" in page and "Name the year." in page
