"""Read-side queries over our own tables (run index, usage): history and stats.

Plain SQL both backends read: `history` must not pay for LangGraph or litellm imports.
"""

from __future__ import annotations

import time
from collections import Counter
from typing import Any

from reflectcli.store.connection import Connection
from reflectcli.store.db import effective_status

HISTORY_KEYS = (
    "thread_id", "created_at", "updated_at", "status", "task", "model", "critic_model",
    "rounds", "first_score", "best_score", "final_score", "stop_reason", "calls", "tokens",
    "cost", "fallbacks", "artifact", "error",
    "sources_used", "citations_removed", "claims", "claims_supported", "lessons_recalled",
)  # fmt: skip
STATUSES = ("running", "finished", "failed", "interrupted", "waiting")
_LIVE = ("running", "interrupted")  # a dead `running` reads as `interrupted`


def list_runs(
    conn: Connection,
    *,
    limit: int | None = 20,
    status: str | None = None,
    search: str | None = None,
    since: float | None = None,
) -> list[dict[str, Any]]:
    """Runs newest first, with their effective status, filtered in SQL where possible."""
    where: list[str] = []
    args: list[str | float] = []
    if status in _LIVE:
        where.append("status IN ('running', 'interrupted')")
    elif status:
        where.append("status = ?")
        args.append(status)
    if search:
        where.append("instr(lower(task), lower(?)) > 0")
        args.append(search)
    if since is not None:
        where.append("created_at >= ?")
        args.append(since)
    sql = f"SELECT {', '.join(HISTORY_KEYS)}, owner_pid, owner_host, lease_until FROM runs"
    if where:
        sql += " WHERE " + " AND ".join(where)
    sql += " ORDER BY created_at DESC, thread_id DESC"
    sql_limit = limit if limit and status not in _LIVE else None
    if sql_limit:
        sql += f" LIMIT {int(sql_limit)}"
    cursor = conn.execute(sql, args)
    names = [d[0] for d in cursor.description]
    out = []
    for values in cursor:
        run = dict(zip(names, values, strict=True))
        run["status"] = effective_status(run)
        if status and run["status"] != status:
            continue
        del run["owner_pid"], run["owner_host"], run["lease_until"]
        out.append(run)
        if limit and len(out) >= limit:
            break
    return out


def _mean(values: list[float]) -> float | None:
    return round(sum(values) / len(values), 3) if values else None


def _group(runs: list[dict[str, Any]]) -> dict[str, Any]:
    """Finished runs in one group: how many, rounds, first-draft score, share that passed."""
    return {
        "runs": len(runs),
        "mean_rounds": _mean([r["rounds"] for r in runs]),
        "mean_first_score": _mean([r["first_score"] for r in runs if r["first_score"] is not None]),
        "passed": round(sum(r["stop_reason"] == "passed" for r in runs) / len(runs), 4) if runs else None,
        "stop_reasons": dict(Counter(r["stop_reason"] for r in runs).most_common()),
    }


def run_stats(conn: Connection, since: float | None = None) -> dict[str, Any]:
    """Aggregates over runs: statuses, rounds, stop reasons, score gain, fallbacks, usage."""
    runs = list_runs(conn, limit=None, since=since)
    finished = [r for r in runs if r["status"] == "finished"]
    scored = [r for r in runs if r["first_score"] is not None and r["final_score"] is not None]
    structured = sum(r["rounds"] + 1 for r in runs if r["rounds"])
    claims = sum(r["claims"] for r in runs)
    first = _mean([r["first_score"] for r in scored])
    final = _mean([r["final_score"] for r in scored])
    usage_sql = (
        "SELECT u.model, SUM(u.calls), SUM(u.prompt_tokens), SUM(u.completion_tokens), "
        "SUM(u.cost), COUNT(u.cost), SUM(u.cache_read_tokens), SUM(u.cache_creation_tokens), "
        "SUM(u.estimated_tokens) "
        "FROM run_usage u JOIN runs r USING (thread_id)"
    )
    args: list[Any] = []
    if since is not None:
        usage_sql += " WHERE r.created_at >= ?"
        args.append(since)
    usage_sql += " GROUP BY u.model ORDER BY SUM(u.prompt_tokens + u.completion_tokens) DESC"
    per_model = [
        {
            "model": model, "calls": calls, "prompt_tokens": p, "completion_tokens": c,
            "tokens": p + c, "cost": round(cost, 6) if priced else None,
            "cache_read_tokens": int(read or 0), "cache_creation_tokens": int(written or 0),
            "estimated_tokens": int(guessed or 0),
        }
        for model, calls, p, c, cost, priced, read, written, guessed in conn.execute(usage_sql, args)
    ]  # fmt: skip
    return {
        "since": since,
        "runs": len(runs),
        "by_status": dict(Counter(r["status"] for r in runs).most_common()),
        "mean_rounds": _mean([r["rounds"] for r in finished]),
        "stop_reasons": dict(Counter(r["stop_reason"] for r in finished).most_common()),
        "mean_first_score": first,
        "mean_final_score": final,
        "mean_gain": round(final - first, 3) if first is not None and final is not None else None,
        # of the scored runs, those the checklist reviewed: their scores measure form, not the article
        "form_scored": sum(1 for r in scored if r["critic_model"] == "checklist"),
        "scored": len(scored),
        "fallback_rate": round(sum(r["fallbacks"] for r in runs) / structured, 4) if structured else None,
        "sources_used": sum(r["sources_used"] for r in runs),
        "citations_removed": sum(r["citations_removed"] for r in runs),
        "claims": sum(r["claims"] for r in runs),
        "supported_share": round(sum(r["claims_supported"] for r in runs) / claims, 4) if claims else None,
        "memory": {
            "with lessons": _group([r for r in finished if r["lessons_recalled"]]),
            "without": _group([r for r in finished if not r["lessons_recalled"]]),
        },
        "per_model": per_model,
        "generated_at": time.time(),
    }
