"""Text from outside or from a model reaches the terminal shown, never obeyed: an escape sequence
in a task, a title or a model's answer is printed escaped by every command."""

from __future__ import annotations

import io
import json

import pytest
from rich.console import Console
from typer.testing import CliRunner

from reflectcli.cli.app import app
from reflectcli.models.fake import ScriptedResponder
from reflectcli.output import safe
from reflectcli.output.render import Renderer
from reflectcli.output.views import Views
from reflectcli.runner import Runner
from reflectcli.store.catalog import load_run
from tests.helpers import quiet_ui, settings

cli = CliRunner()
RED = "\x1b[31m"
TASK = f"Why writers {RED}revise\x1b[0m drafts \x9b2J\u202egnp.exe"


def invoke(*args):
    return cli.invoke(app, [str(a) for a in args], catch_exceptions=False)


def raw_controls(text: str) -> list[str]:
    """The control characters of `text` a terminal would act on (line breaks and tabs aside)."""
    return [c for c in text if (ord(c) < 32 and c not in "\n\t") or 0x7F <= ord(c) <= 0x9F
            or c == "\u202e"]  # fmt: skip


class Shouting(ScriptedResponder):
    """A writer and critic whose answers carry escape sequences."""

    def __call__(self, step, messages):
        answer = super().__call__(step, messages)
        return answer.replace("Revision", f"Re{RED}vision") if step.startswith("draft") else answer


@pytest.fixture
def run(scripted, runs_dir):
    scripted.responder = Shouting(scores=[6, 9], sections=2)
    Runner(quiet_ui()).write(TASK, settings(runs_dir, max_rounds=2), "esc")
    return runs_dir


def test_terminal_safe_shows_controls_escaped():
    assert safe.terminal_safe(TASK) == "Why writers \\x1b[31mrevise\\x1b[0m drafts \\u009b2J\\u202egnp.exe"
    assert safe.terminal_safe("line\r\nnext\ttab") == "line\nnext\ttab"
    assert safe.terminal_safe("over\rwrite") == "over\\x0dwrite"
    assert safe.terminal_safe("中文, émigré, emoji 👍🏽") == "中文, émigré, emoji 👍🏽"
    dumped = json.dumps({"a": "\x1b\x9b"}, ensure_ascii=False)
    assert json.loads(safe.terminal_safe(dumped)) == {"a": "\x1b\x9b"}  # still valid JSON, same data


@pytest.mark.parametrize("command", ["history", "show", "stats", "export", "diff"])
def test_no_command_prints_a_raw_escape_in_a_pipe(run, command):
    args = {"history": ["history"], "show": ["show", "esc"], "stats": ["stats"],
            "export": ["export", "esc"], "diff": ["diff", "esc", "1", "2"]}[command]  # fmt: skip
    result = invoke(*args, "--runs-dir", run)
    assert result.exit_code == 0, result.output
    assert raw_controls(result.output) == []
    if command in ("history", "show"):
        assert "\\x1b[31mrevise" in result.output


def test_json_output_stays_json_and_keeps_the_data(run):
    history = invoke("history", "--json", "--runs-dir", run).output
    shown = invoke("show", "esc", "--json", "--runs-dir", run).output
    exported = invoke("export", "esc", "-f", "json", "--runs-dir", run).output
    assert raw_controls(history + shown + exported) == []
    assert json.loads(history)[0]["task"] == TASK
    assert json.loads(shown)["state"]["task"] == json.loads(exported)["state"]["task"] == TASK


def terminal() -> tuple[Console, io.StringIO]:
    buf = io.StringIO()
    return Console(file=buf, force_terminal=True, width=120, color_system="standard", highlight=False), buf


def test_show_and_history_on_a_terminal_print_no_raw_escape(run):
    """On a terminal (colour on) the only escape sequences are Rich's own styles: the task's
    `ESC[31m` is shown as text."""
    found, state = load_run(run, "esc")
    console, buf = terminal()
    views = Views(console=console)
    views.history([found], run)
    views.show(found, state)
    shown = buf.getvalue()
    assert "\\x1b[31mrevise" in shown and "\\x1b[31mvision" not in shown.replace("Re\\x1b[31mvision", "")
    assert RED + "revise" not in shown and "\x9b" not in shown and "\u202e" not in shown


def test_the_renderer_escapes_even_what_a_view_forgot():
    console, buf = terminal()
    ui = Renderer(console=console)
    ui.console.print(f"forgot to escape: {RED}red", markup=False)
    ui.warn(f"a warning {RED}red")
    assert RED not in buf.getvalue() and buf.getvalue().count("\\x1b[31m") == 2


def test_an_error_message_is_escaped():
    ui = Renderer(console=Console(file=io.StringIO()))
    console, err = terminal()
    ui.err = safe.guard(console)
    ui.error(f"no run {RED}x", "hint \x07")
    assert RED not in err.getvalue() and "\\x1b[31mx" in err.getvalue()


def test_sources_list_and_search_show_a_stored_title_escaped(tmp_path, runs_dir):
    page = tmp_path / "notes.md"
    page.write_text(f"# Press {RED}history\n\nGutenberg printed the Bible in Mainz around 1455.\n")
    assert invoke("sources", "add", page, "--runs-dir", runs_dir).exit_code == 0
    for args in (["sources", "list"], ["sources", "search", "Gutenberg"]):
        out = invoke(*args, "--runs-dir", runs_dir).output
        assert raw_controls(out) == [] and "\\x1b[31mhistory" in out, out
