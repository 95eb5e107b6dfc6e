"""The graph factory: wires nodes, routers and a checkpointer. Nothing is compiled at import."""

from __future__ import annotations

from typing import Any, Literal

from reflectcli.graph.nodes import Nodes
from reflectcli.graph.state import RunState
from reflectcli.llm import ModelClient


def recursion_limit(max_sections: int, max_rounds: int) -> int:
    """plan + one step per section + review/decide per round + revisions + finalize, with slack."""
    return 1 + max_sections + 3 * max_rounds + 1 + 5


def route_after_draft(state: dict[str, Any]) -> Literal["draft", "review"]:
    written = len(state.get("sections") or [])
    planned = len(state["outline"]["sections"])
    if written < planned:
        return "draft"
    if written == planned:
        return "review"
    raise RuntimeError(f"impossible state: {written} sections drafted for {planned} planned")


def route_after_decide(state: dict[str, Any]) -> Literal["revise", "finalize"]:
    decision = state["decisions"][-1]["decision"]
    if decision == "revise":
        return "revise"
    if decision == "stop":
        return "finalize"
    raise RuntimeError(f"impossible decision {decision!r}")


def build_graph(writer: ModelClient, critic: ModelClient, checkpointer: Any = None):
    """Compile the reflection loop with the given model clients and checkpointer."""
    from langgraph.graph import END, START, StateGraph

    nodes = Nodes(writer, critic)
    graph = StateGraph(RunState)
    graph.add_node("plan", nodes.plan)
    graph.add_node("draft", nodes.draft)
    graph.add_node("review", nodes.review)
    graph.add_node("decide", nodes.decide)
    graph.add_node("revise", nodes.revise)
    graph.add_node("finalize", nodes.finalize)
    graph.add_edge(START, "plan")
    graph.add_edge("plan", "draft")
    graph.add_conditional_edges("draft", route_after_draft, ["draft", "review"])
    graph.add_edge("review", "decide")
    graph.add_conditional_edges("decide", route_after_decide, ["revise", "finalize"])
    graph.add_edge("revise", "review")
    graph.add_edge("finalize", END)
    return graph.compile(checkpointer=checkpointer)
