"""The command line. Each command parses, loads config, calls one function, renders.

Heavy imports (LangGraph, litellm, xllamacpp) happen inside commands, never at import time,
so `reflectcli --help` stays fast.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer

from reflectcli import __version__
from reflectcli.errors import RunInterrupted, UserError

app = typer.Typer(
    name="reflectcli",
    help="Plan, draft, critique and revise an article; every model call checkpointed to SQLite.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    context_settings={"help_option_names": ["-h", "--help"]},
)

ModelOpt = Annotated[str | None, typer.Option("--model", "-m", help="Writer model "
                     "(local/smollm2, local/<file>.gguf, or a litellm model string).")]  # fmt: skip
CriticOpt = Annotated[str | None, typer.Option("--critic-model", help="Critic model "
                      "(default: the writer model).")]  # fmt: skip
RunsDirOpt = Annotated[Path | None, typer.Option("--runs-dir", help="Folder for reflect.db and "
                       "run artifacts (default ./runs).")]  # fmt: skip
ConfigOpt = Annotated[Path | None, typer.Option("--config", help="Config file (default "
                      "./config.toml, then the user config dir).")]  # fmt: skip
TimeoutOpt = Annotated[float | None, typer.Option("--timeout", help="Seconds one model call "
                       "may take.")]  # fmt: skip
ApiBaseOpt = Annotated[str | None, typer.Option("--api-base", help="Base URL of an "
                       "OpenAI-compatible server (Ollama, vLLM, llama.cpp server).")]  # fmt: skip
QuietOpt = Annotated[bool, typer.Option("--quiet", "-q", help="Print only the article path "
                     "(and errors).")]  # fmt: skip
DebugOpt = Annotated[bool, typer.Option("--debug", help="Log details and show tracebacks.")]
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
    from reflectcli.render import Renderer

    return Renderer(quiet=quiet)


def _fail(ui, exc: BaseException, debug: bool) -> typer.Exit:
    """Report an error in one line (a traceback only with --debug) and pick the exit code."""
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
    ui.error(f"unexpected {type(exc).__name__}: {exc}", "rerun with --debug for a traceback")
    return typer.Exit(1)


@app.command()
def write(
    task: Annotated[str, typer.Argument(help="What to write, e.g. \"an analysis of X\".")],
    model: ModelOpt = None,
    critic_model: CriticOpt = None,
    threshold: Annotated[float | None, typer.Option(help="Score (0-10) that passes.")] = None,
    max_rounds: Annotated[int | None, typer.Option(help="Reviews at most.")] = None,
    sections: Annotated[int | None, typer.Option(help="Outline sections at most.")] = None,
    lang: Annotated[str | None, typer.Option(help="Language to write in "
                    "(default: the task's).")] = None,  # fmt: skip
    thread_id: Annotated[str | None, typer.Option(help="Use this thread id instead of a "
                         "generated one.")] = None,  # fmt: skip
    runs_dir: RunsDirOpt = None,
    config: ConfigOpt = None,
    timeout: TimeoutOpt = None,
    api_base: ApiBaseOpt = None,
    revision: Annotated[str | None, typer.Option(help="section: rewrite only the sections the "
                        "critique names; full: rewrite the whole article.")] = None,  # fmt: skip
    max_tokens: Annotated[int | None, typer.Option(help="Token budget for the run.")] = None,
    max_cost: Annotated[float | None, typer.Option(help="Cost budget in USD for the run.")] = None,
    interactive: InteractiveOpt = None,
    quiet: QuietOpt = False,
    debug: DebugOpt = False,
) -> None:
    """Write an article: plan, draft section by section, review, revise until good enough."""
    _setup_logging(debug)
    ui = _renderer(quiet)
    try:
        from reflectcli.config import load_settings
        from reflectcli.runner import Runner

        settings = load_settings(config, flags={
            "model": model, "critic_model": critic_model, "threshold": threshold,
            "max_rounds": max_rounds, "max_sections": sections, "language": lang,
            "runs_dir": str(runs_dir) if runs_dir else None, "timeout": timeout,
            "api_base": api_base, "interactive": interactive,
            "policy": {"revision": revision, "max_tokens": max_tokens, "max_cost": max_cost},
        })  # fmt: skip
        result = Runner(ui).write(task, settings, thread_id)
    except (UserError, RunInterrupted, Exception) as exc:
        raise _fail(ui, exc, debug) from None
    _ending(ui, result)


def _ending(ui, result) -> None:
    if result.already_finished:
        ui.already_finished(result)
    elif result.waiting is not None:
        ui.waiting(result)
    else:
        ui.finished(result)


@app.command()
def resume(
    thread: Annotated[str, typer.Argument(help="Thread id printed by `write`.")],
    model: ModelOpt = None,
    critic_model: CriticOpt = None,
    timeout: TimeoutOpt = None,
    api_base: ApiBaseOpt = None,
    interactive: InteractiveOpt = None,
    runs_dir: RunsDirOpt = None,
    config: ConfigOpt = None,
    quiet: QuietOpt = False,
    debug: DebugOpt = False,
) -> None:
    """Continue a run from its last checkpoint, with the run's own settings."""
    _setup_logging(debug)
    ui = _renderer(quiet)
    try:
        from reflectcli.config import load_settings
        from reflectcli.runner import Runner

        where = load_settings(config, flags={"runs_dir": str(runs_dir) if runs_dir else None})
        flags = {"model": model, "critic_model": critic_model, "timeout": timeout,
                 "api_base": api_base, "interactive": interactive}  # fmt: skip
        result = Runner(ui).resume(thread, where.runs_dir, flags)
    except (UserError, RunInterrupted, Exception) as exc:
        raise _fail(ui, exc, debug) from None
    _ending(ui, result)


@app.command("fetch-model")
def fetch_model(debug: DebugOpt = False) -> None:
    """Download and verify the embedded model now (it is otherwise fetched on first use)."""
    _setup_logging(debug)
    ui = _renderer(False)
    try:
        from reflectcli.local import ensure_embedded_model

        path = ensure_embedded_model(ui.notice)
    except Exception as exc:
        raise _fail(ui, exc, debug) from None
    ui.console.print(f"embedded model: {path}", markup=False, soft_wrap=True)


def _version(value: bool) -> None:
    if value:
        typer.echo(f"reflectcli {__version__}")
        raise typer.Exit()


@app.callback()
def _root(
    version: Annotated[bool, typer.Option("--version", callback=_version, is_eager=True,
                       help="Show the version and exit.")] = False,  # fmt: skip
) -> None:
    """Plan, draft, critique and revise an article; every model call checkpointed to SQLite."""


def main() -> None:
    app()


from reflectcli import cli_inspect  # noqa: E402,F401  (registers the read commands)
