"""The embedded model under load: tokens/s with the threads reflectcli chooses, on an idle machine
and beside one CPU-bound process (`python -c "while True: pass"`), against the old fixed choice
of `min(8, cpu_count)` threads beside that same process.

reflectcli picks its threads when the model loads (`choose_threads()`: the cores nobody else is
using, from /proc/stat over 0.25 s); this bench calls it once idle and once with the busy
process running, builds an `xllamacpp.Server` for each thread count (same params as
reflectcli/models/local.py), and times the same request on each: a drafting prompt, 160 tokens,
temperature 0. Repetitions are interleaved (idle/auto, busy/auto, busy/fixed, ...), medians
compared.

Target: busy/auto >= 40 % of idle/auto.

    python bench/bench_threads.py [--reps 3]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time

import xllamacpp

from reflectcli.models.local import choose_threads, ensure_embedded_model, server_params

TARGET = 0.40
REQUEST = {
    "messages": [
        {"role": "system", "content": "You are a clear, concrete writer."},
        {"role": "user", "content": "Article: Why do writers revise their drafts?\nSection: What "
         "revision changes\nWrite this section as one paragraph of about 120 words."},
    ],
    "max_tokens": 160,
    "temperature": 0.0,
    "repeat_penalty": 1.15,
    "stream": False,
}  # fmt: skip


def tokens_per_second(server) -> float:
    started = time.monotonic()
    answer = server.handle_chat_completions(dict(REQUEST))
    took = time.monotonic() - started
    return answer["usage"]["completion_tokens"] / took


class Busy:
    """One CPU-bound competitor process for the duration of a `with` block."""

    def __enter__(self):
        self.proc = subprocess.Popen([sys.executable, "-c", "while True: pass"])
        time.sleep(1.0)  # let it take its core
        return self

    def __exit__(self, *exc):
        self.proc.kill()
        self.proc.wait()
        time.sleep(1.0)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=3)
    opts = parser.parse_args()
    path = ensure_embedded_model()
    cores = os.cpu_count() or 1
    idle_threads = choose_threads()
    with Busy():
        busy_threads = choose_threads()
    fixed = max(1, min(8, cores))
    print(f"{cores} cores; threads chosen: idle {idle_threads}, beside a busy process "
          f"{busy_threads}; the old fixed choice: {fixed}")  # fmt: skip
    servers = {n: xllamacpp.Server(server_params(path, threads=n))
               for n in {idle_threads, busy_threads, fixed}}  # fmt: skip
    for server in servers.values():
        tokens_per_second(server)  # warm-up
    rows: dict[str, list[float]] = {"idle, auto": [], "busy, auto": [], "busy, fixed": []}
    for _ in range(opts.reps):
        rows["idle, auto"].append(tokens_per_second(servers[idle_threads]))
        with Busy():
            rows["busy, auto"].append(tokens_per_second(servers[busy_threads]))
            rows["busy, fixed"].append(tokens_per_second(servers[fixed]))
    medians = {name: statistics.median(values) for name, values in rows.items()}
    for name, values in rows.items():
        shown = ", ".join(f"{v:.1f}" for v in values)
        print(f"  {name:12} {medians[name]:6.1f} tok/s (runs: {shown})")
    ratio = medians["busy, auto"] / medians["idle, auto"]
    old = medians["busy, fixed"] / medians["idle, auto"]
    print(
        f"busy/idle with the chosen threads: {ratio:.0%} (target >= {TARGET:.0%}: "
        f"{'met' if ratio >= TARGET else 'BELOW TARGET'}); with {fixed} fixed threads: {old:.0%}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
