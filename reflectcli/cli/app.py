"""The Typer application: the root options and the command table. Commands live in write.py
(runs) and inspect.py (reading past runs); this module only registers them."""

from typing import Annotated

import typer

from reflectcli import __version__
from reflectcli.cli import ask, batch, edit, evals, inspect, memory, serve, sources, write

app = typer.Typer(
    name="reflectcli",
    help="Plan, draft, critique and revise an article; every model call checkpointed.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    context_settings={"help_option_names": ["-h", "--help"]},
)

app.command()(write.write)
app.command()(write.resume)
app.command()(write.revise)
app.command()(write.review)
app.command()(edit.edit)
app.command()(ask.ask)
app.command("fetch-model")(write.fetch_model)
for command in (
    inspect.history,
    inspect.show,
    inspect.export,
    inspect.diff,
    inspect.stats,
    inspect.delete,
    inspect.prune,
):
    app.command()(command)
app.add_typer(sources.app, name="sources")
app.add_typer(memory.app, name="memory")
app.add_typer(evals.app, name="eval")
app.add_typer(batch.app, name="batch")
app.command()(batch.worker)
app.command()(serve.mcp)


def _version(value: bool) -> None:
    if value:
        typer.echo(f"reflectcli {__version__}")
        raise typer.Exit()


@app.callback()
def _root(
    version: Annotated[
        bool, typer.Option("--version", callback=_version, is_eager=True, help="Show the version and exit.")
    ] = False,  # fmt: skip
    store: Annotated[
        str | None,
        typer.Option(
            "--store",
            help="Where runs are stored, for every command: 'sqlite' (reflect.db "
            "in the runs folder, the default) or a postgresql:// URL. Env REFLECTCLI_STORE; "
            "config key `store`.",
        ),
    ] = None,  # fmt: skip
) -> None:
    """Plan, draft, critique and revise an article; every model call checkpointed."""
    if store is not None:
        import os

        os.environ["REFLECTCLI_STORE"] = store  # read by the store, and by workers we start


def main() -> None:
    import sys

    if len(sys.argv) < 2 or "--help" in sys.argv or "-h" in sys.argv:
        from reflectcli.cli.lean import lean_rich_utils

        lean_rich_utils()  # the help screen, without the imports it never uses
    try:
        app()
    except BrokenPipeError:  # output cut off outside a command's own error handling
        from reflectcli.cli.options import _closed_pipe

        raise SystemExit(_closed_pipe().exit_code) from None
