"""The README's first command, as a new user runs it: `reflectcli write "Why do writers revise
their drafts?"` on the embedded model (fetched beforehand: the download is not timed), in a fresh
process from the repository root (so ./config.toml is read), into a temp runs folder. With
`--fresh-venv` the package is first installed into a new virtual environment (`pip install .`,
timed apart) and that environment's `reflectcli` runs, as on a new machine.

Per run it prints the wall time, the machine's 1-minute load average before and after, and
checks what a reader would see:

- no placeholder among the outline's titles (`Title1`, `Section 2`, `<title>`, duplicates ...);
- no drafted section stopped by the token cap (`finish_reason == "length"`), no loop left in
  any section of the final article (textops.find_loop);
- every review either the critic's (`llm`, `llm-retry`, `checklist`) with feedback that is a
  critique, or a flagged `fallback`; how many reviews called a model (the checklist calls none);
- no outline title that cannot head a part of the task (writing/titles.py, strict);
- no prompt text in the final article: nothing `strip_echo` would still remove (labels, tags,
  chatter), and none of the tiny prompts' own instruction sentences;
- the stop reason, rounds, calls, tokens, each of the checklist's findings, and the article's
  first lines.

Target: <= 60 s wall per run on 2 idle cores with the model cached. Reports the load beside
each time; a busy machine is slower (see README: the embedded model's threads follow the load).

    python bench/bench_first_run.py [--runs 3] [--fresh-venv]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from reflectcli.writing.echo import strip_echo  # noqa: E402
from reflectcli.writing.schemas import not_a_critique, placeholder  # noqa: E402
from reflectcli.writing.textops import find_loop, section_bodies  # noqa: E402
from reflectcli.writing.titles import title_problem  # noqa: E402

TASK = "Why do writers revise their drafts?"
TARGET = 60.0
# the tiny prompts' own instructions: none may stand in an article
INSTRUCTIONS = ("Keep what is good", "No title, no list", "Write in the same language",
                "Use a concrete example", "as one paragraph of about", "Make these changes")  # fmt: skip


def fresh_venv(where: Path) -> Path:
    """A new virtual environment with the package installed as the README says; its python."""
    started = time.monotonic()
    subprocess.run([sys.executable, "-m", "venv", str(where)], check=True)
    python = where / "bin" / "python"
    subprocess.run([str(python), "-m", "pip", "install", "-q", "--disable-pip-version-check", str(ROOT)],
                   check=True)  # fmt: skip
    print(f"fresh venv: pip install . took {time.monotonic() - started:.0f}s")
    return python


def run_once(runs: Path, python: str = sys.executable) -> dict:
    env = {k: v for k, v in os.environ.items() if not k.startswith("REFLECTCLI_") and k != "PYTHONPATH"}
    env["NO_COLOR"] = "1"
    load_before = os.getloadavg()[0]
    started = time.monotonic()
    proc = subprocess.run(
        [python, "-m", "reflectcli", "write", TASK, "--runs-dir", str(runs)],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=1800,
    )  # fmt: skip
    wall = time.monotonic() - started
    if proc.returncode != 0:
        raise SystemExit(f"exit {proc.returncode}:\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}")
    with sqlite3.connect(runs / "reflect.db") as db:
        state = json.loads(db.execute("SELECT state FROM run_state").fetchone()[0])
    return {"wall": wall, "load": (load_before, os.getloadavg()[0]), "state": state,
            "stdout": proc.stdout}  # fmt: skip


def check(state: dict) -> list[str]:
    problems = []
    titles = [s["title"] for s in state["outline"]["sections"]]
    bad = [t for t in titles if placeholder(t)]
    if bad or len({t.lower() for t in titles}) != len(titles):
        problems.append(f"placeholder or duplicate titles: {titles}")
    if state["outline"].get("source") != "fallback":
        off = [s["title"] for s in state["outline"]["sections"]
               if title_problem(s["title"], state["task"], s.get("goal", ""), strict=True)]  # fmt: skip
        if off:
            problems.append(f"titles that cannot head a part of the task: {off}")
    capped = [e["step"] for e in state["trace"] if e.get("node") == "draft"
              and e.get("finish_reason") == "length"]  # fmt: skip
    if capped:
        problems.append(f"sections at the token cap: {capped}")
    final = next(v["text"] for v in state["versions"] if v["n"] == state["final_version"])
    titles = [s["title"] for s in state["outline"]["sections"]]
    for title, body in zip(titles, section_bodies(final, titles), strict=True):
        if body is None or find_loop(body) is not None:
            problems.append(f"section {title!r}: missing, or a loop left in it")
        elif re.search(r"</?(section|article)>", body):
            problems.append(f"section {title!r}: the prompt's delimiters left in it")
        elif strip_echo(body).removed or any(i.lower() in body.lower() for i in INSTRUCTIONS):
            problems.append(f"section {title!r}: prompt text or chatter left in it")
    for review in state["reviews"]:
        if review["source"] != "fallback" and not_a_critique(review["feedback"], 4):
            problems.append(f"round {review['round']}: feedback is not a critique")
    return problems


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--fresh-venv", action="store_true", help="install into a new venv first")
    opts = parser.parse_args()
    from reflectcli.models.local import ensure_embedded_model

    ensure_embedded_model()  # the one-time download is not part of the timing
    print(f"{TASK!r} on {os.cpu_count()} cores, {opts.runs} runs (the model's sampling varies)")
    walls, failed = [], 0
    venv = tempfile.TemporaryDirectory(prefix="reflectcli-venv-") if opts.fresh_venv else None
    python = str(fresh_venv(Path(venv.name))) if venv else sys.executable
    for i in range(opts.runs):
        with tempfile.TemporaryDirectory() as tmp:
            result = run_once(Path(tmp) / "runs", python)
        state = result["state"]
        calls = [e for e in state["trace"] if "step" in e]
        problems = check(state)
        failed += bool(problems)
        walls.append(result["wall"])
        sources = ",".join(r["source"] for r in state["reviews"])
        critic_calls = sum(1 for e in calls if e["step"].startswith("review"))
        echoes = sum(len(e.get("removed") or []) for e in state["trace"] if e.get("kind") == "echo")
        print(
            f"run {i + 1}: {result['wall']:.1f}s wall (load {result['load'][0]:.2f} → "
            f"{result['load'][1]:.2f}) · {state['stop_reason']} · {len(state['reviews'])} rounds "
            f"· {len(calls)} calls · {sum(e['prompt_tokens'] + e['completion_tokens'] for e in calls)}"
            f" tokens · reviews {sources} ({critic_calls} critic calls) · {echoes} echo pieces removed · "
            f"{'OK' if not problems else 'PROBLEMS: ' + '; '.join(problems)}"
        )
        for review in state["reviews"]:
            for imp in review["improvements"]:
                print(f"  r{review['round']} [{imp['severity']}] {imp['issue']}")
        titles = [s["title"] for s in state["outline"]["sections"]]
        print(f"  outline: {' | '.join(titles)}")
        final = next(v["text"] for v in state["versions"] if v["n"] == state["final_version"])
        first = next((line for line in final.splitlines() if line and not line.startswith("#")), "")
        print(f"  article starts: {first[:150]}")
    median = statistics.median(walls)
    verdict = "met" if median <= TARGET else "ABOVE TARGET"
    print(f"median wall {median:.1f}s (target <= {TARGET:.0f}s on idle cores: {verdict}); "
          f"runs with problems: {failed}/{opts.runs}")  # fmt: skip
    if venv:
        venv.cleanup()
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
