"""Commands that read past runs: history, show, export, diff, stats, delete, prune.

They read our own tables only, so they never import LangGraph or litellm."""

from pathlib import Path
from typing import Annotated

import typer

from reflectcli.cli.options import ConfigOpt, DebugOpt, JsonOpt, RunsDirOpt, _run, _runs_dir
from reflectcli.errors import UserError

ThreadArg = Annotated[str, typer.Argument(help="Thread id (see `reflectcli history`).")]


def history(
    limit: Annotated[int, typer.Option("--limit", "-n", min=1, help="Show at most N runs.")] = 20,
    status: Annotated[
        str | None,
        typer.Option(help="Only runs with this status: running, finished, failed, interrupted, waiting."),
    ] = None,  # fmt: skip
    search: Annotated[
        str | None,
        typer.Option("--search", "-s", help="Only runs whose task contains TEXT (case-insensitive)."),
    ] = None,  # fmt: skip
    as_json: JsonOpt = False,
    runs_dir: RunsDirOpt = None,
    config: ConfigOpt = None,
    debug: DebugOpt = False,
) -> None:
    """List past runs, newest first."""
    from reflectcli.store.queries import STATUSES

    if status and status not in STATUSES:
        raise typer.BadParameter(f"choose one of {', '.join(STATUSES)}", param_hint="--status")

    def body(views) -> None:
        from reflectcli.store.catalog import history as list_history

        where = _runs_dir(runs_dir, config)
        runs = list_history(where, limit=limit, status=status, search=search)
        views.json(runs) if as_json else views.history(runs, where, bool(status or search))

    _run(debug, body)


def show(
    thread: ThreadArg,
    as_json: JsonOpt = False,
    runs_dir: RunsDirOpt = None,
    config: ConfigOpt = None,
    debug: DebugOpt = False,
) -> None:
    """Show one run: outline, scores per round, feedback, decisions, guards, trace."""

    def body(views) -> None:
        from reflectcli.store.catalog import load_run

        run, state = load_run(_runs_dir(runs_dir, config), thread)
        if as_json:
            from reflectcli.output.exporters import export_json

            views.raw(export_json(run, state) + "\n")
        else:
            views.show(run, state)

    _run(debug, body)


def export(
    thread: ThreadArg,
    fmt: Annotated[
        str | None,
        typer.Option(
            "--format",
            "-f",
            help="md (the article), report (the full record), json (everything), html (one "
            "self-contained page), pdf or docx (a report to share: the article, its claims' verdicts "
            "and References). Default: the one -o FILE's suffix names, else md.",
        ),
    ] = None,
    version: Annotated[
        str, typer.Option("--version", "-v", help="best, final or a version number.")
    ] = "final",  # fmt: skip
    output: Annotated[
        Path | None, typer.Option("--output", "-o", help="Write to FILE instead of stdout.")
    ] = None,  # fmt: skip
    runs_dir: RunsDirOpt = None,
    config: ConfigOpt = None,
    debug: DebugOpt = False,
) -> None:
    """Export a run's article or record as Markdown, JSON, HTML, PDF or Word (DOCX)."""

    def body(views) -> None:
        from reflectcli.output.artifacts import write_private
        from reflectcli.output.exporters import DOCUMENTS, FORMATS, format_for
        from reflectcli.output.exporters import export as render_export
        from reflectcli.store.catalog import load_run

        chosen = format_for(fmt, output)
        if chosen not in FORMATS + DOCUMENTS:
            raise UserError(f"unknown format {chosen!r}: choose one of {', '.join(FORMATS + DOCUMENTS)}",
                            exit_code=2)  # fmt: skip
        if output is None and chosen in DOCUMENTS and views.is_terminal():
            raise UserError(f"a {chosen} file is not for the terminal", hint=f"add -o FILE.{chosen}",
                            exit_code=2)  # fmt: skip
        run, state = load_run(_runs_dir(runs_dir, config), thread)
        text = render_export(run, state, chosen, version)
        if output is None:
            views.raw(text)
            return
        try:
            write_private(output, text)
        except OSError as exc:
            raise UserError(f"cannot write {output}: {exc.strerror}") from exc
        views.message(f"wrote {output}")

    _run(debug, body)


def diff(
    thread: ThreadArg,
    a: Annotated[
        str | None,
        typer.Argument(
            help="From version: a number, first, best or "
            "final (default: the version the last revision was written from)."
        ),
    ] = None,
    b: Annotated[str | None, typer.Argument(help="To version (default: the last version).")] = None,
    word: Annotated[bool, typer.Option("--word", "-w", help="Word diff instead of unified.")] = False,
    runs_dir: RunsDirOpt = None,
    config: ConfigOpt = None,
    debug: DebugOpt = False,
) -> None:
    """Show what changed between two versions of a run (default: what the last revision
    changed), and which version is the run's output."""

    def body(views) -> None:
        from reflectcli.output.diffs import default_pair, trim_context, unified, word_ops
        from reflectcli.output.exporters import choose_version
        from reflectcli.store.catalog import load_run

        _, state = load_run(_runs_dir(runs_dir, config), thread)
        first, last = default_pair(state)
        pick = {"first": "1"}
        va = choose_version(state, pick.get(a, a) if a else str(first))
        vb = choose_version(state, pick.get(b, b) if b else str(last))
        views.message(diff_note(state, va["n"], vb["n"]))
        if word:
            views.word_diff(trim_context(word_ops(va["text"], vb["text"])))
        else:
            views.unified_diff(unified(va["text"], vb["text"], f"version {va['n']}",
                                       f"version {vb['n']}"))  # fmt: skip

    _run(debug, body)


def diff_note(state: dict, a: int, b: int) -> str:
    """One line above a diff: which versions, and which one is the run's output."""
    from reflectcli.writing.rubric import score_words

    reviews = {r["version"]: r for r in state.get("reviews") or []}  # a version's latest review

    def name(n: int) -> str:
        r = reviews.get(n)
        said = f" (round {r['round']}: {score_words(r['score'], r.get('source'), state)})" if r else ""
        return f"version {n}{said}"

    output = state.get("final_version")
    if output is None:
        note = "the run is not finished: no output chosen yet"
    else:
        note = f"the output is version {output}"
    if a == b:
        return f"{name(a)} against itself; {note}"
    return f"{name(a)} → {name(b)}; {note}"


def stats(
    since: Annotated[
        float | None, typer.Option(min=0, help="Only runs created in the last DAYS days.")
    ] = None,  # fmt: skip
    as_json: JsonOpt = False,
    runs_dir: RunsDirOpt = None,
    config: ConfigOpt = None,
    debug: DebugOpt = False,
) -> None:
    """Totals over runs: statuses, rounds, stop reasons, score gain, fallbacks, usage per model."""

    def body(views) -> None:
        from reflectcli.store.catalog import stats as run_stats

        data = run_stats(_runs_dir(runs_dir, config), since)
        views.json(data) if as_json else views.stats(data)

    _run(debug, body)


def delete(
    thread: ThreadArg,
    runs_dir: RunsDirOpt = None,
    config: ConfigOpt = None,
    debug: DebugOpt = False,
) -> None:
    """Delete a run: its checkpoints, index row, journal and artifact."""

    def body(views) -> None:
        from reflectcli.store.catalog import delete as delete_run

        delete_run(_runs_dir(runs_dir, config), thread)
        views.message(f"deleted {thread}")

    _run(debug, body)


def prune(
    older_than: Annotated[
        float, typer.Option("--older-than", min=0, help="Delete runs last updated more than DAYS days ago.")
    ],  # fmt: skip
    dry_run: Annotated[bool, typer.Option("--dry-run", help="Only list what would go.")] = False,
    runs_dir: RunsDirOpt = None,
    config: ConfigOpt = None,
    debug: DebugOpt = False,
) -> None:
    """Delete old runs (never one that is running)."""

    def body(views) -> None:
        from reflectcli.store.catalog import prune as prune_runs

        gone = prune_runs(_runs_dir(runs_dir, config), older_than, dry_run)
        verb = "would delete" if dry_run else "deleted"
        views.message(f"{verb} {len(gone)} run{'s' if len(gone) != 1 else ''}"
                      + "".join(f"\n  {r['thread_id']}" for r in gone))  # fmt: skip

    _run(debug, body)
