"""Embedded-model throughput: completion tokens/s inside a real `reflectcli write` on
`local/smollm2` vs xllamacpp called directly on the same requests, in the same process.

One repetition is one real run, `Runner(ui).write(task, settings)` on `local/smollm2` with 2
sections and max_rounds 1 (plan, 2 drafts, 1 review, plus any JSON retries), default
settings otherwise (temperature 0.7), in a fresh runs_dir:
- reflectcli's side is read from the run's trace: sum of the calls' completion_tokens / sum of
  their durations (reflectcli times each `handle_chat_completions` call);
- xllamacpp's side: right after each call, between graph steps (from the renderer's
  `call_finished` event, outside reflectcli's timing), the very request that call sent (same
  messages, max_tokens, sampling params and JSON-schema response_format, recorded on its way
  into xllamacpp) is replayed on a second `xllamacpp.Server` built here with the same params as
  reflectcli/models/local.py, timed the same way, with a 0.25 s pause before and after it so that
  each side's call starts with the other server idle. Pairing call by call means both sides
  see the same load on a shared machine.
Both servers are warmed up first. The ratio is taken per run; the median over runs is the
result. Sampling is random, so generated lengths differ between the two sides of a pair;
llama.cpp's own decode-only and prompt-only speeds (its `timings`, which do not depend on
those lengths) are printed as a cross-check.

Runs repeat until --reps runs are done or the next one would end past --budget seconds
(at least two runs; a run with its replays takes 30-60 s here).
Target: reflectcli >= 90 % of the direct throughput.

    python bench/bench_local.py [--reps 3] [--budget 105]
"""

from __future__ import annotations

import argparse
import copy
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import xllamacpp

import reflectcli.graph.build  # noqa: F401  (imported lazily by the runner; load it now)
from reflectcli.config import Settings
from reflectcli.graph.rules import call_events
from reflectcli.models.factory import register_client, unregister_client
from reflectcli.models.local import EMBEDDED_NAME, LocalClient, ensure_embedded_model, server_params
from reflectcli.output.render import Renderer
from reflectcli.runner import Runner

TARGET = 0.90
TASK = "Why do writers revise their drafts?"
N_CTX = 8192  # reflectcli.models.local._server's default
PAUSE = 0.25  # seconds of idle before each side's call


class RecordingServer:
    """Passes calls through to reflectcli's server, keeping each request and llama timings."""

    def __init__(self, server: Any, log: list[dict[str, Any]]):
        self._server = server
        self._log = log

    def handle_chat_completions(self, request: dict[str, Any], callback: Any = None) -> Any:
        """reflectcli streams (token callback); the replay on `direct` does not, so the
        comparison includes what streaming costs."""
        plain = {k: v for k, v in request.items() if k not in ("stream", "stream_options")}
        entry: dict[str, Any] = {"request": copy.deepcopy(plain), "timings": None}
        if callback is None:
            result = self._server.handle_chat_completions(request)
            entry["timings"] = result.get("timings") if isinstance(result, dict) else None
        else:

            def keep_timings(chunk: dict[str, Any]) -> bool:
                if isinstance(chunk, dict) and chunk.get("timings"):
                    entry["timings"] = chunk["timings"]
                return callback(chunk)

            result = self._server.handle_chat_completions(request, keep_timings)
        self._log.append(entry)
        return result


class RecordingLocalClient(LocalClient):
    """reflectcli's own LocalClient, unchanged except that its server records requests."""

    log: list[dict[str, Any]] = []

    def load(self):
        return RecordingServer(super().load(), self.log)


class ReplayingUI(Renderer):
    """The quiet renderer; after each finished call, replays its request on `direct`."""

    def __init__(self, direct: Any):
        super().__init__(quiet=True)
        self.direct = direct
        self.replays: list[dict[str, Any]] = []

    def call_event(self, kind: str, data: dict[str, Any], state: dict[str, Any]) -> None:
        super().call_event(kind, data, state)
        if kind == "call_finished":
            # Let the other server's threads go idle first (ggml's workers spin-poll for a while
            # after a call; on few cores that slows whoever computes next), and the same again
            # before reflectcli's next call.
            time.sleep(PAUSE)
            self.replays.append(direct_call(self.direct, RecordingLocalClient.log[-1]["request"]))
            time.sleep(PAUSE)


def direct_server(path: Path, n_ctx: int = N_CTX):
    """An xllamacpp.Server with the same params as reflectcli.models.local._server."""
    return xllamacpp.Server(server_params(path, n_ctx))


def direct_call(server: Any, request: dict[str, Any]) -> dict[str, Any]:
    """One request straight to xllamacpp, timed the way LocalClient times its calls."""
    request = copy.deepcopy(request)
    started = time.monotonic()
    result = server.handle_chat_completions(request)
    duration = time.monotonic() - started
    if not isinstance(result, dict) or "choices" not in result:
        raise SystemExit(f"direct call failed: {str(result)[:200]}")
    usage = result.get("usage") or {}
    return {
        "completion_tokens": int(usage.get("completion_tokens", 0)),
        "duration": duration,
        "timings": result.get("timings"),
    }


def warm(server: Any) -> None:
    server.handle_chat_completions(
        {"messages": [{"role": "user", "content": "Say hello."}], "max_tokens": 16}
    )


def one_run(parent: Path, direct: Any) -> dict[str, Any]:
    """A real run with each call replayed on `direct`: both sides' calls, in order."""
    RecordingLocalClient.log = []
    settings = Settings(
        model=EMBEDDED_NAME,
        runs_dir=tempfile.mkdtemp(dir=parent, prefix="local-"),
        max_sections=2,
        max_rounds=1,
    )
    ui = ReplayingUI(direct)
    result = Runner(ui).write(TASK, settings)
    calls = call_events(result.state)
    recorded = RecordingLocalClient.log
    if not len(calls) == len(recorded) == len(ui.replays) or any(c.get("replayed") for c in calls):
        raise SystemExit(
            f"{len(calls)} calls in the trace, {len(recorded)} recorded, {len(ui.replays)} replayed"
        )
    return {
        "steps": [c["step"] for c in calls],
        "ours": calls,
        "direct": ui.replays,
        "ours_timings": [r["timings"] for r in recorded],
        "direct_timings": [r["timings"] for r in ui.replays],
    }


def throughput(calls: list[dict[str, Any]]) -> tuple[int, float, float]:
    tokens = sum(c["completion_tokens"] for c in calls)
    seconds = sum(c["duration"] for c in calls)
    return tokens, seconds, tokens / seconds


def llama_speeds(timings: list[dict[str, Any] | None]) -> tuple[float, float]:
    """Decode-only and prompt-only tokens/s over the calls, from llama.cpp's own timings."""
    timings = [t for t in timings if t]
    decode_ms = sum(t["predicted_ms"] for t in timings)
    prompt_ms = sum(t["prompt_ms"] for t in timings)
    decode = sum(t["predicted_n"] for t in timings) / decode_ms if decode_ms else float("nan")
    prompt = sum(t["prompt_n"] for t in timings) / prompt_ms if prompt_ms else float("nan")
    return decode * 1000, prompt * 1000


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=3, help="runs at most")
    parser.add_argument(
        "--budget", type=float, default=105, help="seconds; no run starts that would end later"
    )
    args = parser.parse_args()

    begun = time.monotonic()
    path = ensure_embedded_model(print)
    register_client("local", lambda model, s: RecordingLocalClient(model, temperature=s.temperature))
    runs: list[dict[str, Any]] = []
    try:
        warm(RecordingLocalClient(EMBEDDED_NAME).load())  # reflectcli's own (cached) server
        direct = direct_server(path)
        warm(direct)
        with tempfile.TemporaryDirectory(prefix="reflectcli-bench-") as tmp:
            longest = 0.0
            while len(runs) < args.reps:
                if len(runs) >= 2 and time.monotonic() - begun + longest > args.budget:
                    break
                started = time.monotonic()
                runs.append(one_run(Path(tmp), direct))
                longest = max(longest, time.monotonic() - started)
    finally:
        unregister_client("local")

    threads = max(1, min(8, os.cpu_count() or 1))
    print(
        f"embedded model throughput: {EMBEDDED_NAME} ({path.name}), n_ctx {N_CTX}, {threads} threads, "
        f"{len(runs)} runs (each call replayed directly right after it)"
    )
    print("completion tokens / call seconds, summed over each run's calls:")
    print(f"{'run':>4} {'calls':>5} {'reflectcli':>22} {'direct xllamacpp':>22} {'ratio':>7}")
    ratios = []
    for i, run in enumerate(runs, 1):
        (t_a, s_a, r_a), (t_b, s_b, r_b) = throughput(run["ours"]), throughput(run["direct"])
        ratios.append(r_a / r_b)
        print(
            f"{i:>4} {len(run['steps']):>5} {t_a:>5} tok {s_a:5.1f}s {r_a:5.1f}/s "
            f"{t_b:>5} tok {s_b:5.1f}s {r_b:5.1f}/s {r_a / r_b:6.1%}"
        )
    for i, run in enumerate(runs, 1):
        print(f"calls in run {i}: {', '.join(run['steps'])}")
    pooled_a = throughput([c for run in runs for c in run["ours"]])[2]
    pooled_b = throughput([c for run in runs for c in run["direct"]])[2]
    print(
        f"all calls pooled: reflectcli {pooled_a:.1f} tok/s, direct {pooled_b:.1f} tok/s "
        f"({pooled_a / pooled_b:.1%})"
    )
    dec_a, pp_a = llama_speeds([t for run in runs for t in run["ours_timings"]])
    dec_b, pp_b = llama_speeds([t for run in runs for t in run["direct_timings"]])
    print(
        f"llama.cpp timings, pooled: decode {dec_a:.1f} vs {dec_b:.1f} tok/s ({dec_a / dec_b:.1%}); "
        f"prompt {pp_a:.0f} vs {pp_b:.0f} tok/s ({pp_a / pp_b:.1%})"
    )
    ratio = statistics.median(ratios)
    verdict = "OK" if ratio >= TARGET else "BELOW TARGET"
    print(f"target: reflectcli >= {TARGET:.0%} of direct: median ratio over runs {ratio:.1%} {verdict}")
    print(f"(bench took {time.monotonic() - begun:.0f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
