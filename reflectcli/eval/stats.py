"""The eval's numbers, from stored judgements: pure functions.

Pairwise: the judge saw (A = first draft, B = final) and (A = final, B = first draft). Each
order gives final / first / tie (`both_good` and `both_bad` are ties); the two orders agree
(position-consistent) or not, and a split verdict counts as a tie. Win / tie / loss are shares
of the tasks; the 95 % interval of the win share is a percentile bootstrap (2,000 resamples of
the tasks, seeded, so a report is reproducible)."""

from __future__ import annotations

import random
import statistics
from typing import Any

from reflectcli.eval.judge import CRITERIA

RESAMPLES = 2000


def order_outcome(winner: str, final_is: str) -> str:
    """final / first / tie, for one order's verdict (`final_is`: the letter the final had)."""
    if winner in ("A", "B"):
        return "final" if winner == final_is else "first"
    return "tie"


def combine(ab: dict[str, Any], ba: dict[str, Any]) -> dict[str, Any]:
    """One task's pairwise result from its two orders."""
    one, two = order_outcome(ab["winner"], "B"), order_outcome(ba["winner"], "A")
    consistent = one == two
    sources = (ab.get("source"), ba.get("source"))
    return {"ab": one, "ba": two, "consistent": consistent, "outcome": one if consistent else "tie",
            "fallback": "fallback" in sources,
            # the judge decided both orders itself (no unusable answer, not skipped as identical)
            "decided": not {"fallback", "same_text"} & set(sources)}  # fmt: skip


def bootstrap(values: list[float], seed: int = 7) -> tuple[float, float] | None:
    """95 % percentile interval of the mean of `values`."""
    if not values:
        return None
    rng = random.Random(seed)
    n = len(values)
    means = sorted(sum(rng.choices(values, k=n)) / n for _ in range(RESAMPLES))
    return means[int(0.025 * RESAMPLES)], means[int(0.975 * RESAMPLES) - 1]


def _mean(values: list[float]) -> float | None:
    return round(statistics.fmean(values), 3) if values else None


def pairwise(results: list[dict[str, Any]]) -> dict[str, Any]:
    """Win / tie / loss shares of "final" over "first" in combined results, the win share's
    interval and position consistency: over the pairs the judge decided in both orders (a
    fallback tie or a skipped identical pair agrees with itself and proves nothing). None
    without results."""
    n = len(results)
    decided = [r for r in results if r.get("decided", True)]
    outcomes = [r["outcome"] for r in results]
    wins = [1.0 if o == "final" else 0.0 for o in outcomes]
    interval = bootstrap(wins)
    return {
        "judged": n,
        "win": round(sum(wins) / n, 4) if n else None,
        "tie": round(outcomes.count("tie") / n, 4) if n else None,
        "loss": round(outcomes.count("first") / n, 4) if n else None,
        "win_interval": [round(x, 4) for x in interval] if interval else None,
        "decided": len(decided),
        "position_consistency": (round(sum(r["consistent"] for r in decided) / len(decided), 4)
                                 if decided else None),
    }  # fmt: skip


def summarize(items: list[dict[str, Any]]) -> dict[str, Any]:
    """The report's numbers over judged items (each with `pair`, `rubric_first`, `rubric_final`,
    `run` (the index row), `tags`)."""
    judged = [i["pair"] for i in items if i.get("pair")]
    gains: dict[str, float | None] = {}
    for criterion in CRITERIA:
        pairs = [(i["rubric_final"]["grades"][criterion], i["rubric_first"]["grades"][criterion])
                 for i in items if (i.get("rubric_final") or {}).get("grades")
                 and (i.get("rubric_first") or {}).get("grades")]  # fmt: skip
        gains[criterion] = _mean([a - b for a, b in pairs])
    known = [g for g in gains.values() if g is not None]
    mean_gain = _mean(known)
    runs = [i["run"] for i in items if i.get("run")]
    costs = [r["cost"] for r in runs if r.get("cost") is not None]
    judge_tokens = sum((i.get(k) or {}).get("tokens", 0) for i in items
                       for k in ("ab", "ba", "rubric_first", "rubric_final"))  # fmt: skip
    cost_per_task = (sum(costs) / len(costs)) if costs and len(costs) == len(runs) else None
    return {
        "tasks": len(items),
        **pairwise(judged),
        "judge_fallbacks": sum(p["fallback"] for p in judged),
        "rubric_gain": gains,
        "mean_rubric_gain": mean_gain,
        "mean_rounds": _mean([r["rounds"] for r in runs]),
        "tokens": sum(r["tokens"] for r in runs),
        "judge_tokens": judge_tokens,
        "cost": round(sum(costs), 6) if costs else None,
        "gain_per_dollar": round(mean_gain / cost_per_task, 3)
        if mean_gain is not None and cost_per_task
        else None,
    }


def by_tag(items: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    tags = sorted({t for i in items for t in i.get("tags") or []})
    return {t: summarize([i for i in items if t in (i.get("tags") or [])]) for t in tags}


def regressions(items: list[dict[str, Any]], limit: int = 5) -> list[dict[str, Any]]:
    """The tasks where the final did worst against the first draft: lost the pairwise
    judgement, or fell on the rubric; worst first."""
    worst = []
    for i in items:
        first = (i.get("rubric_first") or {}).get("grades")
        final = (i.get("rubric_final") or {}).get("grades")
        gain = _mean([final[c] - first[c] for c in CRITERIA]) if first and final else None
        lost = (i.get("pair") or {}).get("outcome") == "first"
        if lost or (gain is not None and gain < 0):
            worst.append({"n": i["n"], "task": i["task"], "thread_id": i.get("thread_id"),
                          "outcome": (i.get("pair") or {}).get("outcome"), "rubric_gain": gain})  # fmt: skip
    worst.sort(
        key=lambda w: (w["outcome"] != "first", w["rubric_gain"] if w["rubric_gain"] is not None else 0)
    )
    return worst[:limit]


def versus(items: list[dict[str, Any]]) -> dict[str, Any]:
    """Config B's final against config A's, per task (B in the role of "final"): B's win / tie /
    loss with its interval, position consistency, and B's rubric gain over A's final."""
    gains = [statistics.fmean([i["rubric_b"]["grades"][c] - i["rubric_final"]["grades"][c] for c in CRITERIA])
             for i in items if (i.get("rubric_b") or {}).get("grades")
             and (i.get("rubric_final") or {}).get("grades")]  # fmt: skip
    shares = pairwise([i["versus"] for i in items if i.get("versus")])
    return {
        "judged": shares["judged"], "b_win": shares["win"], "tie": shares["tie"],
        "b_loss": shares["loss"], "b_win_interval": shares["win_interval"],
        "position_consistency": shares["position_consistency"], "rubric_gain_b_over_a": _mean(gains),
    }  # fmt: skip
