"""The docs cannot drift: the generated reference pages are current, every command line the
README and the docs show names commands and flags the app has, and the README's tour runs."""

from __future__ import annotations

import importlib.util
import shlex
import sys
from pathlib import Path

import pytest
from markdown_it import MarkdownIt
from typer.testing import CliRunner

ROOT = Path(__file__).resolve().parent.parent


def _generate():
    spec = importlib.util.spec_from_file_location("docs_generate", ROOT / "docs" / "generate.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules["docs_generate"] = module
    spec.loader.exec_module(module)
    return module


generate = _generate()


def test_the_reference_pages_are_current():
    for name, text in generate.generated().items():
        page = generate.PAGES[name]
        assert page.read_text(encoding="utf-8") == text, f"{page.name} is stale: run python docs/generate.py"


def test_a_new_flag_makes_the_command_reference_stale(monkeypatch):
    import copy

    import typer

    from reflectcli.cli.app import app

    command = typer.main.get_command(app)
    monkeypatch.setattr(generate, "_click_root", lambda: command)
    before = generate.cli_reference()
    write = command.get_command(generate._context(command), "write")
    shiny = copy.copy(next(p for p in write.params if "--debug" in p.opts))
    shiny.opts, shiny.help = ["--shiny"], "A new flag."
    monkeypatch.setattr(write, "params", [*write.params, shiny])
    after = generate.cli_reference()
    assert after != before and "`--shiny`" in after and "`--shiny`" not in generate.PAGES["cli"].read_text()


def test_every_shown_command_line_names_what_the_app_has():
    assert generate.check_docs(generate.doc_files()) == []
    assert len(generate.shown_commands((ROOT / "README.md").read_text())) >= 15


@pytest.mark.parametrize(
    "line, problem",
    [
        ('reflectcli write "x" --modle m', "has no option --modle"),
        ("reflectcli histroy", "has no command histroy"),
        ("reflectcli sources add|frob x", "has no command frob"),
        ("reflectcli eval run s.jsonl --judge j --made-up", "has no option --made-up"),
        ("reflectcli sources add notes/ --prune", None),
        ("reflectcli --store URL history --limit 3", None),
        ('reflectcli write --from draft.md [--keep "Title"]', None),
    ],
)
def test_a_made_up_command_or_flag_is_caught(line, problem):
    found = generate.check_line(line)
    assert (problem in " ".join(found)) if problem else found == []


def test_a_flag_under_a_commands_heading_must_be_its_own():
    text = "## `reflectcli history`\n\nFilter with `--status S` or `--colour`.\n\n## Other\n\n`--colour`\n"
    assert [(flag, where) for _, flag, where in generate.section_flags(text, dict(generate.commands()))] == [
        ("--colour", "history")
    ]


def tour() -> list[str]:
    """The README's tour: the lines of the code block under `## A tour`."""
    tokens = MarkdownIt("commonmark").parse((ROOT / "README.md").read_text(encoding="utf-8"))
    heading = next(i for i, t in enumerate(tokens) if t.type == "inline" and t.content == "A tour")
    block = next(t for t in tokens[heading:] if t.type == "fence")
    return [line for line in block.content.splitlines() if line.startswith("reflectcli ")]


DRAFT = """# Lighthouse keeping

## Introduction

Lighthouse keepers trimmed the wick every night. Their logbooks recorded each storm.

## The lens

The Fresnel lens focused the lamp's light into a beam. It was first used in 1823.
"""


def test_the_readme_tour_runs_against_the_scripted_server(tmp_path, monkeypatch):
    """Every command of the tour, as written, against the scripted OpenAI-compatible server
    (the model and its server come from the environment, as a user's config would give them)."""
    from reflectcli.cli.app import app
    from tests.crashkit import KillScript
    from tests.openai_server import OpenAIServer

    lines = tour()
    assert len(lines) >= 10
    (tmp_path / "notes").mkdir()
    (tmp_path / "notes" / "fresnel.md").write_text(
        "# The Fresnel lens\n\nAugustin Fresnel's lens was first used in a lighthouse in 1823. "
        "Its rings of glass bend the lamp's light into one beam.\n"
    )
    (tmp_path / "draft.md").write_text(DRAFT)
    with OpenAIServer(reply=KillScript((6.0, 9.0), 3)) as server:
        monkeypatch.setenv("REFLECTCLI_MODEL", "openai/scripted")
        monkeypatch.setenv("REFLECTCLI_API_BASE", server.base_url)
        monkeypatch.setenv("REFLECTCLI_RETRIES", "0")
        runner = CliRunner()
        for line in lines:
            words = shlex.split(line, comments=True)
            result = runner.invoke(app, words[1:])
            assert result.exit_code == 0, f"{line}\n{result.output}"
    assert (tmp_path / "lighthouses.html").exists()


def test_the_readmes_picture_is_what_a_run_shows_now():
    """docs/assets/run.svg is a recorded scripted run: recorded again, its text is the same
    (digits aside: times and token counts vary); `python docs/generate.py --svg` refreshes it."""
    fresh = generate.run_svg()
    assert generate._masked(fresh) == generate._masked(generate.SVG.read_text(encoding="utf-8")), (
        "docs/assets/run.svg is stale: run python docs/generate.py --svg"
    )
    assert "cited claims" in generate._masked(fresh) and "passed" in generate._masked(fresh)
