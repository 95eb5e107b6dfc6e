"""`reflectcli ask ID "QUESTION"`: a reader's question about a finished run, answered from its
output and its evidence, each cited claim checked like the article's (graph/ask.py)."""

from __future__ import annotations

from typing import Annotated

import typer

from reflectcli.cli.options import (
    ApiBaseOpt,
    ConfigOpt,
    CriticApiBaseOpt,
    CriticOpt,
    DebugOpt,
    ModelOpt,
    QuietOpt,
    RunsDirOpt,
    TimeoutOpt,
    _ending,
    _fail,
    _renderer,
    _setup_logging,
)
from reflectcli.errors import RunInterrupted, UserError


def ask(
    thread: Annotated[str, typer.Argument(help="Thread id of a finished run.")],
    question: Annotated[str, typer.Argument(help='Your question, e.g. "Where does the 1473 come from?"')],
    research: Annotated[
        bool,
        typer.Option("--research", help="Search the web too, when the run used web research."),
    ] = False,  # fmt: skip
    apply: Annotated[
        bool,
        typer.Option(
            "--apply",
            help="Make the answer a revision: a new section, or a change to the "
            "section the question names (or --section); reviewed, and kept only if the "
            "best-version rule chooses it.",
        ),
    ] = False,  # fmt: skip
    section: Annotated[
        str | None, typer.Option(help="With --apply: the section the answer changes (a title or number).")
    ] = None,  # fmt: skip
    model: ModelOpt = None,
    critic_model: CriticOpt = None,
    timeout: TimeoutOpt = None,
    api_base: ApiBaseOpt = None,
    critic_api_base: CriticApiBaseOpt = None,
    runs_dir: RunsDirOpt = None,
    config: ConfigOpt = None,
    quiet: QuietOpt = False,
    debug: DebugOpt = False,
) -> None:
    """Ask a finished run a question: an answer from its article and sources, cited claims checked."""
    _setup_logging(debug)
    ui = _renderer(quiet)
    try:
        from reflectcli.configfile import resolve_runs_dir
        from reflectcli.runner import Runner

        if section and not apply:
            raise UserError("--section goes with --apply", exit_code=2)
        where = resolve_runs_dir(runs_dir, config)
        flags = {"model": model, "critic_model": critic_model, "timeout": timeout,
                 "api_base": api_base, "critic_api_base": critic_api_base}  # fmt: skip
        runner = Runner(ui)
        record, result = runner.ask(thread, str(where), question, flags, research, apply, section)
    except (UserError, RunInterrupted, Exception) as exc:
        raise _fail(ui, exc, debug) from None
    ui.close()
    from reflectcli.output.questions import answer_lines

    evidence = runner.state.get("evidence") or []
    if not quiet or result is None:
        for line in answer_lines(record, evidence):
            ui.console.print(line, markup=False, soft_wrap=True, highlight=False)
    if result is not None:
        _ending(ui, result)
