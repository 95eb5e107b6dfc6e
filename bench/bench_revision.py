"""The revision controller's savings, on one scripted model (same articles, same critiques).

1. Tokens per revision round, input + output, `revision = "section"` vs `"full"`: 4 sections of
   real length (~100 words each, distinct sentences); scores 6, 6.8, 7.6, 9 against a threshold
   of 8.5, so both runs take 3 revision rounds. Two critics: one that names 1 of the 4 sections
   each round (as real critiques mostly do; target section <= 60 % of full) and one that names
   all 4 (target <= 110 %: section mode then rewrites them in one call). The fake model counts
   a token per 4 characters of prompt and answer, as it does everywhere.
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
from reflectcli.models.fake import FakeClient, ScriptedResponder, install_fake, prose, review_json
from reflectcli.output.render import Renderer
from reflectcli.runner import Runner


class Responder(ScriptedResponder):
    def __init__(self, scores, sections, name_all: bool):
        super().__init__(scores=scores, sections=sections)
        self.name_all = name_all

    def __call__(self, step, messages):
        if step.startswith("draft"):
            return prose(int(step.split(":s")[1]))
        if step.startswith("review") and self.name_all:
            round_no = int(step.split(":r")[1].split(":")[0])
            score = self.scores[min(round_no, len(self.scores)) - 1]
            imps = [{"section": f"Section {i}", "issue": f"Round {round_no}: sharpen section "
                     f"{i} with an example.", "severity": "major"} for i in range(1, 5)]  # fmt: skip
            return review_json(score, improvements=imps)
        return super().__call__(step, messages)


def run(scores, max_rounds, threshold, policy, name_all=False):
    fake = FakeClient(responder=Responder(scores=scores, sections=4, name_all=name_all))
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


def revision_tokens(state) -> tuple[int, int, int, int]:
    calls = [e for e in state["trace"] if e.get("node") == "revise" and "step" in e]
    rounds = len({e["round"] for e in calls})
    tokens_in = sum(e["prompt_tokens"] for e in calls)
    tokens_out = sum(e["completion_tokens"] for e in calls)
    return tokens_in, tokens_out, rounds, len(calls)


def main() -> None:
    scores = [6, 6.8, 7.6, 9]
    for critic, name_all, target in (("names 1 of 4 sections", False, 0.60),
                                     ("names all 4 sections", True, 1.10)):  # fmt: skip
        print(f"critic {critic}:")
        per_round = {}
        for mode in ("full", "section"):
            state = run(scores, 5, 8.5, {"revision": mode, "min_gain": 0}, name_all)
            tokens_in, tokens_out, rounds, calls = revision_tokens(state)
            per_round[mode] = (tokens_in + tokens_out) / rounds
            print(
                f"  {mode:8} {rounds} revision rounds, {calls} revise calls, {tokens_in} in + "
                f"{tokens_out} out → {per_round[mode]:.0f} tokens per round "
                f"(stop: {state['stop_reason']})"
            )
        share = per_round["section"] / per_round["full"]
        print(
            f"  section / full tokens per round (in + out): {share:.0%} (target <= "
            f"{target:.0%}: {'met' if share <= target else 'MISSED'})"
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
