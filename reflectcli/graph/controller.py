"""The revision controller: one pure function from a round's facts and the policy to a decision.

Rules, in order of precedence (the first that applies wins):

1.  `rewrite_rejected` every rewrite of the last revision was rejected by a guard     → stop
2.  `passed`          score >= threshold and every per-dimension minimum met and no cited
                      claim contradicted by its source (found by code or critic:
                      sources/verify.py), from a real review (a
                      heuristic fallback review never passes)                        → stop
3.  `critic_fallback` the same, but the review is the heuristic fallback            → stop
4.  `max_rounds`      rounds used = max_rounds (the hard cap)                         → stop
5.  `max_queries`     the searches made for the critic's queries reached `[research]
                      max_queries` (Reflexion's second gate)                          → stop
6.  `budget`          tokens or cost spent reached the budget                         → stop
7.  `saturated`       the last `patience` gains were each < `min_gain`                → stop
8.  `no_new_critique` the critique is empty, or it repeats the previous round's and the
                      score did not gain `min_gain` (and more than 0)                 → stop
9.  `regressed`       score below an earlier round's: revise from the best version    → revise
10. `below_threshold` otherwise                                                       → revise
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from difflib import SequenceMatcher
from typing import Any, Literal

from reflectcli.writing.textops import normalize

Action = Literal["revise", "stop"]
SIMILAR = 0.8  # two improvements this alike (difflib ratio) say the same thing


@dataclass(frozen=True)
class Rules:
    threshold: float
    max_rounds: int
    minimums: Mapping[str, float] = field(default_factory=dict)
    min_gain: float = 0.0
    patience: int = 2
    max_tokens: int | None = None
    max_cost: float | None = None
    max_queries: int | None = None  # searches per run (runs with sources)

    @classmethod
    def from_params(cls, params: Mapping[str, Any]) -> Rules:
        policy = params.get("policy") or {}
        return cls(
            threshold=params["threshold"],
            max_rounds=params["max_rounds"],
            minimums=policy.get("minimums") or {},
            min_gain=policy.get("min_gain", 0.0),
            patience=policy.get("patience", 2),
            max_tokens=policy.get("max_tokens"),
            max_cost=policy.get("max_cost"),
            max_queries=(params.get("research") or {}).get("max_queries")
            if (params.get("research") or {}).get("sources") in ("local", "web", "hybrid")
            else None,
        )


@dataclass(frozen=True)
class Facts:
    """What the controller may look at after a review."""

    round: int
    scores: tuple[float, ...]  # overall score of every round so far, this round last
    dimensions: Mapping[str, float] = field(default_factory=dict)
    improvements: tuple[str, ...] = ()
    previous_improvements: tuple[str, ...] = ()
    tokens: int = 0
    cost: float | None = None
    fallback: bool = False  # this round's review is the heuristic fallback, not the critic's
    rejected: bool = False  # the revision after this round made no version (guards)
    contradicted: int = 0  # cited claims code or the critic found contradicted by their source
    searches: int = 0  # searches made for the critic's queries
    human: int = 0  # the person's own critiques (`reflectcli revise`) no revision has applied yet


@dataclass(frozen=True)
class Decision:
    action: Action
    reason: str
    detail: str
    numbers: Mapping[str, Any] = field(default_factory=dict)

    def log_entry(self, round_no: int) -> dict[str, Any]:
        return {"round": round_no, "decision": self.action, "reason": self.reason,
                "detail": self.detail, **self.numbers}  # fmt: skip


def repeats(current: tuple[str, ...], previous: tuple[str, ...]) -> bool:
    """True when every current improvement says what one of the previous round's said."""
    if not current or not previous:
        return False
    old = [normalize(p) for p in previous]
    return all(any(SequenceMatcher(None, normalize(c), o).ratio() >= SIMILAR for o in old) for c in current)


def budget_spent(rules: Rules, tokens: int, cost: float | None,
                 estimate: float | None = None, flying: int = 0) -> str | None:  # fmt: skip
    """Why the budget is exhausted, or None. Used before every call and after every review.
    Before a call, `estimate` is what it may cost at most (with the calls still in flight):
    a call whose estimate exceeds what is left of `max_cost` is refused, never sent; and
    `flying` is the most tokens the calls in flight may take (their prompts and whole caps):
    they count as spent, so calls at once cross `max_tokens` by at most one call, as calls one
    at a time do."""
    if rules.max_tokens is not None and tokens + flying >= rules.max_tokens:
        if flying:
            return (f"{tokens} tokens used and up to {flying} in the calls in flight, of a "
                    f"{rules.max_tokens} budget")  # fmt: skip
        return f"{tokens} tokens used of a {rules.max_tokens} budget"
    if rules.max_cost is not None and cost is not None and cost >= rules.max_cost:
        return f"${cost:.4f} spent of a ${rules.max_cost:.4f} budget"
    if rules.max_cost is not None and estimate is not None and (cost or 0.0) + estimate > rules.max_cost:
        left = rules.max_cost - (cost or 0.0)
        return (f"the next call may cost up to ${estimate:.4f}, more than the ${left:.4f} left of "
                f"a ${rules.max_cost:.4f} budget")  # fmt: skip
    return None


def decide(facts: Facts, rules: Rules) -> Decision:
    score = facts.scores[-1]
    earlier = facts.scores[:-1]
    gains = [b - a for a, b in zip(facts.scores, facts.scores[1:], strict=False)]
    numbers = {
        "score": score,
        "threshold": rules.threshold,
        "best": max(facts.scores),
        "gain": round(gains[-1], 3) if gains else None,
        "tokens": facts.tokens,
        "cost": facts.cost,
    }

    def stop(reason: str, detail: str) -> Decision:
        return Decision("stop", reason, detail, numbers)

    if facts.rejected:
        return stop("rewrite_rejected", f"every rewrite of round {facts.round + 1} was rejected "
                    f"by a guard; keeping the best version ({max(facts.scores):g})")  # fmt: skip
    if facts.human and facts.round < rules.max_rounds and not budget_spent(rules, facts.tokens, facts.cost):
        return Decision("revise", "human", f"your critique ({facts.human}) is applied next, whatever "
                        f"the score ({score:g})", numbers)  # fmt: skip
    below = [
        f"{name} {facts.dimensions.get(name, score):g} < minimum {minimum:g}"
        for name, minimum in rules.minimums.items()
        if facts.dimensions.get(name, score) < minimum
    ]
    if facts.contradicted:
        below.append(f"{facts.contradicted} cited claim{'s' if facts.contradicted != 1 else ''} "
                     "contradicted by its source")  # fmt: skip
    if score >= rules.threshold and not below:
        if facts.fallback:
            return stop("critic_fallback", f"the critic's answer was unusable; a heuristic "
                        f"score ({score:g}) cannot pass, whatever the threshold")  # fmt: skip
        return stop("passed", f"score {score:g} >= threshold {rules.threshold:g}")
    short = f"score {score:g} < threshold {rules.threshold:g}" if score < rules.threshold else (
        f"score {score:g} passes but " + ", ".join(below))  # fmt: skip
    if facts.round >= rules.max_rounds:
        return stop("max_rounds", f"round {facts.round} of {rules.max_rounds} used; {short}")
    if rules.max_queries and facts.searches >= rules.max_queries:
        return stop("max_queries", f"the critic's queries searched: {facts.searches} of "
                    f"max_queries {rules.max_queries}; {short}")  # fmt: skip
    if spent := budget_spent(rules, facts.tokens, facts.cost):
        return stop("budget", f"{spent}; {short}")
    recent = gains[-rules.patience :]
    if len(recent) >= rules.patience and all(g < rules.min_gain for g in recent):
        shown = ", ".join(f"{g:+.2g}" for g in recent)
        return stop("saturated", f"gains {shown} each < {rules.min_gain:g} for "
                    f"{rules.patience} rounds; {short}")  # fmt: skip
    if not facts.improvements:
        return stop("no_new_critique", f"the critic named no improvement; {short}")
    gain = gains[-1] if gains else 0.0
    if repeats(facts.improvements, facts.previous_improvements) and (gain <= 0 or gain < rules.min_gain):
        return stop("no_new_critique", f"the improvements repeat round {facts.round - 1}'s and "
                    f"the score gained {gain:+.2g}; {short}")  # fmt: skip
    if earlier and score < max(earlier):
        return Decision("revise", "regressed", f"score {score:g} fell below the best "
                        f"{max(earlier):g}; revising from the best version", numbers)  # fmt: skip
    return Decision("revise", "below_threshold",
                    f"{short}; round {facts.round} of {rules.max_rounds}", numbers)  # fmt: skip
