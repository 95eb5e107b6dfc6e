"""The stop rule is a pure function: every rule and the order of precedence, as a table."""

import pytest

from reflectcli.graph.controller import Facts, Rules, decide, repeats

A, B, C = "Add a concrete example.", "Cite a study.", "Cut the repeated ending."


def rules(**kw):
    base = {"threshold": 8, "max_rounds": 5, "min_gain": 0.5, "patience": 2}
    return Rules(**{**base, **kw})


def facts(*scores, imps=(A,), prev=(B,), dims=None, tokens=0, cost=None, fallback=False,
          rejected=False):  # fmt: skip
    return Facts(round=len(scores), scores=tuple(scores), dimensions=dims or {},
                 improvements=tuple(imps), previous_improvements=tuple(prev),
                 tokens=tokens, cost=cost, fallback=fallback, rejected=rejected)  # fmt: skip


CASES = [
    # name, facts, rules, action, reason
    ("passes", facts(8.5), rules(), "stop", "passed"),
    ("equal passes", facts(8), rules(), "stop", "passed"),
    ("below revises", facts(6), rules(), "revise", "below_threshold"),
    ("cap", facts(5, 6, 7), rules(max_rounds=3), "stop", "max_rounds"),
    ("pass beats cap", facts(5, 9), rules(max_rounds=2), "stop", "passed"),
    ("threshold 10 fenced by cap", facts(9, 9.5), rules(threshold=10, max_rounds=2), "stop", "max_rounds"),
    (
        "minimum blocks a pass",
        facts(9, dims={"structure": 5}),
        rules(minimums={"structure": 6}),
        "revise",
        "below_threshold",
    ),
    (
        "minimum met passes",
        facts(9, dims={"structure": 6}),
        rules(minimums={"structure": 6}),
        "stop",
        "passed",
    ),
    ("missing dim takes overall", facts(9), rules(minimums={"accuracy": 8.5}), "stop", "passed"),
    ("token budget", facts(6, tokens=1000), rules(max_tokens=1000), "stop", "budget"),
    ("under token budget", facts(6, tokens=999), rules(max_tokens=1000), "revise", "below_threshold"),
    ("cost budget", facts(6, cost=0.5), rules(max_cost=0.5), "stop", "budget"),
    ("unknown cost never trips", facts(6, cost=None), rules(max_cost=0.5), "revise", "below_threshold"),
    ("cap beats budget", facts(5, 6, tokens=10**6), rules(max_rounds=2, max_tokens=10), "stop", "max_rounds"),
    ("pass beats budget", facts(9, tokens=10**6), rules(max_tokens=10), "stop", "passed"),
    ("saturated", facts(6, 6.2, 6.3), rules(), "stop", "saturated"),
    ("one stall is not saturation", facts(5, 6, 6.2), rules(), "revise", "below_threshold"),
    ("patience 1", facts(6, 6.2), rules(patience=1), "stop", "saturated"),
    ("budget beats saturation", facts(6, 6.2, 6.3, tokens=50), rules(max_tokens=50), "stop", "budget"),
    ("no critique", facts(6, imps=()), rules(), "stop", "no_new_critique"),
    (
        "repeated critique without gain",
        facts(6, 6.3, imps=("Add a concrete example!",), prev=(A,)),
        rules(),
        "stop",
        "no_new_critique",
    ),
    (
        "repeated critique, score falling",
        facts(6, 5.5, imps=(A,), prev=(A,)),
        rules(min_gain=0),
        "stop",
        "no_new_critique",
    ),
    (
        "repeated critique, no change, min_gain 0",
        facts(6, 6, imps=(A,), prev=(A,)),
        rules(min_gain=0),
        "stop",
        "no_new_critique",
    ),
    (
        "repeated critique while climbing goes on",
        facts(5, 6, imps=(A,), prev=(A,)),
        rules(),
        "revise",
        "below_threshold",
    ),  # fmt: skip
    (
        "climbing 5 -> 6 -> 8 passes",
        facts(5, 6, 8, imps=(A,), prev=(A,)),
        rules(max_rounds=3),
        "stop",
        "passed",
    ),  # fmt: skip
    ("fallback never passes", facts(5, fallback=True), rules(threshold=4), "stop", "critic_fallback"),
    (
        "fallback never passes at 0",
        facts(0, fallback=True),
        rules(threshold=0),
        "stop",
        "critic_fallback",
    ),  # fmt: skip
    (
        "fallback below threshold revises",
        facts(5, fallback=True),
        rules(),
        "revise",
        "below_threshold",
    ),  # fmt: skip
    ("threshold 0 passes a real review", facts(0), rules(threshold=0), "stop", "passed"),
    ("rejected rewrite stops", facts(6, rejected=True), rules(), "stop", "rewrite_rejected"),
    ("rejected beats everything", facts(9, rejected=True), rules(), "stop", "rewrite_rejected"),
    ("new critique goes on", facts(6, 7, imps=(A, C), prev=(A,)), rules(), "revise", "below_threshold"),
    ("saturation beats repetition", facts(6, 6.1, 6.2, imps=(A,), prev=(A,)), rules(), "stop", "saturated"),
    ("regressed revises from best", facts(7, 6), rules(), "revise", "regressed"),
    ("saturated beats regressed", facts(7, 6, 5), rules(), "stop", "saturated"),
    ("regressed under patience", facts(5, 7, 6.5), rules(), "revise", "regressed"),
]


@pytest.mark.parametrize(("name", "f", "r", "action", "reason"), CASES, ids=[c[0] for c in CASES])
def test_decide(name, f, r, action, reason):
    decision = decide(f, r)
    assert (decision.action, decision.reason) == (action, reason)
    assert decision.detail


def test_log_entry_has_round_decision_reason_and_numbers():
    entry = decide(facts(6, 7), rules()).log_entry(2)
    assert {k: entry[k] for k in ("round", "decision", "reason", "score", "threshold",
                                  "best", "gain")} == {  # fmt: skip
        "round": 2, "decision": "revise", "reason": "below_threshold", "score": 7,
        "threshold": 8, "best": 7, "gain": 1,
    }  # fmt: skip


def test_repeats_needs_every_item_matched():
    assert repeats(("Add a concrete example",), (A, B))
    assert not repeats((A, "Something entirely different here"), (A,))
    assert not repeats((), (A,)) and not repeats((A,), ())


def test_rules_from_params():
    r = Rules.from_params(
        {"threshold": 7, "max_rounds": 2, "policy": {"min_gain": 0.2, "patience": 3, "max_tokens": 5}}
    )
    assert (r.threshold, r.max_rounds, r.min_gain, r.patience, r.max_tokens) == (7, 2, 0.2, 3, 5)


@pytest.mark.parametrize("threshold", [0, 8, 10])
def test_a_contradicted_claim_never_passes_at_any_threshold(threshold):
    contradicted = Facts(round=1, scores=(10.0,), improvements=(A,), contradicted=1)
    decision = decide(contradicted, rules(threshold=threshold))
    assert decision.reason != "passed" and "contradicted" in decision.detail
    clean = Facts(round=1, scores=(10.0,), improvements=(A,), contradicted=0)
    assert decide(clean, rules(threshold=threshold)).reason == "passed"


def test_max_queries_stops_only_when_the_critics_queries_reach_it():
    assert decide(Facts(round=1, scores=(5.0,), improvements=(A,), searches=2),
                  rules(max_queries=2)).reason == "max_queries"  # fmt: skip
    assert decide(Facts(round=1, scores=(5.0,), improvements=(A,), searches=1),
                  rules(max_queries=2)).reason == "below_threshold"  # fmt: skip
    assert (
        decide(Facts(round=1, scores=(5.0,), improvements=(A,), searches=0), rules(max_queries=0)).reason
        == "below_threshold"
    )  # 0: no critic queries at all


# --- review sanity: the overall against the dimensions, and prose feedback (graph/sanity.py) ---

PROSE = "The second section lacks an example and the ending repeats the opening."
EDGE_DIMS = {"accuracy": 3, "completeness": 4, "readability": 6, "structure": 9}  # mean 5.5


def dims(*values):
    return dict(zip(("accuracy", "completeness", "readability", "structure"), values, strict=True))


SANITY = [
    # name, score, dimensions, feedback, tiny, invalid (for a tiny critic), score used
    ("the seen edge: 2.5 above", 8, EDGE_DIMS, PROSE, True, True, 5.5),
    ("exactly the margin: 2 above", 7, dims(5, 5, 5, 5), PROSE, True, True, 5.0),
    ("just under the margin: 1.75", 6.5, dims(5, 5, 5, 4), PROSE, True, False, 6.5),
    ("far below is believed low", 3, dims(6, 6, 6, 6), PROSE, True, False, 6.0),
    ("agreeing", 7, dims(7, 6, 8, 7), PROSE, True, False, 7),
    ("float fuzz at the margin", 7.0, dims(5.1, 4.9, 5.0, 5.0), PROSE, True, True, 5.0),
    ("junk feedback", 6, dims(6, 6, 6, 6), ".15027 (A) A: [r] Asynchronous Execution", True, True, 6),
    ("feedback not prose", 6, dims(6, 6, 6, 6), "See score_1 = f(x_1, y_2) + g(z_3) == k5", True, True, 6),
    ("a capable critic is adjusted, not refused", 8, EDGE_DIMS, PROSE, False, False, 5.5),
]


@pytest.mark.parametrize(("name", "score", "dims", "feedback", "tiny", "invalid", "used"), SANITY,
                         ids=[c[0] for c in SANITY])  # fmt: skip
def test_review_sanity_table(name, score, dims, feedback, tiny, invalid, used):
    from reflectcli.graph.sanity import consistent, implausible

    assert bool(implausible(score, dims, feedback, tiny)) is invalid
    assert consistent(score, dims) == pytest.approx(used)


def test_your_pending_critique_is_applied_whatever_the_score_within_rounds_and_budget():
    from reflectcli.graph.controller import Facts, Rules, decide

    rules = Rules(threshold=8, max_rounds=3, max_tokens=1000)
    high = Facts(round=1, scores=(9.5,), human=1, tokens=10)
    assert (decide(high, rules).action, decide(high, rules).reason) == ("revise", "human")
    assert decide(Facts(round=1, scores=(9.5,), tokens=10), rules).reason == "passed"
    assert decide(Facts(round=3, scores=(9.5,), human=1), rules).reason == "passed"  # no round left
    assert decide(Facts(round=1, scores=(5.0,), human=1, tokens=1000), rules).reason == "budget"
