"""`reflectcli eval ...`: run a suite of tasks, judge first draft vs final output with a separate
model, and report what reflection bought. run / resume / report / list."""

from pathlib import Path
from typing import Annotated

import typer

from reflectcli.cli.options import (
    ApiBaseOpt,
    ConfigOpt,
    CriticOpt,
    DebugOpt,
    JsonOpt,
    ModelOpt,
    QuietOpt,
    RunsDirOpt,
    _fail,
    _renderer,
    _run,
    _runs_dir,
    _setup_logging,
)
from reflectcli.errors import RunInterrupted, UserError

app = typer.Typer(
    name="eval",
    help="Measure what reflection buys: a suite of tasks, judged first draft vs final output.",
    no_args_is_help=True,
    add_completion=False,
)

EvalArg = Annotated[str, typer.Argument(help="Eval id (see `reflectcli eval list`).")]


def _interrupted(ui, exc: RunInterrupted, eval_id: str | None) -> typer.Exit:
    ui.close()
    hint = f"reflectcli eval resume {eval_id}" if eval_id else f"reflectcli resume {exc.thread_id}"
    ui.warn(f"interrupted: every finished task and judgement is kept; continue with `{hint}`")
    return typer.Exit(130)


def with_memory(settings, enabled: bool):
    """The eval's settings with reflection memory on or off (`--memory`)."""
    return settings.model_copy(update={"memory": settings.memory.model_copy(update={"enabled": enabled})})


SuiteArg = Annotated[str | None, typer.Argument(help="A JSONL suite file (one task per line).")]
BuiltinArg = Annotated[
    str | None, typer.Option("--builtin", help="A suite shipped with reflectcli: smoke or standard.")
]
JudgeArg = Annotated[
    str | None,
    typer.Option(
        "--judge",
        help="The judging model; must differ from writer and critic (default: "
        "the critic, which needs --judge-same).",
    ),
]
JudgeApiBaseArg = Annotated[
    str | None,
    typer.Option(
        "--judge-api-base", help="The judge's OpenAI-compatible server (default: the writer's api_base)."
    ),
]
JudgeSameArg = Annotated[
    bool,
    typer.Option(
        "--judge-same",
        help="Allow a judge that is the writer or critic (same model "
        "and api_base); every report's headline then says so.",
    ),
]
JudgeContextArg = Annotated[
    int | None,
    typer.Option(
        "--judge-context",
        min=2000,
        help="Tokens the judge's context window "
        "holds (default: a local model's own, else 32000); longer articles "
        "are judged in aligned parts.",
    ),
]
MaxRoundsArg = Annotated[int | None, typer.Option(help="Reviews at most, per task.")]
AgainstArg = Annotated[
    Path | None,
    typer.Option(
        "--against",
        help="A second config file (B): each task written with it too, and B's final judged against A's.",
    ),
]
AgainstOutputsArg = Annotated[
    Path | None,
    typer.Option(
        "--against-outputs",
        help="Another system's articles (JSONL: id, article): each "
        "task's final judged against the article with its id, both orders.",
    ),
]
AgainstNameArg = Annotated[
    str | None,
    typer.Option("--against-name", help="The other system's name in the report (default: the file's name)."),
]
LengthPairsArg = Annotated[
    int,
    typer.Option(
        "--length-pairs",
        min=0,
        max=2,
        help="Equal-length copies judged per pair, "
        "both orders (2: section openings and closings; 0: none, and where every final "
        "is longer the report then cannot say what length explains).",
    ),
]
LimitArg = Annotated[int | None, typer.Option(min=1, help="Only the first N tasks.")]
MemoryArg = Annotated[
    bool,
    typer.Option(
        "--memory/--no-memory",
        help="Recall and learn lessons in the eval's runs. Off by default: each task's result "
        "then depends neither on the tasks before it nor, with --against, on config A's runs.",
    ),
]


@app.command()
def run(
    suite: SuiteArg = None,
    builtin: BuiltinArg = None,
    judge: JudgeArg = None,
    judge_api_base: JudgeApiBaseArg = None,
    judge_same: JudgeSameArg = False,
    judge_context: JudgeContextArg = None,
    model: ModelOpt = None,
    critic_model: CriticOpt = None,
    api_base: ApiBaseOpt = None,
    max_rounds: MaxRoundsArg = None,
    against: AgainstArg = None,
    against_outputs: AgainstOutputsArg = None,
    against_name: AgainstNameArg = None,
    length_pairs: LengthPairsArg = 2,
    limit: LimitArg = None,
    memory: MemoryArg = False,
    runs_dir: RunsDirOpt = None,
    config: ConfigOpt = None,
    quiet: QuietOpt = False,
    debug: DebugOpt = False,
) -> None:
    """Write every task of a suite with your settings, then judge each first draft vs final."""
    _setup_logging(debug)
    ui = _renderer(quiet)
    eval_id = None
    try:
        from reflectcli.config import load_settings
        from reflectcli.eval.run import Evaluation
        from reflectcli.eval.suites import load

        name, tasks = load(suite, builtin)
        outputs = None
        if against_outputs is not None:
            from reflectcli.eval.outputs import load as load_outputs

            outputs = load_outputs(against_outputs, against_name)
        settings = load_settings(config, flags={
            "model": model, "critic_model": critic_model, "api_base": api_base,
            "max_rounds": max_rounds, "runs_dir": str(runs_dir) if runs_dir else None,
        })  # fmt: skip
        chosen = judge or settings.critic_name
        other = None
        if against is not None:
            if not against.is_file():
                raise UserError(f"--against {against}: no such config file", exit_code=2)
            other = with_memory(load_settings(against, flags={"runs_dir": settings.runs_dir}), memory)
        settings = with_memory(settings, memory)
        evaluation = Evaluation(ui, settings.runs_dir)
        eval_id = evaluation.start(name, tasks[:limit] if limit else tasks, settings, chosen, other,
                                   judge_api_base=judge_api_base, judge_same=judge_same, outputs=outputs,
                                   judge_context=judge_context, length_pairs=length_pairs)  # fmt: skip
        _show(ui, settings.runs_dir, eval_id)
    except RunInterrupted as exc:
        raise _interrupted(ui, exc, _eval_of(exc)) from None
    except (UserError, Exception) as exc:
        raise _fail(ui, exc, debug) from None


def _eval_of(exc: RunInterrupted) -> str | None:
    thread = exc.thread_id or ""
    return thread[2:].rsplit("-", 1)[0] if thread.startswith("e-") else None


def _show(ui, runs_dir, eval_id: str) -> None:
    from reflectcli.eval.run import report
    from reflectcli.output.evalreport import terminal

    ui.close()
    terminal(ui.console, report(runs_dir, eval_id))


@app.command()
def resume(
    eval_id: EvalArg,
    runs_dir: RunsDirOpt = None,
    config: ConfigOpt = None,
    quiet: QuietOpt = False,
    debug: DebugOpt = False,
) -> None:
    """Continue an eval where it stopped (finished tasks and judgements are not paid again)."""
    _setup_logging(debug)
    ui = _renderer(quiet)
    try:
        from reflectcli.eval.run import Evaluation

        where = str(_runs_dir(runs_dir, config))
        Evaluation(ui, where).resume(eval_id)
        _show(ui, where, eval_id)
    except RunInterrupted as exc:
        raise _interrupted(ui, exc, eval_id) from None
    except (UserError, Exception) as exc:
        raise _fail(ui, exc, debug) from None


@app.command()
def report(
    eval_id: EvalArg,
    as_json: JsonOpt = False,
    as_html: Annotated[bool, typer.Option("--html", help="A self-contained HTML page with a chart.")] = False,
    output: Annotated[Path | None, typer.Option("-o", "--output", help="Write to FILE (0600).")] = None,
    runs_dir: RunsDirOpt = None,
    config: ConfigOpt = None,
    debug: DebugOpt = False,
) -> None:
    """The report: win / tie / loss with a 95 % interval, rubric gains, consistency, cost."""

    def body(views) -> None:
        import json

        from reflectcli.eval.run import report as build
        from reflectcli.output.artifacts import write_private
        from reflectcli.output.evalreport import page, terminal

        data = build(_runs_dir(runs_dir, config), eval_id)
        if not (as_json or as_html):
            terminal(views.console, data)
            return
        text = json.dumps(data, ensure_ascii=False, indent=2) + "\n" if as_json else page(data)
        if output:
            write_private(output, text)
            views.message(f"wrote {output}")
        else:
            views.raw(text)

    _run(debug, body)


@app.command("list")
def list_(
    as_json: JsonOpt = False,
    runs_dir: RunsDirOpt = None,
    config: ConfigOpt = None,
    debug: DebugOpt = False,
) -> None:
    """Evaluations, newest first: id, suite, judge, status, tasks judged."""

    def body(views) -> None:
        from reflectcli.eval.run import evaluations

        where = _runs_dir(runs_dir, config)
        found = evaluations(where)
        if as_json:
            views.json(found)
        elif not found:
            views.message(f"no evals in {where}; start one with `reflectcli eval run --builtin smoke "
                          "--judge MODEL`")  # fmt: skip
        else:
            from reflectcli.output.evalreport import listed

            for e in found:
                views.message(f"{e['id']}  {e['status']:<9} {e['judged']}/{e['tasks']} judged  "
                              f"judge {e['judge']}  {e['suite']}{listed(e.get('result'))}")  # fmt: skip

    _run(debug, body)
