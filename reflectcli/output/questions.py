"""A run's questions (`reflectcli ask`) as display lines: the answer as stored, with its marks,
the verdicts on its cited claims and the sources shown with it. `ask`, `show` and the artifact
(so `export --format report`) draw from here; `export --format json` holds the records as they
are, in the state."""

from __future__ import annotations

from typing import Any

from reflectcli.output import rows
from reflectcli.writing.citations import place


def verdict_counts(record: dict[str, Any]) -> str:
    """`2 supported, 1 contradicted` for the answer's cited claims ('no cited claim' when none)."""
    counts: dict[str, int] = {}
    for claim in record.get("claims") or []:
        counts[claim["verdict"]] = counts.get(claim["verdict"], 0) + 1
    return (", ".join(f"{n} {verdict}" for verdict, n in counts.items())
            or "none: the answer cites no source, so nothing in it was checked")  # fmt: skip


def source_lines(record: dict[str, Any], evidence: list[dict[str, Any]]) -> list[str]:
    """`[S3] Title — place` for each source the answer cites."""
    by_id = {e["id"]: e for e in evidence}
    return [f"[{i}] {by_id[i]['title']} — {place(by_id[i])}" for i in record.get("cited") or [] if i in by_id]


def answer_lines(record: dict[str, Any], evidence: list[dict[str, Any]]) -> list[str]:
    """One question and its answer, plain lines: the question, the answer (marked), the verdicts,
    the sources it cites, and where it was applied."""
    lines = [f"q{record['n']} · {record['question']}", "", *record["answer"].splitlines(), ""]
    lines.append(f"cited claims: {verdict_counts(record)}")
    lines += [f"  {rows.claim(c)}" for c in record.get("claims") or []]
    cited = source_lines(record, evidence)
    if cited:
        lines.append("sources:")
        lines += [f"  {line}" for line in cited]
    if record.get("applied"):
        lines.append(f"applied: {record['applied']}")
    return lines


def questions_markdown(state: dict[str, Any]) -> list[str]:
    """`## Questions` for the artifact: each question, its answer as a quotation, its verdicts."""
    questions = state.get("questions") or []
    if not questions:
        return []
    out = ["## Questions", ""]
    for q in questions:
        out += [f"### q{q['n']}: {' '.join(q['question'].split())}", ""]
        out += [f"> {line}" if line.strip() else ">" for line in q["answer"].splitlines()] + [""]
        out.append(f"- cited claims: {verdict_counts(q)}")
        out += [f"  - {rows.claim(c)}" for c in q.get("claims") or []]
        out += [f"- source {line}" for line in source_lines(q, state.get("evidence") or [])]
        out.append(f"- asked of version {q['version']} ({q['model']}, {q['at'] or 'replayed'})"
                   + (f"; applied: {q['applied']}" if q.get("applied") else ""))  # fmt: skip
        out.append("")
    return out
