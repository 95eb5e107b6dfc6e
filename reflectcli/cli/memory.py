"""`reflectcli memory ...`: the lessons runs learn and recall. list / show / add / edit / pin /
unpin / forget. The rules live in reflectcli/memory; these commands parse and render."""

from typing import Annotated

import typer

from reflectcli.cli.options import ConfigOpt, DebugOpt, JsonOpt, RunsDirOpt, _run
from reflectcli.errors import UserError

app = typer.Typer(
    name="memory",
    help="Lessons learned from earlier runs' critiques, recalled into new runs.",
    no_args_is_help=True,
    add_completion=False,
)

LessonArg = Annotated[int, typer.Argument(help="Lesson id (see `reflectcli memory list`).")]


def _memory(runs_dir, config):
    """The bank in the runs folder, with the half-life from config.toml's [memory] table (read
    without the settings model: read commands stay light)."""
    from reflectcli.configfile import find_config_file, read_toml, resolve_runs_dir
    from reflectcli.memory.bank import HALF_LIFE_DAYS, Memory

    path = find_config_file(config)
    table = (read_toml(path).get("memory") or {}) if path else {}
    half_life = table.get("half_life_days", HALF_LIFE_DAYS)
    if not isinstance(half_life, int | float) or isinstance(half_life, bool) or half_life <= 0:
        raise UserError(f"{path}: config key 'memory.half_life_days' must be a number above 0",
                        exit_code=2)  # fmt: skip
    return Memory(resolve_runs_dir(runs_dir, config), float(half_life))


@app.command("list")
def list_(
    everything: Annotated[
        bool, typer.Option("--all", help="Archived and superseded lessons too.")
    ] = False,  # fmt: skip
    as_json: JsonOpt = False,
    runs_dir: RunsDirOpt = None,
    config: ConfigOpt = None,
    debug: DebugOpt = False,
) -> None:
    """Lessons: id, strength now, times learned and recalled, last seen, status, text."""

    def body(views) -> None:
        memory = _memory(runs_dir, config)
        found = memory.list(everything)
        views.json(found) if as_json else views.lessons(found, memory.runs_dir)

    _run(debug, body)


@app.command()
def show(
    lesson: LessonArg,
    as_json: JsonOpt = False,
    runs_dir: RunsDirOpt = None,
    config: ConfigOpt = None,
    debug: DebugOpt = False,
) -> None:
    """One lesson and its evidence: runs, rounds, score changes; merges; what superseded it."""

    def body(views) -> None:
        found = _memory(runs_dir, config).show(lesson)
        views.json(found) if as_json else views.lesson(found)

    _run(debug, body)


@app.command()
def add(
    text: Annotated[str, typer.Argument(help='The rule, e.g. "Open with a concrete case".')],
    scope: Annotated[
        str, typer.Option(help="general, or a tag: recalled only for tasks holding that word.")
    ] = "general",  # fmt: skip
    runs_dir: RunsDirOpt = None,
    config: ConfigOpt = None,
    debug: DebugOpt = False,
) -> None:
    """Add a lesson of your own (it starts stronger than a learned one)."""

    def body(views) -> None:
        lesson_id = _memory(runs_dir, config).add(text, scope)
        views.message(f"added lesson {lesson_id}")

    _run(debug, body)


@app.command()
def edit(
    lesson: LessonArg,
    text: Annotated[str, typer.Argument(help="The new text of the rule.")],
    runs_dir: RunsDirOpt = None,
    config: ConfigOpt = None,
    debug: DebugOpt = False,
) -> None:
    """Reword a lesson (its strength and evidence stay)."""

    def body(views) -> None:
        _memory(runs_dir, config).edit(lesson, text)
        views.message(f"lesson {lesson} edited")

    _run(debug, body)


@app.command()
def pin(
    lesson: LessonArg,
    runs_dir: RunsDirOpt = None,
    config: ConfigOpt = None,
    debug: DebugOpt = False,
) -> None:
    """Pin a lesson: it never decays (an archived one comes back)."""

    def body(views) -> None:
        _memory(runs_dir, config).pin(lesson, True)
        views.message(f"lesson {lesson} pinned")

    _run(debug, body)


@app.command()
def unpin(
    lesson: LessonArg,
    runs_dir: RunsDirOpt = None,
    config: ConfigOpt = None,
    debug: DebugOpt = False,
) -> None:
    """Let a pinned lesson decay again, from now."""

    def body(views) -> None:
        _memory(runs_dir, config).pin(lesson, False)
        views.message(f"lesson {lesson} unpinned")

    _run(debug, body)


@app.command()
def forget(
    lesson: LessonArg,
    runs_dir: RunsDirOpt = None,
    config: ConfigOpt = None,
    debug: DebugOpt = False,
) -> None:
    """Delete a lesson for good (its evidence and index entry too; the log keeps the event)."""

    def body(views) -> None:
        gone = _memory(runs_dir, config).forget(lesson)
        views.message(f"forgot lesson {lesson}: {gone['text']}")

    _run(debug, body)
