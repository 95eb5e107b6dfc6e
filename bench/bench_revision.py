"""The revision controller's savings, on one scripted model (same articles, same critiques).

1. Output tokens per revision round, `revision = "section"` vs `"full"`: 4 sections; each
   review names one section (as real critiques mostly do); scores 6, 6.8, 7.6, 9 against a
   threshold of 8.5, so both runs take 3 revision rounds. Target: section <= 40 % of full.
2. Rounds spent on a script whose score stalls (6, 6.2, 6.3, 6.4, ...) with max_rounds 10,
   with the saturation rule (min_gain 0.5, patience 2) and without it (min_gain 0).

    python bench/bench_revision.py
"""

from __future__ import annotations

import io
import tempfile
from pathlib import Path

from rich.console import Console

from reflectcli.config import load_settings
from reflectcli.models.fake import FakeClient, ScriptedResponder, install_fake
from reflectcli.output.render import Renderer
from reflectcli.runner import Runner

SECTION = (
    "Revision is where a draft stops being a record of thinking and becomes an argument for a "
    "reader: cut what wanders, move the strongest point forward, add the example that lands. "
) * 4


class Responder(ScriptedResponder):
    def __call__(self, step, messages):
        if step.startswith("draft"):
            return f"{SECTION}({step})"
        return super().__call__(step, messages)


def run(scores, max_rounds, threshold, policy):
    fake = FakeClient(responder=Responder(scores=scores, sections=4))
    undo = install_fake("fake", lambda model: fake)
    try:
        with tempfile.TemporaryDirectory() as tmp:
            settings = load_settings(flags={
                "model": "fake/w", "runs_dir": str(Path(tmp) / "runs"), "threshold": threshold,
                "max_rounds": max_rounds, "policy": policy,
            })  # fmt: skip
            ui = Renderer(console=Console(file=io.StringIO()), quiet=True)
            return Runner(ui).write("Why do writers revise their drafts?", settings).state
    finally:
        undo()


def revision_tokens(state) -> tuple[int, int, int]:
    calls = [e for e in state["trace"] if e.get("node") == "revise" and "step" in e]
    rounds = len({e["round"] for e in calls})
    return sum(e["completion_tokens"] for e in calls), rounds, len(calls)


def main() -> None:
    scores = [6, 6.8, 7.6, 9]
    results = {}
    for mode in ("full", "section"):
        state = run(scores, 5, 8.5, {"revision": mode, "min_gain": 0})
        tokens, rounds, calls = revision_tokens(state)
        results[mode] = tokens / rounds
        print(
            f"{mode:8} {rounds} revision rounds, {calls} revise calls, {tokens} output tokens "
            f"→ {tokens / rounds:.0f} per round (stop: {state['stop_reason']})"
        )
    share = results["section"] / results["full"]
    print(
        f"section / full output tokens per round: {share:.0%} (target <= 40 %: "
        f"{'met' if share <= 0.40 else 'MISSED'})"
    )
    print()
    stall = [6.0] + [round(6.2 + 0.1 * i, 1) for i in range(9)]  # 6, 6.2, 6.3, ..., 7.0
    for name, policy in (("with saturation (min_gain 0.5, patience 2)",
                          {"min_gain": 0.5, "patience": 2}),
                         ("without saturation (min_gain 0)", {"min_gain": 0})):  # fmt: skip
        state = run(stall, 10, 9, {**policy, "revision": "section"})
        print(
            f"stalled script 6, 6.2, 6.3, ...: {name}: {len(state['reviews'])} rounds, "
            f"stop reason {state['stop_reason']}"
        )


if __name__ == "__main__":
    main()
