"""Whether the judge can decide: its order consistency and its self-agreement, and the rule that
gives no verdict from a judge that cannot.

- Order consistency: over every pair the judge judged in both orders in this eval (first draft
  vs final, their equal-length copies, config B vs A, ours vs another system's), the share
  whose two orders named the same text, among the pairs it decided itself and named a winner
  in at least one order (a tie in both orders agrees with itself and says nothing).
- The rule: a judge blind to the texts (it picks a position, or at random) names the same text
  in both orders of a pair with probability 2q(1 - q) <= 1/2. So a result is given only when
  the judge's consistency is above 50 % beyond chance: k consistent pairs of n with
  P(X >= k | n, 1/2) <= ALPHA (a one-sided exact binomial test at 5 %). Below that, every
  result of the judge reads "no verdict": 0 of 16 (SmolLM2-135M, which names whatever it is
  shown first) as much as 3 of 3 (too few pairs to tell a judge from a coin). The number needed
  falls towards half as pairs grow: 5 of 5, 9 of 10, 20 of 30, 59 of 100.
- Self-agreement: over the tasks where both of the judge's instruments took a side (the pair
  named a winner consistently, and the two rubric means differ), the share where its rubric
  favours the text its pairwise verdict chose. Reported beside every result; not a gate."""

from __future__ import annotations

import math
from typing import Any

from reflectcli.eval.judge import CRITERIA

ALPHA = 0.05


def tail(k: int, n: int) -> float:
    """P(X >= k) for X ~ Binomial(n, 1/2)."""
    return sum(math.comb(n, i) for i in range(k, n + 1)) / 2**n


def needed(n: int) -> int | None:
    """The fewest consistent pairs of `n` that a judge blind to the texts reaches with
    probability at most ALPHA; None when even all n are not enough."""
    return next((k for k in range(n + 1) if tail(k, n) <= ALPHA), None)


def _pairs(item: dict[str, Any]) -> list[dict[str, Any]]:
    found = [item.get(k) for k in ("pair", "versus", "outputs_pair")]
    found += [*(item.get("pair_equal") or []), *(item.get("outputs_pair_equal") or [])]
    return [p for p in found if p]


def _mean(grades: dict[str, float]) -> float:
    return sum(grades[c] for c in CRITERIA) / len(CRITERIA)


def _agrees(pair: dict[str, Any] | None, new: dict[str, Any] | None,
            old: dict[str, Any] | None) -> bool | None:  # fmt: skip
    """Whether the rubric favours the text the pair chose (the "final" role is `new`); None when
    either took no side."""
    new_grades, old_grades = (new or {}).get("grades"), (old or {}).get("grades")
    if not pair or pair["outcome"] == "tie" or not new_grades or not old_grades:
        return None
    gap = _mean(new_grades) - _mean(old_grades)
    return None if gap == 0 else (gap > 0) == (pair["outcome"] == "final")


def judge(items: list[dict[str, Any]]) -> dict[str, Any]:
    """The judge's order consistency over all its pairs, whether it may give a verdict, and
    its self-agreement, over an eval's items (as eval/run.py's report builds them)."""
    named = [p for i in items for p in _pairs(i) if p.get("decided", True) and p.get("named", True)]
    n, k = len(named), sum(p["consistent"] for p in named)
    want = needed(n)
    votes = [v for i in items for v in (_agrees(i.get("pair"), i.get("rubric_final"), i.get("rubric_first")),
                                        _agrees(i.get("versus"), i.get("rubric_b"), i.get("rubric_final")))
             if v is not None]  # fmt: skip
    return {"pairs": n, "consistent": k, "order_consistency": round(k / n, 4) if n else None,
            "needed": want, "decides": want is not None and k >= want,
            "self_agreement": round(sum(votes) / len(votes), 4) if votes else None,
            "self_pairs": len(votes)}  # fmt: skip
