"""The graph's nodes. Each makes at most one model call (plus validation retries) and returns
only what it adds to the state. Nodes get their clients from the factory, never from globals,
and never print."""

from __future__ import annotations

import time
from datetime import UTC, datetime
from typing import Any

from reflectcli import prompts
from reflectcli.fallbacks import fallback_outline, heuristic_review
from reflectcli.graph.controller import decide
from reflectcli.llm import Completion, ModelClient
from reflectcli.schemas import Outline, Review, outline_schema, review_schema
from reflectcli.structured import complete_structured
from reflectcli.textops import assemble, clean_article, clean_section, rewrite_guard

PLAN_TOKENS = 600
SECTION_TOKENS = 1024
REVIEW_TOKENS = 900


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds")


def call_event(node: str, completion: Completion, **extra: Any) -> dict[str, Any]:
    """A trace event for one model call: what, when, how long, how many tokens, what it cost."""
    return {
        "node": node,
        "step": completion.step,
        "at": _now(),
        "model": completion.model,
        "duration": round(completion.duration, 3),
        "prompt_tokens": completion.prompt_tokens,
        "completion_tokens": completion.completion_tokens,
        "cost": completion.cost,
        "retries": completion.retries,
        "retry_log": completion.retry_log,
        "replayed": completion.replayed,
        **extra,
    }


def note_event(node: str, kind: str, message: str, **extra: Any) -> dict[str, Any]:
    """A trace event for something that is not a call: a guard or a fallback that fired."""
    return {"node": node, "kind": kind, "at": _now(), "note": message, **extra}


class Nodes:
    """The loop's steps, bound to a writer and a critic client."""

    def __init__(self, writer: ModelClient, critic: ModelClient):
        self.writer = writer
        self.critic = critic

    def plan(self, state: dict[str, Any]) -> dict[str, Any]:
        params = state["params"]
        limit = params["max_sections"]
        result = complete_structured(
            self.writer,
            prompts.plan_messages(state["task"], limit, params.get("language")),
            Outline,
            step="plan",
            fallback=lambda: fallback_outline(limit),
            json_schema=outline_schema(limit),
            max_tokens=PLAN_TOKENS,
        )
        sections = [s.model_dump() for s in result.value.sections][:limit]
        trace = [call_event("plan", c) for c in result.calls]
        if result.source == "fallback":
            trace.append(note_event("plan", "fallback", "outline unusable after retries; "
                                    "using a generic outline", errors=result.errors))  # fmt: skip
        return {
            "outline": {"sections": sections, "source": result.source, "errors": result.errors},
            "trace": trace,
        }

    def draft(self, state: dict[str, Any]) -> dict[str, Any]:
        outline = state["outline"]["sections"]
        written = state.get("sections") or []
        index = len(written)
        completion = self.writer.complete(
            prompts.section_messages(
                state["task"], outline, written, index, state["params"].get("language")
            ),
            step=f"draft:s{index + 1}",
            max_tokens=SECTION_TOKENS,
        )
        body = clean_section(completion.text, outline[index]["title"])
        update: dict[str, Any] = {
            "sections": [body],
            "trace": [call_event("draft", completion, section=index + 1)],
        }
        if index + 1 == len(outline):
            text = assemble(outline, [*written, body])
            update["versions"] = [{"n": 1, "round": 0, "kind": "draft", "text": text}]
        return update

    def review(self, state: dict[str, Any]) -> dict[str, Any]:
        version = state["versions"][-1]
        round_no = len(state.get("reviews") or []) + 1
        titles = [s["title"] for s in state["outline"]["sections"]]
        result = complete_structured(
            self.critic,
            prompts.review_messages(
                state["task"], version["text"], round_no, state["params"].get("language")
            ),
            Review,
            step=f"review:r{round_no}",
            fallback=lambda: heuristic_review(version["text"], titles),
            json_schema=review_schema(),
            max_tokens=REVIEW_TOKENS,
        )
        review = {
            **result.value.model_dump(),
            "round": round_no,
            "version": version["n"],
            "source": result.source,
            "errors": result.errors,
        }
        trace = [call_event("review", c, round=round_no) for c in result.calls]
        if result.source == "fallback":
            trace.append(note_event("review", "fallback", "critic answer unusable after "
                                    "retries; heuristic score used", round=round_no))  # fmt: skip
        return {"reviews": [review], "trace": trace}

    def decide(self, state: dict[str, Any]) -> dict[str, Any]:
        review = state["reviews"][-1]
        params = state["params"]
        decision = decide(
            score=review["score"],
            round_no=review["round"],
            threshold=params["threshold"],
            max_rounds=params["max_rounds"],
        )
        entry = decision.log_entry(review["round"], review["score"], params["threshold"])
        update: dict[str, Any] = {"decisions": [entry]}
        if decision.action == "stop":
            update["stop_reason"] = decision.reason
        return update

    def revise(self, state: dict[str, Any]) -> dict[str, Any]:
        latest = state["versions"][-1]
        review = state["reviews"][-1]
        round_no = review["round"] + 1
        started = time.monotonic()
        completion = self.writer.complete(
            prompts.revise_messages(
                state["task"], latest["text"], review, round_no, state["params"].get("language")
            ),
            step=f"revise:r{round_no}",
            max_tokens=max(SECTION_TOKENS, 2 * len(latest["text"]) // 3),
        )
        text = clean_article(completion.text)
        trace = [call_event("revise", completion, round=round_no)]
        guard = rewrite_guard(latest["text"], text)
        if guard:
            trace.append(note_event(
                "revise", "guard", f"rewrite rejected ({guard}: {len(text)} chars vs "
                f"{len(latest['text'])}); kept version {latest['n']}", guard=guard, round=round_no,
                chars=len(text), previous_chars=len(latest["text"]),
                seconds=round(time.monotonic() - started, 3),
            ))  # fmt: skip
            return {"trace": trace}
        version = {"n": latest["n"] + 1, "round": round_no - 1, "kind": "revision", "text": text}
        return {"versions": [version], "trace": trace}

    def finalize(self, state: dict[str, Any]) -> dict[str, Any]:
        """The output is the best-reviewed version (the later one on a tie)."""
        best_n, best_score = state["versions"][-1]["n"], -1.0
        for review in state.get("reviews") or []:
            if review["score"] >= best_score:
                best_n, best_score = review["version"], review["score"]
        return {"status": "finished", "final_version": best_n}
