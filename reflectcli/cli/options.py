"""What the commands share: option types, logging set-up, and turning an error into one line
and an exit code (a traceback only with --debug)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer

from reflectcli.errors import RunInterrupted, UserError

ModelOpt = Annotated[str | None, typer.Option("--model", "-m", help="Writer model "
                     "(local/smollm2, local/<file>.gguf, or a litellm model string).")]  # fmt: skip
CriticOpt = Annotated[str | None, typer.Option("--critic-model", help="Critic model "
                      "(default: the writer model).")]  # fmt: skip
RunsDirOpt = Annotated[Path | None, typer.Option("--runs-dir", help="Folder for reflect.db and "
                       "run artifacts (default ./runs).")]  # fmt: skip
ConfigOpt = Annotated[Path | None, typer.Option("--config", help="Config file (default "
                      "./config.toml, then the user config dir).")]  # fmt: skip
TimeoutOpt = Annotated[float | None, typer.Option("--timeout", help="Seconds a model call "
                       "may go without a token (a slow but steady call is never cut).")]  # fmt: skip
CriticApiBaseOpt = Annotated[str | None, typer.Option("--critic-api-base", help="Base URL "
                             "of the critic's server, when it is not the writer's ('none': "
                             "the provider's own endpoint).")]  # fmt: skip
ApiBaseOpt = Annotated[str | None, typer.Option("--api-base", help="Base URL of an "
                       "OpenAI-compatible server (Ollama, vLLM, llama.cpp server).")]  # fmt: skip
QuietOpt = Annotated[bool, typer.Option("--quiet", "-q", help="Print only the article path "
                     "(and errors).")]  # fmt: skip
DebugOpt = Annotated[bool, typer.Option("--debug", help="Log details and show tracebacks.")]
JsonOpt = Annotated[bool, typer.Option("--json", help="Print JSON (stable keys) instead.")]
FilesOpt = Annotated[list[Path] | None, typer.Option("--files", help="A folder whose files the article's "
                     "references may add to the source library (repeatable; default: none, only "
                     "sources already in the library resolve).")]  # fmt: skip
InteractiveOpt = Annotated[bool | None, typer.Option("--interactive/--no-interactive",
                           help="Ask before drafting (approve, edit or regenerate the outline) "
                           "and when the loop stops without passing. Needs a terminal; "
                           "elsewhere the run waits.")]  # fmt: skip


def _setup_logging(debug: bool) -> None:
    import logging

    logging.basicConfig(
        level=logging.DEBUG if debug else logging.ERROR,
        format="%(levelname)s %(name)s: %(message)s",
        stream=sys.stderr,
    )


def _renderer(quiet: bool):
    from reflectcli.output.render import Renderer

    return Renderer(quiet=quiet)


def _closed_pipe() -> typer.Exit:
    """Whoever read our output went away (`| head -1`): stop without a word, as `git log | head`
    does. stdout is pointed at /dev/null so that the exit's own flush cannot fail again; 141 is
    what a shell reports for a process that SIGPIPE ended."""
    import os

    try:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    except (OSError, ValueError):  # stdout is not a real file (a test's capture)
        pass
    return typer.Exit(141)


def _fail(ui, exc: BaseException, debug: bool) -> typer.Exit:
    """Report an error in one line (a traceback only with --debug) and pick the exit code."""
    if isinstance(exc, BrokenPipeError):
        return _closed_pipe()
    if isinstance(exc, RunInterrupted):
        ui.interrupted(exc.thread_id)
        return typer.Exit(130)
    if debug:
        import traceback

        traceback.print_exception(exc)
    if isinstance(exc, UserError):
        ui.error(exc.message, exc.hint)
        return typer.Exit(exc.exit_code)
    import sqlite3

    if isinstance(exc, sqlite3.DatabaseError):
        ui.error(f"the runs database (reflect.db) cannot be used: {exc}",
                 "move it aside to start a fresh one; rerun with --debug for details")  # fmt: skip
        return typer.Exit(1)
    if type(exc).__module__.startswith(("psycopg", "psycopg_pool")):  # psycopg is not imported here
        first = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
        ui.error(f"the PostgreSQL store failed: {first}",
                 "check the server; a run it stopped resumes with `reflectcli resume ID`")  # fmt: skip
        return typer.Exit(1)
    ui.error(f"unexpected {type(exc).__name__}: {exc}", "rerun with --debug for a traceback")
    return typer.Exit(1)


def _ending(ui, result) -> None:
    if result.already_finished:
        ui.already_finished(result)
    elif result.waiting is not None:
        ui.waiting(result)
    else:
        ui.finished(result)


def _runs_dir(runs_dir: Path | None, config: Path | None) -> Path:
    from reflectcli.configfile import resolve_runs_dir

    return resolve_runs_dir(runs_dir, config)


def _run(debug: bool, fn):
    """Run a read command's body with the read views: its errors become one line and an exit
    code (a traceback with --debug). Returns what the body returns."""
    if debug:
        _setup_logging(debug)
    from reflectcli.output.views import Views

    try:
        return fn(Views())
    except (UserError, Exception) as exc:
        from reflectcli.output.render import Renderer

        raise _fail(Renderer(), exc, debug) from None


# `write`'s options (how the loop runs)
FromOpt = Annotated[str | None, typer.Option("--from", help="Start from your own draft (a Markdown file, or "
                    "- for stdin): its headings are the outline, the file is version 1; then "
                    "review and revise it.")]  # fmt: skip
KeepOpt = Annotated[list[str] | None, typer.Option("--keep", help="With --from: a section no revision may "
                    "touch (repeatable).")]  # fmt: skip
CriticKindOpt = Annotated[str | None, typer.Option(help="Who reviews: llm (the critic model) or checklist "
                          "(rules that measure the text; the embedded model's default).")]  # fmt: skip
ThresholdOpt = Annotated[float | None, typer.Option(help="Score (0-10) that passes.")]
MaxRoundsOpt = Annotated[int | None, typer.Option(help="Reviews at most.")]
SectionsOpt = Annotated[int | None, typer.Option(help="Outline sections at most.")]
LangOpt = Annotated[str | None, typer.Option(help="Language to write in (default: the task's).")]
ThreadIdOpt = Annotated[str | None, typer.Option(help="Use this thread id instead of a generated one.")]
StructuredOpt = Annotated[str | None, typer.Option(help="How JSON answers are asked of remote models: auto, "
                          "schema, json or prompt.")]  # fmt: skip
RevisionOpt = Annotated[str | None, typer.Option(help="section: rewrite only the sections the critique "
                        "names; full: rewrite the whole article.")]  # fmt: skip
SourcesOpt = Annotated[str | None, typer.Option(help="Evidence to cite: local (the source library), web (a "
                       "web search: [research] web), hybrid (both), none, or auto (the "
                       "library when it holds anything).")]  # fmt: skip
NoMemoryOpt = Annotated[bool, typer.Option("--no-memory", help="Recall no lessons from earlier runs, and "
                        "learn none.")]  # fmt: skip
ConcurrencyOpt = Annotated[int | None, typer.Option(help="Independent calls at once at most: searches, page "
                           "fetches, and the sections of a parallel draft (default 8; 1 for "
                           "local models).")]  # fmt: skip
DraftOpt = Annotated[str | None, typer.Option("--draft", help="sequential: each section sees the ones before "
                     "it; parallel: all sections at once, each with the outline and its "
                     "neighbours' goals.")]  # fmt: skip
MaxTokensOpt = Annotated[int | None, typer.Option(help="Token budget for the run.")]
MaxCostOpt = Annotated[float | None, typer.Option(help="Cost budget in USD for the run.")]
