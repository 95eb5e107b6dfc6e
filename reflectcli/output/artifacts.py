"""The Markdown run artifact `<runs_dir>/<thread>.md`, rewritten after every step (at most every
runner.ARTIFACT_EVERY seconds, and always at a run's end)."""

from __future__ import annotations

import os
from datetime import UTC, datetime
from functools import lru_cache
from pathlib import Path
from typing import Any

from reflectcli.output import rows
from reflectcli.output.questions import questions_markdown
from reflectcli.output.summary import guards_words, summarize
from reflectcli.writing import markdown
from reflectcli.writing.languages import language_asked, written_language


def artifact_path(runs_dir: str | Path, thread_id: str) -> Path:
    return Path(runs_dir) / f"{thread_id}.md"


def write_private(path: Path, text: str | bytes) -> None:
    """Write atomically (temp file + rename), readable by the owner only (text as UTF-8)."""
    tmp = path.parent / f".{path.name}.{os.getpid()}.tmp"  # one writer per process
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        os.fchmod(fd, 0o600)
        with os.fdopen(fd, "wb") as fh:
            fh.write(text if isinstance(text, bytes) else text.encode("utf-8"))
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


@lru_cache(maxsize=64)
def _demote(text: str, levels: int = 2) -> str:
    """Push an article's headings down so they nest under the artifact's own (its Markdown
    headings only: a `# comment` in a code block stays as it is). Cached: the artifact is
    rendered after every step, and a version's text never changes once made."""
    for heading in reversed(markdown.headings(text)):
        text = markdown.set_level(text, heading, min(6, heading.level + levels))
    return text


def _when(timestamp: float | None) -> str:
    if not timestamp:
        return "unknown"
    return datetime.fromtimestamp(timestamp, UTC).isoformat(timespec="seconds")


def _cached(s: dict[str, Any]) -> str:
    """`, of which 900 cached (120 written)`: the prompt-cache share of the input, when any."""
    if not s.get("cache_read_tokens") and not s.get("cache_creation_tokens"):
        return ""
    made = s.get("cache_creation_tokens")
    written = f" ({made} written to the cache)" if made else ""
    return f", of which {s['cache_read_tokens']} cached{written}"


def _guessed(s: dict[str, Any]) -> str:
    """`, ~300 of them estimated`: tokens the provider did not report (a cut stream, failed
    attempts), counted by a tokenizer or estimated, so the cost is an estimate too."""
    return f"; ~{s['estimated_tokens']} of them estimated" if s.get("estimated_tokens") else ""


def _cell(text: Any) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def final_text(state: dict[str, Any]) -> str | None:
    """The chosen output version's text (the latest version while the run is unfinished)."""
    versions = state.get("versions") or []
    if not versions:
        return None
    wanted = state.get("final_version")
    for version in versions:
        if version["n"] == wanted:
            return version["text"]
    return versions[-1]["text"]


def language_line(state: dict[str, Any]) -> str:
    """The language asked for and the language the article is written in: "as the task
    (Chinese); written: English" (told from the final article's letters and words)."""
    params = state.get("params") or {}
    asked = params.get("language") or "as the task"
    if not params.get("language") and (told := language_asked(None, state.get("task") or "")):
        asked += f" ({told})"
    text = final_text(state)
    written = (written_language(text) or "not told") if text else "nothing yet"
    return f"{asked}; written: {written}"


def warning_lines(summary: dict[str, Any]) -> list[str]:
    """The first lines of every copy of an output the run did not pass (`summary["warning"]`,
    graph/rules.output_warning), or none: a Markdown quotation, then a blank line."""
    return [f"> **{summary['warning']}**", ""] if summary.get("warning") else []


def review_lines(review: dict[str, Any], state: dict[str, Any] | None = None) -> list[str]:
    """One review in Markdown: scores (the checklist's as form), feedback, why earlier answers
    were rejected, improvements, cited claims (the artifact's and `reflectcli review -o`'s)."""
    out = [f"## {rows.review_title(review, state)}", "", "| dimension | score |", "|---|---|"]
    out += [
        f"| {name} | {rows.dimension_cell(value)} |" for name, value in rows.dimension_rows(review, state)[1:]
    ]
    out += ["", f"**Feedback:** {review['feedback'] or '(none)'}", ""]
    if rows.rejections(review):
        out += [f"- {line}" for line in rows.rejections(review)] + [""]
    if review["improvements"]:
        out.append("**Improvements:**")
        out += [f"- {rows.improvement(i, with_id=True)}" for i in review["improvements"]]
        out.append("")
    if review.get("claims"):
        out.append("**Cited claims:**")
        out += [f"- {rows.claim(c, markdown.inline)}" for c in review["claims"]]
        out.append("")
    return out


def review_report(state: dict[str, Any], thread_id: str, source: str) -> str:
    """`reflectcli review FILE -o report.md`: what the critic said of the person's article."""
    review = (state.get("reviews") or [None])[-1]
    out = [f"# Review of {source}", "", f"- thread: `{thread_id}` (`reflectcli show {thread_id}`)",
           f"- task: {state.get('task', '')}", ""]  # fmt: skip
    out += review_lines(review, state) if review else ["No review was made."]
    if refs := rows.reference_check(state.get("references") or [], markdown.inline):
        out += ["", "## References checked", "", *refs[1:], "", refs[0]]
    return "\n".join(out).rstrip() + "\n"


def run_status(state: dict[str, Any], run: dict[str, Any]) -> str:
    """The graph's status, unless the process that ran it stopped first (interrupted, failed,
    waiting at a gate): then the run row's, so the artifact and `history` agree."""
    status = state.get("status") or "running"
    if status != "finished" and run.get("status") in ("interrupted", "failed", "waiting"):
        return run["status"]
    return status


def _inputs_lines(state: dict[str, Any]) -> list[str]:
    """What the run worked from: its outline, the lessons it recalled, its evidence."""
    out: list[str] = []
    outline = state.get("outline")
    if outline:
        out += [f"## Outline (source: {outline['source']})", ""]
        out += [
            f"{i}. **{sec['title']}**" + (f" — {sec['goal']}" if sec.get("goal") else "")
            for i, sec in enumerate(outline["sections"], 1)
        ]
        out.append("")
    recalled = state.get("lessons") or []
    if recalled:
        out += ["## Lessons recalled", ""]
        out += [f"- ({x['id']}) {x['text']}" for x in recalled]
        out.append("")
    evidence = state.get("evidence") or []
    if evidence:
        out += ["## Evidence", "", "| id | found for | source | where | passage |", "|---|---|---|---|---|"]
        for e in evidence:
            passage = " ".join(e["text"].split())
            passage = passage if len(passage) <= 200 else passage[:197] + "..."
            found = f"section {e['section']}" if e.get("section") else f"round {e.get('round')} query"
            if e.get("question"):
                found = f"question q{e['question']}"
            out.append(f"| {e['id']} | {found} | {markdown.inline(e['title'])} | "
                       f"{markdown.inline(rows.place(e))} | {markdown.inline(passage)} |")  # fmt: skip
        out.append("")
    return out


def _versions_lines(state: dict[str, Any]) -> list[str]:
    """Every version in full, then every review."""
    out: list[str] = []
    for version in state.get("versions") or []:
        out += [f"## {rows.version_title(version, state)}", ""]
        out += [_demote(version["text"]), ""]
    for review in state.get("reviews") or []:
        out += review_lines(review, state)
    return out


def _ledger_lines(state: dict[str, Any]) -> list[str]:
    """The critiques with their status, and each decision with its reason."""
    out: list[str] = []
    critiques = list((state.get("critiques") or {}).values())
    if critiques:
        out += ["## Critiques", "", "| id | round | section | severity | status | improvement |",
                "|---|---|---|---|---|---|"]  # fmt: skip
        for c in critiques:
            out.append(f"| {c['id']} | {c['round']} | {_cell(rows.where(c))} | {c['severity']} | "
                       f"{rows.critique_status(c)} | {_cell(c['issue'])} |")  # fmt: skip
        out.append("")
    decisions = state.get("decisions") or []
    if decisions:
        out += ["## Decisions", "", "| round | decision | reason | detail |", "|---|---|---|---|"]
        out += [
            f"| {d['round']} | {d['decision']} | {d['reason']} | {_cell(d['detail'])} |" for d in decisions
        ]
        out.append("")
    return out


def _trace_lines(state: dict[str, Any]) -> list[str]:
    """The trace: one row per step, call or note."""
    out: list[str] = []
    trace = rows.trace_rows(state)
    if trace:
        out += ["## Trace", "", "| # | node | step | time | seconds | sent (cached) | received | cost "
                "| run cost | note |", "|---|---|---|---|---|---|---|---|---|---|"]  # fmt: skip
        for i, r in enumerate(trace, 1):
            seconds = "" if r["seconds"] is None else r["seconds"]
            sent = "" if not r["call"] else f"{r['sent']}" + (f" ({r['cached']})" if r["cached"] else "")
            costs = f"{rows.money(r['cost'])} | {rows.money(r['run_cost'])}" if r["call"] else " | "
            out.append(f"| {i} | {r['node']} | {r['what']} | {r['time']} | {seconds} | {sent} | "
                       f"{r['received'] if r['call'] else ''} | {costs} | {_cell(r['note'])} |")  # fmt: skip
        out.append("")
    return out


def _ending_lines(state: dict[str, Any], flag: list[str]) -> list[str]:
    """What the run learned, its known issues, the final article with its References."""
    out: list[str] = []
    learned = state.get("learned")
    if learned:
        out += ["## Lessons learned", "",
                f"- new: {', '.join(map(str, learned['written'])) or 'none'}; reinforced: "
                f"{', '.join(map(str, learned['merged'])) or 'none'}; superseded: "
                f"{', '.join(map(str, learned['superseded'])) or 'none'} "
                "(`reflectcli memory show ID`)", ""]  # fmt: skip
    known = state.get("known_issues") or []
    if state.get("status") == "finished" and state.get("stop_reason") != "passed":
        out += ["## Known issues", ""]
        out += [f"- {rows.improvement(k, with_id=True)}" for k in known] or ["- (the critic listed none)"]
        out.append("")
    text = final_text(state)
    if state.get("status") == "finished" and text is not None:
        out += [f"## Final article (version {state.get('final_version')})", "", *flag, _demote(text, 1), ""]
        if refs := rows.references_markdown(state, text, level=3):
            out += [refs, ""]
    return out


def render_artifact(state: dict[str, Any], thread_id: str, run: dict[str, Any],
                    summary: dict[str, Any] | None = None) -> str:  # fmt: skip
    """The artifact's text; `summary`: the step's `summarize(state)` when the caller has it."""
    params = state.get("params") or {}
    s = summary if summary is not None else summarize(state)
    flag = warning_lines(s)
    out: list[str] = [*flag, f"# {markdown.inline(state.get('task', ''))}", ""]  # one line, escaped
    cost = f"${s['cost']:.4f}" if s["cost"] is not None else "unknown"
    out += [
        f"- thread: `{thread_id}`",
        f"- status: {run_status(state, run)}"
        + (f" (stop reason: {rows.stop_words(s)})" if s["stop_reason"] else "")
        + rows.resumed_words(run),
        f"- writer model: {params.get('model')}; "
        + (
            f"critic: {critic}"
            if (critic := rows.critic_name(params)) == rows.CHECKLIST_CRITIC
            else f"critic model: {critic}"
        ),  # fmt: skip
        f"- threshold: {params.get('threshold')}; max rounds: {params.get('max_rounds')}; "
        f"max sections: {params.get('max_sections')}; language: {language_line(state)}",
        f"- started: {_when(run.get('created_at'))}",
        f"- rounds: {s['rounds']}; model calls: {s['calls']}; tokens: {s['tokens']} "
        f"({s['prompt_tokens']} in{_cached(s)}, {s['completion_tokens']} out{_guessed(s)}); cost: "
        f"{cost}; fallbacks: {s['fallbacks']}; guards: {guards_words(s)}",
        "",
    ]
    out += _inputs_lines(state)
    out += _versions_lines(state)
    out += _ledger_lines(state)
    out += _trace_lines(state)
    out += _ending_lines(state, flag)
    out += questions_markdown(state)
    return "\n".join(out)


def write_artifact(path: Path, state: dict[str, Any], thread_id: str, run: dict[str, Any],
                   summary: dict[str, Any] | None = None, previous: str | None = None) -> str:  # fmt: skip
    """Rewrite the artifact (atomically) unless its text is `previous`, the text last written;
    returns the text."""
    text = render_artifact(state, thread_id, run, summary)
    if text != previous:
        write_private(path, text)
    return text
