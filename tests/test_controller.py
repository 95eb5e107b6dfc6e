"""The stop rule is a pure function: a table of cases, including precedence."""

import pytest

from reflectcli.graph.controller import decide


@pytest.mark.parametrize(
    ("score", "round_no", "threshold", "max_rounds", "action", "reason"),
    [
        (8, 1, 7, 3, "stop", "passed"),
        (7, 1, 7, 3, "stop", "passed"),  # equal passes
        (6.9, 1, 7, 3, "revise", "below_threshold"),
        (6, 3, 7, 3, "stop", "max_rounds"),
        (9.5, 3, 9, 3, "stop", "passed"),  # passing in the last round is `passed`
        (9.9, 2, 10, 2, "stop", "max_rounds"),  # threshold 10 guard
        (0, 1, 0, 1, "stop", "passed"),
        (5, 1, 8, 1, "stop", "max_rounds"),
        (5, 4, 8, 3, "stop", "max_rounds"),  # beyond the cap still stops
    ],
)
def test_decide(score, round_no, threshold, max_rounds, action, reason):
    decision = decide(score=score, round_no=round_no, threshold=threshold, max_rounds=max_rounds)
    assert (decision.action, decision.reason) == (action, reason)
    assert decision.detail


def test_log_entry_has_round_decision_reason_numbers():
    entry = decide(score=6, round_no=1, threshold=8, max_rounds=3).log_entry(1, 6, 8)
    assert entry == {"round": 1, "decision": "revise", "reason": "below_threshold",
                     "detail": entry["detail"], "score": 6, "threshold": 8}  # fmt: skip
