"""Commands that run the loop: write, resume, and fetch-model.

Heavy imports (LangGraph, litellm, xllamacpp) happen inside the commands, never at import time,
so `reflectcli --help` stays fast."""

from pathlib import Path
from typing import Annotated

import typer

from reflectcli.cli.options import (
    ApiBaseOpt,
    ConcurrencyOpt,
    ConfigOpt,
    CriticApiBaseOpt,
    CriticKindOpt,
    CriticOpt,
    DebugOpt,
    DraftOpt,
    FilesOpt,
    FromOpt,
    InteractiveOpt,
    KeepOpt,
    LangOpt,
    MaxCostOpt,
    MaxRoundsOpt,
    MaxTokensOpt,
    ModelOpt,
    NoMemoryOpt,
    QuietOpt,
    RevisionOpt,
    RunsDirOpt,
    SectionsOpt,
    SourcesOpt,
    StructuredOpt,
    ThreadIdOpt,
    ThresholdOpt,
    TimeoutOpt,
    _ending,
    _fail,
    _renderer,
    _setup_logging,
)
from reflectcli.errors import RunInterrupted, UserError

PickOpt = Annotated[bool, typer.Option("--pick", help="Take or leave each change a revision "
                    "proposes, like git add -p: its section's diff with the critique that asked "
                    "for it; accept, reject, edit, accept all or quit (and strike or add to the "
                    "critic's list first). Needs a terminal.")]  # fmt: skip
AcceptAllOpt = Annotated[bool, typer.Option("--accept-all", help="Pick without asking: every change "
                         "accepted, and recorded so (where there is no terminal).")]  # fmt: skip


def pick_mode(ui, pick: bool, accept_all: bool) -> str:
    """The run's `pick` setting from --pick / --accept-all: asking needs a person at a terminal."""
    if accept_all:
        return "all"
    if not pick:
        return "off"
    if not ui.can_ask():
        raise UserError("--pick asks you at a terminal, change by change, and there is none here",
                        hint="add --accept-all to take every change, or run it in a terminal",
                        exit_code=2)  # fmt: skip
    return "ask"


def write(
    task: Annotated[
        str | None, typer.Argument(help='What to write, e.g. "an analysis of X" (optional with --from).')
    ] = None,
    from_file: FromOpt = None,
    keep: KeepOpt = None,
    files: FilesOpt = None,
    model: ModelOpt = None,
    critic_model: CriticOpt = None,
    critic: CriticKindOpt = None,
    threshold: ThresholdOpt = None,
    max_rounds: MaxRoundsOpt = None,
    sections: SectionsOpt = None,
    lang: LangOpt = None,
    thread_id: ThreadIdOpt = None,
    runs_dir: RunsDirOpt = None,
    config: ConfigOpt = None,
    timeout: TimeoutOpt = None,
    api_base: ApiBaseOpt = None,
    critic_api_base: CriticApiBaseOpt = None,
    structured: StructuredOpt = None,
    revision: RevisionOpt = None,
    sources: SourcesOpt = None,
    no_memory: NoMemoryOpt = False,
    concurrency: ConcurrencyOpt = None,
    draft_mode: DraftOpt = None,
    max_tokens: MaxTokensOpt = None,
    max_cost: MaxCostOpt = None,
    interactive: InteractiveOpt = None,
    pick: PickOpt = False,
    accept_all: AcceptAllOpt = False,
    quiet: QuietOpt = False,
    debug: DebugOpt = False,
) -> None:
    """Write an article: plan, draft section by section, review, revise until good enough."""
    _setup_logging(debug)
    ui = _renderer(quiet)
    try:
        from reflectcli.config import load_settings
        from reflectcli.runner import Runner

        picked = pick_mode(ui, pick, accept_all) if pick or accept_all else None

        settings = load_settings(config, flags={
            "model": model, "critic_model": critic_model, "critic": critic, "threshold": threshold,
            "max_rounds": max_rounds, "max_sections": sections, "language": lang,
            "runs_dir": str(runs_dir) if runs_dir else None, "timeout": timeout,
            "api_base": api_base, "interactive": interactive,
            "critic_api_base": critic_api_base, "structured": structured,
            "concurrency": concurrency, "draft": draft_mode,
            "policy": {"revision": revision, "max_tokens": max_tokens, "max_cost": max_cost},
            "research": {"sources": sources},
            "memory": {"enabled": False if no_memory else None}, "pick": picked,
        })  # fmt: skip
        draft = None
        if from_file is not None:
            task, draft = _read_draft(from_file, task, keep or [], references_apart=True)
            draft = _with_references(from_file, draft, settings, files or [])
        elif keep or files:
            raise UserError(f"{'--keep' if keep else '--files'} goes with --from FILE", exit_code=2)
        if task is None:
            raise UserError(
                "say what to write (a task), or start from your draft with --from FILE", exit_code=2
            )
        result = Runner(ui).write(task, settings, thread_id, draft)
    except (UserError, RunInterrupted, Exception) as exc:
        raise _fail(ui, exc, debug) from None
    _ending(ui, result)


def read_text(where: str) -> str:
    """A UTF-8 Markdown file's text, or stdin's for `-`; a one-line error otherwise."""
    import sys

    try:
        raw = sys.stdin.buffer.read() if where == "-" else Path(where).expanduser().read_bytes()
        return raw.decode("utf-8")
    except OSError as exc:
        raise UserError(f"cannot read {where}: {exc.strerror or exc}", exit_code=2) from None
    except UnicodeDecodeError:
        raise UserError(f"{where} is not UTF-8 text", hint="save it as UTF-8 Markdown", exit_code=2) from None


def _read_draft(where: str, task: str | None, keep: list[str], references_apart: bool = False
                ) -> tuple[str, dict]:  # fmt: skip
    """(the task, the run's starting state) from a Markdown file or stdin; bad input is one line."""
    from reflectcli.graph.human import draft_start
    from reflectcli.writing.draftfile import locked_sections, read_draft

    text = read_text(where)
    stem = "Draft" if where == "-" else Path(where).stem.replace("_", " ").replace("-", " ")
    try:
        draft = read_draft(text, stem, references_apart)
        locked = locked_sections(keep, draft.titles)
    except ValueError as exc:
        raise UserError(f"{where}: {exc}", exit_code=2) from None
    return task or draft.title or stem, draft_start(draft.titles, draft.bodies, draft.text, locked)


def resume(
    thread: Annotated[str, typer.Argument(help="Thread id printed by `write`.")],
    model: ModelOpt = None,
    critic_model: CriticOpt = None,
    timeout: TimeoutOpt = None,
    api_base: ApiBaseOpt = None,
    critic_api_base: CriticApiBaseOpt = None,
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
        from reflectcli.configfile import resolve_runs_dir
        from reflectcli.runner import Runner

        where = resolve_runs_dir(runs_dir, config)
        flags = {"model": model, "critic_model": critic_model, "timeout": timeout,
                 "api_base": api_base, "interactive": interactive,
                 "critic_api_base": critic_api_base}  # fmt: skip
        result = Runner(ui).resume(thread, str(where), flags)
    except (UserError, RunInterrupted, Exception) as exc:
        raise _fail(ui, exc, debug) from None
    _ending(ui, result)


def revise(
    thread: Annotated[str, typer.Argument(help="Thread id of a finished run.")],
    feedback: Annotated[
        str | None,
        typer.Argument(
            help='Your critique, e.g. "Open with the 1455 date" (optional with --pick: '
            "the critic's own list)."
        ),
    ] = None,  # fmt: skip
    section: Annotated[
        str | None, typer.Option(help="The section it concerns (a title, or its number).")
    ] = None,  # fmt: skip
    severity: Annotated[str, typer.Option(help="major or minor.")] = "major",
    rounds: Annotated[int, typer.Option(min=1, max=10, help="More rounds at most.")] = 1,
    pick: PickOpt = False,
    accept_all: AcceptAllOpt = False,
    runs_dir: RunsDirOpt = None,
    config: ConfigOpt = None,
    quiet: QuietOpt = False,
    debug: DebugOpt = False,
) -> None:
    """Continue a finished run with your own critique: the next revision applies it, the critic reviews."""
    _setup_logging(debug)
    ui = _renderer(quiet)
    try:
        from reflectcli.configfile import resolve_runs_dir
        from reflectcli.runner import Runner

        mode = pick_mode(ui, pick, accept_all)
        if feedback is None and mode == "off":
            raise UserError("say what to change (your critique), or pick from the critic's own "
                            "changes with --pick", exit_code=2)  # fmt: skip
        where = resolve_runs_dir(runs_dir, config)
        result = Runner(ui).steer(thread, str(where), feedback, section, severity, rounds, mode)
    except (UserError, RunInterrupted, Exception) as exc:
        raise _fail(ui, exc, debug) from None
    _ending(ui, result)


def review(
    file: Annotated[str, typer.Argument(help="Your article: a Markdown file, or - for stdin.")],
    task: Annotated[
        str | None, typer.Option(help="What the article is meant to do (default: its title).")
    ] = None,
    model: ModelOpt = None,
    critic_model: CriticOpt = None,
    critic: Annotated[str | None, typer.Option(help="llm or checklist.")] = None,
    api_base: ApiBaseOpt = None,
    critic_api_base: CriticApiBaseOpt = None,
    timeout: TimeoutOpt = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the review as JSON.")] = False,
    output: Annotated[
        Path | None, typer.Option("--output", "-o", help="Also write the review as a Markdown report.")
    ] = None,  # fmt: skip
    thread_id: Annotated[str | None, typer.Option(help="Use this thread id.")] = None,
    files: FilesOpt = None,
    runs_dir: RunsDirOpt = None,
    config: ConfigOpt = None,
    quiet: QuietOpt = False,
    debug: DebugOpt = False,
) -> None:
    """Review an article you wrote: scores, feedback, improvements by section; a run you can continue."""
    _setup_logging(debug)
    ui = _renderer(quiet or as_json)
    try:
        from reflectcli.config import load_settings
        from reflectcli.runner import Runner

        settings = load_settings(config, flags={
            "model": model, "critic_model": critic_model, "critic": critic, "max_rounds": 1,
            "api_base": api_base, "critic_api_base": critic_api_base, "timeout": timeout,
            "runs_dir": str(runs_dir) if runs_dir else None, "memory": {"enabled": False},
        })  # fmt: skip
        task, draft = _read_draft(file, task, [], references_apart=True)
        draft = _with_references(file, draft, settings, files or [])
        result = Runner(ui).write(task, settings, thread_id, draft)
    except (UserError, RunInterrupted, Exception) as exc:
        raise _fail(ui, exc, debug) from None
    reviewed = (result.state.get("reviews") or [{}])[-1]
    refs = result.state.get("references") or []
    if output is not None:
        from reflectcli.output.artifacts import review_report, write_private

        try:  # owner-only, like every artifact: it quotes the article and what its sources say
            write_private(output, review_report(result.state, result.thread_id, file))
        except OSError as exc:
            raise _fail(ui, UserError(f"cannot write {output}: {exc.strerror or exc}", exit_code=2),
                        debug) from None  # fmt: skip
    if as_json:
        import json

        keep = ("score", "dimensions", "feedback", "improvements", "claims", "source", "errors")
        print(json.dumps({"thread_id": result.thread_id, **{k: reviewed.get(k) for k in keep},
                          "references": refs}, ensure_ascii=False, indent=2))  # fmt: skip
        return
    from reflectcli.output.rows import claim, reference_check

    for line in [*(claim(c) for c in reviewed.get("claims") or []), *reference_check(refs)]:
        ui.console.print(line, markup=False, soft_wrap=True)
    ui.console.print(f"continue: `reflectcli revise {result.thread_id} \"your feedback\"`; or let the "
                     f"critic revise it: `reflectcli write --from {file}`", markup=False)  # fmt: skip


def _with_references(where: str, draft: dict, settings, files: list[Path]) -> dict:
    """The draft's state with its reference list resolved against the source library: the
    resolved sources it cites as the run's evidence (under the article's own ids; each section's
    as its research, as if a run had found them), a row per reference (resolved, ambiguous
    or unresolved, and why) in `references`, and the labels the list defines (`labels`: the
    article's own citation form, kept in every version). Only files in `files` (folders the
    person named) are ever read for it."""
    from reflectcli.graph.common import note_event
    from reflectcli.sources.resolve import resolve
    from reflectcli.writing.citations import cited_ids
    from reflectcli.writing.reflist import labels

    for folder in files:
        if not folder.expanduser().is_dir():
            raise UserError(f"--files {folder}: not a folder", exit_code=2)
    base = None if where == "-" else Path(where).expanduser().resolve().parent
    text = draft["versions"][0]["text"]
    evidence, report = resolve(settings.runs_dir, text, base, settings.research.allow_private, files)
    if not report:
        return draft
    own = sorted(labels(text))
    done = sum(1 for r in report if r["status"] == "resolved")
    note = note_event("draft", "references", f"references: {done} of {len(report)} resolved in the "
                      f"source library, {len(report) - done} reported", resolved=done,
                      reported=len(report) - done)  # fmt: skip
    held = [e["id"] for e in evidence]
    by_section = [[i for i in cited_ids(body, own) if i in held] for body in draft["sections"]]
    return {
        **draft,
        "evidence": evidence,
        "references": report,
        "labels": own,
        "trace": [*draft["trace"], note],
        "research": {"plan": draft["plans"], "sections": by_section},
    }  # each section's sources


def fetch_model(debug: DebugOpt = False) -> None:
    """Download and verify the embedded model now (it is otherwise fetched on first use)."""
    _setup_logging(debug)
    ui = _renderer(False)
    try:
        from reflectcli.models.local import ensure_embedded_model

        path = ensure_embedded_model(ui.notice, ui.download)
    except Exception as exc:
        raise _fail(ui, exc, debug) from None
    ui.console.print(f"embedded model: {path}", markup=False, soft_wrap=True)
