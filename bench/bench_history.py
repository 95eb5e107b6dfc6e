"""`reflectcli history` wall time with 10,000 runs in the index.

The runs are seeded directly through the store (Store.create_run + update_run in one
transaction). Then `python -m reflectcli history` (default limit 20) is timed as a subprocess,
median of N, interleaved with the baseline `python -c "import typer, rich"` so that machine
noise hits both alike; the ratio is the median of the per-pair ratios, and the load average
is printed before and after. Targets: history <= 0.5 s, and <= 2x the baseline.

    python bench/bench_history.py [--runs 10000] [--reps 9]
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _bytecode import compile_package  # (bench/ is sys.path[0])

from reflectcli.config import Settings
from reflectcli.store.db import Store


def seed(runs_dir: Path, count: int) -> None:
    store = Store(runs_dir)
    params = Settings().run_params()
    rng = random.Random(7)
    store.conn.execute("BEGIN")
    for i in range(count):
        thread = f"run-{i:05d}"
        store.create_run(thread, f"Task number {i}: why do writers revise?", params,
                         str(runs_dir / f"{thread}.md"))  # fmt: skip
        first = round(rng.uniform(4, 8), 1)
        store.update_run(
            thread,
            status=rng.choice(["finished"] * 8 + ["failed", "interrupted"]),
            rounds=rng.randint(1, 3),
            first_score=first,
            best_score=first + 1,
            final_score=first + 1,
            stop_reason="passed",
            calls=9,
            tokens=9000,
        )
    store.conn.execute("COMMIT")


def wall(cmd: list[str]) -> float:
    start = time.perf_counter()
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=10_000)
    parser.add_argument("--reps", type=int, default=9)
    args = parser.parse_args()
    print(compile_package())
    load_before = os.getloadavg()
    with tempfile.TemporaryDirectory() as tmp:
        runs_dir = Path(tmp) / "runs"
        t0 = time.perf_counter()
        seed(runs_dir, args.runs)
        print(f"seeded {args.runs} runs in {time.perf_counter() - t0:.1f}s")
        history = [sys.executable, "-m", "reflectcli", "history", "--runs-dir", str(runs_dir)]
        baseline = [sys.executable, "-c", "import typer, rich"]
        out = subprocess.run(history, check=True, capture_output=True, text=True).stdout
        assert out.count("\n") == 21, out  # header + 20 rows
        wall(history), wall(baseline)  # warm the OS caches
        h, b = [], []
        for _ in range(args.reps):
            h.append(wall(history))
            b.append(wall(baseline))
    mh, mb = statistics.median(h), statistics.median(b)
    ratio = statistics.median(x / y for x, y in zip(h, b, strict=True))
    load = " / ".join(f"{x:.1f}" for x in (*load_before[:1], os.getloadavg()[0]))
    print(
        f"reflectcli history ({args.runs} runs): median {mh * 1000:.0f} ms "
        f"(min {min(h) * 1000:.0f}, max {max(h) * 1000:.0f})"
    )
    print(f"python -c 'import typer, rich':      median {mb * 1000:.0f} ms")
    print(
        f"ratio (median of per-pair ratios): {ratio:.2f}x the baseline (target <= 2x: "
        f"{'met' if ratio <= 2 else 'MISSED'}); absolute target <= 500 ms: "
        f"{'met' if mh <= 0.5 else 'MISSED'}; load average (1 min) before / after: {load}"
    )


if __name__ == "__main__":
    main()
