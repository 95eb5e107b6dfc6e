"""What the length-controlled (LC) preference does with judges whose bias we know, by simulation
(seeded; no model), and what the equal-length copies look like on real revisions.

Simulation: per gap design and judge, REPS evals of TASKS tasks. Each task's log length ratio d
(final over first draft) is drawn from the design:

- one-sided: every final longer, d ~ U(0.05, 0.7) (5 % to 100 % longer);
- mixed: d ~ N(0.15, 0.25) (about 27 % of finals shorter).

A simulated judge gives one verdict per order (final / first), independently, with a known
probability that depends on d and/or a quality edge; on each equal-length copy (`--length-pairs`
2: openings and closings) the gap is the copy's own small residual, N(0, 0.03) (the spread
measured on real revisions: `--corpus`), and the quality edge is kept (`kept` 1.0) or partly
lost in the cut. Arms, measured in the same run:

- baseline: the estimator before issue 40 (one combined verdict per task, x = tanh(d / sd(d)),
  the same priors, a 95 % percentile bootstrap of 200 resamples);
- pairs 0 / 1 / 2: eval/lengthcontrol.py on the verdicts as written, plus 0, 1 or 2 equal-length
  pairs per task (the report's own function, stats.length_control).

Printed per design, arm and judge: the median LC, its median standard error, how often its 95 %
interval covers the true preference at equal length, and how often the report says
"confounded". Then the target: a quality-only judge (P = 0.75) and a length-only judge
(P(longer) = sigmoid(6 d)) are "told apart" in an eval pair (same seed) when their intervals do
not overlap; the share of REPS pairs told apart, per arm (target: told apart, or "confounded").

Real revisions (`--corpus DIR`, pairs of an older and a newer version of the same Markdown file,
`*.old.md` / `*.new.md`): the length gap d of each real revision, and the residual gap and
sections kept of its equal-length copies (eval/matched.py).

    python bench/bench_length_control.py [--reps 200] [--tasks 30] [--corpus DIR]
"""

from __future__ import annotations

import argparse
import math
import random
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from reflectcli.eval import lengthcontrol, stats  # noqa: E402

EQUAL_SD = 0.03  # the residual log gap of an equal-length copy (see --corpus)
DESIGNS = {"one-sided (every final longer)": lambda rng: rng.uniform(0.05, 0.7),
           "mixed (27 % shorter)": lambda rng: rng.gauss(0.15, 0.25)}  # fmt: skip


def sigmoid(z: float) -> float:
    return 1 / (1 + math.exp(-z))


# name: (P(final wins one order | d, quality kept), kept in the cut, true preference at equal length)
JUDGES = {
    "quality only (P = 0.75)": (lambda d, q: 0.5 + 0.25 * q, 1.0, 0.75),
    "length only (P = sigmoid(6 d))": (lambda d, q: sigmoid(6 * d), 1.0, 0.5),
    "longer always wins": (lambda d, q: 1.0 if d > 0 else 0.0 if d < 0 else 0.5, 1.0, 0.5),
    "quality and length (sigmoid(0.62 q + 4 d))": (lambda d, q: sigmoid(0.62 * q + 4 * d), 1.0,
                                                   sigmoid(0.62)),
    "quality only, half of it lost in the cut": (lambda d, q: 0.5 + 0.25 * q, 0.5, 0.75),
}  # fmt: skip
ARMS = ("baseline", "pairs 0", "pairs 1", "pairs 2")


def verdict(p: float, rng: random.Random) -> float:
    return 1.0 if rng.random() < p else 0.0


def old_fit(points: list[tuple[float, float]]) -> float | None:
    """The LC point estimate before issue 40: one combined verdict per task, x = tanh(d / sd(d))."""
    ds = [d for d, _ in points]
    sd = statistics.pstdev(ds) if len(ds) > 1 else 0.0
    if sd == 0:
        return statistics.fmean(y for _, y in points) if all(d == 0 for d in ds) else None
    a, _ = lengthcontrol.logistic_fit([math.tanh(d / sd) for d in ds], [y for _, y in points])
    return lengthcontrol._sigmoid(a)


def old_estimate(points: list[tuple[float, float]], rng: random.Random) -> dict:
    lc = old_fit(points)
    if lc is None:
        return {"lc": None, "confounded": False, "interval": None, "se": None}
    resampled = (old_fit(rng.choices(points, k=len(points))) for _ in range(200))
    fits = sorted(f for f in resampled if f is not None)
    interval = [fits[int(0.025 * len(fits))], fits[int(0.975 * len(fits)) - 1]]
    return {"lc": lc, "interval": interval, "se": statistics.pstdev(fits), "confounded": False}


def simulate(judge, kept: float, design, rng: random.Random, tasks: int) -> dict[str, dict]:
    """One eval of `tasks` tasks, estimated by every arm."""
    natural, per_task, combined = [], [], []
    for _ in range(tasks):
        d = design(rng)
        ab, ba = verdict(judge(d, 1.0), rng), verdict(judge(d, 1.0), rng)
        equal = []
        for _ in range(2):
            g = rng.gauss(0, EQUAL_SD)
            equal.append((g, verdict(judge(g, kept), rng), verdict(judge(g, kept), rng)))
        natural.append(d)
        per_task.append(((d, ab), (d, ba), equal))
        combined.append((d, ab if ab == ba else 0.5))
    out = {"baseline": old_estimate(combined, rng)}
    for count in (0, 1, 2):
        obs = [[one, two] + [o for g, x, y in equal[:count] for o in ((g, x), (g, y))]
               for one, two, equal in per_task]  # fmt: skip
        found = stats.length_control(obs, natural, None, count * tasks)
        confounded = found["lc_unknown"] == "confounded"
        out[f"pairs {count}"] = {"lc": found["lc_win"], "interval": found["lc_interval"],
                                 "se": found["lc_se"], "confounded": confounded}  # fmt: skip
    return out


def corpus(where: Path) -> None:
    """The real revisions' gaps and their equal-length copies."""
    from reflectcli.eval.matched import _segments, equal_length
    from reflectcli.eval.metrics import log_length_ratio, words

    pairs = sorted(where.rglob("*.old.md"))
    gaps, residual, kept, same = [], [], [], 0
    for old in pairs:
        new = old.with_name(old.name.replace(".old.md", ".new.md"))
        a, b = old.read_text("utf-8", errors="replace"), new.read_text("utf-8", errors="replace")
        if not words(a) or not words(b):
            continue
        gaps.append(log_length_ratio(words(a), words(b)))
        aligned = len(_segments(a)) == len(_segments(b))
        for end in ("head", "tail"):
            x, y = equal_length(a, b, end)
            if x == y:
                same += 1
                continue
            residual.append(log_length_ratio(words(x), words(y)))
            longer, copy = (a, x) if words(a) > words(b) else (b, y)
            whole = len(_segments(copy)) == len(_segments(longer))
            kept.append((words(copy) / words(longer), aligned, whole))
    if not gaps:
        print(f"no *.old.md / *.new.md pairs under {where}")
        return
    grew = sum(g > 0 for g in gaps) / len(gaps)
    q = statistics.quantiles(gaps, n=10)
    print(f"\nreal revisions under {where}: {len(gaps)} pairs; finals longer in {grew:.0%}; gap d "
          f"median {statistics.median(gaps):+.2f} (10-90 %: {q[0]:+.2f} .. {q[-1]:+.2f})")  # fmt: skip
    if residual:
        print(f"equal-length copies: {len(residual)} (and {same} identical, left out); residual gap: "
              f"sd {statistics.pstdev(residual):.3f}, "
              f"median |d'| {statistics.median(map(abs, residual)):.3f}, "
              f"max |d'| {max(map(abs, residual)):.3f}; sections aligned in "
              f"{sum(k[1] for k in kept) / len(kept):.0%}; the longer version's copy keeps a median "
              f"{statistics.median(k[0] for k in kept):.0%} of its words and all its sections in "
              f"{sum(k[2] for k in kept) / len(kept):.0%}")  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--reps", type=int, default=200)
    parser.add_argument("--tasks", type=int, default=30)
    parser.add_argument("--corpus", type=Path, help="pairs of real revisions: *.old.md / *.new.md")
    args = parser.parse_args()
    started = time.perf_counter()
    print(f"{args.reps} simulated evals of {args.tasks} tasks per design, judge and arm (seeded)")
    for design_name, design in DESIGNS.items():
        print(f"\n## {design_name}")
        results: dict[str, list[dict]] = {}
        for judge_name, (judge, kept, truth) in JUDGES.items():
            rows = results[judge_name] = [simulate(judge, kept, design, random.Random(40_000 + r), args.tasks)
                                          for r in range(args.reps)]  # fmt: skip
            print(f"- {judge_name} (true at equal length {truth:.1%}):")
            for arm in ARMS:
                got = [row[arm] for row in rows]
                known = [g for g in got if g["lc"] is not None]
                confounded = sum(g["confounded"] for g in got) / len(got)
                if not known:
                    print(f"    {arm:>8}: no estimate; confounded in {confounded:.0%}")
                    continue
                cover = sum(g["interval"][0] <= truth <= g["interval"][1] for g in known) / len(known)
                print(f"    {arm:>8}: median LC {statistics.median(g['lc'] for g in known):.1%}, median SE "
                      f"{statistics.median(g['se'] for g in known):.1%}, 95 % interval covers the truth in "
                      f"{cover:.0%}; confounded in {confounded:.0%}")  # fmt: skip
        quality, length = results["quality only (P = 0.75)"], results["length only (P = sigmoid(6 d))"]
        print("- told apart (quality-only's interval above length-only's), or reported confounded:")
        base = None
        for arm in ARMS:
            apart = confounded = 0
            for q, n in zip(quality, length, strict=True):
                q, n = q[arm], n[arm]
                if q["confounded"] or n["confounded"]:
                    confounded += 1
                elif q["lc"] is not None and n["lc"] is not None and q["interval"][0] > n["interval"][1]:
                    apart += 1
            share = apart / args.reps
            base = share if arm == "baseline" else base
            ratio = f" ({share / base:.1f}x the baseline)" if base and arm != "baseline" else ""
            neither = 1 - share - confounded / args.reps
            print(f"    {arm:>8}: told apart in {share:.0%}{ratio}; confounded in "
                  f"{confounded / args.reps:.0%}; neither (intervals overlap) in {neither:.0%}")  # fmt: skip
    if args.corpus:
        corpus(args.corpus)
    print(f"\n({time.perf_counter() - started:.1f} s)")


if __name__ == "__main__":
    main()
