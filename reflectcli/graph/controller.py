"""The revision controller: a pure function from the numbers of a round to a decision."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any, Literal

Action = Literal["revise", "stop"]
Reason = Literal["passed", "max_rounds", "below_threshold"]


@dataclass(frozen=True)
class Decision:
    action: Action
    reason: Reason
    detail: str

    def log_entry(self, round_no: int, score: float, threshold: float) -> dict[str, Any]:
        return {
            "round": round_no,
            "decision": self.action,
            **{k: v for k, v in asdict(self).items() if k != "action"},
            "score": score,
            "threshold": threshold,
        }


def decide(*, score: float, round_no: int, threshold: float, max_rounds: int) -> Decision:
    """Stop when the score passes or the rounds are spent; otherwise revise. Order matters:
    a passing score in the last round is `passed`, not `max_rounds`."""
    if score >= threshold:
        return Decision("stop", "passed", f"score {score:g} >= threshold {threshold:g}")
    if round_no >= max_rounds:
        return Decision(
            "stop", "max_rounds", f"round {round_no} of {max_rounds} used; score {score:g} "
            f"< threshold {threshold:g}"
        )  # fmt: skip
    return Decision(
        "revise", "below_threshold", f"score {score:g} < threshold {threshold:g}; "
        f"round {round_no} of {max_rounds}"
    )  # fmt: skip
