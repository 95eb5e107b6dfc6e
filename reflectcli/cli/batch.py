"""`reflectcli batch ...` and `reflectcli worker`: many tasks, written by worker processes on
this machine (`batch run`, any store) or on many (`batch submit` + `worker`, PostgreSQL)."""

import sys
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
from reflectcli.errors import UserError
from reflectcli.output.rows import plural

app = typer.Typer(
    name="batch",
    help="Many tasks at once: `run` here with N processes, or `submit` to the PostgreSQL queue "
    "that `reflectcli worker` processes take from.",
    no_args_is_help=True,
    add_completion=False,
)

TasksArg = Annotated[Path, typer.Argument(help="JSONL, one task per line: "
                     '{"task": "...", "thread_id": "...", "overrides": {"max_rounds": 2}}.')]  # fmt: skip
BatchArg = Annotated[str, typer.Argument(help="Batch id (printed by run / submit; `batch list`).")]
JobsOpt = Annotated[int, typer.Option("--jobs", "-j", min=1, max=64,
                                      help="Runs at once (threads, one process per 16 runs).")]  # fmt: skip


def _settings(config, runs_dir, model, critic_model, api_base, max_rounds, threshold):
    from reflectcli.config import load_settings

    return load_settings(config, flags={
        "model": model, "critic_model": critic_model, "api_base": api_base,
        "max_rounds": max_rounds, "threshold": threshold, "interactive": False,
        "runs_dir": str(runs_dir) if runs_dir else None,
    })  # fmt: skip


def _print_final(ui, status, as_json: bool) -> None:
    from reflectcli.output.batchview import as_json as dumps
    from reflectcli.output.batchview import print_status

    if as_json:
        sys.stdout.write(dumps(status) + "\n")
    else:
        print_status(ui.console, status, limit=30)


@app.command()
def run(
    tasks: TasksArg,
    jobs: JobsOpt = 2,
    model: ModelOpt = None,
    critic_model: CriticOpt = None,
    api_base: ApiBaseOpt = None,
    max_rounds: Annotated[int | None, typer.Option(help="Reviews at most, per task.")] = None,
    threshold: Annotated[float | None, typer.Option(help="Score (0-10) that passes.")] = None,
    as_json: JsonOpt = False,
    runs_dir: RunsDirOpt = None,
    config: ConfigOpt = None,
    quiet: QuietOpt = False,
    debug: DebugOpt = False,
) -> None:
    """Write every task of a JSONL file on this machine, with N worker processes (any store)."""
    _setup_logging(debug)
    ui = _renderer(quiet or as_json)
    try:
        from reflectcli.batch import local
        from reflectcli.batch.tasks import load

        settings = _settings(config, runs_dir, model, critic_model, api_base, max_rounds, threshold)
        items = load(tasks, settings)
        batch_id = local.create(settings.runs_dir, str(tasks), "local", settings.run_params(), items)
    except (UserError, Exception) as exc:
        raise _fail(ui, exc, debug) from None
    count = plural(len(items), "task", "tasks")
    _work_here(ui, settings.runs_dir, batch_id, jobs, count, quiet, as_json, debug,
               "interrupted: finished tasks are kept and the others resume from their last step; "
               f"continue with `reflectcli batch resume {batch_id}`")  # fmt: skip


def _work_here(ui, where, batch_id: str, jobs: int, what: str, quiet: bool, as_json: bool, debug: bool,
               interrupted: str) -> None:  # fmt: skip
    """`batch run` and `batch resume`: the worker processes, the live progress, the final table
    and the exit code (0 all done, 1 any failed, 130 interrupted)."""
    try:
        from reflectcli.batch import local
        from reflectcli.output.batchview import BatchProgress

        if not as_json:
            ui.console.print(f"[bold]batch[/] [cyan]{batch_id}[/] · {what} · {jobs} at once")
        progress = BatchProgress(quiet=quiet or as_json)
        try:
            status = local.run_local(where, batch_id, jobs, progress)
        finally:
            progress.close()
    except KeyboardInterrupt:
        ui.warn(interrupted)
        raise typer.Exit(130) from None
    except (UserError, Exception) as exc:
        raise _fail(ui, exc, debug) from None
    _print_final(ui, status, as_json)
    raise typer.Exit(1 if status["counts"]["failed"] else 0)


@app.command()
def resume(
    batch: BatchArg,
    jobs: JobsOpt = 2,
    retry_failed: Annotated[bool, typer.Option("--retry-failed", help="Try the failed tasks again.")] = False,
    as_json: JsonOpt = False,
    runs_dir: RunsDirOpt = None,
    config: ConfigOpt = None,
    quiet: QuietOpt = False,
    debug: DebugOpt = False,
) -> None:
    """Carry on with a `batch run` that was interrupted (each task from its last step)."""
    _setup_logging(debug)
    ui = _renderer(quiet or as_json)
    try:
        from reflectcli.batch import local

        where = _runs_dir(runs_dir, config)
        again = local.reopen(where, batch, retry_failed)
    except (UserError, Exception) as exc:
        raise _fail(ui, exc, debug) from None
    _work_here(
        ui,
        where,
        batch,
        jobs,
        f"{plural(again, 'task', 'tasks')} to go",
        quiet,
        as_json,
        debug,
        f"interrupted again: continue with `reflectcli batch resume {batch}`",
    )


@app.command()
def submit(
    tasks: Annotated[Path | None, typer.Argument(help="JSONL, one task per line (see `batch run`).")] = None,
    resume_batch: Annotated[
        str | None,
        typer.Option(
            "--resume", help="Queue the tasks of this batch that a submit cut short left without a job."
        ),
    ] = None,
    model: ModelOpt = None,
    critic_model: CriticOpt = None,
    api_base: ApiBaseOpt = None,
    max_rounds: Annotated[int | None, typer.Option(help="Reviews at most, per task.")] = None,
    threshold: Annotated[float | None, typer.Option(help="Score (0-10) that passes.")] = None,
    as_json: JsonOpt = False,
    runs_dir: RunsDirOpt = None,
    config: ConfigOpt = None,
    debug: DebugOpt = False,
) -> None:
    """Put every task of a JSONL file on the PostgreSQL job queue; prints the batch id."""
    _setup_logging(debug)
    ui = _renderer(False)
    try:
        from reflectcli.batch import local, queue
        from reflectcli.batch.tasks import load

        settings = _settings(config, runs_dir, model, critic_model, api_base, max_rounds, threshold)
        queue.require_url()
        if resume_batch:
            batch_id, items = resume_batch, []
        elif tasks is None:
            raise UserError("name a JSONL file of tasks (or --resume BATCH_ID)", exit_code=2)
        else:
            items = load(tasks, settings)
            batch_id = local.create(settings.runs_dir, str(tasks), "queue", settings.run_params(), items)
        jobs = queue.submit(settings.runs_dir, batch_id)
    except (UserError, Exception) as exc:
        raise _fail(ui, exc, debug) from None
    if as_json:
        import json

        sys.stdout.write(json.dumps({"batch_id": batch_id, "queued": len(jobs), "jobs": jobs}) + "\n")
    else:
        span = f" (jobs {jobs[0]}–{jobs[-1]})" if jobs else ""
        count = plural(len(jobs), "task", "tasks")
        ui.console.print(f"[bold]batch[/] [cyan]{batch_id}[/] · {count} queued{span}")
        ui.console.print(f"[dim]start workers with `reflectcli worker --concurrency 4`; watch with "
                         f"`reflectcli batch status {batch_id}`[/]")  # fmt: skip


@app.command()
def status(
    batch: BatchArg,
    as_json: JsonOpt = False,
    show_all: Annotated[bool, typer.Option("--all", help="Every task, not the first 30.")] = False,
    watch: Annotated[bool, typer.Option("--watch", "-w", help="Follow it live until it ends.")] = False,
    runs_dir: RunsDirOpt = None,
    config: ConfigOpt = None,
    debug: DebugOpt = False,
) -> None:
    """Where a batch stands: queued / running / done / failed per task, tokens, cost, ETA."""

    def body(views) -> None:
        from reflectcli.batch.local import snapshot
        from reflectcli.output.batchview import BatchProgress

        where = _runs_dir(runs_dir, config)
        current = snapshot(where, batch)
        if watch and not as_json and not current["finished"]:
            import time

            progress = BatchProgress()
            try:
                while not current["finished"] and not current["cancelled"]:
                    progress(current)
                    time.sleep(1)
                    current = snapshot(where, batch)
            except KeyboardInterrupt:
                pass
            finally:
                progress.close()
        if as_json:
            views.raw(_json(current))
        else:
            from reflectcli.output.batchview import print_status

            print_status(views.console, current, limit=None if show_all else 30)

    _run(debug, body)


def _json(status) -> str:
    from reflectcli.output.batchview import as_json

    return as_json(status) + "\n"


@app.command("list")
def list_batches(
    as_json: JsonOpt = False,
    runs_dir: RunsDirOpt = None,
    config: ConfigOpt = None,
    debug: DebugOpt = False,
) -> None:
    """The latest batches, newest first."""

    def body(views) -> None:
        from reflectcli.batch.local import snapshot
        from reflectcli.store.batches import BatchTables
        from reflectcli.store.catalog import open_store

        where = _runs_dir(runs_dir, config)
        with open_store(where) as store:
            ids = [b["id"] for b in BatchTables(store.conn).batches()] if store else []
        rows = [snapshot(where, i) for i in ids]
        if as_json:
            import json

            views.raw(
                json.dumps([{k: v for k, v in r.items() if k != "items"} for r in rows], indent=2) + "\n"
            )
            return
        if not rows:
            views.console.print(f"no batches in {where}")
            return
        from reflectcli.output.batchview import headline

        for r in rows:
            views.console.print(f"[cyan]{r['batch_id']}[/] {r['mode']:5} {headline(r)}")

    _run(debug, body)


@app.command()
def cancel(
    batch: BatchArg,
    runs_dir: RunsDirOpt = None,
    config: ConfigOpt = None,
    debug: DebugOpt = False,
) -> None:
    """Cancel a batch: queued tasks will not start, running ones stop after their current step."""

    def body(views) -> None:
        from reflectcli.batch.queue import cancel as cancel_batch

        counts = cancel_batch(_runs_dir(runs_dir, config), batch)
        views.console.print(f"batch {batch} cancelled: {counts['cancelled']} queued jobs dropped, "
                            f"{counts['stopping']} running asked to stop after their current "
                            "step")  # fmt: skip

    _run(debug, body)


def worker(
    concurrency: Annotated[
        int,
        typer.Option(
            "--concurrency",
            "-c",
            min=1,
            max=64,
            help="Jobs at once on this machine (threads: one worker process per 16 of them).",
        ),
    ] = 1,
    burst: Annotated[bool, typer.Option("--burst", help="Exit once the queue is empty.")] = False,
    runs_dir: RunsDirOpt = None,
    config: ConfigOpt = None,
    debug: DebugOpt = False,
) -> None:
    """Take batch tasks from the PostgreSQL job queue until stopped.

    Ctrl-C or SIGTERM stops each run after its current step; its task goes back on the queue."""
    _setup_logging(debug)
    ui = _renderer(False)
    try:
        from reflectcli.batch.queue import run_workers

        where = _runs_dir(runs_dir, config)
        from reflectcli.batch.execute import shares

        split = shares(concurrency)
        ui.console.print(f"[bold]worker[/] · {concurrency} at once in {len(split)} "
                         f"process{'es' if len(split) != 1 else ''} · Ctrl-C stops after the current step",
                         highlight=False)  # fmt: skip
        code = run_workers(where, concurrency, burst)
    except (UserError, Exception) as exc:
        raise _fail(ui, exc, debug) from None
    raise typer.Exit(code)
