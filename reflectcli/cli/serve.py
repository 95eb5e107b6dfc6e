"""`reflectcli mcp`: serve reflectcli to an assistant (Claude Desktop, Claude Code, Cursor, any
MCP client). The server itself is reflectcli/mcp; this command parses, checks and starts it."""

from pathlib import Path
from typing import Annotated

import typer

from reflectcli.cli.options import ConfigOpt, DebugOpt, RunsDirOpt, _fail, _renderer, _setup_logging
from reflectcli.errors import UserError


def mcp(
    root: Annotated[
        list[Path] | None,
        typer.Option(
            "--root",
            help="A folder whose files the client may name (repeatable; "
            "default: the working folder). Paths outside every root are refused.",
        ),
    ] = None,
    http: Annotated[
        int | None,
        typer.Option(
            "--http",
            min=1,
            max=65535,
            metavar="PORT",
            help="Serve streamable HTTP on PORT (at /mcp) instead of stdio.",
        ),
    ] = None,
    host: Annotated[
        str, typer.Option(help="The address --http listens on (loopback unless told otherwise).")
    ] = "127.0.0.1",
    runs_dir: RunsDirOpt = None,
    config: ConfigOpt = None,
    debug: DebugOpt = False,
) -> None:
    """Serve reflectcli over MCP: write, follow, read and revise runs from an assistant."""
    _setup_logging(debug)
    try:
        from reflectcli.configfile import resolve_runs_dir

        folders = [Path.cwd()] if not root else root
        if not root and Path.cwd() == Path(Path.cwd().anchor):
            raise UserError(
                "the working folder is the filesystem's root: name the folders the client may read",
                hint="start it with --root DIR",
                exit_code=2,
            )
        for folder in folders:
            if not folder.expanduser().is_dir():
                raise UserError(f"--root {folder}: no such folder", exit_code=2)
        where = resolve_runs_dir(runs_dir, config).resolve()
        try:
            from reflectcli.mcp.server import serve
        except ImportError as exc:
            raise UserError(
                f"the MCP server cannot start: {exc}",
                hint="reinstall reflectcli: it depends on the mcp package",
            ) from None
        from reflectcli.mcp.safety import Roots
        from reflectcli.mcp.tools import Tools

        ui = _renderer(True)
        serve(
            Tools(Roots(folders), where, config),
            http,
            host,
            lambda line: ui.err.print(line, markup=False, soft_wrap=True),
        )
    except Exception as exc:
        raise _fail(_renderer(True), exc, debug) from None
