"""The "in flight" window: from the moment the server has written a call's last byte to the
moment that answer is in the call journal. A kill inside it loses an answer the provider has
already produced (and bills): the resumed run sends that one request again. Everywhere else a
kill costs nothing (see bench/reliability.py).

In-process runs against the scripted OpenAI-compatible server on 127.0.0.1 (streamed answers,
as every remote call is): the server stamps the time it finished writing each answer, the
store stamps the time each journal write committed; the window is the difference, per call.
Two pacings: `burst` (the server writes a whole answer at once, so the client is still reading
and counting chunks when the server is done: the worst case, and what bench/reliability.py's
server does) and `paced` (a chunk every 20 ms, about 50 tokens/s, as a real model streams).

    python bench/bench_inflight.py [--runs 5]
"""

from __future__ import annotations

import argparse
import dataclasses
import io
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from rich.console import Console  # noqa: E402

from reflectcli.config import load_settings  # noqa: E402
from reflectcli.output.render import Renderer  # noqa: E402
from reflectcli.runner import Runner  # noqa: E402
from reflectcli.store.db import Store  # noqa: E402
from tests.crashkit import KillScript  # noqa: E402
from tests.openai_server import OpenAIServer, loopback_only  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    opts = parser.parse_args()
    loopback_only(os.environ.__setitem__, lambda v: os.environ.pop(v, None))
    answered: dict[str, list[float]] = {}
    journaled: dict[str, list[float]] = {}
    put = Store.journal_put

    def timed_put(self, key, thread_id, step, answer):
        put(self, key, thread_id, step, answer)
        journaled.setdefault(f"{thread_id}/{step}", []).append(time.perf_counter())

    Store.journal_put = timed_put
    for pacing, gap in (("burst", 0.0), ("paced", 0.02)):
        answered.clear()
        journaled.clear()
        measure(pacing, gap, opts.runs, answered, journaled)


def measure(pacing, gap, runs, answered, journaled) -> None:
    script = KillScript((6.0, 9.5), 3)

    def reply(body):
        action = script(body)
        return dataclasses.replace(action, chunk_delay=gap)

    with OpenAIServer(reply=reply) as server:
        threads: dict[str, str] = {}

        def on_complete(record) -> None:
            thread = threads.get("current", "")
            answered.setdefault(f"{thread}/{record.step}", []).append(record.answered_at)

        server.on_complete = on_complete
        with tempfile.TemporaryDirectory() as tmp:
            for i in range(runs + 1):  # the first run warms up (imports, connections)
                thread = f"run{i}"
                threads["current"] = thread
                settings = load_settings(flags={
                    "model": "openai/test-model", "api_base": server.base_url, "threshold": 9,
                    "max_rounds": 2, "max_sections": 3, "runs_dir": str(Path(tmp) / "runs"),
                })  # fmt: skip
                ui = Renderer(console=Console(file=io.StringIO()), quiet=True)
                Runner(ui).write("Why do writers revise?", settings, thread)
    windows = []
    for key, ends in answered.items():
        if key.startswith("run0/") or key not in journaled:
            continue
        windows += [(j - a) * 1000 for a, j in zip(ends, journaled[key], strict=False)]
    windows.sort()
    p95 = windows[int(0.95 * (len(windows) - 1))]
    print(f"{pacing}: {len(windows)} calls over {runs} runs: answer written → journaled in "
          f"median {statistics.median(windows):.1f} ms, p95 {p95:.1f} ms, "
          f"max {windows[-1]:.1f} ms")  # fmt: skip


if __name__ == "__main__":
    main()
