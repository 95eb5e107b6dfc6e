"""What the graph decides from a run's state: the search it makes next, the step a resume runs
next, the best version, and what the run has spent. Pure functions of the state, imported by the
graph's routers and nodes and read by the renderers (output renders what the graph decides).
Imports nothing but the standard library (and the import-free rubric): read-only commands load
it without LangGraph."""

from __future__ import annotations

from typing import Any

from reflectcli.writing.rubric import score_words


def call_events(state: dict[str, Any]) -> list[dict[str, Any]]:
    return [e for e in state.get("trace") or [] if "step" in e]


def spent(state: dict[str, Any]) -> dict[str, Any]:
    """Tokens and cost the run's calls have used (what the budget checks; cost None when no
    call's price is known)."""
    calls = call_events(state)
    costs = [e["cost"] for e in calls if e.get("cost") is not None]
    return {
        "tokens": sum(e["prompt_tokens"] + e["completion_tokens"] for e in calls),
        "cost": round(sum(costs), 6) if costs else None,
    }


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
    left = queries_left(state, research.get("max_queries", 12))
    if not left:
        return None
    return {"kind": "query", "query": left[0], "queries": left, "round": reviews[-1]["round"]}


def queries_left(state: dict[str, Any], cap: int) -> list[str]:
    """The latest review's queries not yet searched, in its order, within `cap` critic queries
    a run (one research step searches them all at once)."""
    made = critic_searches(state)
    round_no = state["reviews"][-1]["round"]
    ran = {e["query"] for e in made if e.get("round") == round_no}
    left = [q for q in dict.fromkeys(state["reviews"][-1].get("search_queries") or []) if q not in ran]
    return left[: max(0, cap - len(made))]


def pending_step(state: dict[str, Any]) -> str | None:
    """What a resume would run next, read from the state alone (None when finished)."""
    if state.get("status") == "finished":
        return None
    pick = state.get("pick") or {}
    if pick.get("changes"):  # a revision's changes wait for the writer (graph/pick.py)
        return (f"your answer on change {len(pick['answers']) + 1} of {len(pick['changes'])} "
                f"(round {pick['round']})")  # fmt: skip
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
        more = len(search["queries"]) - 1
        return f"research for round {next_round}: “{search['query']}”" + (f" and {more} more" if more else "")
    if revision and len(revision["done"]) < len(revision["targets"]):
        return (f"revision for round {next_round} (section {len(revision['done']) + 1} of "
                f"{len(revision['targets'])})")  # fmt: skip
    if state.get("rejected") == next_round:
        return "decision"
    return f"review round {next_round}" if revised else f"revision for round {next_round}"


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


def output_warning(state: dict[str, Any]) -> str | None:
    """The line a finished run's output carries first wherever it goes (the artifact, its final
    article, every export, the terminal) when the run itself did not judge it good enough: not
    reviewed, only heuristically scored, a claim contradicted by its source, or scored below the
    threshold (an obeying writer's "PWNED" at 0/10 must not pass for an article). None when it
    passed, or while the run is unfinished."""
    if state.get("status") != "finished" or not state.get("versions"):
        return None
    versions = state["versions"]
    n = state.get("final_version") or versions[-1]["n"]
    review = review_of(state, n)
    reason = state.get("stop_reason") or "unfinished"
    threshold = (state.get("params") or {}).get("threshold")
    if review is None:
        return f"Not reviewed: the run stopped ({reason}) before this article was reviewed."
    score = f"{review['score']:g}/10"
    if contradicted(review):
        return (f"Not passed: a cited claim of this article is contradicted by its source "
                f"(score {score}; stop reason: {reason}).")  # fmt: skip
    if review.get("source") == "fallback":
        return (f"Not passed: no critic judged this article (a heuristic score of {score}; stop "
                f"reason: {reason}).")  # fmt: skip
    if review.get("source") == "checklist":
        score = score_words(review["score"], "checklist", state)
    if threshold is None or review["score"] >= threshold:
        return None if reason == "passed" else f"Not passed: the run stopped ({reason}) at {score}."
    if review.get("source") == "checklist":
        return (f"Not passed: the checklist review found {score}, below the threshold of {threshold:g} "
                f"(stop reason: {reason}).")  # fmt: skip
    return (f"Not passed: this article scored {score} in its review, below the threshold of "
            f"{threshold:g} (stop reason: {reason}).")  # fmt: skip
