"""OpenAI-compatible chat completions straight over HTTP (httpx), for a server behind `api_base`:
the wire protocol litellm speaks to such a server, without litellm. litellm's import costs
seconds of CPU a process and its stream wrapper ~1.7 ms of CPU a chunk (pydantic objects per
chunk); here a chunk is one `json.loads`. Only `models/remote.py` uses this module, for the
models it routes here (`transport = auto`); every other model goes through litellm.

Connections are pooled per server and process (one `httpx.Client`, safe across threads), so a
call after the first reuses its keep-alive connection. Errors are raised as the classes below,
named and carrying `status_code` as litellm's and openai's are, so the one retry policy
(reflectcli/retry.py) and the client's messages treat both paths alike.
"""

from __future__ import annotations

import atexit
import json
import threading
from collections.abc import Iterator
from typing import Any

_CLIENTS: dict[str, Any] = {}
_GUARD = threading.Lock()


class APIError(Exception):
    """An error answer of the server (or the way to it)."""

    status_code: int | None = None

    def __init__(self, message: str, status_code: int | None = None):
        super().__init__(message)
        if status_code is not None:
            self.status_code = status_code


class BadRequestError(APIError):
    status_code = 400


class ContextWindowExceededError(BadRequestError):
    pass


class AuthenticationError(APIError):
    status_code = 401


class PermissionDeniedError(APIError):
    status_code = 403


class NotFoundError(APIError):
    status_code = 404


class RateLimitError(APIError):
    status_code = 429


class InternalServerError(APIError):
    status_code = 500


class Timeout(APIError, TimeoutError):
    """No byte for `timeout` seconds: at the connection, or between two chunks of a stream."""


class APIConnectionError(APIError, ConnectionError):
    """The connection failed: refused, reset, or closed in the middle of an answer."""


_BY_STATUS = {400: BadRequestError, 401: AuthenticationError, 403: PermissionDeniedError,
              404: NotFoundError, 422: BadRequestError, 429: RateLimitError}  # fmt: skip
_CONTEXT = ("context_length_exceeded", "maximum context length", "context window", "too many tokens")


def error_for(status: int, body: bytes) -> APIError:
    """The exception for an HTTP error answer, its message the server's own (OpenAI's error
    object, or the body's first 300 characters)."""
    text = body.decode("utf-8", "replace")
    message = text.strip()[:300]
    try:
        found = json.loads(text)
        error = found.get("error") if isinstance(found, dict) else None
        if isinstance(error, dict) and error.get("message"):
            message = str(error["message"])
        elif isinstance(error, str):
            message = error
    except ValueError:
        pass
    kind = _BY_STATUS.get(status) or (InternalServerError if status >= 500 else APIError)
    if kind is BadRequestError and any(w in text.lower() for w in _CONTEXT):
        kind = ContextWindowExceededError
    return kind(f"Error code: {status} - {message}", status)


def client_for(base_url: str) -> Any:
    """The process's pooled client for one server (created once)."""
    with _GUARD:
        client = _CLIENTS.get(base_url)
        if client is None:
            import httpx

            limits = httpx.Limits(max_connections=64, max_keepalive_connections=32)
            client = _CLIENTS[base_url] = httpx.Client(limits=limits, follow_redirects=False)
        return client


def close_clients() -> None:
    with _GUARD:
        for client in _CLIENTS.values():
            client.close()
        _CLIENTS.clear()


atexit.register(close_clients)


def stream_chat(api_base: str, api_key: str, body: dict[str, Any], timeout: float) -> Iterator[tuple]:
    """POST `body` (stream: true) to `<api_base>/chat/completions` and yield, per chunk, (the
    text it adds, its finish_reason or None, its usage or None): usage as a dict of
    prompt_tokens, completion_tokens, cache_read, cache_creation. `timeout` bounds the
    connection and each wait for a chunk (a stall), never the whole answer. Closing the
    generator closes the connection (the server stops generating)."""
    import httpx

    url = api_base.rstrip("/") + "/chat/completions"
    headers = {"Authorization": f"Bearer {api_key}", "Content-Type": "application/json",
               "Accept": "text/event-stream"}  # fmt: skip
    payload = json.dumps(body, ensure_ascii=False).encode("utf-8")
    client = client_for(api_base)
    request = client.build_request("POST", url, content=payload, headers=headers,
                                   timeout=httpx.Timeout(timeout))  # fmt: skip
    try:
        response = client.send(request, stream=True)
    except httpx.TimeoutException as exc:
        raise Timeout("request timed out") from exc
    except (httpx.TransportError, OSError) as exc:
        raise APIConnectionError(f"connection error: {exc}") from exc
    counted = False  # the usage chunk came: what follows is the end of the stream
    lines: Any = ()
    try:
        if response.status_code >= 400:
            raise error_for(response.status_code, response.read())
        try:
            lines = response.iter_lines()
            for line in lines:
                if not line.startswith("data:"):
                    continue  # comments, event names, blank separators
                data = line[5:].strip()
                if data == "[DONE]":
                    return
                chunk = json.loads(data)
                if not isinstance(chunk, dict):
                    continue
                if chunk.get("error"):
                    raise error_for(500, data.encode())
                usage = chunk.get("usage")
                counted = counted or bool(usage)
                choices = chunk.get("choices") or ()
                if not choices:
                    if usage:
                        yield "", None, _usage(usage)
                    continue
                for choice in choices:
                    delta = choice.get("delta") or {}
                    yield delta.get("content") or "", choice.get("finish_reason"), _usage(usage)
        except httpx.TimeoutException as exc:
            raise Timeout("request timed out") from exc
        except (httpx.TransportError, OSError) as exc:
            raise APIConnectionError(f"connection error: {exc}") from exc
    finally:
        if counted and not response.is_closed:  # only `[DONE]` is left: read it, and the
            try:  # connection goes back to the pool for the next call instead of a new one
                for _ in lines:
                    pass
            except Exception:
                pass
        response.close()


def _usage(found: Any) -> dict[str, int] | None:
    if not isinstance(found, dict):
        return None
    details = found.get("prompt_tokens_details") or {}
    read = details.get("cached_tokens") or found.get("cache_read_input_tokens") or 0
    made = details.get("cache_creation_tokens") or found.get("cache_creation_input_tokens") or 0
    return {"prompt_tokens": int(found.get("prompt_tokens") or 0),
            "completion_tokens": int(found.get("completion_tokens") or 0),
            "cache_read": int(read), "cache_creation": int(made)}  # fmt: skip
