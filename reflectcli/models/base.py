"""What every model client shares: the `Completion` it returns and the `ModelClient` protocol
nodes call. No imports from the rest of the package."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from typing import Any, Protocol


@dataclass
class Completion:
    """One answered model call, with what it cost."""

    text: str
    model: str
    step: str = ""
    prompt_tokens: int = 0  # all input tokens, those read from or written to a prompt cache included
    completion_tokens: int = 0
    cache_read_tokens: int = 0  # of prompt_tokens: read from the provider's prompt cache
    cache_creation_tokens: int = 0  # of prompt_tokens: written to it (Anthropic bills these higher)
    cost: float | None = None
    duration: float = 0.0
    retries: int = 0
    replayed: bool = False
    retry_log: list[str] = field(default_factory=list)
    finish_reason: str | None = None  # stop | length (the token cap) | loop (cut: it repeated)
    at: str = ""  # when the answer arrived (UTC, ISO 8601)
    # of prompt_tokens + completion_tokens: those the provider did not report (a stream cut before
    # its usage came, failed attempts), counted by a tokenizer or estimated: shown as estimates
    estimated_tokens: int = 0

    @property
    def tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Completion:
        known = {k: v for k, v in data.items() if k in cls.__dataclass_fields__}
        return cls(**known)


class ModelClient(Protocol):
    """What nodes call. `step` names the call (e.g. `review:r2`) for traces and journals.
    `budget(tokens, cost)`, when given, is asked before each retry inside the call with what its
    failed attempts cost: a reason (the run's budget is spent) means the retry is not sent and
    the client raises reflectcli.retry.BudgetReached. A client that never retries ignores it."""

    model: str

    def complete(
        self,
        messages: list[dict[str, str]],
        *,
        step: str,
        json_schema: dict[str, Any] | None = None,
        max_tokens: int | None = None,
        stop: list[str] | None = None,
        budget: Callable[[int, float | None], str | None] | None = None,
    ) -> Completion: ...
