"""Numbers derived from a run's state for the index, the artifact and the screen: rounds, calls,
tokens, cost, scores, what fired. What the graph decides from the state is in graph/rules.py."""

from __future__ import annotations

from typing import Any

from reflectcli.graph.rules import call_events, output_warning, spent
from reflectcli.writing.citations import cited_ids, run_labels
from reflectcli.writing.rubric import score_words, scored


def summarize(state: dict[str, Any]) -> dict[str, Any]:
    """The run's headline numbers (used by the index, the artifact and the final line)."""
    calls = call_events(state)
    reviews = state.get("reviews") or []
    scores = [r["score"] for r in reviews]
    used = spent(state)
    outline = state.get("outline") or {}
    fallbacks = sum(1 for r in reviews if r.get("source") == "fallback")
    fallbacks += 1 if outline.get("source") == "fallback" else 0
    final_n = state.get("final_version")
    last_n = (state.get("versions") or [{}])[-1].get("n")
    final_review = reviews[-1] if reviews else None
    if final_n is not None:
        final_review = next((r for r in reversed(reviews) if r["version"] == final_n), None)
    final_score = final_review["score"] if final_review else None
    final_source = final_review.get("source") if final_review else None
    return {
        "rounds": len(reviews),
        "calls": len(calls),
        "prompt_tokens": sum(e["prompt_tokens"] for e in calls),
        "completion_tokens": sum(e["completion_tokens"] for e in calls),
        "cache_read_tokens": sum(e.get("cache_read_tokens", 0) for e in calls),
        "cache_creation_tokens": sum(e.get("cache_creation_tokens", 0) for e in calls),
        "tokens": used["tokens"],
        # of them: counts the provider did not report (a cut stream, failed attempts), estimated
        "estimated_tokens": sum(e.get("estimated_tokens", 0) for e in calls),
        "cost": used["cost"],
        "seconds": round(sum(e["duration"] for e in calls), 2),
        "first_score": scores[0] if scores else None,
        "best_score": max(scores) if scores else None,
        "final_score": final_score,
        # what the final score measures (`form` for the checklist's) and it in words, from the
        # review's source (writing/rubric.py): a checklist pass is never the article's score
        "scored": scored(final_source) if final_review else None,
        "final_words": score_words(final_score, final_source, state),
        "fallbacks": fallbacks,
        "guards": sum(guards_fired(state).values()),
        "guards_fired": guards_fired(state),
        "retries": sum(e.get("retries", 0) for e in calls),
        "stop_reason": state.get("stop_reason"),
        "critic": (state.get("params") or {}).get("critic") or "llm",
        "status": state.get("status"),
        "final_version": final_n,
        "last_version": last_n,
        "last_score": next((r["score"] for r in reversed(reviews) if r["version"] == last_n), None),
        **grounding(state),
        "lessons_recalled": len(state.get("lessons") or []),
        "warning": output_warning(state),  # the output's first line when the run did not pass it
    }


# the trace events of a guard that fired on a model's answer: a rewrite rejected, prompt text or
# chatter removed (echo), a loop cut, a generation stopped by its cap, an invented citation removed
GUARD_KINDS = ("guard", "echo", "loop", "truncated", "invented_citation")


def guards_fired(state: dict[str, Any]) -> dict[str, int]:
    """How many times each guard fired, from the trace (`{"echo": 2, "guard": 1}`)."""
    fired: dict[str, int] = {}
    for event in state.get("trace") or []:
        if event.get("kind") in GUARD_KINDS:
            fired[event["kind"]] = fired.get(event["kind"], 0) + 1
    return fired


def guards_words(summary: dict[str, Any]) -> str:
    """`2 (echo 1, guard 1)`, or `0`."""
    fired = summary.get("guards_fired") or {}
    detail = ", ".join(f"{kind} {n}" for kind, n in fired.items())
    return f"{summary['guards']}" + (f" ({detail})" if detail else "")


def grounding(state: dict[str, Any]) -> dict[str, Any]:
    """Sources the output cites, citations removed as invented, and the verdicts on the
    output's cited claims (from its latest review; the latest version while unfinished):
    supported, unverified (a name or number its passage lacks) and contradicted."""
    versions = state.get("versions") or []
    wanted = state.get("final_version") or (versions[-1]["n"] if versions else None)
    text = next((v["text"] for v in versions if v["n"] == wanted), "")
    evidence = {e["id"]: e for e in state.get("evidence") or []}
    used = {evidence[i]["source_id"] for i in cited_ids(text, run_labels(state)) if i in evidence}
    removed = sum(len(e.get("removed") or []) for e in state.get("trace") or []
                  if e.get("kind") == "invented_citation")  # fmt: skip
    rewritten = sum(len(e.get("rewritten") or []) for e in state.get("trace") or []
                    if e.get("kind") == "rewritten_citation")  # fmt: skip
    review = next((r for r in reversed(state.get("reviews") or []) if r["version"] == wanted), None)
    claims = (review or {}).get("claims") or []
    return {
        "sources_used": len(used),
        "citations_removed": removed,
        "citations_rewritten": rewritten,  # into the run's form, by code (each named in the trace)
        "claims": len(claims),
        "claims_supported": sum(1 for c in claims if c["verdict"] == "supported"),
        "claims_unverified": sum(1 for c in claims if c["verdict"] == "unverified"),
        "claims_contradicted": sum(1 for c in claims if c["verdict"] == "contradicted"),
    }


def progress(state: dict[str, Any]) -> str:
    """Where a run stands, e.g. `outline ✓, 3/4 sections ✓, 1 review ✓`."""
    outline = state.get("outline")
    if not outline:
        return "nothing done yet"
    planned = len(outline["sections"])
    parts = ["outline ✓", f"{len(state.get('sections') or [])}/{planned} sections ✓"]
    reviews = len(state.get("reviews") or [])
    if reviews:
        parts.append(f"{reviews} review{'s' if reviews != 1 else ''} ✓")
    revisions = max(0, len(state.get("versions") or []) - 1)
    if revisions:
        parts.append(f"{revisions} revision{'s' if revisions != 1 else ''} ✓")
    return ", ".join(parts)


def usage_by_model(state: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """Calls, tokens and cost per model (writer and critic apart)."""
    usage: dict[str, dict[str, Any]] = {}
    for e in call_events(state):
        row = usage.setdefault(e["model"], {"calls": 0, "prompt_tokens": 0, "completion_tokens": 0,
                                            "cache_read_tokens": 0, "cache_creation_tokens": 0,
                                            "estimated_tokens": 0, "cost": None})  # fmt: skip
        row["calls"] += 1
        row["prompt_tokens"] += e["prompt_tokens"]
        row["cache_read_tokens"] += e.get("cache_read_tokens", 0)
        row["cache_creation_tokens"] += e.get("cache_creation_tokens", 0)
        row["completion_tokens"] += e["completion_tokens"]
        row["estimated_tokens"] += e.get("estimated_tokens", 0)
        if e.get("cost") is not None:
            row["cost"] = (row["cost"] or 0.0) + e["cost"]
    return usage
