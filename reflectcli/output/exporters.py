"""Exports of a run: the article (md), the full record (report), everything (json), one
self-contained page (html, every piece of text escaped). Pure functions of the run's state."""

from __future__ import annotations

import html
import json
import re
from pathlib import Path
from typing import Any

from reflectcli.errors import UserError
from reflectcli.graph.rules import best_version, pending_step
from reflectcli.output import rows
from reflectcli.output.artifacts import render_artifact, warning_lines
from reflectcli.output.summary import summarize
from reflectcli.writing import markdown
from reflectcli.writing.citations import CITATION, ids_in

FORMATS = ("md", "report", "json", "html")


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
        "run": {k: v for k, v in run.items() if k not in ("owner_pid", "owner_host")},
        "summary": summary,
        "resume_from": pending_step(state),
        "version": chosen["n"] if chosen else None,
        "references": rows.reference_rows(state, chosen["text"]) if chosen else [],
        "claims": (review or {}).get("claims") or [],
        "state": state,
    }
    return json.dumps(payload, ensure_ascii=False, indent=2)


def export(run: dict[str, Any], state: dict[str, Any], fmt: str, version: str) -> str:
    if fmt == "md":
        chosen = choose_version(state, version)
        text = chosen["text"].rstrip()
        refs = rows.references_markdown(state, text)
        flag = warning_lines(summarize(state)) if chosen["n"] == state.get("final_version") else []
        return "\n".join([*flag, text]) + (f"\n\n{refs}" if refs else "") + "\n"
    if fmt == "report":
        return render_artifact(state, run["thread_id"], run)
    if fmt == "json":
        return export_json(run, state, choose_version(state, version) if state.get("versions") else None)
    if fmt == "html":
        return export_html(run, state, choose_version(state, version))
    raise UserError(f"unknown format {fmt!r}: choose one of {', '.join(FORMATS)}", exit_code=2)


# --- html --------------------------------------------------------------------------------

_CSS = """
body{font:16px/1.6 Georgia,serif;max-width:46rem;margin:2rem auto;padding:0 1rem;color:#222}
h1{font-size:1.6rem}h2{font-size:1.25rem;margin-top:2rem}h3{font-size:1.05rem}
table{border-collapse:collapse;margin:.5rem 0}td,th{border:1px solid #ccc;padding:.2rem .6rem}
.meta{color:#555;font:14px/1.5 system-ui,sans-serif}.bar{display:inline-block;height:.7rem;
background:#4a7;vertical-align:middle}.major{color:#b33}.minor{color:#a70}
article{border-top:1px solid #ddd;border-bottom:1px solid #ddd;padding:1rem 0}
code,pre{font-family:ui-monospace,monospace;font-size:13px}.refs{list-style:none;padding-left:0}
.warning{background:#fdd;padding:.5rem}
""".strip()


def markdown_to_html(text: str) -> str:
    """The article as HTML (writing.markdown's one model of Markdown), every piece of text
    escaped; its `##` sections are the page's `<h2>`s, like the appendices after them."""
    return markdown.to_html(text, shift=0)


def shared_place(ref: dict[str, Any]) -> str:
    """Where a reference is, for a page others may read: a URL as it is, a file by its name
    only (its folder on this machine is nobody's business), with its page or heading."""
    if ref["kind"] == "url":
        return ref["place"]
    name = Path(ref["location"]).name
    return ref["place"].replace(ref["location"], name, 1) if ref["location"] else ref["place"]


def _linked(body: str, state: dict[str, Any]) -> str:
    """Citations of held sources become links to their entry in the References."""
    held = {e["id"] for e in state.get("evidence") or []}

    def link(match: re.Match[str]) -> str:
        ids = [i for i in ids_in(match.group()) if i in held]
        return "[" + ", ".join(f'<a href="#ref-{i}">{i}</a>' for i in ids) + "]" if ids else match.group()

    return CITATION.sub(link, body)


def export_html(run: dict[str, Any], state: dict[str, Any], version: dict[str, Any]) -> str:
    e = html.escape
    s = summarize(state)
    scores = scores_by_version(state)
    score = scores.get(version["n"])
    meta = [
        ("thread", run["thread_id"]), ("status", run.get("status", "")),
        ("models", f"{run.get('model')} / critic {run.get('critic_model')}"),
        ("version", f"{version['n']} ({version['kind']})"
                    + (f", score {score:g}/10" if score is not None else "")),
        ("rounds", s["rounds"]), ("stop reason", s["stop_reason"] or "—"),
        ("calls / tokens", f"{s['calls']} / {s['tokens']}"),
    ]  # fmt: skip
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>{e(state.get('task', ''))}</title><style>{_CSS}</style></head><body>",
        *(
            [f'<p class="warning"><strong>{e(s["warning"])}</strong></p>']
            if s["warning"] and version["n"] == state.get("final_version")
            else []
        ),
        f"<h1>{e(state.get('task', ''))}</h1>",
        '<table class="meta">'
        + "".join(f"<tr><th>{e(k)}</th><td>{e(str(v))}</td></tr>" for k, v in meta)
        + "</table>",
        f"<article>{_linked(markdown_to_html(version['text']), state)}</article>",
    ]
    found = rows.reference_rows(state, version["text"])
    if found:
        parts.append('<h2>References</h2><ul class="refs">')
        for r in found:
            where = e(shared_place(r))
            if r["kind"] == "url" and r["location"].startswith(("http://", "https://")):
                where = f'<a href="{e(r["location"])}">{where}</a>'
            cited = "".join(f"<li>{e(rows.cited_claim(c))}</li>" for c in r["claims"])
            parts.append(f'<li id="ref-{r["id"]}">[{r["id"]}] '
                         f"{e(r['title'])} — {where}" + (f"<ul>{cited}</ul>" if cited else "")
                         + "</li>")  # fmt: skip
        parts.append("</ul>")
    known = state.get("known_issues") or []
    if known:
        parts.append("<h2>Known issues</h2><ul>")
        parts += [f'<li><span class="{i["severity"]}">{e(i["severity"])}</span> {e(rows.where(i))}: '
                  f"{e(i['issue'])} ({e(i['id'])})</li>" for i in known]  # fmt: skip
        parts.append("</ul>")
    if state.get("reviews"):
        parts.append("<h2>Reviews</h2>")
    for review in state.get("reviews") or []:
        parts.append(f"<h3>{e(rows.review_title(review))}</h3><table>")
        for name, value in rows.dimension_rows(review):
            parts.append(
                f"<tr><td>{name}</td><td>{value:g}</td>"
                f'<td><span class="bar" style="width:{value * 12:.0f}px"></span></td></tr>'
            )
        parts.append(f"</table><p>{e(review['feedback'])}</p><ul>")
        for imp in review["improvements"]:
            parts.append(
                f'<li><span class="{imp["severity"]}">{e(imp["severity"])}</span> '
                f"{e(rows.where(imp))}: {e(imp['issue'])}</li>"
            )
        parts.append("</ul>")
    decisions = state.get("decisions") or []
    if decisions:
        parts.append("<h2>Decisions</h2><table><tr><th>round</th><th>decision</th>"
                     "<th>reason</th><th>detail</th></tr>")  # fmt: skip
        parts += [
            f"<tr><td>{d['round']}</td><td>{e(d['decision'])}</td><td>{e(d['reason'])}</td>"
            f"<td>{e(d['detail'])}</td></tr>"
            for d in decisions
        ]
        parts.append("</table>")
    parts.append("</body></html>\n")
    return "\n".join(parts)
