"""Another system's published articles (`eval run --against-outputs FILE.jsonl`): one JSON object
a line with `id` and `article` (open_deep_research's `tests/expt_results/*.jsonl` has `id`,
`prompt`, `article`; other keys are ignored). The file's SHA-256 names exactly what was compared;
each task of the suite is matched to the article with its `id`."""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

from reflectcli.errors import UserError
from reflectcli.jsonl import records


def load(path: str | Path, name: str | None = None) -> dict[str, Any]:
    """{"system", "file", "sha256", "articles": {id: article}}; a UserError listing every bad line."""
    file = Path(path)
    try:
        raw = file.read_bytes()
    except OSError as exc:
        why = exc.strerror or exc
        raise UserError(f"--against-outputs {file}: cannot read it ({why})", exit_code=2) from exc
    articles: dict[str, str] = {}
    problems: list[str] = []
    for n, item in records(raw.decode("utf-8", errors="replace"), str(file), problems, comments=False):
        if not isinstance(item, dict) or not isinstance(item.get("id"), (str, int)) or isinstance(
            item.get("id"), bool
        ):  # fmt: skip
            problems.append(f'{file}:{n}: each line needs an "id" (a string or an integer)')
        elif not isinstance(item.get("article"), str) or not item["article"].strip():
            problems.append(f'{file}:{n}: "article" must be a non-empty string')
        elif str(item["id"]) in articles:
            problems.append(f"{file}:{n}: id {item['id']!r} appears twice")
        else:
            articles[str(item["id"])] = item["article"]
    if problems:
        raise UserError("\n".join(problems), hint="fix these lines and run again", exit_code=2)
    if not articles:
        raise UserError(f'--against-outputs {file}: no articles (one JSON object a line, with "id" and '
                        '"article")', exit_code=2)  # fmt: skip
    return {"system": name or file.stem, "file": str(file), "sha256": hashlib.sha256(raw).hexdigest(),
            "articles": articles}  # fmt: skip


def attach(tasks: list[dict[str, Any]], outputs: dict[str, Any], where: str) -> list[dict[str, Any]]:
    """The tasks, each with the other system's article for its id (`other_article`); a UserError
    when a task has no id or the file has no article for it."""
    no_id = [t["line"] for t in tasks if not t.get("id")]
    if no_id:
        raise UserError(f'{where}:{no_id[0]}: --against-outputs matches tasks by "id", and '
                        f"{len(no_id)} task(s) have none", exit_code=2)  # fmt: skip
    missing = [t["id"] for t in tasks if t["id"] not in outputs["articles"]]
    if missing:
        shown = ", ".join(missing[:5]) + (" …" if len(missing) > 5 else "")
        raise UserError(f"{outputs['file']} has no article for {len(missing)} task id(s) of {where}: "
                        f"{shown}", hint="use the suite the outputs were written for, or --limit",
                        exit_code=2)  # fmt: skip
    return [{**t, "other_article": outputs["articles"][t["id"]]} for t in tasks]
