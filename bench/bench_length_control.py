"""What the length-controlled (LC) preference does with judges whose bias we know, by simulation
(seeded; no model): per scenario, REPS evals of TASKS tasks; each task's log length ratio d is
drawn around a typical revision's growth, and a simulated judge decides from d and/or a fixed
quality edge. The baseline is the raw preference (win + half the ties) of the same evals.

- length-only judges (the verdict follows d alone): LC should sit near 50 % where raw does not;
  reported as the ratio |LC - 50 %| / |raw - 50 %| (target <= 0.35) and the share of evals the
  report flags (raw and LC pointing different ways);
- a quality-only judge (the final wins 75 % of pairs whatever the lengths): LC should keep the
  effect; reported as (LC - 50 %) / (raw - 50 %) (target >= 0.6: the priors shrink it some);
- a judge with both: the share of the raw effect LC keeps.

    python bench/bench_length_control.py [--reps 200] [--tasks 35]
"""

from __future__ import annotations

import argparse
import math
import random
import statistics
import time

from reflectcli.eval import stats


def simulate(judge, rng: random.Random, tasks: int) -> tuple[float, float | None]:
    points = []
    for _ in range(tasks):
        d = rng.gauss(0.15, 0.25)  # finals mostly longer, some shorter: a revision's usual spread
        y = judge(d, rng)
        points.append((d, y))
    raw = statistics.fmean(y for _, y in points)
    return raw, stats._lc(points)


def sigmoid(z: float) -> float:
    return 1 / (1 + math.exp(-z))


# name: (judge, the true preference at equal length)
SCENARIOS = {
    "longer always wins": (lambda d, rng: 1.0 if d > 0 else 0.0, 0.5),
    "length-biased, noisy (P = sigmoid(6 d))": (lambda d, rng: float(rng.random() < sigmoid(6 * d)), 0.5),
    "quality only (P = 0.75)": (lambda d, rng: float(rng.random() < 0.75), 0.75),
    "quality and length (P = sigmoid(0.62 + 4 d))": (
        lambda d, rng: float(rng.random() < sigmoid(0.62 + 4 * d)), sigmoid(0.62)),
}  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--reps", type=int, default=200)
    parser.add_argument("--tasks", type=int, default=35)
    args = parser.parse_args()
    started = time.perf_counter()
    print(f"{args.reps} simulated evals of {args.tasks} tasks per scenario (seeded)")
    for name, (judge, truth) in SCENARIOS.items():
        rng = random.Random(26)
        raws, lcs, flags = [], [], 0
        for _ in range(args.reps):
            raw, lc = simulate(judge, rng, args.tasks)
            if lc is None:
                continue
            raws.append(raw)
            lcs.append(lc)
            flags += stats.direction(raw) != stats.direction(lc)
        raw, lc = statistics.median(raws), statistics.median(lcs)
        kept = (lc - 0.5) / (raw - 0.5) if raw != 0.5 else float("nan")
        if name.startswith(("longer", "length")):
            ratio = abs(lc - 0.5) / abs(raw - 0.5)
            verdict = "ok" if ratio <= 0.35 else "ABOVE TARGET"
            detail = f"|LC-50%|/|raw-50%| {ratio:.2f} (target <= 0.35: {verdict})"
        elif name.startswith("quality only"):
            verdict = "ok" if kept >= 0.6 else "BELOW TARGET"
            detail = f"LC keeps {kept:.0%} of the raw effect (target >= 60 %: {verdict})"
        else:
            detail = f"LC keeps {kept:.0%} of the raw effect"
        print(f"- {name}: true at equal length {truth:.1%}, median raw {raw:.1%}, median LC {lc:.1%} "
              f"(LC's middle 90 %: {statistics.quantiles(lcs, n=20)[0]:.1%}-"
              f"{statistics.quantiles(lcs, n=20)[-1]:.1%}); flagged {flags / len(lcs):.0%} of evals; "
              f"{detail}")  # fmt: skip
    print(f"({time.perf_counter() - started:.1f} s)")


if __name__ == "__main__":
    main()
