"""Numbers derived from a run's state: rounds, calls, tokens, cost, scores, what fired."""

from __future__ import annotations

from typing import Any

from reflectcli.writing.citations import cited_ids


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
    last_n = (state.get("versions") or [{}])[-1].get("n")
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
        "critic": (state.get("params") or {}).get("critic") or "llm",
        "status": state.get("status"),
        "final_version": final_n,
        "last_version": last_n,
        "last_score": next((r["score"] for r in reversed(reviews) if r["version"] == last_n), None),
        **grounding(state),
        "lessons_recalled": len(state.get("lessons") or []),
    }


def grounding(state: dict[str, Any]) -> dict[str, Any]:
    """Sources the output cites, citations removed as invented, and the verdicts on the
    output's cited claims (from its latest review; the latest version while unfinished)."""
    versions = state.get("versions") or []
    wanted = state.get("final_version") or (versions[-1]["n"] if versions else None)
    text = next((v["text"] for v in versions if v["n"] == wanted), "")
    evidence = {e["id"]: e for e in state.get("evidence") or []}
    used = {evidence[i]["source_id"] for i in cited_ids(text) if i in evidence}
    removed = sum(len(e.get("removed") or []) for e in state.get("trace") or []
                  if e.get("kind") == "invented_citation")  # fmt: skip
    review = next((r for r in reversed(state.get("reviews") or []) if r["version"] == wanted), None)
    claims = (review or {}).get("claims") or []
    return {
        "sources_used": len(used),
        "citations_removed": removed,
        "claims": len(claims),
        "claims_supported": sum(1 for c in claims if c["verdict"] == "supported"),
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


def searches(state: dict[str, Any]) -> list[dict[str, Any]]:
    """The run's searches so far (trace events), sections' and the critic's."""
    return [e for e in state.get("trace") or [] if e.get("kind") == "search"]


def critic_searches(state: dict[str, Any]) -> list[dict[str, Any]]:
    """The searches made for queries the critic asked for (what `max_queries` counts)."""
    return [e for e in searches(state) if e.get("round")]


def next_search(state: dict[str, Any]) -> dict[str, Any] | None:
    """The search the run must make next, if any: a section of the outline not yet researched
    (before drafting), or a query the latest review asked for (after a `revise` decision, or a
    human's `more`, before the revision), within `[research] max_queries` such queries per run."""
    research = (state.get("params") or {}).get("research") or {}
    outline = state.get("outline")
    if research.get("sources") not in ("local", "web", "hybrid") or not outline:
        return None
    done = state.get("research") or {}
    researched = len(done.get("sections") or []) if done.get("plan") == state.get("plans") else 0
    if researched < len(outline["sections"]):
        return None if state.get("sections") else {"kind": "section", "section": researched}
    reviews, decisions = state.get("reviews") or [], state.get("decisions") or []
    if not reviews or not decisions or decisions[-1]["decision"] not in ("revise", "more"):
        return None
    if decisions[-1]["round"] != reviews[-1]["round"]:
        return None  # the latest review has no decision yet
    made = critic_searches(state)
    if len(made) >= research.get("max_queries", 12):
        return None
    round_no = reviews[-1]["round"]
    ran = {e["query"] for e in made if e.get("round") == round_no}
    for query in reviews[-1].get("search_queries") or []:
        if query not in ran:
            return {"kind": "query", "query": query, "round": round_no}
    return None


def pending_step(state: dict[str, Any]) -> str | None:
    """What a resume would run next, read from the state alone (None when finished)."""
    if state.get("status") == "finished":
        return None
    outline = state.get("outline")
    if not outline:
        return "outline"
    written, planned = len(state.get("sections") or []), len(outline["sections"])
    search = next_search(state)
    if search and search["kind"] == "section":
        return f"research for section {search['section'] + 1}"
    if written < planned:
        return f"section {written + 1}"
    reviews = state.get("reviews") or []
    decisions = state.get("decisions") or []
    if not reviews:
        return "review round 1"
    if len(decisions) < len(reviews):
        return "decision"
    if decisions[-1]["decision"] in ("stop", "accept"):
        return "finalize"
    next_round = len(reviews) + 1
    revision = state.get("revision")
    revised = any(v["round"] == len(reviews) and v["kind"] == "revision"
                  for v in state.get("versions") or [])  # fmt: skip
    started = (revision and revision.get("round") == next_round) or revised
    if search and not started:
        return f"research for round {next_round}: “{search['query']}”"
    if revision and len(revision["done"]) < len(revision["targets"]):
        return (f"revision for round {next_round} (section {len(revision['done']) + 1} of "
                f"{len(revision['targets'])})")  # fmt: skip
    if state.get("rejected") == next_round:
        return "decision"
    return f"review round {next_round}" if revised else f"revision for round {next_round}"


def usage_by_model(state: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """Calls, tokens and cost per model (writer and critic apart)."""
    usage: dict[str, dict[str, Any]] = {}
    for e in call_events(state):
        row = usage.setdefault(e["model"], {"calls": 0, "prompt_tokens": 0,
                                            "completion_tokens": 0, "cost": None})  # fmt: skip
        row["calls"] += 1
        row["prompt_tokens"] += e["prompt_tokens"]
        row["completion_tokens"] += e["completion_tokens"]
        if e.get("cost") is not None:
            row["cost"] = (row["cost"] or 0.0) + e["cost"]
    return usage


def contradicted(review: dict[str, Any] | None) -> list[dict[str, Any]]:
    """The claims a review found contradicted by their source."""
    return [c for c in (review or {}).get("claims") or [] if c.get("verdict") == "contradicted"]


def best_version(state: dict[str, Any]) -> dict[str, Any]:
    """The highest-scoring reviewed version (the earlier one on a tie: a revision must earn its
    place; a version reviewed twice counts its latest score) among those whose review
    found no claim contradicted (a contradicted claim never ships while a version without one
    exists); the latest if none is reviewed. Scores of heuristic fallback reviews are not
    compared with the critic's: they count only when no review of the run is the critic's own.
    A version the person wrote (`reflectcli edit`) replaces every earlier one: only it and the
    versions revised from it compete."""
    versions = state.get("versions") or []
    edits = [v["n"] for v in versions if v.get("kind") == "edit"]
    versions = [v for v in versions if v["n"] >= edits[-1]] if edits else versions
    by_n = {v["n"]: v for v in versions}
    latest = {r["version"]: r for r in state.get("reviews") or [] if r["version"] in by_n}
    reviews = [r for r in state.get("reviews") or [] if r["version"] in by_n]
    judged = [r for r in reviews if r.get("source") != "fallback"] or reviews
    judged = [r for r in judged if not contradicted(latest[r["version"]])] or judged
    best_n, best = versions[-1]["n"], -1.0
    scores = {r["version"]: r["score"] for r in judged}  # a version's latest review counts
    for n in sorted(scores):
        if scores[n] > best:
            best_n, best = n, scores[n]
    return by_n[best_n]


def review_of(state: dict[str, Any], version_n: int) -> dict[str, Any] | None:
    """The latest review of a version."""
    for review in reversed(state.get("reviews") or []):
        if review["version"] == version_n:
            return review
    return None
