"""A run as the tools return it: plain JSON-like data (the client's model reads it, its
application may render it), derived from the run's index row and state the way `show` and the
exporters derive theirs."""

from __future__ import annotations

from typing import Any

from reflectcli.output import rows
from reflectcli.output.exporters import choose_version
from reflectcli.output.summary import progress, summarize
from reflectcli.writing.rubric import facts_checked, score_words, scored

RUN_KEYS = ("thread_id", "task", "status", "model", "critic_model", "created_at", "updated_at", "error")
URI = "reflectcli://runs/{thread}/{name}"
RESOURCES = {"article": "article.md", "record": "record.md", "json": "run.json", "html": "article.html"}


def resources(thread_id: str) -> dict[str, str]:
    """The run's resource URIs: the article, its full record (the artifact), its JSON and HTML."""
    return {k: URI.format(thread=thread_id, name=v) for k, v in RESOURCES.items()}


def status_view(run: dict[str, Any], state: dict[str, Any], job: Any = None) -> dict[str, Any]:
    """Where a run stands: its status, progress, numbers so far, what a resume would do next,
    and (while this server runs it) the events so far."""
    from reflectcli.graph.rules import pending_step

    s = summarize(state)
    status = run["status"]
    if job is not None and not job.done:
        status = "running"
    view = {
        **{k: run.get(k) for k in RUN_KEYS},
        "status": status,
        "progress": progress(state),
        "rounds": s["rounds"],
        "scores": [r["score"] for r in state.get("reviews") or []],
        "stop_reason": s["stop_reason"],
        "final_score": s["final_score"],
        # what the final score measures ("form": the checklist's, facts not checked unless the
        # run had sources) and it in words, as every view says it
        "scored": s["scored"],
        "final_words": s["final_words"],
        "critic": rows.critic_name(state.get("params") or {}, run.get("critic_model")),
        "calls": s["calls"],
        "tokens": s["tokens"],
        "cost": s["cost"],
        "next_step": pending_step(state) if status != "finished" else None,
        "resources": resources(run["thread_id"]),
    }
    if status in ("interrupted", "failed"):
        view["resume"] = {"tool": "write", "arguments": {"resume": run["thread_id"]}}
    if job is not None:
        view["events"] = list(job.events)
        if job.error:
            view["error"] = job.error
    return view


def run_view(run: dict[str, Any], state: dict[str, Any]) -> dict[str, Any]:
    """One run in full, as `reflectcli show` tells it: scores per round (dimensions, source,
    feedback, improvements), decisions, known issues, guards, and the verdicts on the output's
    cited claims with its references."""
    s = summarize(state)
    reviews = [
        {k: r.get(k) for k in ("round", "version", "score", "dimensions", "source", "feedback")}
        | {
            "scored": scored(r.get("source")),
            "score_words": score_words(r["score"], r.get("source"), state),
            "facts_checked": facts_checked(r.get("source"), state),
        }
        | {"improvements": [rows.improvement(i, with_id=True) for i in r.get("improvements") or []]}
        for r in state.get("reviews") or []
    ]
    versions = state.get("versions") or []
    chosen = choose_version(state, "final") if versions else None
    review = next(
        (r for r in reversed(state.get("reviews") or []) if chosen and r["version"] == chosen["n"]), None
    )
    return {
        **status_view(run, state),
        "params": state.get("params") or run.get("settings") or {},
        "outline": [sec["title"] for sec in (state.get("outline") or {}).get("sections") or []],
        "reviews": reviews,
        "decisions": [rows.decision(d) for d in state.get("decisions") or []],
        "known_issues": [rows.improvement(k, with_id=True) for k in state.get("known_issues") or []],
        "guards": [
            f"{e['kind']} {e['node']}: {e['note']}"
            for e in state.get("trace") or []
            if "kind" in e and e["kind"] not in ("search", "human")
        ],
        "versions": [{"n": v["n"], "round": v.get("round"), "kind": v.get("kind")} for v in versions],
        "output_version": chosen["n"] if chosen else None,
        "claims": [
            {k: c.get(k) for k in ("verdict", "claim", "source", "sentence", "reason", "by")}
            for c in (review or {}).get("claims") or []
        ],
        "references": [
            {k: r.get(k) for k in ("id", "title", "place")}
            for r in (rows.reference_rows(state, chosen["text"]) if chosen else [])
        ],
        "sources_used": s["sources_used"],
        "citations_removed": s["citations_removed"],
    }


def review_view(thread_id: str, state: dict[str, Any]) -> dict[str, Any]:
    """The review of a person's article (`review`): as `reflectcli review --json` prints it."""
    reviewed = (state.get("reviews") or [{}])[-1]
    keep = ("score", "dimensions", "feedback", "improvements", "claims", "source", "errors")
    return {
        "thread_id": thread_id,
        **{k: reviewed.get(k) for k in keep},
        "scored": scored(reviewed.get("source")) if reviewed else None,
        "references": state.get("references") or [],
        "continue": {"tool": "revise", "arguments": {"thread": thread_id, "feedback": "..."}},
    }
