"""Pieces the nodes share: trace events, the budget guard around a client, round facts."""

from __future__ import annotations

import threading
from datetime import UTC, datetime
from typing import Any

from reflectcli.config import SECTION_TOKENS
from reflectcli.graph.controller import Rules, budget_spent
from reflectcli.graph.rules import spent
from reflectcli.models.base import Completion, ModelClient
from reflectcli.retry import BudgetReached
from reflectcli.sources.verify import attribute
from reflectcli.writing.citations import clean_citations, run_labels
from reflectcli.writing.echo import strip_echo
from reflectcli.writing.textops import estimate_tokens, trim_generation


def now() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds")


def call_event(node: str, completion: Completion, **extra: Any) -> dict[str, Any]:
    """A trace event for one model call: what, when, how long, how many tokens, what it cost."""
    return {
        "node": node,
        "step": completion.step,
        "at": completion.at or now(),
        "model": completion.model,
        "duration": round(completion.duration, 3),
        "prompt_tokens": completion.prompt_tokens,
        "completion_tokens": completion.completion_tokens,
        "cache_read_tokens": completion.cache_read_tokens,
        "cache_creation_tokens": completion.cache_creation_tokens,
        "cost": completion.cost,
        "estimated_tokens": completion.estimated_tokens,  # of the tokens: not the provider's count
        "retries": completion.retries,
        "retry_log": completion.retry_log,
        "replayed": completion.replayed,
        "finish_reason": completion.finish_reason,
        **extra,
    }


def note_event(node: str, kind: str, message: str, **extra: Any) -> dict[str, Any]:
    """A trace event for something that is not a call: a guard, fallback, rollback, budget."""
    return {"node": node, "kind": kind, "at": now(), "note": message, **extra}


class BudgetExceeded(Exception):
    """Raised before a call that the run's token or cost budget no longer allows."""

    def __init__(self, why: str, calls: list[Completion]):
        super().__init__(why)
        self.why = why
        self.calls = calls


class Budgeted:
    """Wraps a client for one node: checks the budget before every call, with the call's cost
    estimate when the client gives one (a call that may cost more than is left of `max_cost` is
    never sent), and before every retry inside a call (with what its failed attempts cost), so
    without estimates a run overshoots its budget by at most the one attempt that crossed it.
    Safe for calls at once: the estimates of calls in flight count as spent until answered, in
    dollars (the client's estimate) and in tokens (the prompt's tokens and the whole token cap),
    so calls at once overshoot no more than calls one at a time."""

    def __init__(self, client: ModelClient, state: dict[str, Any]):
        self.client = client
        self.model = client.model
        self.rules = Rules.from_params(state["params"])
        used = spent(state)
        self.tokens, self.cost = used["tokens"], used["cost"]
        self.calls: list[Completion] = []
        self.takes_schema = bool(getattr(client, "takes_schema", False))
        self.tiny = bool(getattr(client, "tiny", False))
        self.serial = bool(getattr(client, "serial", False))
        self._lock = threading.Lock()
        self._in_flight: dict[int, tuple[float, int]] = {}  # calls sent, not yet answered: estimates

    def _spent(self, tokens: int = 0, cost: float | None = None, estimate: float | None = None,
               flying: int = 0) -> str | None:  # fmt: skip
        """Why the budget is exhausted after this node's calls and `tokens`/`cost` more (and,
        before a call, its `estimate` with those in flight, and the tokens those may take), or
        None. The caller holds the lock."""
        tokens += self.tokens + sum(c.tokens for c in self.calls)
        costs = [c.cost for c in self.calls if c.cost is not None] + ([cost] if cost is not None else [])
        total = (self.cost or 0.0) + sum(costs) if (self.cost is not None or costs) else None
        return budget_spent(self.rules, tokens, total, estimate, flying)

    def _retry_spent(self, tokens: int = 0, cost: float | None = None) -> str | None:
        """The check a client asks before each retry (with what its failed attempts cost)."""
        with self._lock:
            return self._spent(tokens, cost)

    def complete(self, messages, *, step, json_schema=None, max_tokens=None, stop=None) -> Completion:
        estimate = None
        if self.rules.max_cost is not None and hasattr(self.client, "estimate_cost"):
            estimate = self.client.estimate_cost(messages, step=step, json_schema=json_schema,
                                                 max_tokens=max_tokens, stop=stop)  # fmt: skip
        most = call_tokens(messages, max_tokens) if self.rules.max_tokens is not None else 0
        ticket = object()
        with self._lock:
            pending = estimate + sum(c for c, _ in self._in_flight.values()) if estimate is not None else None
            if why := self._spent(estimate=pending, flying=sum(t for _, t in self._in_flight.values())):
                raise BudgetExceeded(why, list(self.calls))
            self._in_flight[id(ticket)] = (estimate or 0.0, most)
        try:
            completion = self.client.complete(messages, step=step, json_schema=json_schema,
                                              max_tokens=max_tokens, stop=stop,
                                              budget=self._retry_spent)  # fmt: skip
        except BudgetReached as exc:  # a retry not sent: its failed attempts are paid, so counted
            paid = exc.paid
            failed = Completion(
                text="", model=self.model, step=step, prompt_tokens=paid["prompt_tokens"],
                completion_tokens=paid["completion_tokens"], cost=paid.get("cost"),
                estimated_tokens=paid.get("estimated", 0),
                retries=max(0, len(exc.log) - 1), retry_log=[*exc.log, f"retry not sent: {exc.why}"],
                finish_reason="budget")  # fmt: skip
            with self._lock:
                self.calls.append(failed)
                calls = list(self.calls)
            raise BudgetExceeded(f"{exc.why}; a retry of {step} was not sent", calls) from exc
        finally:
            with self._lock:
                self._in_flight.pop(id(ticket), None)
        with self._lock:
            self.calls.append(completion)
        return completion


ESTIMATE_OUTPUT = 1024  # answer tokens a call without a cap is taken to take, at most


def call_tokens(messages: list[dict[str, Any]], max_tokens: int | None) -> int:
    """The most tokens a call may take, before it is sent: its prompt's (about 4 characters a
    token) and its whole token cap."""
    prompt = sum(estimate_tokens(m["content"]) for m in messages if isinstance(m.get("content"), str))
    return prompt + (max_tokens or ESTIMATE_OUTPUT)


def budget_stop(node: str, exc: BudgetExceeded, round_no: int) -> dict[str, Any]:
    """The update a node returns when the budget stops the run before its call."""
    return {
        "stop_reason": "budget",
        "trace": [call_event(node, c) for c in exc.calls]
        + [note_event(node, "budget", f"budget reached before {node}: {exc.why}")],
        "decisions": [
            {"round": round_no, "decision": "stop", "reason": "budget", "detail": exc.why}
        ],  # fmt: skip
    }


def section_tokens(state: dict[str, Any]) -> int:
    """The run's cap on one section's tokens (drafting, and the floor for rewrites); runs saved
    before the setting existed get the default."""
    return int(state["params"].get("section_tokens") or SECTION_TOKENS)


def generated_text(completion: Completion, node: str, messages: list[dict[str, str]] | None = None,
                   **extra: Any) -> tuple[str, list[dict]]:  # fmt: skip
    """A generation's usable text, and trace notes when it had to be cut: a loop (the text
    started repeating itself) is cut before the loop, a text stopped by the token cap is cut
    back to its last full sentence, and what echoes the prompt (`messages`) or chats about the
    answer is removed (writing/echo.py). None of it is ever done silently."""
    text, cut = trim_generation(completion.text, completion.finish_reason)
    echo = strip_echo(text, messages)
    text = echo.text
    notes = []
    if echo.removed:
        shown = "; ".join(f"“{r[:60]}”" for r in echo.removed[:3])
        notes.append(note_event(node, "echo", f"{completion.step}: removed {len(echo.removed)} "
                                f"piece(s) of prompt text or chatter: {shown}",
                                removed=echo.removed, step_of=completion.step, **extra))  # fmt: skip
    if cut == "loop":
        notes.append(note_event(node, "loop", f"{completion.step}: the text began repeating "
                                "itself; cut before the repetition", step_of=completion.step,
                                **extra))  # fmt: skip
    elif cut == "length":
        notes.append(note_event(node, "truncated", f"{completion.step}: stopped by the "
                                f"{completion.completion_tokens}-token cap; cut back to its last "
                                "full sentence", step_of=completion.step, **extra))  # fmt: skip
    return text, notes


def concurrency(state: dict[str, Any], client: Any = None) -> int:
    """Independent calls a step makes at once at most: the run's `concurrency` (1 for runs
    saved before it existed, and for a client that answers one call at a time)."""
    if client is not None and getattr(client, "serial", False):
        return 1
    return int(state["params"].get("concurrency") or 1)


def parallel_draft(state: dict[str, Any]) -> bool:
    """Whether the run drafts its sections at once (`draft = "parallel"`)."""
    return state["params"].get("draft") == "parallel"


def researching(state: dict[str, Any]) -> bool:
    """Whether the run gathers evidence (runs saved before research existed do not)."""
    return (state["params"].get("research") or {}).get("sources") not in (None, "none", "auto")


def section_evidence(state: dict[str, Any], index: int) -> list[dict[str, Any]]:
    """The passages research found for section `index` (0-based), in rank order."""
    done = (state.get("research") or {}).get("sections") or []
    ids = done[index] if index < len(done) else []
    by_id = {e["id"]: e for e in state.get("evidence") or []}
    return [by_id[i] for i in ids if i in by_id]


def grounded(text: str, state: dict[str, Any], node: str, **extra: Any) -> tuple[str, list[dict]]:
    """`text` with every citation to an id the run does not hold removed, and every citation
    written in the run's form (`[S3]`, or a person's article's own numbering), with a trace note
    naming each removal and each rewrite: no invented reference is kept, none changed unsaid."""
    known = {e["id"] for e in state.get("evidence") or []}
    cleaned, removed, rewritten = clean_citations(text, known, run_labels(state))
    return cleaned, citation_notes(node, removed, rewritten, **extra)


def citation_notes(node: str, removed: list[str], rewritten: list[tuple[str, str]],
                   what: str = "", **extra: Any) -> list[dict]:  # fmt: skip
    """The trace notes of what code did to citations: removed (invented, or naming none) and
    rewritten into the run's form, each named as written."""
    notes = []
    if removed:
        shown = ", ".join(dict.fromkeys(removed))  # not as `[S9]`: no output shows it as a citation
        notes.append(note_event(node, "invented_citation", f"removed {len(removed)} citation"
                                f"{'s' if len(removed) != 1 else ''} to sources the run does not "
                                f"hold (or naming none){what}: {shown}", removed=removed,
                                **extra))  # fmt: skip
    if rewritten:
        shown = "; ".join(f"{old} → {new}" for old, new in dict.fromkeys(rewritten))
        notes.append(note_event(node, "rewritten_citation", f"rewrote {len(rewritten)} citation"
                                f"{'s' if len(rewritten) != 1 else ''} into the run's form{what}: "
                                f"{shown}", rewritten=[list(r) for r in rewritten], by="code",
                                **extra))  # fmt: skip
    return notes


def attributed(
    text: str, evidence: list[dict[str, Any]], client: Any, node: str, **extra: Any
) -> tuple[str, list[dict]]:
    """For a writer too small to cite (a tiny client): `[Sn]` added in code after each sentence
    that a sentence of passage Sn says nearly verbatim, with a trace note flagging each as added
    by code. Other writers cite for themselves."""
    if not evidence or not getattr(client, "tiny", False):
        return text, []
    text, added = attribute(text, evidence)
    if not added:
        return text, []
    return text, [note_event(node, "attributed", f"cited in code: {', '.join(added)} (added by code: a "
                             "passage sentence says nearly the same, with the same numbers, names "
                             "and polarity)", added=added, by="code", **extra)]  # fmt: skip
