"""A small OpenAI-compatible chat-completions server for tests (stdlib only, 127.0.0.1).

    with OpenAIServer(reply) as server:
        make_client("openai/test-model", Settings(api_base=server.base_url, ...))

`reply(request_json) -> Action` picks each answer; it runs in the handler thread, so it may
block (tests use that to hold a request while they kill the client). The server counts and
records every request (body, headers, sha256 of its canonical `messages`) and marks the ones
whose 200 answer was fully written as completed. Hooks: `on_request(record)` when a request
arrives, `on_complete(record)` after its answer was written. With `prompt_cache=True` it plays a
provider's prompt cache: each answer's usage reports, as `prompt_tokens_details.cached_tokens`,
the longest prefix (in characters // 4, like its token count) that its prompt shares byte for
byte with an earlier request's (off by default: the usage stays as it was); with `cache_min`
(OpenAI's: 1,024) and `cache_step` (128), only as a provider does: from `cache_min` tokens of
shared prefix, in whole steps.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import select
import socket
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

PATHS = ("/v1/chat/completions", "/chat/completions")

_ERROR_TYPES = {
    400: "invalid_request_error",
    401: "invalid_request_error",
    404: "invalid_request_error",
    429: "rate_limit_error",
    500: "server_error",
    503: "server_error",
}
_ERROR_MESSAGES = {
    400: "Invalid request.",
    401: "Incorrect API key provided: sk-test. You can find your API key at "
    "https://platform.openai.com/account/api-keys.",
    404: "The model `test-model` does not exist or you do not have access to it.",
    429: "Rate limit reached for test-model. Please try again in 20ms.",
    500: "The server had an error while processing your request. Sorry about that!",
    503: "The engine is currently overloaded, please try again later.",
}


@dataclass(frozen=True)
class Action:
    """What the server does with one request."""

    kind: str = "text"  # text | error | drop
    text: str = ""
    status: int = 200
    code: str | None = None
    message: str | None = None
    delay: float = 0.0  # seconds to wait before acting (to provoke client timeouts)
    finish: str = "stop"  # the finish_reason sent (`length`: cut by max_tokens)
    chunk_delay: float = 0.0  # streaming: seconds between chunks
    stall_after: int | None = None  # streaming: stop sending after this many chunks, then drop
    cut_after: int | None = None  # streaming: close the connection after this many chunks, at once


def answer(text: str, delay: float = 0.0, finish: str = "stop", chunk_delay: float = 0.0,
           stall_after: int | None = None, cut_after: int | None = None) -> Action:  # fmt: skip
    """A 200 chat.completion whose message content is `text` (as server-sent events when the
    request asks to stream: one chunk per word, usage last when asked for). `stall_after`: the
    stream goes silent after that many chunks (the client's timeout ends it); `cut_after`: the
    connection is closed after that many chunks (lost mid-answer, at once)."""
    return Action("text", text=text, delay=delay, finish=finish, chunk_delay=chunk_delay,
                  stall_after=stall_after, cut_after=cut_after)  # fmt: skip


def error(status: int, message: str | None = None, code: str | None = None,
          delay: float = 0.0) -> Action:  # fmt: skip
    """An HTTP error with an OpenAI-style error body."""
    return Action("error", status=status, message=message, code=code, delay=delay)


def context_window_error() -> Action:
    return error(
        400,
        "This model's maximum context length is 8192 tokens. However, your messages resulted "
        "in 9000 tokens. Please reduce the length of the messages.",
        code="context_length_exceeded",
    )


def drop(delay: float = 0.0) -> Action:
    """Close the connection without answering."""
    return Action("drop", delay=delay)


def delay(seconds: float, then: Action | None = None) -> Action:
    """Wait `seconds`, then do `then` (a short text answer by default)."""
    then = then or answer("late answer")
    return Action(then.kind, then.text, then.status, then.code, then.message, seconds)


def messages_hash(messages: Any) -> str:
    blob = json.dumps(messages, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()


_KINDS = (
    ("plan", re.compile(r"Plan an article")),
    ("draft", re.compile(r"Write section (\d+) of \d+")),
    ("review", re.compile(r"Review round (\d+)")),
    ("revise", re.compile(r"Revision for round (\d+)")),
    ("ask", re.compile(r"The reader's question|Question: ")),  # `reflectcli ask`, full and compact
    ("check", re.compile(r"Check the answer's cited claims")),
)


def step_of(body: dict[str, Any]) -> str:
    """The reflectcli step a request belongs to, from its first user prompt: `plan`,
    `draft:s2`, `review:r1`, `revise:r2`; `:retryN` when it is a structured-output retry."""
    messages = body.get("messages") or []
    users = [m for m in messages if m.get("role") == "user"]
    if not users:
        return "unknown"
    content = str(users[0].get("content", ""))
    for kind, pattern in _KINDS:
        match = pattern.search(content)
        if match:
            step = kind
            if match.groups():
                step += f":{'s' if kind == 'draft' else 'r'}{match.group(1)}"
            retries = len(users) - 1
            return step + (f":retry{retries}" if retries else "")
    return "unknown"


@dataclass
class Record:
    """One request as the server saw it."""

    index: int  # 1-based arrival order
    path: str
    body: dict[str, Any]
    headers: dict[str, str]
    hash: str  # sha256 of the canonical JSON `messages`
    step: str
    arrived: float
    completed: bool = False
    status: int | None = None
    action: str | None = None
    settled: bool = False  # the handler is done with it (answered, refused or dropped)
    answered_at: float | None = None  # perf_counter when the answer's last content was written


class _QuietServer(ThreadingHTTPServer):
    request_queue_size = 64  # calls at once: the default backlog (5) would drop connections
    daemon_threads = True

    def handle_error(self, request, client_address) -> None:
        """A client that went away (killed, timed out, closed a stream early) is not an error."""
        import sys

        if not isinstance(sys.exc_info()[1], ConnectionError):
            super().handle_error(request, client_address)


@dataclass
class OpenAIServer:
    """Start with `start()` or `with`; `base_url` is `http://127.0.0.1:PORT/v1`."""

    reply: Callable[[dict[str, Any]], Action] = field(default=lambda body: answer("ok"))
    on_request: Callable[[Record], None] | None = None
    on_complete: Callable[[Record], None] | None = None
    model_name: str = "test-model"
    prompt_cache: bool = False
    cache_min: int = 0  # tokens of shared prefix below which nothing is cached (OpenAI: 1,024)
    cache_step: int = 1  # cached tokens come in steps of this many (OpenAI: 128)

    def __post_init__(self) -> None:
        self.prompts: list[str] = []  # every request's prompt text, for `prompt_cache`
        self.records: list[Record] = []
        self.lock = threading.Lock()
        self.stopping = threading.Event()
        self._httpd: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    # --- lifecycle ---------------------------------------------------------------------------

    def start(self) -> OpenAIServer:
        server = self

        class Handler(_Handler):
            owner = server

        self._httpd = _QuietServer(("127.0.0.1", 0), Handler)
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(
            target=self._httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        self.stopping.set()  # wakes handlers sleeping in a delay
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()
            self._httpd = None

    def __enter__(self) -> OpenAIServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    @property
    def port(self) -> int:
        assert self._httpd is not None, "server not started"
        return self._httpd.server_address[1]

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    # --- what was seen ----------------------------------------------------------------------

    @property
    def count(self) -> int:
        with self.lock:
            return len(self.records)

    def _settle(self, timeout: float = 5.0) -> None:
        """Let handlers still finishing an answer set their flags (a client may read an answer
        a moment before the server thread marks it completed)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            with self.lock:
                if all(r.settled for r in self.records):
                    return
            time.sleep(0.005)

    @property
    def completed(self) -> list[Record]:
        self._settle()
        with self.lock:
            return [r for r in self.records if r.completed]

    def wait_completed(self, n: int, timeout: float = 5.0) -> list[Record]:
        """The completed records once there are at least `n` (the flag is set just after the
        answer is written, so a client may already have moved on when it lands)."""
        deadline = time.monotonic() + timeout
        while len(done := self.completed) < n and time.monotonic() < deadline:
            time.sleep(0.01)
        return done

    def steps(self, completed_only: bool = False) -> list[str]:
        if completed_only:
            self._settle()
        with self.lock:
            return [r.step for r in self.records if r.completed or not completed_only]

    def _record(self, path: str, body: dict[str, Any], headers: dict[str, str]) -> Record:
        with self.lock:
            record = Record(
                index=len(self.records) + 1,
                path=path,
                body=body,
                headers=headers,
                hash=messages_hash(body.get("messages")),
                step=step_of(body),
                arrived=time.time(),
            )
            self.records.append(record)
            return record

    def _completion(self, body: dict[str, Any], text: str, record: Record,
                    finish: str = "stop") -> dict[str, Any]:  # fmt: skip
        prompt = sum(len(str(m.get("content", ""))) for m in body.get("messages") or []) // 4
        completion = max(1, len(text) // 4)
        usage: dict[str, Any] = {
            "prompt_tokens": prompt,
            "completion_tokens": completion,
            "total_tokens": prompt + completion,
        }
        if self.prompt_cache:
            hit = min(prompt, self._cached(body) // 4)
            hit = hit // self.cache_step * self.cache_step if hit >= self.cache_min else 0
            usage["prompt_tokens_details"] = {"cached_tokens": hit}
        return {
            "id": f"chatcmpl-test{record.index:06d}",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": body.get("model") or self.model_name,
            "system_fingerprint": "fp_test",
            "choices": [
                {
                    "index": 0,
                    "message": {"role": "assistant", "content": text},
                    "logprobs": None,
                    "finish_reason": finish,
                }
            ],
            "usage": usage,
        }

    def _cached(self, body: dict[str, Any]) -> int:
        """Characters of this request's prompt that an earlier one began with (its cache hit)."""
        text = prompt_text(body.get("messages"))
        with self.lock:
            best = max((_common_prefix(text, seen) for seen in self.prompts), default=0)
            self.prompts.append(text)
        return best


def prompt_text(messages: Any) -> str:
    """A request's messages as the provider reads them, one role and text after another (a
    content list's text blocks joined)."""
    parts = []
    for m in messages or []:
        content = m.get("content")
        if isinstance(content, list):
            content = "".join(b.get("text", "") for b in content if isinstance(b, dict))
        parts.append(f"<{m.get('role')}>{content or ''}")
    return "".join(parts)


def _common_prefix(a: str, b: str) -> int:
    return len(os.path.commonprefix([a, b]))


class _Handler(BaseHTTPRequestHandler):
    owner: OpenAIServer
    protocol_version = "HTTP/1.1"
    # Headers and body go out as two writes: with Nagle's algorithm the body would wait for the
    # client's delayed ACK (~40 ms) after the server already counted the answer as completed.
    disable_nagle_algorithm = True

    def log_message(self, format: str, *args: Any) -> None:  # quiet
        pass

    def _send_json(self, status: int, payload: dict[str, Any]) -> None:
        data = json.dumps(payload).encode("utf-8")
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        if status == 429:
            self.send_header("Retry-After", "0")
        self.end_headers()
        self.wfile.write(data)
        self.wfile.flush()

    def _send_stream(self, server: OpenAIServer, body: dict[str, Any], action: Action,
                     record: Record) -> bool:  # fmt: skip
        """Server-sent events, chunked: a role chunk, one chunk per word, the finish chunk, a
        usage chunk (when asked), [DONE]. False when it stalled and dropped the connection."""
        full = server._completion(body, action.text, record, action.finish)
        base = {k: full[k] for k in ("id", "created", "model", "system_fingerprint")}
        base["object"] = "chat.completion.chunk"

        def event(choices: list[dict[str, Any]], usage: dict[str, Any] | None = None) -> bytes:
            payload = {**base, "choices": choices}
            if usage is not None:
                payload["usage"] = usage
            return f"data: {json.dumps(payload)}\n\n".encode()

        words = re.findall(r"\S+\s*|\s+", action.text) or [""]
        events = [event([{"index": 0, "delta": {"role": "assistant", "content": ""},
                          "finish_reason": None}])]  # fmt: skip
        events += [event([{"index": 0, "delta": {"content": w}, "finish_reason": None}])
                   for w in words]  # fmt: skip
        events.append(event([{"index": 0, "delta": {}, "finish_reason": action.finish}]))
        if (body.get("stream_options") or {}).get("include_usage"):
            events.append(event([], full["usage"]))
        events.append(b"data: [DONE]\n\n")
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        for i, data in enumerate(events):
            if action.cut_after is not None and i >= action.cut_after:
                return False  # the caller closes the connection: the chunked body never ends
            if action.stall_after is not None and i >= action.stall_after:
                while not server.stopping.wait(0.05) and not self._peer_gone():
                    pass  # silent until the client gives up (a stall)
                return False
            if action.chunk_delay and 0 < i < len(events) - 1:
                time.sleep(action.chunk_delay)  # between tokens, as a model streams
            self.wfile.write(f"{len(data):X}\r\n".encode() + data + b"\r\n")
            self.wfile.flush()
            if i == len(events) - 2:  # the usage (or finish) chunk: the answer is all out
                record.answered_at = time.perf_counter()
        self.wfile.write(b"0\r\n\r\n")
        self.wfile.flush()
        return True

    def _peer_gone(self) -> bool:
        """True when the client has closed its end (EOF or reset pending on the socket)."""
        sock = self.connection
        try:
            readable, _, _ = select.select([sock], [], [], 0)
            if not readable:
                return False
            return sock.recv(1, socket.MSG_PEEK) == b""
        except (OSError, ValueError):
            return True

    def do_GET(self) -> None:  # noqa: N802
        if self.path.rstrip("/") in ("/v1/models", "/models"):
            model = {"id": self.owner.model_name, "object": "model", "owned_by": "test"}
            self._send_json(200, {"object": "list", "data": [model]})
        else:
            self._send_json(404, {"error": {"message": "not found", "type": "not_found"}})

    def do_POST(self) -> None:  # noqa: N802
        server = self.owner
        path = self.path.split("?", 1)[0]
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        if path not in PATHS:
            self._send_json(404, {"error": {"message": f"no route {path}", "type": "not_found"}})
            return
        try:
            body = json.loads(raw or b"{}")
        except json.JSONDecodeError:
            self._send_json(400, {"error": {"message": "invalid JSON body",
                                            "type": "invalid_request_error"}})  # fmt: skip
            return
        record = server._record(path, body, {k.lower(): v for k, v in self.headers.items()})
        try:
            self._answer(server, record, body)
        finally:
            with server.lock:
                record.settled = True

    def _answer(self, server: OpenAIServer, record: Record, body: dict[str, Any]) -> None:
        if server.on_request is not None:
            server.on_request(record)
        action = server.reply(body)
        record.action = action.kind
        if action.delay and server.stopping.wait(action.delay):
            action = drop()
        if action.kind != "drop" and self._peer_gone():
            action = drop()  # the client gave up (timed out, was killed): nobody to answer
        try:
            if action.kind == "drop":
                self.close_connection = True
                return
            if action.kind == "error":
                record.status = action.status
                err_type = _ERROR_TYPES.get(action.status, "api_error")
                message = action.message or _ERROR_MESSAGES.get(action.status, "error")
                payload = {"error": {"message": message, "type": err_type,
                                     "param": None, "code": action.code}}  # fmt: skip
                self._send_json(action.status, payload)
                return
            if body.get("stream"):
                if not self._send_stream(server, body, action, record):
                    self.close_connection = True
                    return
            else:
                self._send_json(200, server._completion(body, action.text, record, action.finish))
                record.answered_at = time.perf_counter()
        except OSError:  # the client went away (timed out, killed): not completed
            self.close_connection = True
            return
        record.status = 200
        with server.lock:
            record.completed = True
        if server.on_complete is not None:
            server.on_complete(record)


PROXY_VARS = ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "NO_PROXY")


def loopback_only(setenv, delenv, **extra: str) -> None:
    """Point a test (or a process) at loopback: no proxies, a test key, plus `extra` vars.
    Takes monkeypatch.setenv/delenv, or os.environ's setdefault-like pair."""
    for var in PROXY_VARS:
        delenv(var)
        delenv(var.lower())
    for key, value in {"NO_PROXY": "127.0.0.1,localhost", "OPENAI_API_KEY": "sk-test",
                       "REFLECTCLI_API_KEY": "sk-test", **extra}.items():  # fmt: skip
        setenv(key, value)


def loopback_fixture(monkeypatch, **extra: str) -> None:
    loopback_only(monkeypatch.setenv, lambda v: monkeypatch.delenv(v, raising=False), **extra)
