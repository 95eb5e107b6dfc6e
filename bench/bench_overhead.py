"""Orchestration overhead per graph step: reflectcli vs a bare LangGraph graph.

(a) A whole `reflectcli write` through `Runner(ui).write(task, settings)` with a zero-latency
    scripted fake model (`fake/w`), a quiet renderer and a fresh temp runs_dir per repetition:
    4 sections and review scores 5, 6, 9 against threshold 8, so it runs 3 rounds =
    plan + 4 drafts + 3 x (review + decide) + 2 revisions + finalize = 14 steps.
(b) A bare LangGraph StateGraph of the same shape (the same 14 steps, trivial node bodies),
    compiled with a default SqliteSaver on a fresh temp file and streamed with
    `durability="sync"`.

Both include graph construction: opening the SQLite file, the checkpointer's setup and
compiling the graph are inside the timed region for both (for reflectcli that is everything
`Runner.write` does, including its run index and migrations). A second table excludes it:
reflectcli's `Runner._drive` (the stream loop with its per-step bookkeeping) vs the bare
graph's `stream()` alone. All imports and one warm-up run of each happen before timing.

Repetitions of (a) and (b) are interleaved so that machine noise hits both alike; the
medians are compared. Target: reflectcli <= 2x the bare graph per step.

    python bench/bench_overhead.py [--reps 21] [--sections 4]
"""

from __future__ import annotations

import argparse
import gc
import operator
import sqlite3
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Annotated, Any, TypedDict

# Everything imported up front: no import cost inside the timed region.
from langgraph.checkpoint.sqlite import SqliteSaver
from langgraph.graph import END, START, StateGraph

import reflectcli.graph.build  # noqa: F401  (imported lazily by the runner; load it now)
from reflectcli.config import Settings
from reflectcli.render import Renderer
from reflectcli.runner import Runner
from reflectcli.testing import FakeClient, ScriptedResponder, install_fake

TARGET_RATIO = 2.0
TASK = "Why do writers revise their drafts?"
SCORES = (5.0, 6.0, 9.0)  # threshold 8: revise, revise, pass -> 3 rounds
THRESHOLD = 8.0


def expected_steps(sections: int, rounds: int) -> int:
    """plan + drafts + review/decide per round + revisions + finalize."""
    return 1 + sections + 2 * rounds + (rounds - 1) + 1


# --- (a) reflectcli ------------------------------------------------------------------------


class CountingUI(Renderer):
    """The quiet renderer, counting the graph steps the runner streams."""

    def __init__(self) -> None:
        super().__init__(quiet=True)
        self.steps: list[str] = []

    def node_done(self, node: str, update: dict[str, Any], state: dict[str, Any]) -> None:
        self.steps.append(node)
        super().node_done(node, update, state)


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
    """One full run in a fresh runs_dir: (total s, _drive s, steps, _record s)."""
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
    sections: int
    planned: int
    max_rounds: int
    rounds: Annotated[list[int], operator.add]
    decision: str


def _plan(state: BareState) -> dict[str, Any]:
    return {"sections": 0}


def _draft(state: BareState) -> dict[str, Any]:
    return {"sections": state["sections"] + 1}


def _review(state: BareState) -> dict[str, Any]:
    return {"rounds": [len(state.get("rounds") or []) + 1]}


def _decide(state: BareState) -> dict[str, Any]:
    done = len(state["rounds"]) >= state["max_rounds"]
    return {"decision": "stop" if done else "revise"}


def _revise(state: BareState) -> dict[str, Any]:
    return {"decision": "revised"}


def _finalize(state: BareState) -> dict[str, Any]:
    return {"decision": "finished"}


def _after_draft(state: BareState) -> str:
    return "draft" if state["sections"] < state["planned"] else "review"


def _after_decide(state: BareState) -> str:
    return "revise" if state["decision"] == "revise" else "finalize"


def build_bare(checkpointer: SqliteSaver):
    """The same topology as reflectcli's graph, with trivial nodes."""
    graph = StateGraph(BareState)
    for fn in (_plan, _draft, _review, _decide, _revise, _finalize):
        graph.add_node(fn.__name__.lstrip("_"), fn)
    graph.add_edge(START, "plan")
    graph.add_edge("plan", "draft")
    graph.add_conditional_edges("draft", _after_draft, ["draft", "review"])
    graph.add_edge("review", "decide")
    graph.add_conditional_edges("decide", _after_decide, ["revise", "finalize"])
    graph.add_edge("revise", "review")
    graph.add_edge("finalize", END)
    return graph.compile(checkpointer=checkpointer)


def run_bare(parent: Path, sections: int) -> tuple[float, float, list[str]]:
    """One bare run on a fresh SQLite file: (total seconds, stream seconds, steps)."""
    path = Path(tempfile.mkdtemp(dir=parent, prefix="bare-")) / "bare.db"
    started = time.perf_counter()
    conn = sqlite3.connect(str(path), check_same_thread=False)
    graph = build_bare(SqliteSaver(conn))
    config = {"configurable": {"thread_id": "bare"}, "recursion_limit": 100}
    start = {"planned": sections, "max_rounds": len(SCORES)}
    steps: list[str] = []
    streamed = time.perf_counter()
    for chunk in graph.stream(start, config, stream_mode="updates", durability="sync"):
        steps.extend(chunk)
    end = time.perf_counter()
    conn.close()  # outside the timed region, like reflectcli's connections (closed at GC)
    return end - started, end - streamed, steps


# --- main ------------------------------------------------------------------------------------


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=21, help="timed repetitions of each")
    parser.add_argument("--sections", type=int, default=4, help="outline sections (1-12)")
    args = parser.parse_args()

    steps_expected = expected_steps(args.sections, len(SCORES))
    uninstall = install_fake(
        "fake",
        lambda model: FakeClient(model, ScriptedResponder(scores=SCORES, sections=args.sections)),
    )
    try:
        with tempfile.TemporaryDirectory(prefix="reflectcli-bench-") as tmp:
            parent = Path(tmp)
            # warm-up: first-call caches (pydantic schemas, rich consoles, LangGraph internals)
            _, _, steps_a, _ = run_reflectcli(parent, args.sections)
            _, _, steps_b = run_bare(parent, args.sections)
            if len(steps_a) != steps_expected or steps_a != steps_b:
                print(f"step mismatch: reflectcli {steps_a}\n               bare {steps_b}")
                return 1
            totals: dict[str, list[float]] = {"reflectcli": [], "bare": []}
            inner: dict[str, list[float]] = {"reflectcli": [], "bare": []}
            ratios_total: list[float] = []
            ratios_inner: list[float] = []
            records: list[float] = []
            gc.collect()
            for _ in range(args.reps):
                a_total, a_inner, _, a_record = run_reflectcli(parent, args.sections)
                records.append(a_record)
                b_total, b_inner, _ = run_bare(parent, args.sections)
                totals["reflectcli"].append(a_total)
                totals["bare"].append(b_total)
                inner["reflectcli"].append(a_inner)
                inner["bare"].append(b_inner)
                ratios_total.append(a_total / b_total)
                ratios_inner.append(a_inner / b_inner)
    finally:
        uninstall()

    n = steps_expected
    print(
        f"orchestration overhead per step: {n} steps per run "
        f"(plan + {args.sections} drafts + {len(SCORES)} x review/decide + "
        f"{len(SCORES) - 1} revisions + finalize), median of {args.reps} interleaved reps"
    )
    print(f"steps: {' '.join(steps_a)}")
    print()
    print(f"{'':38} {'reflectcli':>12} {'bare graph':>12} {'ratio':>8}")
    rows = (
        ("incl. construction  ms/run", totals, 1),
        ("incl. construction  ms/step", totals, n),
        ("stream only         ms/run", inner, 1),
        ("stream only         ms/step", inner, n),
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
        f"  construction (Store + migrations + checkpointer + compile) "
        f"{med['reflectcli'] - med_inner['reflectcli']:6.2f}  vs bare "
        f"{med['bare'] - med_inner['bare']:6.2f}"
    )
    print(f"  _record after each step (run-index row + artifact rewrite)  {record:6.2f}")
    print(
        f"  graph steps incl. nodes, journal, checkpoints              "
        f"{med_inner['reflectcli'] - record:6.2f}  vs bare {med_inner['bare']:6.2f}"
    )
    print()
    primary = statistics.median(ratios_total)
    print(
        f"median of per-rep ratios: incl. construction {primary:.2f}x, "
        f"stream only {statistics.median(ratios_inner):.2f}x "
        f"(spread incl. construction {min(ratios_total):.2f}-{max(ratios_total):.2f}x)"
    )
    ok = primary <= TARGET_RATIO
    verdict = "OK" if ok else "ABOVE TARGET"
    print(
        f"target: reflectcli <= {TARGET_RATIO:g}x the bare graph per step "
        f"(incl. construction): {verdict}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
