"""Commands through Typer's CliRunner: output, exit codes, one-line errors."""

from __future__ import annotations

import re

import pytest
from typer.testing import CliRunner

from reflectcli.cli.app import app
from reflectcli.errors import ModelError
from reflectcli.models.fake import ScriptedResponder
from tests.helpers import FailOnce

runner = CliRunner()
TASK = "Why do writers revise their drafts?"


def invoke(*args):
    return runner.invoke(app, list(args), catch_exceptions=False)


def write(runs_dir, *extra):
    return invoke("write", TASK, "--model", "fake/w", "--runs-dir", str(runs_dir), *extra)


def test_every_command_has_help():
    for command in app.registered_commands:
        assert command.callback.__doc__, command.name
        result = invoke(command.name or command.callback.__name__, "--help")
        assert result.exit_code == 0


def test_write_prints_thread_first_then_tables_decision_and_path(scripted, runs_dir):
    scripted.responder.scores = [6, 8.5]
    result = write(runs_dir, "--threshold", "8")
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    match = re.fullmatch(r"thread (\S+)", lines[0])
    assert match
    thread = match.group(1)
    assert "Round 1: 6/10 vs threshold 8" in result.output
    assert "Round 2: 8.5/10 vs threshold 8" in result.output
    assert "→ revise (below_threshold)" in result.output
    assert "→ stop (passed)" in result.output
    assert "done passed · final score 8.5 · 2 rounds · 7 calls" in result.output
    assert f"article: {runs_dir / thread}.md" in result.output
    assert "\x1b[" not in result.output  # no colour codes outside a terminal


def test_quiet_prints_only_the_path(scripted, runs_dir):
    result = write(runs_dir, "--quiet", "--thread-id", "q1")
    assert result.exit_code == 0
    assert result.output.strip() == str(runs_dir / "q1.md")


def test_thread_id_flag_and_duplicate_refused(scripted, runs_dir, backend):
    assert write(runs_dir, "--thread-id", "mine").exit_code == 0
    again = write(runs_dir, "--thread-id", "mine")
    assert again.exit_code == 1
    assert "thread mine already exists" in again.output


@pytest.mark.parametrize(
    ("args", "code", "message"),
    [
        (["write", "   "], 2, "the task is empty"),
        (["write", "x" * 5000], 2, "the task is 5000 characters; the limit is 4000"),
        (["write", TASK, "--threshold", "12"], 2, "--threshold: config key 'threshold'"),
        (["write", TASK, "--max-rounds", "0"], 2, "--max-rounds: config key 'max_rounds'"),
        (["write", TASK, "--sections", "40"], 2, "--sections: config key 'max_sections'"),
        (["write", TASK, "--thread-id", "../x"], 2, "invalid thread id '../x'"),
        (["write", TASK, "--thread-id", "bad id!"], 2, "invalid thread id 'bad id!'"),
        (["resume", "/etc/passwd"], 2, "invalid thread id '/etc/passwd'"),
        (["write", TASK, "--lang", "xx"], 2, "unknown language code 'xx'"),
        (["write", TASK, "--lang", "klingonese"], 2, "(did you mean 'Klingon'?)"),
        (["write", TASK, "--model", "local/missing.gguf"], 2, "local model file not found: missing.gguf"),
        (["write", TASK, "--model", "local/model.bin"], 2, "unknown local model 'local/model.bin'"),
        (["resume", "nope"], 1, "unknown thread id 'nope'"),
        (["write", TASK, "--config", "missing.toml"], 2, "config file not found"),
    ],
)
def test_bad_input_is_one_line_and_an_exit_code(fake, args, code, message, tmp_path, backend):
    result = runner.invoke(app, args)
    assert result.exit_code == code, result.output
    assert not (tmp_path / "runs").exists()  # bad input creates nothing, not even the database
    assert message in result.output
    assert "Traceback" not in result.output
    assert len(result.output.strip().splitlines()) == 1


def test_broken_toml_names_the_line(fake, tmp_path):
    (tmp_path / "config.toml").write_text("model = 'fake/w'\nthreshold = [\n")
    result = runner.invoke(app, ["write", TASK])
    assert result.exit_code == 2
    assert "invalid TOML" in result.output and "line" in result.output


def test_corrupt_database_is_a_clear_error(fake, runs_dir):
    runs_dir.mkdir()
    (runs_dir / "reflect.db").write_bytes(b"this is not sqlite" * 100)
    result = runner.invoke(app, ["write", TASK, "--model", "fake/w", "--runs-dir", str(runs_dir)])
    assert result.exit_code == 1
    assert "not a usable SQLite database" in result.output


def test_failure_then_resume_says_what_it_skips(scripted, runs_dir, backend):
    scripted.responder = FailOnce(
        ScriptedResponder(scores=[8], sections=3), "review:r1", ModelError("provider down")
    )
    first = write(runs_dir, "--thread-id", "t1", "--threshold", "7")
    assert first.exit_code == 1
    assert "error: provider down" in first.output
    resumed = invoke("resume", "t1", "--runs-dir", str(runs_dir))
    assert resumed.exit_code == 0, resumed.output
    assert "outline ✓, 3/3 sections ✓ → review round 1" in resumed.output
    assert "done passed" in resumed.output
    done = invoke("resume", "t1", "--runs-dir", str(runs_dir))
    assert done.exit_code == 0
    assert "already finished" in done.output and "t1.md" in done.output


def test_ctrl_c_exits_130_with_resume_hint(scripted, runs_dir, backend):
    scripted.responder = FailOnce(ScriptedResponder(scores=[8], sections=3), "draft:s2", KeyboardInterrupt())
    result = write(runs_dir, "--thread-id", "cc")
    assert result.exit_code == 130
    assert "reflectcli resume cc" in result.output
    assert "- status: interrupted" in (runs_dir / "cc.md").read_text()  # as history says
    assert invoke("resume", "cc", "--runs-dir", str(runs_dir)).exit_code == 0
    assert "- status: finished" in (runs_dir / "cc.md").read_text()


def test_resume_names_the_answers_it_will_replay(scripted, runs_dir, backend):
    # the plan's first answer is invalid (journaled), Ctrl-C hits its retry: nothing checkpointed
    # beyond the run's input, one answer in the journal
    responder = ScriptedResponder(scores=[8], sections=3)
    scripted.enqueue("not json at all")
    scripted.responder = FailOnce(responder, "plan:retry1", KeyboardInterrupt())
    assert write(runs_dir, "--thread-id", "rp").exit_code == 130
    resumed = invoke("resume", "rp", "--runs-dir", str(runs_dir))
    assert resumed.exit_code == 0, resumed.output
    assert "(1 answer in the journal will be replayed, not paid again)" in " ".join(resumed.output.split())
    assert "done passed" in resumed.output


def test_resume_uses_the_runs_own_settings(scripted, runs_dir, tmp_path, backend):
    scripted.responder = FailOnce(
        ScriptedResponder(scores=[7.5], sections=2), "review:r1", ModelError("down")
    )
    write(runs_dir, "--thread-id", "own", "--threshold", "7", "--sections", "2")
    (tmp_path / "config.toml").write_text("threshold = 9.5\n")  # must not apply on resume
    resumed = invoke("resume", "own", "--runs-dir", str(runs_dir))
    assert "done passed" in resumed.output  # 7.5 >= the run's own 7


def test_version():
    assert invoke("--version").output.startswith("reflectcli ")


HELP_RUN = """
import sys
{pre}
sys.argv = ["reflectcli", *sys.argv[1:]]
from reflectcli.cli.app import main
try:
    main()
except SystemExit:
    pass
print("LEAN", "markdown_it" not in sys.modules and "attr" not in sys.modules)
import rich.markdown, rich.traceback, typer.rich_utils as ru
print("MARKDOWN", type(ru.Markdown("# x")) is rich.markdown.Markdown,
      ru.Traceback.from_exception == rich.traceback.Traceback.from_exception,
      "markdown_it" in sys.modules)
"""


@pytest.mark.parametrize("args", [["--help"], ["write", "-h"], ["batch", "--help"]])
def test_the_lean_help_screen_is_the_full_one(args):
    """`--help` imports typer.rich_utils with stand-ins for rich.markdown and rich.traceback
    (cli/lean.py): the screen is the one printed with the real modules, and afterwards both
    are the real ones (a stand-in builds a real Markdown, Traceback's class methods are real)."""
    import os
    import subprocess
    import sys

    env = {**os.environ, "NO_COLOR": "1", "COLUMNS": "100", "TERM": "dumb"}

    def screen(pre):
        proc = subprocess.run([sys.executable, "-c", HELP_RUN.format(pre=pre), *args], env=env,
                              capture_output=True, text=True, timeout=60)  # fmt: skip
        assert proc.returncode == 0, proc.stderr
        return proc.stdout

    lean, full = screen(""), screen("import rich.markdown, rich.traceback")
    assert lean.replace("LEAN True", "LEAN False") == full and "Usage:" in lean
    assert "LEAN True" in lean and lean.rstrip().endswith("MARKDOWN True True True")
