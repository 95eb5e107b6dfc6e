"""The graph factory: wires nodes, routers and a checkpointer. Nothing is compiled at import.

    plan ─> [gate_outline] ─> [research ⟲] ─> draft ⟲ ─> review ─> decide ─> [research ⟲] ─> revise ⟲ ─> ...
                                                     └─> [gate_stop] ─> [learn] ─> finalize
    (picked change by change: ... ─> [gate_steer] ─> revise ⟲ ─> [gate_pick ⟲] ─> review ...)
A budget stop from any model step goes straight to the end ([learn], finalize). Gates exist
when interactive; research (one step per search: each section before drafting, then the
queries a review asks for before its revision) when the run uses sources; learn (lessons for
the memory, once) when the run learns.
"""

from __future__ import annotations

from typing import Any, Literal, get_args, get_type_hints

from reflectcli.graph.gates import gate_outline, gate_stop
from reflectcli.graph.human import unheeded
from reflectcli.graph.nodes import Nodes
from reflectcli.graph.pick import gate_pick, gate_steer, needs_steer, pick_pending
from reflectcli.graph.revise import Reviser, revision_pending
from reflectcli.graph.rules import next_search
from reflectcli.graph.state import RunState
from reflectcli.models.base import ModelClient


def recursion_limit(max_sections: int, max_rounds: int, extra: int = 0) -> int:
    """Steps of the longest run (every section rewritten every round), plus gates, with slack."""
    rounds = max_rounds + extra
    return 5 + max_sections * (2 + rounds) + 8 * rounds + 10  # up to 3 searches a round; gates; learn


def _budget_stopped(state: dict[str, Any]) -> bool:
    return state.get("stop_reason") == "budget"


def learning(state: dict[str, Any]) -> bool:
    """Whether the run still has to learn (runs saved before memory existed never do): once
    from the critic's history, and again whenever the person added critiques since."""
    if not (state["params"].get("memory") or {}).get("enabled"):
        return False
    return state.get("learned") is None or bool(unheeded(state))


def make_routers(interactive: bool):
    def to_end(state) -> Literal["learn", "finalize"]:
        """The run is over: learn from it first, when it learns."""
        return "learn" if learning(state) else "finalize"

    def to_revise(state) -> Literal["gate_steer", "revise"]:
        """The writer steers the round first, when the run is picked change by change."""
        return "gate_steer" if needs_steer(state) else "revise"

    def to_draft(state) -> Literal["research", "draft"]:
        """Research the outline's sections first, when the run uses sources."""
        return "research" if next_search(state) else "draft"

    def after_plan(state) -> Literal["gate_outline", "research", "draft", "learn", "finalize"]:
        if _budget_stopped(state):
            return to_end(state)
        return "gate_outline" if interactive else to_draft(state)

    def after_gate_outline(state) -> Literal["plan", "research", "draft"]:
        return "plan" if state.get("outline") is None else to_draft(state)

    def after_research(state) -> Literal["research", "draft", "gate_steer", "revise"]:
        if next_search(state):
            return "research"
        return to_revise(state) if state.get("reviews") else "draft"

    def after_draft(state) -> Literal["draft", "review", "learn", "finalize"]:
        if _budget_stopped(state):
            return to_end(state)
        written = len(state.get("sections") or [])
        planned = len(state["outline"]["sections"])
        if written < planned:
            return "draft"
        if written == planned:
            return "review"
        raise RuntimeError(f"impossible state: {written} sections drafted for {planned} planned")

    def after_review(state) -> Literal["decide", "learn", "finalize"]:
        return to_end(state) if _budget_stopped(state) else "decide"

    def after_decide(state) -> Literal["research", "gate_steer", "revise", "gate_stop", "learn", "finalize"]:
        decision = state["decisions"][-1]
        if decision["decision"] == "revise":
            return "research" if next_search(state) else to_revise(state)  # the critic's queries first
        if decision["decision"] == "stop":
            if interactive and decision["reason"] != "passed":
                return "gate_stop"
            return to_end(state)
        raise RuntimeError(f"impossible decision {decision!r}")

    def after_gate_stop(state) -> Literal["research", "gate_steer", "revise", "learn", "finalize"]:
        if state["decisions"][-1]["decision"] != "more":
            return to_end(state)
        return "research" if next_search(state) else to_revise(state)  # the critic's queries first

    def after_gate_steer(state) -> Literal["revise", "learn", "finalize"]:
        return to_end(state) if state.get("stop_reason") == "human_stop" else "revise"

    def after_gate_pick(state) -> Literal["gate_pick", "review", "learn", "finalize"]:
        if pick_pending(state):
            return "gate_pick"  # one change a step: each answer is its own checkpoint
        return to_end(state) if state.get("stop_reason") == "human_rejected" else "review"

    def after_revise(state) -> Literal["revise", "gate_pick", "review", "decide", "learn", "finalize"]:
        if _budget_stopped(state):
            return to_end(state)
        if revision_pending(state):
            return "revise"
        if pick_pending(state):
            return "gate_pick"  # the writer answers each proposed change
        if state.get("rejected") == len(state["reviews"]) + 1:
            return "decide"  # nothing new to review: the controller stops (rewrite_rejected)
        return "review"

    return {
        "plan": after_plan, "gate_outline": after_gate_outline, "research": after_research,
        "draft": after_draft,
        "review": after_review, "decide": after_decide, "gate_stop": after_gate_stop,
        "revise": after_revise, "gate_steer": after_gate_steer, "gate_pick": after_gate_pick,
    }  # fmt: skip


def _thin(step):
    """A one-line wrapper: compile() disassembles every node's code looking for subgraphs,
    which costs milliseconds per run on our real node bodies and nothing on this."""

    def node(state):
        return step(state)

    return node


def build_graph(
    writer: ModelClient, critic: ModelClient, checkpointer: Any = None, interactive: bool = False,
    retriever: Any = None, learner: Any = None,
):  # fmt: skip
    """Compile the reflection loop with the given model clients, checkpointer, retriever (a
    callable from a query to ranked passages; needed by runs that use sources) and learner (a
    callable from the run's state to what the memory learned; needed by runs that learn)."""
    from langgraph.graph import END, START, StateGraph

    nodes = Nodes(writer, critic, retriever, learner)
    graph = StateGraph(RunState)
    for name, step in (
        ("plan", nodes.plan), ("research", nodes.research), ("draft", nodes.draft),
        ("review", nodes.review), ("learn", nodes.learn),
        ("decide", nodes.decide), ("revise", Reviser(writer)), ("finalize", nodes.finalize),
        ("gate_outline", gate_outline), ("gate_stop", gate_stop),
        ("gate_steer", gate_steer), ("gate_pick", gate_pick),
    ):  # fmt: skip
        graph.add_node(name, _thin(step))
    graph.add_edge(START, "plan")
    for node, router in make_routers(interactive).items():
        targets = list(get_args(get_type_hints(router)["return"]))
        graph.add_conditional_edges(node, router, targets)
    graph.add_edge("learn", "finalize")
    graph.add_edge("finalize", END)
    return graph.compile(checkpointer=checkpointer)
