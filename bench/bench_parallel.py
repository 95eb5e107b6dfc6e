"""Independent steps at once: a 6-section run with web research, sequential vs parallel.

The scripted OpenAI-compatible server (tests/openai_server.py) answers every call after
`--latency` seconds (default 1); the fake SearXNG (tests/search_server.py) answers 3 results a
search and serves each page after the same latency. One run (in this process, through the
Runner, litellm imported once by a warm-up run first): plan, research of 6 sections (each
section's query and the task's), 6 sections, one review that passes. Modes:

- `sequential`   `--draft sequential --concurrency 1` (the behaviour before issue 27);
- `parallel cN`  `--draft parallel --concurrency N`.

Columns: wall time of the whole run; of research + drafting (from the plan's answer to the last
section's); the critical path of research + drafting (the longest chain of dependent waits: one
page fetch, then one section = 2 × latency) and the ratio to it (target ≤ 1.3×); the bound at
the mode's width and the ratio to it (target ≤ 1.1× at each width): with at most N calls at
once, the 7 searches (each section's query and the task's) run in ceil(7 / N) waves, each
search's 3 pages in ceil(3 / N) fetch waves, then the 6 sections in ceil(6 / N) waves, so no
schedule beats (ceil(7 / N) · ceil(3 / N) + ceil(6 / N)) × latency: 4 s at N = 4, 3 s at N = 6,
2 s (the critical path) from N = 7; the speed-up
over sequential, measured in the same invocation. A second table at latency 0 shows the
overhead of the threads. Every run's article must equal the sequential run's outline and
section count.

    python bench/bench_parallel.py [--latency 1.0] [--concurrency 4 8]
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from datetime import datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from reflectcli.config import Settings, load_settings  # noqa: E402
from reflectcli.models.fake import ScriptedResponder  # noqa: E402
from reflectcli.runner import Runner  # noqa: E402
from tests.helpers import quiet_ui  # noqa: E402
from tests.openai_server import OpenAIServer, answer, loopback_only, step_of  # noqa: E402
from tests.search_server import SearchServer  # noqa: E402

TASK = "The history of printing"
SECTIONS = 6
DEFAULT = Settings(model="openai/x").concurrency  # the default width for remote models
SEARCHES, PAGES = SECTIONS + 1, 3  # each section's query and the task's; pages a search fetches


def at(event: dict) -> float:
    return datetime.fromisoformat(event["at"]).timestamp()


def one_run(work: Path, name: str, latency: float, draft: str, concurrency: int) -> dict:
    responder = ScriptedResponder(scores=[9.0], sections=SECTIONS)

    def reply(body):
        return answer(responder(step_of(body), body["messages"]), delay=latency)

    with OpenAIServer(reply=reply) as server, \
            SearchServer(page_delay=latency, results_per_search=3) as search:  # fmt: skip
        settings = load_settings(flags={
            "model": "openai/test-model", "api_base": server.base_url,
            "runs_dir": str(work / name), "max_sections": SECTIONS, "threshold": 5,
            "max_rounds": 1, "draft": draft, "concurrency": concurrency,
            "memory": {"enabled": False},
            "research": {"sources": "web", "web": "searxng", "web_api_base": search.base_url,
                         "allow_private": True},
        })  # fmt: skip
        started = time.monotonic()
        result = Runner(quiet_ui()).write(TASK, settings, name)
        wall = time.monotonic() - started
        pages = search.page_hits
    state = result.state
    calls = [e for e in state["trace"] if "step" in e]
    plan = next(e for e in calls if e["step"] == "plan")
    drafts = [e for e in calls if e["node"] == "draft"]
    assert state["status"] == "finished" and len(drafts) == SECTIONS, state.get("stop_reason")
    return {
        "wall": wall,
        "phase": max(at(e) for e in drafts) - at(plan),
        "calls": len(calls),
        "pages": pages,
        "outline": [s["title"] for s in state["outline"]["sections"]],
        "evidence": len(state.get("evidence") or []),
    }


def table(work: Path, latency: float, widths: list[int]) -> bool:
    modes = [("sequential", "sequential", 1)] + [(f"parallel c{n}", "parallel", n) for n in widths]
    rows = {}
    for label, draft, n in modes:
        name = f"{label}-{latency:g}".replace(" ", "-").replace(".", "_")
        rows[label] = one_run(work, name, latency, draft, n)
    base = rows["sequential"]
    bound = 2 * latency
    print(f"\nlatency {latency:g} s a call and a page; {SECTIONS} sections; "
          f"load {open('/proc/loadavg').read().split()[0]}")  # fmt: skip
    print("| mode | run wall | research + drafting | critical path | ratio to it | "
          "bound at this width | ratio to that | speed-up vs sequential | calls | pages fetched | "
          "evidence |")  # fmt: skip
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for (label, _, n), r in zip(modes, rows.values(), strict=True):
        assert r["outline"] == base["outline"], f"{label}: another outline"
        # no schedule runs more than n calls at once: the searches' page fetches in waves, then
        # the sections in waves (module docstring)
        waves = -(-SEARCHES // n) * -(-PAGES // n) + -(-SECTIONS // n)
        capped = latency * waves if n > 1 else 0.0  # (sequential: not this)
        ratio = f"{r['phase'] / bound:.2f}×" if bound else "-"
        to_cap = f"{r['phase'] / capped:.2f}×" if capped else "-"
        speed = f"{base['wall'] / r['wall']:.2f}×"
        print(f"| {label} | {r['wall']:.2f} s | {r['phase']:.2f} s | {bound:.1f} s | {ratio} | "
              f"{f'{capped:.1f} s' if capped else '-'} | {to_cap} | {speed} | {r['calls']} | {r['pages']} | "
              f"{r['evidence']} |")  # fmt: skip
    default = rows.get(f"parallel c{DEFAULT}")
    if not bound:
        return True
    at_width = all(r["phase"] / (latency * (-(-SEARCHES // n) * -(-PAGES // n) + -(-SECTIONS // n))) <= 1.1
                   for (label, _, n), r in zip(modes, rows.values(), strict=True) if n > 1)  # fmt: skip
    return at_width and (default is None or default["phase"] / bound <= 1.3)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--latency", type=float, default=1.0)
    parser.add_argument("--concurrency", type=int, nargs="+", default=[4, 6, 8])
    opts = parser.parse_args()
    loopback_only(os.environ.__setitem__, lambda var: os.environ.pop(var, None),
                  OPENAI_API_KEY="sk-test", REFLECTCLI_BACKOFF="0")  # fmt: skip
    with tempfile.TemporaryDirectory(prefix="reflect-parallel-") as tmp:
        work = Path(tmp)
        os.chdir(work)
        one_run(work, "warm-up", 0.0, "parallel", 4)  # imports litellm, fills caches
        met = table(work, opts.latency, opts.concurrency)
        table(work, 0.0, opts.concurrency)
    print(f"\ntarget: research + drafting ≤ 1.1× the bound at each width, and ≤ 1.3× the critical path "
          f"at the default width for remote models (c{DEFAULT}), at {opts.latency:g} s: "
          f"{'MET' if met else 'NOT MET'}")  # fmt: skip
    return 0 if met else 1


if __name__ == "__main__":
    sys.exit(main())
