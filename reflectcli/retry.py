"""The one retry policy: which failures another attempt can fix, how long to wait before it, how
many attempts there are, and the budget check before each retry is sent. Model calls
(models/remote.py), web searches (the same module) and batch tasks (batch/) all use it.

Retryable: timeouts, lost or refused connections, HTTP 408/409/429 and every 5xx (litellm's
RateLimitError, Timeout, APIConnectionError, InternalServerError, ServiceUnavailableError,
BadGatewayError carry those codes), a ModelError marked `transient`. Not retryable: any other
4xx (401/403 keys, 400 bad requests and context windows, 404 models), and an error whose root
cause is a bad value or setting (litellm reports "'x' is not a valid SearchProviders" or "TAVILY_API_KEY
is not set" as a connection error with status 500 around a ValueError). Anything else is not
retried either: retrying a bug only repeats it.

In-process attempts run through tenacity (stop, wait and sleep are its pieces); batch tasks,
whose failures are counted in the store across processes, ask `Policy.retry_in`.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar

from reflectcli.errors import ModelError

log = logging.getLogger(__name__)

T = TypeVar("T")

RETRY_STATUS = frozenset({408, 409, 425, 429})  # and every 5xx
# a root cause of these kinds is a bad value or setting, whatever wraps it: trying again repeats it
SETTING_ERRORS = (ValueError, TypeError, LookupError, AttributeError, NotImplementedError, ImportError)


class BudgetReached(Exception):
    """A retry was not sent: the run's budget is spent, counting the attempts that failed.
    `paid`: the tokens (and cost) of those attempts; `log`: one line per failed attempt."""

    def __init__(self, why: str, paid: dict[str, Any] | None = None, log: list[str] | None = None):
        super().__init__(why)
        self.why = why
        self.paid = paid or {"prompt_tokens": 0, "completion_tokens": 0, "cost": None}
        self.log = log or []


def status_of(exc: BaseException) -> int | None:
    """The HTTP status an exception carries (litellm's and openai's set `status_code`; httpx's
    carry a `response`), else None."""
    status = getattr(exc, "status_code", None)
    if status is None:
        status = getattr(getattr(exc, "response", None), "status_code", None)
    return status if isinstance(status, int) else None


def root_cause(exc: BaseException) -> BaseException:
    chain = [exc]
    while len(chain) < 12:
        seen = chain[-1].__cause__ or chain[-1].__context__
        if seen is None or seen in chain:
            break
        chain.append(seen)
    return chain[-1]


def retryable(exc: BaseException) -> bool:
    """Whether another attempt can succeed where this one failed (the module docstring says which)."""
    if isinstance(exc, ModelError):
        return exc.transient
    root = root_cause(exc)
    if root is not exc and isinstance(root, SETTING_ERRORS):
        return False
    if isinstance(exc, TimeoutError | ConnectionError):
        return True
    status = status_of(exc)
    if status is not None:
        return status in RETRY_STATUS or 500 <= status <= 599
    return False


@dataclass(frozen=True)
class Policy:
    """`attempts` in all (the first included); the wait before retry n is `base`·2^(n-1) s,
    at most `cap` s."""

    attempts: int = 4
    base: float = 1.0
    cap: float = 30.0

    def delay(self, retry: int) -> float:
        """Seconds to wait before retry `retry` (1 for the first)."""
        return float(min(self.cap, self.base * 2 ** max(0, retry - 1)))

    def retry_in(self, exc: BaseException, failures: int) -> float | None:
        """Seconds before trying again after `failures` failed attempts ending in `exc`, or None
        when it is not to be tried again (not retryable, or attempts spent)."""
        if not retryable(exc) or failures >= self.attempts:
            return None
        return self.delay(failures)

    def call(
        self,
        attempt: Callable[[], T],
        *,
        sleep: Callable[[float], None] = time.sleep,
        budget: Callable[[], str | None] | None = None,
        give_up: Callable[[], bool] | None = None,
        name: str = "call",
        describe: Callable[[BaseException], str] | None = None,
    ) -> T:
        """`attempt()` until it returns, retrying what `retryable` allows. Before each retry is
        sent, `budget()` says why the run's budget no longer allows it (then BudgetReached, and
        nothing is sent) or None; `give_up()` True stops retrying (the caller's own reason). The
        last failure is raised as it is: the caller tells spent retries from a fatal error with
        `retryable`. Each retry is logged at warning as `name: describe(error); retry n in s`."""
        import tenacity

        refused: list[str] = []

        def over_budget(state: tenacity.RetryCallState) -> bool:
            why = budget() if budget is not None else None
            if why:
                refused.append(why)
            return bool(why)

        def before_sleep(state: tenacity.RetryCallState) -> None:
            exc = state.outcome.exception() if state.outcome else None
            why = describe(exc) if describe is not None and exc is not None else _first_line(exc)
            log.warning("%s: %s; retry %d in %.1fs", name, why, state.attempt_number,
                        state.next_action.sleep if state.next_action else 0.0)  # fmt: skip

        stops: list[Callable[[tenacity.RetryCallState], bool]] = [tenacity.stop_after_attempt(self.attempts)]
        if give_up is not None:
            stops.append(lambda state: give_up())
        stops.append(over_budget)  # last: asked only for a retry that would otherwise be sent
        retrying = tenacity.Retrying(
            retry=tenacity.retry_if_exception(retryable),
            stop=lambda state: any(stop(state) for stop in stops),  # in order, as tenacity.stop_any
            wait=lambda state: self.delay(state.attempt_number),
            sleep=sleep,
            before_sleep=before_sleep,
            reraise=True,
        )
        try:
            return retrying(attempt)
        except Exception as exc:
            if refused:
                raise BudgetReached(refused[-1]) from exc
            raise


def _first_line(exc: BaseException | None) -> str:
    text = str(exc).strip().splitlines()[0] if exc is not None and str(exc).strip() else ""
    return text[:200] or type(exc).__name__


# the policies in force: one model call, one web search, one batch task (whose attempts each
# run the whole task again, after the client's own retries)
TASKS = Policy(attempts=3, base=2.0, cap=60.0)


def for_calls(retries: int, backoff: float) -> Policy:
    """A model call's policy from the `retries` and `backoff` settings."""
    return Policy(attempts=retries + 1, base=backoff, cap=30.0)


def for_searches(retries: int, backoff: float) -> Policy:
    """A web search's: the same shape, shorter waits (a search is quick or broken)."""
    return Policy(attempts=retries + 1, base=backoff, cap=8.0)
