"""How a remote call travels: through litellm (`_LitellmWire`; this is the only module that
imports litellm, and it does so lazily: its import costs seconds and, without
LITELLM_LOCAL_MODEL_COST_MAP, reaches the network), or straight over HTTP to an OpenAI-compatible
server (`_HttpWire`, models/openai_http.py, no litellm). Both stream (text, finish reason,
usage), price a call and count a prompt's tokens; models/remote.py's client picks one."""

from __future__ import annotations

import atexit
import logging
import os
from typing import Any

from reflectcli.models.caching import cache_tokens

_litellm_module = None


def _litellm():
    """Import litellm once, offline: local cost map, no .env loading, no telemetry."""
    global _litellm_module
    if _litellm_module is None:
        os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
        os.environ.setdefault("LITELLM_MODE", "PRODUCTION")
        os.environ.setdefault("LITELLM_TELEMETRY", "False")
        import contextlib
        import sys

        with contextlib.redirect_stdout(sys.stderr):  # its import-time log lines too
            import litellm

        litellm.telemetry = False
        litellm.suppress_debug_info = True
        litellm.drop_params = True
        litellm.disable_streaming_logging = True  # no logging task per chunk: we log nothing there
        _logs_to_stderr()
        atexit.register(_close_held_event_loops)
        _litellm_module = litellm
    return _litellm_module


def _logs_to_stderr() -> None:
    """litellm's loggers send everything below WARNING to stdout (its handlers route by level):
    diagnostics go to stderr, stdout is the program's output. Once, not again through the
    root logger."""
    import sys

    for name in ("LiteLLM", "LiteLLM Router", "LiteLLM Proxy"):
        logger = logging.getLogger(name)
        for handler in list(logger.handlers):
            if isinstance(handler, logging.StreamHandler):
                plain = logging.StreamHandler(sys.stderr)
                plain.setFormatter(handler.formatter)
                plain.setLevel(handler.level)
                logger.removeHandler(handler)
                logger.addHandler(plain)
        if logger.handlers:
            logger.propagate = False


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


def _usage_of(found: Any) -> dict[str, int] | None:
    """A litellm usage object as the wires report usage: prompt, completion, cache read, written."""
    if not found:
        return None
    usage = {k: int(getattr(found, k, 0) or 0) for k in ("prompt_tokens", "completion_tokens")}
    usage["cache_read"], usage["cache_creation"] = cache_tokens(found)
    return usage


class _LitellmWire:
    """The general path: litellm.completion, streamed, and litellm's price map and tokenizers."""

    name = "litellm"

    def __init__(self):
        lib = self.lib = _litellm()
        self.bad_request, self.timeout = lib.BadRequestError, lib.Timeout
        self.connection, self.auth = lib.APIConnectionError, lib.AuthenticationError
        self.context, self.not_found = lib.ContextWindowExceededError, lib.NotFoundError

    def events(self, kwargs: dict[str, Any]):
        """(text, finish_reason, usage) per choice of each chunk (usage alone: a usage chunk)."""
        response = self.lib.completion(**kwargs)
        try:
            for chunk in response:
                usage = _usage_of(getattr(chunk, "usage", None))
                choices = getattr(chunk, "choices", None) or ()
                if not choices and usage:
                    yield "", None, usage
                for choice in choices:
                    delta = getattr(choice, "delta", None)
                    yield getattr(delta, "content", None) or "", getattr(choice, "finish_reason", None), usage
        finally:
            _close_stream(response)
            _hold_main_event_loop()

    def cost(self, model: str, prompt: int, completion: int, read: int = 0, created: int = 0) -> float | None:
        try:
            usage = None
            if read or created:
                from litellm.types.utils import PromptTokensDetailsWrapper, Usage

                details = PromptTokensDetailsWrapper(cached_tokens=read, cache_creation_tokens=created)
                usage = Usage(prompt_tokens=prompt, completion_tokens=completion,
                              total_tokens=prompt + completion, prompt_tokens_details=details)  # fmt: skip
            a, b = self.lib.cost_per_token(model=model, prompt_tokens=prompt,
                                           completion_tokens=completion, usage_object=usage)  # fmt: skip
            return float(a + b)
        except Exception:  # a price litellm does not know: unknown, not zero
            return None

    def count(self, model: str, messages: list[dict[str, Any]]) -> int | None:
        """The prompt's tokens by litellm's tokenizer for the model (None where it has none)."""
        try:
            return int(self.lib.token_counter(model=model, messages=messages))
        except Exception:
            return None

    def info(self, model: str) -> dict[str, Any] | None:
        try:
            return self.lib.get_model_info(model)
        except Exception:  # not in the price map
            return None


class _HttpWire:
    """An OpenAI-compatible server behind api_base, straight over HTTP (no litellm import):
    prices from litellm's price-map file (models/prices.py), litellm asked only for a tiered price."""

    name = "http"

    def __init__(self, api_base: str, api_key: str):
        from reflectcli.models import openai_http as http

        self.http, self.api_base, self.api_key = http, api_base, api_key
        self.bad_request, self.timeout = http.BadRequestError, http.Timeout
        self.connection, self.auth = http.APIConnectionError, http.AuthenticationError
        self.context, self.not_found = http.ContextWindowExceededError, http.NotFoundError

    def events(self, kwargs: dict[str, Any]):
        body = {k: kwargs[k] for k in SENT if k in kwargs}
        body["model"] = kwargs["model"].split("/", 1)[1]  # as litellm sends it: without the route
        return self.http.stream_chat(self.api_base, self.api_key, body, kwargs["timeout"])

    def cost(self, model: str, prompt: int, completion: int, read: int = 0, created: int = 0) -> float | None:
        from reflectcli.models import prices

        found = prices.cost(model, prompt, completion, read, created)
        if found is prices.TIERED:
            return _LitellmWire().cost(model, prompt, completion, read, created)
        return found

    def count(self, model: str, messages: list[dict[str, Any]]) -> int | None:
        """litellm's tokenizer for a model the price map knows (it is billed: worth litellm's
        import, once, for a budget's estimate or a cut stream's prompt); None for a server's
        own model (the caller estimates)."""
        from reflectcli.models import prices

        return _LitellmWire().count(model, messages) if prices.model_info(model) else None

    def info(self, model: str) -> dict[str, Any] | None:
        from reflectcli.models import prices

        return prices.model_info(model)


SENT = ("messages", "temperature", "max_tokens", "stream", "stream_options", "response_format", "stop")


def _close_stream(response: Any) -> None:
    """Close a stream we stop reading early (a loop, Ctrl-C, a stall): its connection goes."""
    for target in (getattr(response, "completion_stream", None), response):
        close = getattr(target, "close", None)
        if callable(close):
            try:
                close()
            except Exception:
                pass
