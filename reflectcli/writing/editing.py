"""Editing an outline in the user's $EDITOR, as plain lines `Title — goal`."""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import tempfile
from pathlib import Path
from typing import Any

from reflectcli.errors import UserError

HEADER = (
    "# One section per line: Title — goal. Lines starting with # are ignored.\n"
    "# Save and close the editor to continue; an empty file keeps the outline unchanged.\n"
)


def outline_to_text(sections: list[dict[str, Any]]) -> str:
    lines = [f"{s['title']} — {s['goal']}" if s.get("goal") else s["title"] for s in sections]
    return HEADER + "\n".join(lines) + "\n"


def text_to_outline(text: str) -> list[dict[str, str]]:
    sections = []
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        line = re.sub(r"^(\d+[.)]|[-*])\s+", "", line)
        parts = re.split(r"\s+(?:—|--|-)\s+", line, maxsplit=1)
        title, goal = parts[0].strip(), (parts[1].strip() if len(parts) > 1 else "")
        sections.append({"title": title, "goal": goal})
    return sections


def edit_outline(sections: list[dict[str, Any]]) -> list[dict[str, str]]:
    """Open the outline in $VISUAL / $EDITOR (default vi) and read it back."""
    editor = os.environ.get("VISUAL") or os.environ.get("EDITOR") or "vi"
    with tempfile.TemporaryDirectory(prefix="reflectcli-") as tmp:
        path = Path(tmp) / "outline.txt"
        path.write_text(outline_to_text(sections), encoding="utf-8")
        try:
            subprocess.run([*shlex.split(editor), str(path)], check=True)
        except (OSError, subprocess.CalledProcessError) as exc:
            raise UserError(f"could not run the editor {editor!r}: {exc}",
                            hint="set $EDITOR") from exc  # fmt: skip
        edited = text_to_outline(path.read_text(encoding="utf-8"))
    return edited or [dict(s) for s in sections]


def edit_text(text: str, name: str = "section.md") -> str:
    """Open `text` in $VISUAL / $EDITOR (default vi) and read back what was saved."""
    editor = os.environ.get("VISUAL") or os.environ.get("EDITOR") or "vi"
    with tempfile.TemporaryDirectory(prefix="reflectcli-") as tmp:
        path = Path(tmp) / name
        path.write_text(text, encoding="utf-8")
        try:
            subprocess.run([*shlex.split(editor), str(path)], check=True)
        except (OSError, subprocess.CalledProcessError) as exc:
            raise UserError(f"could not run the editor {editor!r}: {exc}",
                            hint="set $EDITOR") from exc  # fmt: skip
        return path.read_text(encoding="utf-8")
