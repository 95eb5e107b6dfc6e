"""The eval on the embedded model, end to end: the built-in smoke suite (5 tasks) written by
SmolLM2 and judged by SmolLM2 (the only model offline; a judge that is also the writer needs
--judge-same, here `judge_same=True`, and the report says so; a 135M model is not a trustworthy
judge: read the numbers as a pipeline check).
Prints the judge's overhead (tokens and seconds of judging per task, against writing) and the
full report. `--threshold 10` makes every task revise (a draft passes at 10 only), so that the
judge compares texts that differ: the embedded judge then names the article it is shown first,
and the report gives no verdict with its order consistency.

    python bench/bench_eval.py [--suite smoke|standard] [--limit N] [--threshold T]
"""

from __future__ import annotations

import argparse
import io
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from rich.console import Console  # noqa: E402

from reflectcli.config import load_settings  # noqa: E402
from reflectcli.eval import stats  # noqa: E402
from reflectcli.eval.run import Evaluation, report  # noqa: E402
from reflectcli.eval.suites import load  # noqa: E402
from reflectcli.output.evalreport import terminal  # noqa: E402
from reflectcli.output.render import Renderer  # noqa: E402
from reflectcli.store.db import Store  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--suite", default="smoke", choices=("smoke", "standard"))
    parser.add_argument("--limit", type=int, default=5)
    parser.add_argument("--threshold", type=float, help="the passing score (default: the config's)")
    args = parser.parse_args()
    name, tasks = load(None, args.suite)
    with tempfile.TemporaryDirectory() as tmp:
        settings = load_settings(flags={"runs_dir": tmp, "threshold": args.threshold})
        ui = Renderer(console=Console(file=io.StringIO()), quiet=True)
        started = time.perf_counter()
        eval_id = Evaluation(ui, tmp).start(
            name, tasks[: args.limit], settings, "local/smollm2", judge_same=True
        )
        wall = time.perf_counter() - started
        data = report(tmp, eval_id)
        store = Store(tmp)
        writing_s, writing_t, judging_s, judging_t = [], [], [], []
        for item in data["items"]:
            state = store.load_state(item["thread_id"]) or {}
            calls = [e for e in state.get("trace") or [] if "step" in e]
            writing_s.append(sum(e["duration"] for e in calls))
            writing_t.append(sum(e["prompt_tokens"] + e["completion_tokens"] for e in calls))
            judged = [item[k] for k in stats.JUDGE_KINDS if item.get(k)]
            judging_s.append(sum(j.get("seconds") or 0 for j in judged))
            judging_t.append(sum(j.get("tokens") or 0 for j in judged))
        store.close()
        print(f"{args.suite} suite on local/smollm2 ({len(data['items'])} tasks), wall {wall:.0f}s")
        print(f"per task: writing median {statistics.median(writing_s):.1f}s / "
              f"{statistics.median(writing_t):.0f} tokens; judging median "
              f"{statistics.median(judging_s):.1f}s / {statistics.median(judging_t):.0f} tokens; "
              f"judge overhead {sum(judging_s) / sum(writing_s):.0%} of writing time, "
              f"{sum(judging_t) / sum(writing_t):.0%} of writing tokens")  # fmt: skip
        console = Console(width=110)
        terminal(console, data)


if __name__ == "__main__":
    main()
