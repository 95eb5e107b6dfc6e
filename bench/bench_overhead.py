"""Orchestration overhead per graph step: reflectcli vs a bare LangGraph graph.

(a) A whole `reflectcli write` through `Runner(ui).write(task, settings)` with a zero-latency
    scripted fake model (`fake/w`), a quiet renderer and a fresh temp runs_dir per repetition:
    4 sections and review scores 5, 6, 9 against threshold 8, so it runs 3 rounds =
    plan + 4 drafts + 3 x (review + decide) + 2 revisions + learn + finalize = 15 steps
    (learn: the memory's step, on by default; it writes to the database like a real run).
    (The steps are counted in a warm-up run; if the graph's shape changes, the count follows.)
(b) A bare LangGraph StateGraph that takes the same steps (same node names in the same order,
    each a trivial node, routed by conditional edges), compiled with a default SqliteSaver on
    a fresh temp file and streamed with `stream_mode="updates", durability="sync"`.

Both include graph construction: opening the SQLite file, the checkpointer's setup and
compiling the graph are inside the timed region for both (for reflectcli that is everything
`Runner.write` does, including its run index and migrations). The "w/o construction" rows
exclude it: reflectcli's `Runner._drive` (the stream loop with its per-step bookkeeping) vs
the bare graph's `stream()` alone. All imports and one warm-up run of each happen before timing.

Repetitions of (a) and (b) are interleaved so that machine noise hits both alike; the
medians are compared. Target: reflectcli <= 2x the bare graph per step.

    python bench/bench_overhead.py [--reps 31] [--sections 4]
"""

from __future__ import annotations

import argparse
import gc
import os
import sqlite3
import statistics
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any, TypedDict

# Everything imported up front: no import cost inside the timed region.
from langgraph.checkpoint.sqlite import SqliteSaver
from langgraph.graph import END, START, StateGraph

import reflectcli.graph.build  # noqa: F401  (imported lazily by the runner; load it now)
from reflectcli.config import Settings
from reflectcli.models.fake import FakeClient, ScriptedResponder, install_fake
from reflectcli.output.render import Renderer
from reflectcli.runner import Runner

TARGET_RATIO = 2.0
TASK = "Why do writers revise their drafts?"
SCORES = (5.0, 6.0, 9.0)  # threshold 8: revise, revise, pass -> 3 rounds
THRESHOLD = 8.0


def expected_steps(sections: int, rounds: int) -> int:
    """plan + drafts + review/decide per round + revisions + learn + finalize."""
    return 1 + sections + 2 * rounds + (rounds - 1) + 1 + 1


# --- (a) reflectcli ------------------------------------------------------------------------


class CountingUI(Renderer):
    """The quiet renderer, counting the graph steps the runner streams."""

    def __init__(self) -> None:
        super().__init__(quiet=True)
        self.steps: list[str] = []

    def node_done(self, node: str, update: dict[str, Any], state: dict[str, Any]) -> None:
        self.steps.append(node)
        super().node_done(node, update, state)


BOOKKEEPING = ("index row", "artifact", "journal")  # index row: _record less the artifact


class Timer:
    """Seconds spent inside wrapped functions, per label, in the current run."""

    def __init__(self) -> None:
        self.seconds = dict.fromkeys(BOOKKEEPING, 0.0)
        self.artifacts = 0  # artifact files written (renamed into place)

    def wrap(self, owner: Any, name: str, label: str) -> None:
        inner = getattr(owner, name)

        def timed(*args: Any, **kwargs: Any):
            started = time.perf_counter()
            try:
                return inner(*args, **kwargs)
            finally:
                self.seconds[label] += time.perf_counter() - started

        setattr(owner, name, timed)


TIMER = Timer()


def instrument() -> None:
    """Time the per-step bookkeeping apart: the artifact (rendered and rewritten), the call
    journal (each answer looked up and saved before its step's checkpoint); the index row (the
    run row, state snapshot and usage in one transaction, with its summary) is the rest of
    `_record`."""
    import reflectcli.recorder as runner_module
    from reflectcli.output import artifacts
    from reflectcli.store.db import Store

    TIMER.wrap(runner_module, "render_artifact", "artifact")
    for name in ("journal_get", "journal_put"):  # (`journaled` calls journal_get when it must)
        TIMER.wrap(Store, name, "journal")
    write = artifacts.write_private

    def counted(*args: Any, **kwargs: Any):
        TIMER.artifacts += 1
        return write(*args, **kwargs)

    artifacts.write_private = counted
    TIMER.wrap(artifacts, "write_private", "artifact")


class TimedRunner(Runner):
    """Runner that also times `_drive` (the stream loop, without Store/graph construction)
    and, inside it, `_record` (the run-index row and the artifact rewritten after each step)."""

    drive_seconds = 0.0
    record_seconds = 0.0

    def _drive(self, *args: Any, **kwargs: Any):
        started = time.perf_counter()
        try:
            return super()._drive(*args, **kwargs)
        finally:
            self.drive_seconds = time.perf_counter() - started

    def _record(self, *args: Any, **kwargs: Any) -> None:
        started = time.perf_counter()
        try:
            super()._record(*args, **kwargs)
        finally:
            self.record_seconds += time.perf_counter() - started


def run_reflectcli(parent: Path, sections: int) -> tuple[float, float, list[str], float]:
    """One full run in a fresh runs_dir: (total s, _drive s, steps, _record s); the bookkeeping's
    parts are in TIMER (reset here)."""
    TIMER.seconds = dict.fromkeys(BOOKKEEPING, 0.0)
    TIMER.artifacts = 0
    runs_dir = tempfile.mkdtemp(dir=parent, prefix="reflect-")
    settings = Settings(
        model="fake/w",
        runs_dir=runs_dir,
        max_sections=sections,
        max_rounds=len(SCORES),
        threshold=THRESHOLD,
    )
    ui = CountingUI()
    runner = TimedRunner(ui)
    started = time.perf_counter()
    result = runner.write(TASK, settings)
    total = time.perf_counter() - started
    if result.state.get("status") != "finished" or result.summary["rounds"] != len(SCORES):
        raise SystemExit(f"reflectcli run did not go as scripted: {result.summary}")
    return total, runner.drive_seconds, ui.steps, runner.record_seconds


# --- (b) bare LangGraph ----------------------------------------------------------------------


class BareState(TypedDict, total=False):
    i: int  # steps done


def _trivial(state: BareState) -> dict[str, Any]:
    return {"i": state["i"] + 1}


def build_bare(sequence: list[str], checkpointer: SqliteSaver):
    """A graph that takes exactly the steps of `sequence` (reflectcli's observed node names, in
    order), each a trivial node, routed by conditional edges like reflectcli's graph."""
    names = list(dict.fromkeys(sequence))

    def route(state: BareState) -> str:
        i = state["i"]
        return sequence[i] if i < len(sequence) else END

    graph = StateGraph(BareState)
    for name in names:
        graph.add_node(name, _trivial)
        graph.add_conditional_edges(name, route, [*names, END])
    graph.add_edge(START, sequence[0])
    return graph.compile(checkpointer=checkpointer)


def run_bare(parent: Path, sequence: list[str]) -> tuple[float, float, list[str]]:
    """One bare run on a fresh SQLite file: (total seconds, stream seconds, steps)."""
    path = Path(tempfile.mkdtemp(dir=parent, prefix="bare-")) / "bare.db"
    started = time.perf_counter()
    conn = sqlite3.connect(str(path), check_same_thread=False)
    graph = build_bare(sequence, SqliteSaver(conn))
    config = {"configurable": {"thread_id": "bare"}, "recursion_limit": len(sequence) + 10}
    start = {"i": 0}
    steps: list[str] = []
    streamed = time.perf_counter()
    for chunk in graph.stream(start, config, stream_mode="updates", durability="sync"):
        steps.extend(chunk)
    conn.close()  # timed, like reflectcli's: its `_drive` closes the store and the checkpointer's
    end = time.perf_counter()
    return end - started, end - streamed, steps


# --- main ------------------------------------------------------------------------------------


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=31, help="timed repetitions of each")
    parser.add_argument("--sections", type=int, default=4, help="outline sections (1-12)")
    args = parser.parse_args()

    steps_expected = expected_steps(args.sections, len(SCORES))
    instrument()
    uninstall = install_fake(
        "fake",
        lambda model: FakeClient(model, ScriptedResponder(scores=SCORES, sections=args.sections)),
    )
    try:
        with tempfile.TemporaryDirectory(prefix="reflectcli-bench-") as tmp:
            parent = Path(tmp)
            # warm-up: first-call caches (pydantic schemas, rich consoles, LangGraph internals)
            _, _, steps_a, _ = run_reflectcli(parent, args.sections)
            _, _, steps_b = run_bare(parent, steps_a)
            if steps_a != steps_b:
                print(f"step mismatch: reflectcli {steps_a}\n               bare {steps_b}")
                return 1
            totals: dict[str, list[float]] = {"reflectcli": [], "bare": []}
            inner: dict[str, list[float]] = {"reflectcli": [], "bare": []}
            ratios_total: list[float] = []
            ratios_inner: list[float] = []
            records: list[float] = []
            parts: dict[str, list[float]] = {k: [] for k in BOOKKEEPING}
            written: list[int] = []
            gc.collect()
            for _ in range(args.reps):
                a_total, a_inner, _, a_record = run_reflectcli(parent, args.sections)
                records.append(a_record)
                TIMER.seconds["index row"] = a_record - TIMER.seconds["artifact"]
                for k in BOOKKEEPING:
                    parts[k].append(TIMER.seconds[k])
                written.append(TIMER.artifacts)
                b_total, b_inner, _ = run_bare(parent, steps_a)
                totals["reflectcli"].append(a_total)
                totals["bare"].append(b_total)
                inner["reflectcli"].append(a_inner)
                inner["bare"].append(b_inner)
                ratios_total.append(a_total / b_total)
                ratios_inner.append(a_inner / b_inner)
    finally:
        uninstall()

    n = len(steps_a)
    counts = ", ".join(f"{name} {k}" for name, k in Counter(steps_a).items())
    print(f"orchestration overhead per step: {n} steps per run ({counts}), median of {args.reps} reps")
    print(f"steps: {' '.join(steps_a)}")
    if n != steps_expected:
        print(
            f"note: {steps_expected} expected from plan + {args.sections} drafts + {len(SCORES)} x "
            f"review/decide + {len(SCORES) - 1} revisions + finalize; the graph took {n}"
        )
    print()
    print(f"{'':38} {'reflectcli':>12} {'bare graph':>12} {'ratio':>8}")
    rows = (
        ("incl. construction  ms/run", totals, 1),
        ("incl. construction  ms/step", totals, n),
        ("w/o construction    ms/run", inner, 1),
        ("w/o construction    ms/step", inner, n),
    )
    for label, data, per in rows:
        a = statistics.median(data["reflectcli"]) * 1000 / per
        b = statistics.median(data["bare"]) * 1000 / per
        print(f"{label:38} {a:12.2f} {b:12.2f} {a / b:7.2f}x")
    med = {k: statistics.median(v) * 1000 for k, v in totals.items()}
    med_inner = {k: statistics.median(v) * 1000 for k, v in inner.items()}
    record = statistics.median(records) * 1000
    print()
    print("where reflectcli's extra time goes (medians, ms per run):")
    print(
        f"  construction (Store, migrations, run row, checkpointer, compile) "
        f"{med['reflectcli'] - med_inner['reflectcli']:6.2f}  vs bare "
        f"{med['bare'] - med_inner['bare']:6.2f}"
    )
    print(f"  _record after each step (run-index row + artifact rewrite)         {record:6.2f}")
    for k in BOOKKEEPING:
        where = "in _record" if k != "journal" else "in the nodes' calls"
        print(
            f"    {k + ' (' + where + ')':<62} {statistics.median(parts[k]) * 1000:6.2f}"
            f"  ({statistics.median(parts[k]) * 1000 / n:.2f} a step)"
        )
    most = max(written)
    print(
        f"  artifact files written per run: {most} at most for {n} steps "
        f"({'at most one a step' if most <= n else 'MORE THAN ONE A STEP'})"
    )
    print(
        f"  the rest of the run loop (nodes, call journal, checkpoints)       "
        f"{med_inner['reflectcli'] - record:6.2f}  vs bare {med_inner['bare']:6.2f}"
    )
    print()
    primary = statistics.median(ratios_total)
    print(f"load average (1, 5, 15 min) at the end: {', '.join(f'{x:.1f}' for x in os.getloadavg())}")
    print(
        f"median of per-rep ratios: incl. construction {primary:.2f}x, "
        f"w/o construction {statistics.median(ratios_inner):.2f}x "
        f"(spread incl. construction {min(ratios_total):.2f}-{max(ratios_total):.2f}x)"
    )
    ok = primary <= TARGET_RATIO
    verdict = "OK" if ok else "ABOVE TARGET"
    print(f"target: reflectcli <= {TARGET_RATIO:g}x the bare graph per step (incl. construction): {verdict}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
