"""`reflectcli edit ID`: the person edits a finished run's output by hand (in $VISUAL/$EDITOR,
or from --file); the saved text becomes the run's newest version, authored by them."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from reflectcli.cli.options import ConfigOpt, DebugOpt, QuietOpt, RunsDirOpt, _fail, _renderer, _setup_logging
from reflectcli.errors import UserError


def edit(
    thread: Annotated[str, typer.Argument(help="Thread id of a finished run.")],
    file: Annotated[
        str | None,
        typer.Option("--file", help="Take the new text from this file (or - for stdin), not an editor."),
    ] = None,  # fmt: skip
    runs_dir: RunsDirOpt = None,
    config: ConfigOpt = None,
    quiet: QuietOpt = False,
    debug: DebugOpt = False,
) -> None:
    """Edit a finished run's output by hand ($VISUAL or $EDITOR): it becomes a version of yours."""
    _setup_logging(debug)
    ui = _renderer(quiet)
    try:
        from reflectcli.cli.write import read_text
        from reflectcli.configfile import resolve_runs_dir
        from reflectcli.runner import Runner

        where = str(resolve_runs_dir(runs_dir, config))
        runner = Runner(ui)
        base = runner.output_of(thread, where)
        kept = None
        if file is not None:
            text = read_text(file)
        else:
            kept = _in_editor(base["text"], Path(where), f"{thread}-v{base['n']}-")
            text = kept.read_text(encoding="utf-8")
        try:
            version = runner.edit(thread, where, text, base["n"])
        except UserError as exc:
            if kept is not None:  # never lose what the person typed
                exc.hint = f"your text is kept in {kept}" + (f"; {exc.hint}" if exc.hint else "")
                kept = None
            raise
        finally:
            if kept is not None:
                kept.unlink(missing_ok=True)
    except Exception as exc:
        raise _fail(ui, exc, debug) from None
    if version is None:
        ui.console.print(f"unchanged: version {base['n']} stays the output; nothing recorded", markup=False)
        return
    diff = version["diff"].splitlines()[2:]
    plus, minus = sum(x.startswith("+") for x in diff), sum(x.startswith("-") for x in diff)
    ui.console.print(
        f"version {version['n']} is your edit of version {base['n']} (+{plus} −{minus} lines) and the "
        f"run's output now. `reflectcli diff {thread} {base['n']} {version['n']}` shows it; "
        f'`reflectcli revise {thread} "feedback"` has the critic review and revise from it.',
        markup=False,
    )


def _in_editor(text: str, folder: Path, prefix: str) -> Path:
    """Open `text` in the person's editor; the saved file (kept until it is recorded)."""
    import os
    import shlex
    import subprocess
    import tempfile

    command = os.environ.get("VISUAL") or os.environ.get("EDITOR")
    if not command:
        raise UserError("no editor: set $VISUAL or $EDITOR (e.g. export EDITOR=nano)",
                        hint="or pass the new text with --file FILE", exit_code=2)  # fmt: skip
    handle, name = tempfile.mkstemp(prefix=prefix, suffix=".md", dir=folder)
    path = Path(name)
    with os.fdopen(handle, "w", encoding="utf-8") as out:
        out.write(text)
    try:
        code = subprocess.run([*shlex.split(command), str(path)], check=False).returncode
    except (OSError, ValueError) as exc:
        path.unlink(missing_ok=True)
        raise UserError(f"cannot start the editor {command!r}: {exc}", hint="check $VISUAL / $EDITOR",
                        exit_code=2) from None  # fmt: skip
    if code != 0:
        path.unlink(missing_ok=True)
        raise UserError(f"the editor {command!r} exited with status {code}: nothing recorded", exit_code=1)
    try:
        path.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise UserError(f"{path} is not UTF-8 text: nothing recorded", hint="save it as UTF-8",
                        exit_code=2) from None  # fmt: skip
    return path
