"""A run as display rows: the one place that turns reviews, improvements, critiques, decisions
and trace events into words and cells. The renderer, `show`, the artifact and the exports all
draw from here (each escapes for its own medium: Rich markup, Markdown cells, HTML)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from reflectcli.writing.citations import place, references, run_labels
from reflectcli.writing.markdown import inline, one_line
from reflectcli.writing.rubric import DIMENSIONS, VERDICTS, dimension_shown, score_words

WHOLE = "whole article"
CUT = {"length": "stopped by the token cap", "loop": "cut: the text began repeating itself"}


def where(item: dict[str, Any]) -> str:
    """The section an improvement, critique or known issue concerns."""
    return item.get("section") or WHOLE


def resumed_words(run: dict[str, Any]) -> str:
    """ "; resumed 2 times after it stopped unfinished" for a run that was interrupted (Ctrl-C,
    a kill, a lost store) or failed and then resumed; empty for one that ran straight through."""
    n = int(run.get("resumes") or 0)
    if not n:
        return ""
    return f"; resumed {n} time{'s' if n != 1 else ''} after it stopped unfinished"


def stop_words(summary: dict[str, Any]) -> str:
    """Why the run stopped, in words: a pass by the checklist critic says so."""
    reason = summary.get("stop_reason") or "unfinished"
    if reason == "passed" and summary.get("critic") == "checklist":
        return "passed the checklist"
    return reason


def final_words(summary: dict[str, Any]) -> str:
    """`final score 8.5`, or the checklist's `final form 6.9/10, facts not checked`."""
    if summary.get("scored") == "form":
        return f"final {summary['final_words']}"
    final = summary.get("final_score")
    return f"final score {final:g}" if final is not None else "final score ?"


CHECKLIST_CRITIC = "the checklist (rules, no model)"


def critic_name(params: dict[str, Any], critic_model: str | None = None) -> str:
    """Who reviewed: the critic model, or the checklist (rules that measure form, no model)."""
    if params.get("critic") == "checklist" or critic_model == "checklist":
        return CHECKLIST_CRITIC
    return critic_model or params.get("critic_model") or params.get("model") or "?"


def running_where(run: dict[str, Any]) -> str | None:
    """`running now (pid 123 on host-b)` for a run a live process owns (its row's effective
    status: a dead owner's reads `interrupted`), else None: only then is `resume` the hint."""
    if run.get("status") != "running":
        return None
    pid, host = run.get("owner_pid"), str(run.get("owner_host") or "").split("~")[0]
    return "running now" + (f" (pid {pid}" + (f" on {host}" if host else "") + ")" if pid else "")


def resume_hint(run: dict[str, Any]) -> str:
    """What to do with an unfinished run: resume it, or, while a process runs it, wait."""
    where = running_where(run)
    if where:
        return f"it is {where}: wait for it to finish (`reflectcli show {run['thread_id']}` follows it)"
    return f"resume it with `reflectcli resume {run['thread_id']}`"


def rejections(review: dict[str, Any]) -> list[str]:
    """Why the critic's earlier answers in this review were not used, one line each."""
    return [f"answer {i} rejected: {why}" for i, why in enumerate(review.get("errors") or [], 1)]


def plural(n: int, one: str, many: str) -> str:
    return f"{n} {one if n == 1 else many}"


def improvement(item: dict[str, Any], with_id: bool = False) -> str:
    """`[major] Section: issue` (and `(r1.2)` when asked)."""
    tail = f" ({item['id']})" if with_id and item.get("id") else ""
    return f"[{item['severity']}] {where(item)}: {item['issue']}{tail}"


def review_title(review: dict[str, Any], state: dict[str, Any] | None = None) -> str:
    """`Review, round 1: form 6.9/10, facts not checked (version 1, source: checklist)`."""
    said = score_words(review["score"], review.get("source"), state)
    return (
        f"Review, round {review['round']}: {said} (version {review['version']}, source: {review['source']})"
    )


def reviewed_in(version: dict[str, Any], state: dict[str, Any] | None) -> list[int]:
    """The rounds whose review read this version (round N reviews version N in a plain run)."""
    return [r["round"] for r in (state or {}).get("reviews") or [] if r["version"] == version["n"]]


def version_title(version: dict[str, Any], state: dict[str, Any] | None = None) -> str:
    """`Version 2 (revision after round 1; reviewed in round 2)`: a version is numbered as the
    round that reviews it, a revision names the round whose review it answers (its `round`)."""
    kind = version["kind"]
    made = f" after round {version['round']}" if version.get("round") and kind != "draft" else ""
    if state is None:
        return f"Version {version['n']} ({kind}{made})"
    rounds = reviewed_in(version, state)
    seen = f"reviewed in round {', '.join(map(str, rounds))}" if rounds else "not reviewed"
    return f"Version {version['n']} ({kind}{made}; {seen})"


def dimension_rows(
    review: dict[str, Any], state: dict[str, Any] | None = None
) -> list[tuple[str, float | None]]:
    """(name, score) for the overall score (`form` for the checklist's) and each dimension, in
    rubric order; None for a dimension the review did not check (`state`: the run's, to know)."""
    source = review.get("source")
    overall = "form" if source == "checklist" else "overall"
    dims = [(d, dimension_shown(d, review["dimensions"][d], source, state)) for d in DIMENSIONS]
    return [(overall, review["score"]), *dims]


def dimension_cell(value: float | None) -> str:
    """A dimension's score in a table: `7.5`, or `not checked`."""
    return "not checked" if value is None else f"{value:g}"


def critique_status(item: dict[str, Any]) -> str:
    if item.get("kind") == "preference":  # an improvement you turned down (graph/pick.py)
        return f"your preference ({item.get('why') or 'turned down'})"
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


# the colour a claim's final verdict is shown in (Rich); an older run's "unjudged" is dim
CLAIM_COLOURS = {"contradicted": "red", "unsupported": "yellow", "unverified": "magenta",
                 "supported": "green", "consistent": "cyan"}  # fmt: skip
CLAIM_FIELDS = ("claim", "verdict", "sentence", "quote", "by", "reason", "missing", "critic", "check")


def reference_rows(state: dict[str, Any], text: str) -> list[dict[str, Any]]:
    """The References of `text`: one entry per cited source (the passages of one page or file
    cited under several ids are one entry: `ids`, `label` "S1, S2"), with its title and place,
    and the claims citing it with their record (sources/verify.py: the final verdict, who
    decided it, the names and numbers the passage lacks, the passage sentence quoted for it)."""
    verdicts = _claims_of(state, text)
    grouped: dict[Any, list[dict[str, Any]]] = {}
    for e in references(state.get("evidence") or [], text, run_labels(state)):
        grouped.setdefault(e.get("source_id") or e["id"], []).append(e)
    out = []
    for items in grouped.values():
        first, ids = items[0], [e["id"] for e in items]
        spots = [p for e in items if (p := place({**e, "location": ""}))]
        where = ", ".join([first["location"], *dict.fromkeys(spots)]) if first["location"] else place(first)
        out.append({"id": first["id"], "ids": ids, "label": ", ".join(ids), "title": one_line(first["title"]),
                    "place": one_line(where), "location": first["location"], "kind": first["kind"],
                    "claims": [{k: c.get(k, "") for k in CLAIM_FIELDS}
                               for c in verdicts if c["source"] in ids]})  # fmt: skip
    return out


def not_in_passage(item: dict[str, Any]) -> str:
    """`not in the passage: England, 1455` for a claim whose names or numbers its passage holds
    in no form ("" when it holds them all)."""
    missing = item.get("missing") or []
    return f"not in the passage: {', '.join(missing)}" if missing else ""


def cited_claim(item: dict[str, Any], esc: Callable[[str], str] = one_line) -> str:
    """`C2 supported: “Gutenberg printed …” — the source: “He printed …”`; an unverified claim
    says what the passage lacks (`not in the passage: England`), a contradicted one why; no
    quote: says so. Each quoted text through `esc` (one plain line; `markdown.inline` for a
    Markdown page)."""
    quote = f"the source: “{esc(item['quote'])}”" if item.get("quote") else "no sentence of the source quoted"
    label = f"{item['claim']} " if item.get("claim") else ""
    why = ""
    if item.get("verdict") == "contradicted" and item.get("reason"):
        why = f" ({item['reason'].split(': “')[0]})"
    elif item.get("verdict") in ("unverified", "supported", "unsupported") and not_in_passage(item):
        why = f" ({not_in_passage(item)})"
    why = f" {one_line(why)}" if why else ""
    return f"{label}{item['verdict']}{why}: “{esc(item['sentence'])}” — {quote}"


def contradicted_claims(state: dict[str, Any], text: str) -> list[dict[str, Any]]:
    """The claims of `text` found contradicted by their source (code or critic)."""
    return [c for c in _claims_of(state, text) if c.get("verdict") == "contradicted"]


def contradiction_note(state: dict[str, Any], text: str, esc: Callable[[str], str] = one_line) -> list[str]:
    """What the article says above its References when a claim of it is contradicted by its
    source (a run that could not make a clean version ends with it): one line per claim, the
    claim's and the passage's words through `esc`."""
    wrong = contradicted_claims(state, text)
    if not wrong:
        return []
    lines = [f"**Contradicted by its source ({len(wrong)}):** the claim{'s' if len(wrong) != 1 else ''} "
             "below could not be corrected; do not rely on "
             f"{'them' if len(wrong) != 1 else 'it'}."]  # fmt: skip
    lines += [f"- {c['claim']} “{esc(c['sentence'])}” [{c['source']}] — {esc(c['reason'])}" for c in wrong]
    return lines


def claim_counts(claims: list[dict[str, Any]]) -> dict[str, int]:
    """How many claims have each final verdict (`writing.claims.VERDICTS`, worst first)."""
    return {v: sum(1 for c in claims if c.get("verdict") == v) for v in VERDICTS}


def references_markdown(state: dict[str, Any], text: str, level: int = 2) -> str:
    """`## References`, one line per cited source and under it the claims citing it (verdict,
    quoted passage sentence), after a note naming the claims a source contradicts; empty when
    `text` cites nothing. Titles, places and quotes are outside text: one line each, escaped
    (no heading, link or HTML of theirs is live)."""
    found = reference_rows(state, text)
    if not found:
        return ""
    note = contradiction_note(state, text, inline)
    lines = [*note, ""] if note else []
    lines += [f"{'#' * level} References", ""]
    for r in found:
        lines.append(f"- [{r['label']}] {inline(r['title'])} — {inline(r['place'])}")
        lines += [f"  - {cited_claim(c, inline)}" for c in r["claims"]]
    return "\n".join(lines)


def claim(item: dict[str, Any], esc: Callable[[str], str] = one_line) -> str:
    """`C1 supported [S2] Gutenberg printed ... — why (critic) — “the quoted passage sentence”`."""
    reason = f" — {esc(item['reason'])}" if item.get("reason") else ""
    quote = f" — “{esc(item['quote'])}”" if item.get("quote") else ""
    label = f"{item['claim']} " if item.get("claim") else ""
    said = esc(item["sentence"])
    return f"{label}{item['verdict']} [{item['source']}] {said}{reason} ({item['by']}){quote}"


def reference_check(refs: list[dict[str, Any]], esc: Callable[[str], str] = one_line) -> list[str]:
    """An outside article's references as `review` resolved them: one line each, resolved
    ones with the library source, the others with why (never a guess); the article's and the
    sources' text through `esc` (`markdown.inline` for `review -o`)."""
    if not refs:
        return []
    done = sum(1 for r in refs if r["status"] == "resolved")
    lines = [f"References: {done} of {len(refs)} resolved in the source library"]
    for r in refs:
        label = f"[{r['ref']}]" + ("" if r["cited"] else " (not cited)")
        if r["status"] == "resolved":
            lines.append(f"- {label} resolved by {r['by']}: source {r['source_id']} “{esc(r['title'])}” — "
                         f"{esc(r['location'])}")  # fmt: skip
        else:
            entry = f" “{esc(r['entry'])}”" if r["entry"] else ""
            n = r.get("sentences") or 0
            unchecked = f"; {n} cited claim{'s' if n != 1 else ''} left unchecked" if n else ""
            lines.append(f"- {label} {r['status']}:{entry} — {esc(r['why'])}{unchecked}")
    return lines
