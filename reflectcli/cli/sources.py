"""`reflectcli sources ...`: the source library runs will cite. add / list / search / show /
remove. Reading and indexing live in reflectcli/sources; these commands parse and render."""

from typing import Annotated

import typer

from reflectcli.cli.options import ConfigOpt, DebugOpt, JsonOpt, RunsDirOpt, _run, _runs_dir

app = typer.Typer(
    name="sources",
    help="The source library: files, folders and URLs that runs can cite.",
    no_args_is_help=True,
    add_completion=False,
)

SourceArg = Annotated[int, typer.Argument(help="Source id (see `reflectcli sources list`).")]


@app.command()
def add(
    targets: Annotated[
        list[str],
        typer.Argument(
            help="Files (.md .txt .html .pdf .docx), folders (read recursively) and http(s) URLs."
        ),
    ],  # fmt: skip
    prune: Annotated[
        bool, typer.Option("--prune", help="Remove the sources of a folder's files that are gone from it.")
    ] = False,  # fmt: skip
    as_json: JsonOpt = False,
    runs_dir: RunsDirOpt = None,
    config: ConfigOpt = None,
    debug: DebugOpt = False,
) -> None:
    """Read files, folders and URLs into the library (unchanged files are left as they are)."""
    from reflectcli.output.render import Renderer

    ui = Renderer(quiet=as_json)

    def body(views) -> int:
        from reflectcli.config import load_settings
        from reflectcli.sources.library import AddInterrupted
        from reflectcli.sources.library import add as add_sources

        settings = load_settings(config, flags={"runs_dir": runs_dir})
        stop = None
        try:
            outcomes = add_sources(settings.runs_dir, targets, ui.task_progress,
                                   allow_private=settings.research.allow_private, prune=prune,
                                   proxy=settings.research.proxy)  # fmt: skip
        except AddInterrupted as exc:  # Ctrl-C: say what was kept
            outcomes, stop = exc.outcomes, exc
        ui.close()
        if as_json:
            views.json([o.to_dict() for o in outcomes])
        else:
            views.sources_added(outcomes)
        if stop is not None:
            ui.error(f"interrupted after {stop.done} of {stop.total}: the sources listed are kept "
                     "(each is written whole)", "the same command adds the rest")  # fmt: skip
            return 130
        return 1 if any(o.status == "skipped" for o in outcomes) else 0  # the rest was added

    code = _run(debug, body)
    if code:
        raise typer.Exit(code)


@app.command("list")
def list_(
    as_json: JsonOpt = False,
    runs_dir: RunsDirOpt = None,
    config: ConfigOpt = None,
    debug: DebugOpt = False,
) -> None:
    """List the library: id, title, kind, location, chunks, when added."""

    def body(views) -> None:
        from reflectcli.sources.library import sources

        where = _runs_dir(runs_dir, config)
        found = sources(where)
        views.json(found) if as_json else views.sources(found, where)

    _run(debug, body)


@app.command()
def search(
    query: Annotated[str, typer.Argument(help="Words to look for (any language).")],
    limit: Annotated[
        int, typer.Option("--limit", "-n", min=1, max=200, help="Show at most N chunks.")
    ] = 10,  # fmt: skip
    as_json: JsonOpt = False,
    runs_dir: RunsDirOpt = None,
    config: ConfigOpt = None,
    debug: DebugOpt = False,
) -> None:
    """Search the library: the best-matching chunks (BM25), each with a snippet."""

    def body(views) -> None:
        from reflectcli.sources.library import search as search_sources

        hits = search_sources(_runs_dir(runs_dir, config), query, limit)
        views.json(hits) if as_json else views.source_hits(hits, query)

    _run(debug, body)


@app.command()
def show(
    source: SourceArg,
    as_json: JsonOpt = False,
    runs_dir: RunsDirOpt = None,
    config: ConfigOpt = None,
    debug: DebugOpt = False,
) -> None:
    """Show one source and its chunks (page, heading, offsets)."""

    def body(views) -> None:
        from reflectcli.sources.library import show as show_source

        found, chunks = show_source(_runs_dir(runs_dir, config), source)
        if as_json:
            views.json({"source": found, "chunks": chunks})
        else:
            views.source(found, chunks)

    _run(debug, body)


@app.command()
def remove(
    source: SourceArg,
    runs_dir: RunsDirOpt = None,
    config: ConfigOpt = None,
    debug: DebugOpt = False,
) -> None:
    """Remove a source and its chunks from the library."""

    def body(views) -> None:
        from reflectcli.sources.library import remove as remove_source

        gone = remove_source(_runs_dir(runs_dir, config), source)
        views.message(f"removed source {gone['id']} ({gone['title']})")

    _run(debug, body)
