"""The files under a folder for `sources add`: hidden files and folders skipped, symlinked
folders followed once each. A link to a folder already read (a loop back up, or a second link
to the same place) is not read again: it is reported instead, so a walk always ends and
nothing is silently left out."""

from __future__ import annotations

import os
from pathlib import Path


def folder_files(root: Path) -> tuple[list[Path], list[str]]:
    """(the files under `root`, one note per linked folder not followed because it was read)."""
    seen: set[str] = set()
    files: list[Path] = []
    notes: list[str] = []
    for where, folders, names in os.walk(root, followlinks=True):
        real = os.path.realpath(where)
        if real in seen:
            notes.append(f"{where}: a link to {real}, a folder already read (not read again)")
            folders[:] = []
            continue
        seen.add(real)
        folders[:] = sorted(f for f in folders if not f.startswith("."))
        files += [Path(where, n) for n in sorted(names) if not n.startswith(".")]
    return [p for p in files if p.is_file()], notes
