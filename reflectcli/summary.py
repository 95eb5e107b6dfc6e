"""Numbers derived from a run's state: rounds, calls, tokens, cost, scores, what fired."""

from __future__ import annotations

from typing import Any


def call_events(state: dict[str, Any]) -> list[dict[str, Any]]:
    return [e for e in state.get("trace") or [] if "step" in e]


def summarize(state: dict[str, Any]) -> dict[str, Any]:
    """The run's headline numbers (used by the index, the artifact and the final line)."""
    calls = call_events(state)
    reviews = state.get("reviews") or []
    scores = [r["score"] for r in reviews]
    costs = [e["cost"] for e in calls if e.get("cost") is not None]
    outline = state.get("outline") or {}
    fallbacks = sum(1 for r in reviews if r.get("source") == "fallback")
    fallbacks += 1 if outline.get("source") == "fallback" else 0
    final_n = state.get("final_version")
    final_score = None
    if final_n is not None:
        matching = [r["score"] for r in reviews if r["version"] == final_n]
        final_score = matching[-1] if matching else None
    elif scores:
        final_score = scores[-1]
    return {
        "rounds": len(reviews),
        "calls": len(calls),
        "prompt_tokens": sum(e["prompt_tokens"] for e in calls),
        "completion_tokens": sum(e["completion_tokens"] for e in calls),
        "tokens": sum(e["prompt_tokens"] + e["completion_tokens"] for e in calls),
        "cost": round(sum(costs), 6) if costs else None,
        "seconds": round(sum(e["duration"] for e in calls), 2),
        "first_score": scores[0] if scores else None,
        "best_score": max(scores) if scores else None,
        "final_score": final_score,
        "fallbacks": fallbacks,
        "guards": sum(1 for e in state.get("trace") or [] if e.get("kind") == "guard"),
        "retries": sum(e.get("retries", 0) for e in calls),
        "stop_reason": state.get("stop_reason"),
        "status": state.get("status"),
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


def next_step(state: dict[str, Any], next_nodes: tuple[str, ...]) -> str:
    """A human name for the node a resume will run next."""
    if not next_nodes:
        return "nothing (finished)"
    node = next_nodes[0]
    if node == "draft":
        return f"section {len(state.get('sections') or []) + 1}"
    if node == "review":
        return f"review round {len(state.get('reviews') or []) + 1}"
    if node == "revise":
        return f"revision for round {len(state.get('reviews') or []) + 1}"
    return {"plan": "outline", "decide": "decision", "finalize": "finalize"}.get(node, node)
