"""The human gate, on LangGraph's `interrupt()`: the graph pauses with a question, the run is
`waiting` (it survives the process exiting), and `resume` asks the question again.

Answers are small dicts: outline gate {"action": "approve" | "regenerate"} or
{"action": "edit", "sections": [{"title", "goal"}, ...]}; stop gate
{"action": "accept" | "more" | "stop"}."""

from __future__ import annotations

from typing import Any

from reflectcli.graph.rules import best_version, review_of
from reflectcli.writing.schemas import Outline

OUTLINE_ACTIONS = ("approve", "edit", "regenerate")
STOP_ACTIONS = ("accept", "more", "stop")


def _interrupt(payload: dict[str, Any]) -> dict[str, Any]:
    from langgraph.types import interrupt

    answer = interrupt(payload)
    return answer if isinstance(answer, dict) else {"action": str(answer)}


def gate_outline(state: dict[str, Any]) -> dict[str, Any]:
    answer = _interrupt({"gate": "outline", "outline": state["outline"]["sections"]})
    action = answer.get("action")
    if action not in OUTLINE_ACTIONS:
        raise ValueError(f"outline gate: unknown answer {answer!r}")
    entry = {"round": 0, "decision": action, "reason": "human", "detail": f"outline {action}d"}
    if action == "regenerate":
        return {"outline": None, "decisions": [entry]}
    if action == "edit":
        sections = [s.model_dump() for s in Outline.model_validate(answer["sections"]).sections]
        limit = state["params"]["max_sections"]
        outline = {"sections": sections[:limit], "source": "human", "errors": []}
        entry["detail"] = f"outline edited to {len(outline['sections'])} sections"
        return {"outline": outline, "decisions": [entry]}
    return {"decisions": [entry]}


def gate_stop(state: dict[str, Any]) -> dict[str, Any]:
    last = state["decisions"][-1]
    best = best_version(state)
    review = review_of(state, best["n"]) or {}
    answer = _interrupt({
        "gate": "stop", "reason": last["reason"], "detail": last["detail"],
        "best_version": best["n"], "best_score": review.get("score"),
    })  # fmt: skip
    action = answer.get("action")
    if action not in STOP_ACTIONS:
        raise ValueError(f"stop gate: unknown answer {answer!r}")
    entry = {"round": last["round"], "decision": action, "reason": "human",
             "detail": {"accept": f"accepted version {best['n']}",
                        "more": "one more round", "stop": "stopped"}[action]}  # fmt: skip
    if action == "more":
        return {"decisions": [entry], "stop_reason": None,
                "extra_rounds": state.get("extra_rounds", 0) + 1}  # fmt: skip
    # the run ends on the human's word: the reason says so (the controller's stays in the log)
    return {"decisions": [entry], "accepted": action == "accept", "stop_reason": f"human_{action}"}
