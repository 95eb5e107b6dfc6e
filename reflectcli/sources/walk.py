"""The files a folder's walk would miss: `Path.rglob` does not enter symlinked folders, so
`sources add` walks those here, each followed once. A link to a folder already read (a loop back
up, or a second link to the same place) is not read again: it is reported instead, so a walk
always ends and nothing is silently left out. Hidden files and folders are skipped, as rglob's
caller skips them."""

from __future__ import annotations

import os
from pathlib import Path


def linked_files(root: Path) -> tuple[list[Path], list[str]]:
    """(the files under `root` that sit inside a symlinked folder, one note per linked folder
    not followed because it was read already)."""
    seen: set[str] = set()
    inside_link: dict[str, bool] = {}
    files: list[Path] = []
    notes: list[str] = []
    for where, folders, names in os.walk(root, followlinks=True):
        linked = os.path.islink(where) or inside_link.get(os.path.dirname(where), False)
        inside_link[where] = linked
        real = os.path.realpath(where)
        if real in seen:
            notes.append(f"{where}: a link to {real}, a folder already read (not read again)")
            folders[:] = []
            continue
        seen.add(real)
        folders[:] = sorted(f for f in folders if not f.startswith("."))
        if linked:
            files += [Path(where, n) for n in sorted(names) if not n.startswith(".")]
    return [p for p in files if p.is_file()], notes
