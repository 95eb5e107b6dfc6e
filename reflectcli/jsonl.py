"""JSON lines as the tool reads them (eval suites, batch files, another system's outputs): each
non-blank line one value; a line that is not JSON becomes one line of the caller's error list."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any


def records(text: str, where: str, problems: list[str], comments: bool = True) -> Iterator[tuple[int, Any]]:
    """(line number, value) for each line of `text` that holds JSON; blank lines (and, with
    `comments`, lines starting with `#`) are skipped; a bad line is added to `problems` as
    `where:n: not JSON (...)` and skipped."""
    for n, line in enumerate(text.splitlines(), 1):
        if not line.strip() or (comments and line.lstrip().startswith("#")):
            continue
        try:
            yield n, json.loads(line)
        except json.JSONDecodeError as exc:
            problems.append(f"{where}:{n}: not JSON ({exc.msg} at column {exc.colno})")
