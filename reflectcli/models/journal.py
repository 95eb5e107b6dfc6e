"""A client wrapper that journals every answered call and replays it instead of paying twice.

A run killed after an answer arrived but before LangGraph's checkpoint landed would otherwise send
the same request again on resume. Answers are keyed by thread, step label and request content.
"""

from __future__ import annotations

import hashlib
import json
import threading
from collections.abc import Callable
from concurrent.futures import Future
from datetime import UTC, datetime
from typing import Any

from reflectcli.errors import ModelError
from reflectcli.models.base import Completion, ModelClient

CallListener = Callable[[str, dict[str, Any]], None]
SPENT, SPENT_STEP = ":spent", "spent:"  # journal rows of failed calls' tokens: key suffix, step prefix


def request_key(thread_id: str, step: str, model: str, payload: dict[str, Any]) -> str:
    blob = json.dumps(
        {"thread": thread_id, "step": step, "model": model, **payload},
        sort_keys=True,
        ensure_ascii=False,
    )
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()


class JournaledClient:
    """Wraps a ModelClient: replay from the journal, else call, journal, and tell listeners."""

    def __init__(self, inner: ModelClient, store, thread_id: str, listener: CallListener):
        self.inner = inner
        self.model = inner.model
        self.store = store
        self.thread_id = thread_id
        self.listener = listener
        self._early: dict[str, Future] = {}  # key -> a call sent ahead of its step (`prefetch`)

    @property
    def takes_schema(self) -> bool:
        return bool(getattr(self.inner, "takes_schema", False))

    @property
    def tiny(self) -> bool:
        return bool(getattr(self.inner, "tiny", False))

    @property
    def caches_prompts(self) -> bool:
        return bool(getattr(self.inner, "caches_prompts", False))

    @property
    def cache_share(self) -> float | None:
        return getattr(self.inner, "cache_share", None)

    def cache_saves(self, prefix: int, shaped: int, plain: int) -> bool:
        """The model client's word on shaping this prompt for its cache (`caches_prompts` alone
        for a client without one)."""
        decide = getattr(self.inner, "cache_saves", None)
        return self.caches_prompts if decide is None else bool(decide(prefix, shaped, plain))

    @property
    def serial(self) -> bool:
        return bool(getattr(self.inner, "serial", False))

    def _key(self, messages, step, json_schema, max_tokens, stop) -> str:
        payload = {"messages": messages, "schema": json_schema, "max_tokens": max_tokens}
        if stop:
            payload["stop"] = stop
        return request_key(self.thread_id, step, self.model, payload)

    def estimate_cost(self, messages, *, step, json_schema=None, max_tokens=None,
                      stop=None) -> float | None:  # fmt: skip
        """What the call may cost before it is sent: nothing when its answer is journaled (it
        is replayed), else the model client's estimate (None when it has none)."""
        key = self._key(messages, step, json_schema, max_tokens, stop)
        if self.store.journaled(self.thread_id, key) is not None:
            return 0.0
        estimate = getattr(self.inner, "estimate_cost", None)
        if estimate is None:
            return None
        return estimate(messages, step=step, json_schema=json_schema, max_tokens=max_tokens, stop=stop)

    def prefetch(self, messages, *, step, json_schema=None, max_tokens=None, stop=None) -> None:
        """Send a call ahead of its step, from a thread of its own, while the process is still
        getting ready (the graph's imports): the step's own call with this request takes its
        answer (journaled as any other), not a second one. For a run's first call, which no
        budget can refuse (the caller checks there is none)."""
        key = self._key(messages, step, json_schema, max_tokens, stop)
        future: Future = Future()

        def send() -> None:
            try:
                future.set_result(self._call(key, messages, step, json_schema, max_tokens, stop, None))
            except BaseException as exc:  # the step's own call raises it
                future.set_exception(exc)

        self._early[key] = future
        threading.Thread(target=send, name=f"early-{step}", daemon=True).start()

    def complete(self, messages, *, step, json_schema=None, max_tokens=None, stop=None,
                 budget=None) -> Completion:  # fmt: skip
        key = self._key(messages, step, json_schema, max_tokens, stop)
        early = self._early.pop(key, None)
        if early is not None:  # sent ahead by `prefetch`: its answer (or its error)
            return early.result()
        return self._call(key, messages, step, json_schema, max_tokens, stop, budget)

    def _call(self, key, messages, step, json_schema, max_tokens, stop, budget) -> Completion:
        saved = self.store.journaled(self.thread_id, key)
        if saved is not None:
            completion = Completion.from_dict(saved)
            completion.replayed = True
            self.listener("call_replayed", {"step": step, "completion": completion})
            return completion
        self.listener("call_started", {"step": step, "model": self.model})
        try:
            completion = self.inner.complete(messages, step=step, json_schema=json_schema,
                                             max_tokens=max_tokens, stop=stop, budget=budget)  # fmt: skip
        except BaseException as exc:
            if isinstance(exc, ModelError) and exc.spent:
                self._spent(key, step, exc.spent)
            self.listener("call_failed", {"step": step, "model": self.model, "error": exc})
            raise
        paid = self.store.journaled(self.thread_id, key + SPENT)
        if paid:  # earlier failed calls of this request (before a resume): billed, so counted
            completion.prompt_tokens += paid["prompt_tokens"]
            completion.completion_tokens += paid["completion_tokens"]
            completion.cost = _add_cost(completion.cost, paid["cost"])
            completion.estimated_tokens += paid.get("estimated", 0)
            completion.retry_log.append(f"{paid['calls']} failed call{'s' if paid['calls'] != 1 else ''}"
                                        f" before: {paid['prompt_tokens'] + paid['completion_tokens']} "
                                        "tokens (estimated; counted in the usage)")  # fmt: skip
        completion.step = step
        completion.at = datetime.now(UTC).isoformat(timespec="milliseconds")
        self.store.journal_put(key, self.thread_id, step, completion.to_dict())
        self.listener("call_finished", {"step": step, "completion": completion})
        return completion

    def _spent(self, key: str, step: str, spent: dict[str, Any]) -> None:
        """Tokens a failed call generated, kept beside the journal until the same request is
        answered (then added to that answer, so the run's usage and budget include them)."""
        empty = {"prompt_tokens": 0, "completion_tokens": 0, "cost": 0.0, "calls": 0}
        paid = self.store.journaled(self.thread_id, key + SPENT) or empty
        paid = {"model": self.model, "prompt_tokens": paid["prompt_tokens"] + spent["prompt_tokens"],
                "completion_tokens": paid["completion_tokens"] + spent["completion_tokens"],
                "cost": _add_cost(paid["cost"], spent.get("cost")), "calls": paid["calls"] + 1,
                "estimated": paid.get("estimated", 0) + spent.get("estimated", 0)}  # fmt: skip
        self.store.journal_put(key + SPENT, self.thread_id, f"{SPENT_STEP}{step}", paid)


def _add_cost(a: float | None, b: float | None) -> float | None:
    """Two costs added; unknown (None) when either is: a price litellm does not know."""
    return None if a is None or b is None else a + b
