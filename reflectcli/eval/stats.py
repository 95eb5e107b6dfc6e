"""The eval's numbers, from stored judgements: pure functions.

Pairwise: the judge saw (A = first draft, B = final) and (A = final, B = first draft). Each
order gives final / first / tie (`both_good` and `both_bad` are ties); the two orders agree
(position-consistent) or not, and a split verdict counts as a tie. Win / tie / loss are shares
of the tasks; the 95 % interval of the win share is a percentile bootstrap (2,000 resamples of
the tasks, seeded, so a report is reproducible).

Length control: the judge's verdicts on the pairs as written and on equal-length copies of them,
through the model of eval/lengthcontrol.py: the preference at equal length with its standard
error, or "confounded" where the length gaps cannot separate length from quality. A preference
within BAND of 0.5 is "no effect"; the report flags when the raw and the length-controlled
preference point different ways."""

from __future__ import annotations

import random
import statistics
from typing import Any

from reflectcli.eval import lengthcontrol
from reflectcli.eval.judge import CRITERIA
from reflectcli.eval.matched import ENDS
from reflectcli.eval.metrics import log_length_ratio

RESAMPLES = 2000


def equal_kinds(prefix: str = "", count: int = len(ENDS)) -> tuple[str, ...]:
    """The stored kinds of a pair's equal-length copies (eval/matched.py), `count` ends of
    ENDS, each in both orders: `{prefix}eq_head_ab`, ... (`other_` for --against-outputs)."""
    return tuple(f"{prefix}eq_{end}_{order}" for end in ENDS[:count] for order in ("ab", "ba"))


# every stored judgement the judge was paid for
JUDGE_KINDS = ("ab", "ba", "rubric_first", "rubric_final", "rubric_b", "vs_ab", "vs_ba", "other_ab",
               "other_ba", *equal_kinds(), *equal_kinds("other_"))  # fmt: skip
BAND = 0.05  # a preference within this of 0.5 is "no effect"


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
            "decided": not {"fallback", "same_text"} & set(sources),
            # and named a winner in at least one: a tie in both orders agrees with itself and
            # says nothing about position
            "named": "tie" not in (one, two) or one != two}  # fmt: skip


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
    interval and position consistency: over the pairs the judge decided in both orders and
    named a winner in at least one (a fallback tie, a skipped identical pair or a tie in both
    orders agrees with itself and proves nothing). None without results."""
    n = len(results)
    decided = [r for r in results if r.get("decided", True)]
    named = [r for r in decided if r.get("named", True)]
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
        "consistency_pairs": len(named),
        "position_consistency": (round(sum(r["consistent"] for r in named) / len(named), 4)
                                 if named else None),
    }  # fmt: skip


def direction(preference: float | None) -> str | None:
    """better / worse / no effect, for a preference of the final (0.5 = none)."""
    if preference is None:
        return None
    return "better" if preference > 0.5 + BAND else "worse" if preference < 0.5 - BAND else "no effect"


Y = {"final": 1.0, "tie": 0.5, "first": 0.0}


def length_control(tasks: list[list[tuple[float, float]]], natural: list[float], raw: float | None,
                   equal_pairs: int = 0) -> dict[str, Any]:  # fmt: skip
    """The LC preference of the final at equal length (eval/lengthcontrol.py), its standard
    error and 95 % interval, or why there is none, and whether it points where the raw
    preference does. `tasks`: per task, its (d, verdict) observations; `natural`: its gap as
    written; `equal_pairs`: how many equal-length pairs are among the observations."""
    found = lengthcontrol.fit(tasks, natural)
    lc = found["lc"]
    why = (None if lc is not None else "no lengths stored" if not found["observations"]
           else "confounded")  # fmt: skip
    one_way = bool(natural) and (all(d > 0 for d in natural) or all(d < 0 for d in natural))
    raw_way, lc_way = direction(raw), direction(lc)
    return {"lc_win": round(lc, 4) if lc is not None else None,
            "lc_se": round(found["se"], 4) if lc is not None else None,
            "lc_interval": [round(x, 4) for x in found["interval"]] if lc is not None else None,
            "lc_unknown": why, "lc_vif": found["vif"], "lc_equal_pairs": equal_pairs,
            "lc_one_way": one_way, "lc_reaches_equal": found.get("reaches_equal", False),
            "raw_direction": raw_way, "lc_direction": lc_way,
            "length_disagrees": raw_way is not None and lc_way is not None and raw_way != lc_way}  # fmt: skip


def _lengths(items: list[dict[str, Any]], pair: str = "pair", base: str = "first",
             new: str = "final") -> dict[str, Any]:  # fmt: skip
    """Per judged task with metrics: its observations for the LC model (each order's verdict on
    the pair as written at its gap d, and on each equal-length pair, `{pair}_equal`, at its own
    gap), its gap, and the mean length change (of `new`, the text in the role of "final" in
    `pair`, over `base`)."""
    tasks, natural, ratios, diffs, equal = [], [], [], [], 0
    for i in items:
        metrics = i.get("metrics") or {}
        before, after = (metrics.get(base) or {}).get("words"), (metrics.get(new) or {}).get("words")
        if not i.get(pair) or before is None or after is None:
            continue
        d = log_length_ratio(before, after)
        found = [(d, Y[i[pair][k]]) for k in ("ab", "ba")]
        for same in i.get(f"{pair}_equal") or []:
            found += [(same["d"], Y[same[k]]) for k in ("ab", "ba")]
            equal += 1
        tasks.append(found)
        natural.append(d)
        ratios.append(max(after, 1) / max(before, 1) - 1)
        diffs.append(after - before)
    return {"tasks": tasks, "natural": natural, "equal_pairs": equal,
            "mean_length_change": _mean(ratios), "mean_words_added": _mean(diffs)}  # fmt: skip


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
    judged_calls = [i[k] for i in items for k in JUDGE_KINDS if i.get(k)]
    judge_tokens = sum(j.get("tokens", 0) for j in judged_calls)
    paid = [j for j in judged_calls if j.get("tokens")]  # a skipped identical pair costs nothing
    judge_cost = (round(sum(j["cost"] for j in paid), 6)
                  if all(j.get("cost") is not None for j in paid) else None)  # fmt: skip
    writing = sum(costs) if costs and len(costs) == len(runs) else None
    # gain per dollar counts what the measurement cost too: the writing and the judging
    cost_per_task = (
        (writing + judge_cost) / len(runs) if writing is not None and judge_cost is not None else None
    )
    shares = pairwise(judged)
    raw = shares["win"] + shares["tie"] / 2 if judged else None
    lengths = _lengths(items)
    return {
        "tasks": len(items),
        **shares,
        "preference": round(raw, 4) if raw is not None else None,
        **length_control(lengths["tasks"], lengths["natural"], raw, lengths["equal_pairs"]),
        "mean_length_change": lengths["mean_length_change"],
        "mean_words_added": lengths["mean_words_added"],
        "model_free": model_free(items),
        "judge_fallbacks": sum(p["fallback"] for p in judged),
        "rubric_gain": gains,
        "mean_rubric_gain": mean_gain,
        "mean_rounds": _mean([r["rounds"] for r in runs]),
        "tokens": sum(r["tokens"] for r in runs),
        "judge_tokens": judge_tokens,
        "cost": round(sum(costs), 6) if costs else None,
        "judge_cost": judge_cost,
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


def against_outputs(items: list[dict[str, Any]]) -> dict[str, Any]:
    """Our final against the other system's article, per task (ours in the role of "final"):
    win / tie / loss with its interval, position consistency, the raw and the length-controlled
    preference, and the mean length of ours relative to theirs."""
    judged = [i["outputs_pair"] for i in items if i.get("outputs_pair")]
    shares = pairwise(judged)
    raw = shares["win"] + shares["tie"] / 2 if judged else None
    lengths = _lengths(items, "outputs_pair", "other", "final")
    return {**shares, "preference": round(raw, 4) if raw is not None else None,
            **length_control(lengths["tasks"], lengths["natural"], raw, lengths["equal_pairs"]),
            "mean_length_change": lengths["mean_length_change"],
            "mean_words_added": lengths["mean_words_added"]}  # fmt: skip


METRICS = ("words", "length_score", "citations_per_1000_words", "claims_supported", "rouge1", "rouge_l")


def model_free(items: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """The deterministic metrics' means per role (first draft, final, the other system's
    article), over the tasks that have each one, with their counts; invented citations summed."""
    out: dict[str, dict[str, Any]] = {}
    for role in ("first", "final", "other"):
        found = [m[role] for i in items if role in (m := i.get("metrics") or {})]
        if not found:
            continue
        row: dict[str, Any] = {}
        for key in METRICS:
            values = [f[key] for f in found if f.get(key) is not None]
            row[key] = {"mean": _mean(values), "tasks": len(values)} if values else None
        for kind in ("exact", "fuzzy"):
            values = [f["heading_recall"][kind] for f in found
                      if (f.get("heading_recall") or {}).get(kind) is not None]  # fmt: skip
            row[f"heading_recall_{kind}"] = {"mean": _mean(values), "tasks": len(values)} if values else None
        if role == "final":
            row["invented_citations_removed"] = sum(f.get("invented_citations_removed") or 0 for f in found)
        out[role] = row
    return out
