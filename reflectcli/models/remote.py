"""Remote models through litellm. This is the only module that imports litellm, and it does so
lazily: litellm's import costs seconds and, without LITELLM_LOCAL_MODEL_COST_MAP, reaches the network.
"""

from __future__ import annotations

import atexit
import logging
import os
import re
import time
from collections.abc import Callable
from typing import Any

from reflectcli.errors import ModelError
from reflectcli.models.base import Completion

log = logging.getLogger(__name__)


# --- litellm -------------------------------------------------------------------------------

_litellm_module = None


def _litellm():
    """Import litellm once, offline: local cost map, no .env loading, no telemetry."""
    global _litellm_module
    if _litellm_module is None:
        os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
        os.environ.setdefault("LITELLM_MODE", "PRODUCTION")
        os.environ.setdefault("LITELLM_TELEMETRY", "False")
        import litellm

        litellm.telemetry = False
        litellm.suppress_debug_info = True
        litellm.drop_params = True
        atexit.register(_close_held_event_loops)
        _litellm_module = litellm
    return _litellm_module


_HELD_LOOPS: list[Any] = []


def _hold_main_event_loop() -> None:
    """Keep the asyncio loop litellm's service logger leaves on the main thread, so that it is
    closed at exit while its sockets are still open. Otherwise, after a call interrupted by
    Ctrl-C or SIGTERM, the garbage collector may close its self-pipe first and the run ends with
    an "Exception ignored in BaseEventLoop.__del__" traceback on stderr."""
    import asyncio
    import threading
    import warnings

    if _HELD_LOOPS or threading.current_thread() is not threading.main_thread():
        return
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        try:
            _HELD_LOOPS.append(asyncio.get_event_loop())
        except RuntimeError:  # no loop on this thread
            return


def _close_held_event_loops() -> None:
    for loop in _HELD_LOOPS:
        if not loop.is_running() and not loop.is_closed():
            loop.close()


_KEY_ENV = {
    "openai": "OPENAI_API_KEY",
    "anthropic": "ANTHROPIC_API_KEY",
    "deepseek": "DEEPSEEK_API_KEY",
    "gemini": "GEMINI_API_KEY",
    "groq": "GROQ_API_KEY",
    "mistral": "MISTRAL_API_KEY",
    "openrouter": "OPENROUTER_API_KEY",
    "together_ai": "TOGETHERAI_API_KEY",
    "xai": "XAI_API_KEY",
    "cohere": "COHERE_API_KEY",
}


def key_env_var(model: str) -> str:
    """The environment variable that holds the API key for `model`'s provider."""
    provider = model.split("/", 1)[0] if "/" in model else "openai"
    return _KEY_ENV.get(provider, provider.upper() + "_API_KEY")


class LiteLLMClient:
    """Any litellm model; retries only what retrying can fix (429, 5xx, timeouts, connections)."""

    def __init__(
        self,
        model: str,
        *,
        temperature: float = 0.7,
        timeout: float = 120.0,
        api_base: str | None = None,
        retries: int = 3,
        backoff: float = 1.0,
        sleep: Callable[[float], None] = time.sleep,
    ):
        self.model = model
        self.temperature = temperature
        self.timeout = timeout
        self.api_base = api_base
        self.retries = retries
        self.backoff = backoff
        self._sleep = sleep

    def complete(self, messages, *, step, json_schema=None, max_tokens=None) -> Completion:
        litellm = _litellm()
        kwargs: dict[str, Any] = {
            "model": self.model,
            "messages": messages,
            "temperature": self.temperature,
            "timeout": self.timeout,
            "num_retries": 0,
            "max_retries": 0,
        }
        if max_tokens:
            kwargs["max_tokens"] = max_tokens
        if self.api_base:
            kwargs["api_base"] = self.api_base
            if not os.environ.get(key_env_var(self.model)):
                kwargs["api_key"] = "no-key"  # local OpenAI-compatible servers need none
        retryable = (
            litellm.RateLimitError,
            litellm.Timeout,
            litellm.APIConnectionError,
            litellm.InternalServerError,
            litellm.ServiceUnavailableError,
            litellm.BadGatewayError,
        )
        retry_log: list[str] = []
        started = time.monotonic()
        for attempt in range(self.retries + 1):
            try:
                response = litellm.completion(**kwargs)
                break
            except retryable as exc:
                reason = _short(exc)
                retry_log.append(reason)
                if attempt == self.retries:
                    hint = "the run is saved; try `reflectcli resume` later or raise `timeout`"
                    if "Connection error" in reason or isinstance(exc, litellm.APIConnectionError):
                        where = self.api_base or "the provider"
                        hint = f"the run is saved; check that {where} is reachable, then resume"
                    raise ModelError(
                        f"{self.model}: gave up after {attempt + 1} attempts: {reason}", hint=hint
                    ) from exc
                delay = min(30.0, self.backoff * (2**attempt))
                log.warning("%s: %s; retry %d in %.1fs", self.model, reason, attempt + 1, delay)
                self._sleep(delay)
            except Exception as exc:
                raise self._fatal(exc, litellm) from exc
            finally:
                _hold_main_event_loop()
        text = response.choices[0].message.content or ""
        usage = getattr(response, "usage", None)
        cost = None
        try:
            cost = float(litellm.completion_cost(completion_response=response))
        except Exception:  # unknown model price: cost stays unknown, not zero
            cost = None
        return Completion(
            text=text,
            model=self.model,
            step=step,
            prompt_tokens=int(getattr(usage, "prompt_tokens", 0) or 0),
            completion_tokens=int(getattr(usage, "completion_tokens", 0) or 0),
            cost=cost,
            duration=time.monotonic() - started,
            retries=len(retry_log),
            retry_log=retry_log,
        )

    def _fatal(self, exc: Exception, litellm) -> ModelError:
        """A one-line error for failures that retrying cannot fix."""
        hint = "the run is saved; fix this, then `reflectcli resume`"
        if isinstance(exc, litellm.AuthenticationError):
            env = key_env_var(self.model)
            return ModelError(f"{self.model}: authentication failed; set {env} to a valid API key", hint=hint)
        if isinstance(exc, litellm.ContextWindowExceededError):
            return ModelError(
                f"{self.model}: the prompt is longer than the model's context window",
                hint="use a model with a larger context or fewer --sections",
            )
        if isinstance(exc, litellm.NotFoundError):
            return ModelError(f"{self.model}: model not found by the provider", hint=hint)
        if isinstance(exc, litellm.BadRequestError) and "LLM Provider NOT provided" in str(exc):
            return ModelError(
                f"unknown model '{self.model}': use local/smollm2, local/<file>.gguf or a "
                "litellm model string such as openai/gpt-4o-mini",
            )
        return ModelError(f"{self.model}: {_short(exc)}", hint=hint)


def _short(exc: Exception) -> str:
    """The first line of an exception, without litellm's long preambles."""
    text = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
    text = re.sub(r"\b(\w+): (\1: )+", r"\1: ", text.replace("litellm.", ""))
    return f"{type(exc).__name__}: {text[:300]}" if type(exc).__name__ not in text else text[:300]
