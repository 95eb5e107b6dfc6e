"""A run as display rows: the one place that turns reviews, improvements, critiques, decisions
and trace events into words and cells. The renderer, `show`, the artifact and the exports all
draw from here (each escapes for its own medium: Rich markup, Markdown cells, HTML)."""

from __future__ import annotations

from typing import Any

from reflectcli.writing.citations import place, references
from reflectcli.writing.rubric import DIMENSIONS

WHOLE = "whole article"
CUT = {"length": "stopped by the token cap", "loop": "cut: the text began repeating itself"}


def where(item: dict[str, Any]) -> str:
    """The section an improvement, critique or known issue concerns."""
    return item.get("section") or WHOLE


def stop_words(summary: dict[str, Any]) -> str:
    """Why the run stopped, in words: a pass by the checklist critic says so."""
    reason = summary.get("stop_reason") or "unfinished"
    if reason == "passed" and summary.get("critic") == "checklist":
        return "passed the checklist"
    return reason


def rejections(review: dict[str, Any]) -> list[str]:
    """Why the critic's earlier answers in this review were not used, one line each."""
    return [f"answer {i} rejected: {why}" for i, why in enumerate(review.get("errors") or [], 1)]


def plural(n: int, one: str, many: str) -> str:
    return f"{n} {one if n == 1 else many}"


def improvement(item: dict[str, Any], with_id: bool = False) -> str:
    """`[major] Section: issue` (and `(r1.2)` when asked)."""
    tail = f" ({item['id']})" if with_id and item.get("id") else ""
    return f"[{item['severity']}] {where(item)}: {item['issue']}{tail}"


def review_title(review: dict[str, Any]) -> str:
    return (f"Review, round {review['round']}: {review['score']:g}/10 (version {review['version']}, "
            f"source: {review['source']})")  # fmt: skip


def version_title(version: dict[str, Any]) -> str:
    return f"Version {version['n']} ({version['kind']}, round {version['round']})"


def dimension_rows(review: dict[str, Any]) -> list[tuple[str, float]]:
    """(name, score) for the overall score and each dimension, in rubric order."""
    return [("overall", review["score"]), *((d, review["dimensions"][d]) for d in DIMENSIONS)]


def critique_status(item: dict[str, Any]) -> str:
    status = item["status"] + (f" (round {item['closed_in']})" if item.get("closed_in") else "")
    if item.get("by") == "human":
        applied = (
            f", applied in round {item['applied_in']}" if item.get("applied_in") else ", not yet applied"
        )
        status += f" (yours{applied})"
    return status


def decision(entry: dict[str, Any]) -> str:
    """`round 2: revise (below_threshold) — score 6 < threshold 8; round 2 of 3`."""
    return f"round {entry['round']}: {entry['decision']} ({entry['reason']}) — {entry['detail']}"


def estimated(tokens: int, of_them: int) -> str:
    """`1,234` tokens, or `1,234 (~300 estimated)` when some were not the provider's count."""
    return f"{tokens:,}" + (f" (~{of_them:,} estimated)" if of_them else "")


def call_note(event: dict[str, Any]) -> str:
    """What else happened in a call: retries (and why), a replay, a cut generation, tokens the
    provider did not count (estimated)."""
    notes = []
    if event.get("estimated_tokens"):
        notes.append(f"~{event['estimated_tokens']:,} of its tokens estimated (the provider did not "
                     "report them)")  # fmt: skip
    if event.get("cache_read_tokens") or event.get("cache_creation_tokens"):
        notes.append(f"{event.get('cache_read_tokens', 0)} input tokens from the prompt cache"
                     + (f", {event['cache_creation_tokens']} written to it"
                        if event.get("cache_creation_tokens") else ""))  # fmt: skip
    if event.get("retries"):
        log = "; ".join(event.get("retry_log") or [])
        notes.append(plural(event["retries"], "retry", "retries") + (f": {log}" if log else ""))
    if event.get("replayed"):
        notes.append("replayed from the journal")
    if event.get("finish_reason") in CUT:
        notes.append(CUT[event["finish_reason"]])
    return "; ".join(notes)


CACHED = "cache_read_tokens"  # of the prompt tokens, those the provider read from its cache


def money(cost: float | None) -> str:
    """`$0.0012`; `$?` for a price litellm does not know."""
    return "$?" if cost is None else f"${cost:.4f}"


def cost_line(call: dict[str, Any], run_tokens: int, run_cost: float | None,
              in_flight: int = 0) -> str:  # fmt: skip
    """One call's cost line: `812 sent (512 cached) · 240 received · $0.0012 · run 5,230 tok
    $0.0101 · 2 in flight` (the cached part when the provider's usage says so)."""
    cached = call.get(CACHED) or 0
    sent = f"{call['prompt_tokens']:,} sent" + (f" ({cached:,} cached)" if cached else "")
    guess = " (estimated)" if call.get("estimated_tokens") else ""
    line = (f"{sent} · {call['completion_tokens']:,} received{guess} · {money(call.get('cost'))}"
            f"{'~' if guess and call.get('cost') is not None else ''} · "
            f"run {run_tokens:,} tok {money(run_cost)}")  # fmt: skip
    return line + (f" · {in_flight} in flight" if in_flight else "")


def trace_rows(state: dict[str, Any]) -> list[dict[str, Any]]:
    """Every trace event as cells: node, what (step or kind), time, seconds, tokens (sent,
    cached, received), the call's cost and the run's so far (in trace order), note."""
    rows = []
    run_cost: float | None = None
    for event in state.get("trace") or []:
        tokens = event.get("prompt_tokens", 0) + event.get("completion_tokens", 0)
        if event.get("cost") is not None:
            run_cost = (run_cost or 0.0) + event["cost"]
        rows.append({
            "node": event["node"],
            "what": event.get("step", event.get("kind", "")),
            "model": event.get("model", ""),
            "time": event["at"][11:23],
            "seconds": event.get("duration"),
            "tokens": tokens or None,
            "sent": event.get("prompt_tokens"),
            "cached": event.get(CACHED) or 0,
            "received": event.get("completion_tokens"),
            "cost": event.get("cost"),
            "run_cost": run_cost,
            "note": event.get("note") or call_note(event),
            "call": "step" in event,
        })  # fmt: skip
    return rows


def _claims_of(state: dict[str, Any], text: str) -> list[dict[str, Any]]:
    """The verdicts of the latest review of the version whose text is `text`."""
    wanted = text.strip()
    ns = {v["n"] for v in state.get("versions") or [] if v["text"].strip() == wanted}
    review = next((r for r in reversed(state.get("reviews") or []) if r["version"] in ns), None)
    return (review or {}).get("claims") or []


def reference_rows(state: dict[str, Any], text: str) -> list[dict[str, Any]]:
    """The References of `text`: each cited id with its source's title and place, and the claims
    citing it with their verdict and the passage sentence quoted for it."""
    verdicts = _claims_of(state, text)
    return [{"id": e["id"], "title": e["title"], "place": place(e), "location": e["location"],
             "kind": e["kind"], "claims": [
                 {k: c.get(k, "") for k in ("claim", "verdict", "sentence", "quote", "by")}
                 for c in verdicts if c["source"] == e["id"]]}
            for e in references(state.get("evidence") or [], text)]  # fmt: skip


def cited_claim(item: dict[str, Any]) -> str:
    """`C2 supported: “Gutenberg printed …” — the source: “He printed …”` (no quote: says so)."""
    quote = f"the source: “{item['quote']}”" if item.get("quote") else "no sentence of the source quoted"
    label = f"{item['claim']} " if item.get("claim") else ""
    return f"{label}{item['verdict']}: “{item['sentence']}” — {quote}"


def references_markdown(state: dict[str, Any], text: str, level: int = 2) -> str:
    """`## References`, one line per cited source and under it the claims citing it (verdict,
    quoted passage sentence); empty when `text` cites nothing."""
    found = reference_rows(state, text)
    if not found:
        return ""
    lines = [f"{'#' * level} References", ""]
    for r in found:
        lines.append(f"- [{r['id']}] {r['title']} — {r['place']}")
        lines += [f"  - {cited_claim(c)}" for c in r["claims"]]
    return "\n".join(lines)


def claim(item: dict[str, Any]) -> str:
    """`C1 supported [S2] Gutenberg printed ... — why (critic) — “the quoted passage sentence”`."""
    reason = f" — {item['reason']}" if item.get("reason") else ""
    quote = f" — “{item['quote']}”" if item.get("quote") else ""
    label = f"{item['claim']} " if item.get("claim") else ""
    return f"{label}{item['verdict']} [{item['source']}] {item['sentence']}{reason} ({item['by']}){quote}"


def reference_check(refs: list[dict[str, Any]]) -> list[str]:
    """An outside article's references as `review` resolved them: one line each, resolved
    ones with the library source, the others with why (never a guess)."""
    if not refs:
        return []
    done = sum(1 for r in refs if r["status"] == "resolved")
    lines = [f"References: {done} of {len(refs)} resolved in the source library"]
    for r in refs:
        label = f"[{r['ref']}]" + ("" if r["cited"] else " (not cited)")
        if r["status"] == "resolved":
            lines.append(f"- {label} resolved by {r['by']}: source {r['source_id']} “{r['title']}” — "
                         f"{r['location']}")  # fmt: skip
        else:
            entry = f" “{r['entry']}”" if r["entry"] else ""
            n = r.get("sentences") or 0
            unchecked = f"; {n} cited claim{'s' if n != 1 else ''} left unchecked" if n else ""
            lines.append(f"- {label} {r['status']}:{entry} — {r['why']}{unchecked}")
    return lines
