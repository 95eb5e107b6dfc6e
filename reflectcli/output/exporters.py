"""Exports of a run: the article (md), the full record (report), everything (json), one
self-contained page (html, every piece of text escaped), a PDF and a Word file. Pure functions
of the run's state: every format but the report is rendered from one document model
(output/document.py), so all carry the same sections, citations, verdicts and References."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from reflectcli.errors import UserError
from reflectcli.graph.rules import best_version, pending_step
from reflectcli.output import rows
from reflectcli.output.artifacts import render_artifact, warning_lines
from reflectcli.output.summary import summarize
from reflectcli.writing import markdown
from reflectcli.writing.rubric import facts_checked, scored

FORMATS = ("md", "report", "json", "html")  # text
DOCUMENTS = ("pdf", "docx")  # bytes: a file to hand to someone
SUFFIXES = {".md": "md", ".markdown": "md", ".json": "json", ".html": "html", ".htm": "html",
            ".pdf": "pdf", ".docx": "docx"}  # fmt: skip


def choose_version(state: dict[str, Any], which: str) -> dict[str, Any]:
    """`final` (the chosen output; the latest while unfinished), `best`, or a number."""
    versions = state.get("versions") or []
    if not versions:
        raise UserError("this run has no draft yet", hint="resume it first")
    by_n = {v["n"]: v for v in versions}
    if which == "final":
        return by_n.get(state.get("final_version"), versions[-1])
    if which == "best":
        return best_version(state)
    if which.isdigit() and int(which) in by_n:
        return by_n[int(which)]
    raise UserError(f"no version {which!r}: choose best, final or one of "
                    f"{', '.join(str(n) for n in by_n)}", exit_code=2)  # fmt: skip


def title_lines(state: dict[str, Any], text: str) -> list[str]:
    """`# Title` and a blank line above an exported article that has no top heading of its own:
    the title every other format gives it (the document model's: the task, on one line)."""
    title = " ".join(str(state.get("task") or "").split())
    if not title or any(h.level == 1 for h in markdown.headings(text)):
        return []
    return [f"# {markdown.inline(title)}", ""]


def scores_by_version(state: dict[str, Any]) -> dict[int, float]:
    return {r["version"]: r["score"] for r in state.get("reviews") or []}


def export_json(run: dict[str, Any], state: dict[str, Any], version: dict[str, Any] | None = None) -> str:
    """Everything: the run, its numbers, the state, and for the chosen version its references
    (the sources it cites) and the verdicts on its cited claims."""
    chosen = version or (choose_version(state, "final") if state.get("versions") else None)
    review = next((r for r in reversed(state.get("reviews") or [])
                   if chosen and r["version"] == chosen["n"]), None)  # fmt: skip
    summary = summarize(state)
    payload = {
        "warning": summary["warning"],  # first: the output did not pass (None when it did)
        # what the chosen version's score measures: "form" (the checklist: facts not checked
        # unless the run had sources), "critic" or "heuristic"; None when it was not reviewed
        "scored": scored(review["source"]) if review else None,
        "facts_checked": facts_checked(review["source"], state) if review else None,
        "run": {k: v for k, v in run.items() if k not in ("owner_pid", "owner_host")},
        "summary": summary,
        "resume_from": pending_step(state),
        "version": chosen["n"] if chosen else None,
        "references": rows.reference_rows(state, chosen["text"]) if chosen else [],
        "claims": (review or {}).get("claims") or [],
        "document": _document(run, state, chosen, blocks=False).summary() if chosen else None,
        "state": state,
    }
    return json.dumps(payload, ensure_ascii=False, indent=2)


def _document(
    run: dict[str, Any], state: dict[str, Any], version: dict[str, Any], blocks: bool = True
) -> Any:
    """The report's one model (output/document.py; imported when a format needs it)."""
    from reflectcli.output import document

    return document.build(run, state, version, blocks)


def shared_place(ref: dict[str, Any]) -> str:
    """Where a reference is, for a page others may read (output/document.py holds it now)."""
    from reflectcli.output.document import shared_place as place

    return place(ref)


def format_for(fmt: str | None, output: Path | None) -> str:
    """The format asked for, else the one the output file's suffix names, else Markdown."""
    if fmt:
        return fmt
    return SUFFIXES.get(output.suffix.lower(), "md") if output is not None else "md"


def export(run: dict[str, Any], state: dict[str, Any], fmt: str, version: str) -> str | bytes:
    """The run in `fmt`: text, or bytes for pdf and docx. A run with no draft yet is a one-line
    error whose hint fits the run: resume it, or, while a process runs it, wait."""
    if not state.get("versions") and fmt not in ("report", "json"):
        raise UserError("this run has no draft yet", hint=rows.resume_hint(run))
    if fmt == "md":
        chosen = choose_version(state, version)
        text = chosen["text"].rstrip()
        refs = rows.references_markdown(state, text)
        flag = warning_lines(summarize(state)) if chosen["n"] == state.get("final_version") else []
        return "\n".join([*flag, *title_lines(state, text), text]) + (f"\n\n{refs}" if refs else "") + "\n"
    if fmt == "pdf":
        from reflectcli.output import pdf

        return pdf.render(_document(run, state, choose_version(state, version)))
    if fmt == "docx":
        from reflectcli.output import word

        return word.render(_document(run, state, choose_version(state, version)))
    if fmt == "report":
        return render_artifact(state, run["thread_id"], run)
    if fmt == "json":
        return export_json(run, state, choose_version(state, version) if state.get("versions") else None)
    if fmt == "html":
        return export_html(run, state, choose_version(state, version))
    raise UserError(f"unknown format {fmt!r}: choose one of {', '.join(FORMATS + DOCUMENTS)}", exit_code=2)


# --- html --------------------------------------------------------------------------------


def markdown_to_html(text: str) -> str:
    """The article as HTML (writing.markdown's one model of Markdown), every piece of text
    escaped; its `##` sections are the page's `<h2>`s, like the appendices after them."""
    return markdown.to_html(text, shift=0)


def export_html(run: dict[str, Any], state: dict[str, Any], version: dict[str, Any]) -> str:
    """One self-contained page (output/page.py) from the document model."""
    from reflectcli.output import page

    return page.render(_document(run, state, version))
