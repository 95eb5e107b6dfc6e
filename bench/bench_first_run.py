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
- no outline title that cannot head a part of the task (writing/titles.py, strict; a question
  heading by writing/questions.py's rule, after the questions before it);
- no prompt text in the final article, measured outside the guards that cleaned it: the run's
  model calls are recorded as sent (bench/_record_prompts.py, at the journal's client), and no
  section of the final article may share a word 4-gram with the prompts' own wording (every
  message with the data it quotes taken out: bench/_prompt_overlap.py); nor the prompts'
  delimiters (`<section>`, `<article>`);
- the stop reason, rounds, calls, tokens, each of the checklist's findings, and the article's
  first lines.

Target: <= 60 s wall per run on 2 idle cores with the model cached. Reports the load beside
each time; a busy machine is slower (see README: the embedded model's threads follow the load).

With `--keep DIR` each run's recorded calls and final state are kept there; `--measure DIR
--texts FOLDER...` then measures the prompt-text check itself on human text (Markdown files
nobody on the project wrote): how many texts it flags (false positives) and how many it catches
when one sentence of the prompts' wording is planted in them, for n = 3 to 8.

With `--varied` (or `--tasks T ...`) it makes one first run per task instead, over varied tasks
(`VARIED`: seven English ones, a Chinese, an Arabic and an emoji-only one), and reports per run
and in total (issue 35, part 5): where the outline came from (the model's own or the generic
fallback) and the share that is the model's own; the sections the model planned and those kept;
the language asked (`--lang`, else the task's) and the language written (writing/languages.py
`written_language` on the final article); and every line of the final article a reader would
call junk: prompt text (the 4-gram check above), markup (tags, fences, JSON, `Title:` labels,
headings not in the outline), loops, placeholder titles, and talk about the writing ("In this
essay ..."). `--code DIR` runs another checkout's code (e.g. a worktree at main, for a baseline)
with this bench's checks.

    python bench/bench_first_run.py [--runs 3] [--fresh-venv] [--keep DIR]
    python bench/bench_first_run.py --varied [--tasks T ...] [--lang zh] [--code DIR]
    python bench/bench_first_run.py --measure DIR --texts FOLDER [FOLDER ...]
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

import _prompt_overlap as overlap  # noqa: E402

from reflectcli.writing.languages import language_named, written_language  # noqa: E402
from reflectcli.writing.questions import question_problem  # noqa: E402
from reflectcli.writing.schemas import not_a_critique, placeholder  # noqa: E402
from reflectcli.writing.textops import find_loop, section_bodies  # noqa: E402
from reflectcli.writing.titles import title_problem  # noqa: E402

TASK = "Why do writers revise their drafts?"
TARGET = 60.0
VARIED = (  # --varied: first runs over varied tasks (none of them used to design the plan prompt)
    TASK,
    "Explain how HTTPS keeps data private",
    "How do bees make honey?",
    "The causes of the French Revolution",
    "Should schools teach chess?",
    "What is a black hole?",
    "Tips for learning a second language as an adult",
    "为什么作家要修改他们的草稿？",
    "لماذا يراجع الكتاب مسوداتهم؟",
    "🌍🔥🌊",
)


def fresh_venv(where: Path) -> Path:
    """A new virtual environment with the package installed as the README says; its python."""
    started = time.monotonic()
    subprocess.run([sys.executable, "-m", "venv", str(where)], check=True)
    python = where / "bin" / "python"
    subprocess.run([str(python), "-m", "pip", "install", "-q", "--disable-pip-version-check", str(ROOT)],
                   check=True)  # fmt: skip
    print(f"fresh venv: pip install . took {time.monotonic() - started:.0f}s")
    return python


def run_once(runs: Path, python: str = sys.executable, task: str = TASK, lang: str | None = None,
             code: Path | None = None) -> dict:  # fmt: skip
    """One `reflectcli write TASK` in a fresh process; `code`: another checkout's package runs
    (from that folder, so its ./config.toml is read)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("REFLECTCLI_") and k != "PYTHONPATH"}
    env["NO_COLOR"] = "1"
    if code is not None:
        env["PYTHONPATH"] = str(code)
    load_before = os.getloadavg()[0]
    started = time.monotonic()
    recorded = runs.parent / "calls.jsonl"
    proc = subprocess.run(  # `python -m reflectcli write ...`, each call's messages recorded as sent
        [python, str(ROOT / "bench" / "_record_prompts.py"), str(recorded), "write", task, "--runs-dir",
         str(runs), *(["--lang", lang] if lang else [])],
        cwd=code or ROOT, env=env, capture_output=True, text=True, timeout=1800,
    )  # fmt: skip
    wall = time.monotonic() - started
    if proc.returncode != 0:
        raise SystemExit(f"exit {proc.returncode}:\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}")
    with sqlite3.connect(runs / "reflect.db") as db:
        state = json.loads(db.execute("SELECT state FROM run_state").fetchone()[0])
    calls = [json.loads(line) for line in recorded.read_text("utf-8").splitlines()]
    return {"wall": wall, "load": (load_before, os.getloadavg()[0]), "state": state, "calls": calls,
            "stdout": proc.stdout}  # fmt: skip


def prompt_grams(state: dict, calls: list[dict], n: int = overlap.N) -> set:
    """The n-grams of the prompts' own wording in the calls the run sent."""
    return overlap.instruction_grams(calls, state, n)


def check(state: dict, calls: list[dict]) -> list[str]:
    problems = []
    sent = prompt_grams(state, calls)
    titles = [s["title"] for s in state["outline"]["sections"]]
    bad = [t for t in titles if placeholder(t)]
    if bad or len({t.lower() for t in titles}) != len(titles):
        problems.append(f"placeholder or duplicate titles: {titles}")
    if state["outline"].get("source") != "fallback":
        sections = state["outline"]["sections"]
        off = [s["title"] for i, s in enumerate(sections)  # a question heading: the questions' rule
               if (question_problem(s["title"], state["task"], [x["title"] for x in sections[:i]])
                   if s["title"].endswith("?") and not s.get("goal")
                   else title_problem(s["title"], state["task"], s.get("goal", ""), True))]  # fmt: skip
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
        elif leaked := overlap.leaks(body, sent):
            problems.append(f"section {title!r}: prompt text left in it: {leaked}")
    for review in state["reviews"]:
        if review["source"] != "fallback" and not_a_critique(review["feedback"], 4):
            problems.append(f"round {review['round']}: feedback is not a critique")
    return problems


_MARKUP = re.compile(
    r"</?[a-z][\w-]*>|```|^\s*[{\[]\s*\"|\"(title|goal|questions|sections)\"\s*:|"
    r"^\s*(title|goal|section|article|question|answer|topic)\s*\d*\s*:|\[S\d+\]",
    re.I,
)
_ABOUT_WRITING = re.compile(  # talk about the writing instead of the subject
    r"\b(in this (essay|article|section|paragraph|post|piece)|this (essay|article|section|"
    r"paragraph|piece) (will|explores|discusses|examines|aims|is about)|as an ai\b|i will (discuss|"
    r"explain|write|explore)|here is (a|an|the) (paragraph|section|article|essay)|(the|this) "
    r"original text\b)",
    re.I,
)


def final_text(state: dict) -> str:
    return next(v["text"] for v in state["versions"] if v["n"] == state["final_version"])


def junk(state: dict, calls: list[dict]) -> list[tuple[str, str]]:
    """Every line of the final article a reader would call junk, as (what, the line): prompt text
    (a word 4-gram of the prompts sent), markup, a loop, talk about the writing; and each
    placeholder title. The article's own headings (the outline's titles) are not junk."""
    sent = prompt_grams(state, calls)
    titles = [sec["title"] for sec in state["outline"]["sections"]]
    found = [("placeholder title", t) for t in titles if placeholder(t)]
    for title, body in zip(titles, section_bodies(final_text(state), titles), strict=True):
        if body is None:
            found.append(("missing section", title))
            continue
        if (loop := find_loop(body)) is not None:
            found.append(("loop", str(loop)[:120]))
        for line in filter(str.strip, body.splitlines()):
            if leaked := overlap.leaks(line, sent):
                found.append(("prompt text", f"{line[:160]}  <- {leaked}"))
            if line.lstrip().startswith("#") or _MARKUP.search(line):
                found.append(("markup", line[:160]))
            if _ABOUT_WRITING.search(line):
                found.append(("about the writing", line[:160]))
    return found


def varied(opts: argparse.Namespace) -> None:
    """One first run per task: the outline's source and sections, the language, the junk."""
    tasks = opts.tasks or list(VARIED)
    code = f" (code: {opts.code})" if opts.code else ""
    print(f"{len(tasks)} first runs on {os.cpu_count()} cores{code}, lang {opts.lang or 'as the task'}")
    own = planned = kept = junk_lines = 0
    walls = []
    for i, task in enumerate(tasks, 1):
        with tempfile.TemporaryDirectory() as tmp:
            result = run_once(Path(tmp) / "runs", task=task, lang=opts.lang, code=opts.code)
        state, calls = result["state"], result["calls"]
        walls.append(result["wall"])
        outline = state["outline"]
        titles = [sec["title"] for sec in outline["sections"]]
        dropped = [e["note"] for e in state["trace"] if e.get("kind") == "title_dropped"]
        mine = outline["source"] != "fallback"
        own += mine
        planned += (len(titles) + len(dropped)) if mine else 0
        kept += len(titles) if mine else 0
        asked = language_named(opts.lang) if opts.lang else (written_language(task) or "none told")
        found = junk(state, calls)
        junk_lines += len(found)
        written = written_language(final_text(state))
        print(f"run {i}: {task!r} · {result['wall']:.0f}s (load {result['load'][0]:.2f} → "
              f"{result['load'][1]:.2f}) · outline {'own' if mine else 'FALLBACK'} ({outline['source']}"
              f"): {len(titles) + len(dropped) if mine else 0} planned, {len(titles)} kept · language "
              f"asked {asked}, written {written} · junk lines: {len(found)}")  # fmt: skip
        print(f"  outline: {' | '.join(titles)}")
        for note in dropped:
            print(f"  dropped: {note}")
        for what, line in found:
            print(f"  junk [{what}] {line}")
        header = [line for line in result["stdout"].splitlines()[:4] if "embedded model" in line]
        for line in header:
            print(f"  notice: {line.strip()}")
    print(f"total: outline the model's own in {own}/{len(tasks)} ({own / len(tasks):.0%}); sections "
          f"planned {planned}, kept {kept} (of the model's own outlines); junk lines {junk_lines}; "
          f"median wall {statistics.median(walls):.0f}s")  # fmt: skip


def _texts(folder: Path) -> list[Path]:
    """A folder's human Markdown texts (of a revisions corpus, the newer version of each pair)."""
    newer = sorted(folder.rglob("*.new.md"))
    return newer or sorted(folder.rglob("*.md"))


# the check before issue 40, the baseline: the echo guard's own patterns, and six phrases
OLD_PHRASES = ("Keep what is good", "No title, no list", "Write in the same language",
               "Use a concrete example", "as one paragraph of about", "Make these changes")  # fmt: skip


def old_check(text: str) -> bool:
    from reflectcli.writing.echo import strip_echo

    return bool(strip_echo(text).removed) or any(p.lower() in text.lower() for p in OLD_PHRASES)


def measure(kept: Path, folders: list[Path]) -> None:
    """The prompt-text check on human text: flagged texts (false positives), and texts caught
    with one sentence of the prompts' wording planted between two of their paragraphs; beside
    it, the check it replaces (the guard's own patterns) on the same texts."""
    import random

    from reflectcli.writing.claims import sentences

    runs = [(json.loads((d / "state.json").read_text("utf-8")),
             [json.loads(line) for line in (d / "calls.jsonl").read_text("utf-8").splitlines()])
            for d in sorted(kept.glob("run-*"))]  # fmt: skip
    planted = sorted({s for state, calls in runs for run in overlap.instructions(calls, state)
                      for line in run.splitlines() for s in sentences(line)
                      if len(overlap.tokens(s)) >= 3})  # fmt: skip
    print(
        f"{len(runs)} recorded run(s) in {kept}: {sum(len(c) for _, c in runs)} calls; "
        f"{len(planted)} sentences of the prompts' own wording (3 words or more) to plant"
    )
    for folder in folders:
        texts = [p.read_text("utf-8", errors="replace") for p in _texts(folder)]
        print(f"\n{folder}: {len(texts)} human texts")
        rng = random.Random(40)
        mixed = []
        for text in texts:
            parts = text.split("\n\n")
            at = rng.randrange(len(parts) + 1)
            mixed.append("\n\n".join(parts[:at] + [rng.choice(planted)] + parts[at:]))
        print(
            f"  baseline (the guard's patterns): flags {sum(map(old_check, texts))}/{len(texts)} human "
            f"texts; catches {sum(map(old_check, mixed))}/{len(texts)} with a planted sentence"
        )
        for n in (3, 4, 5, 6, 8):
            sent = set().union(*(prompt_grams(state, calls, n) for state, calls in runs))
            flagged = [overlap.leaks(t, sent, n) for t in texts]
            rng, caught, long = random.Random(40), 0, 0
            for text in texts:
                sentence = rng.choice(planted)
                parts = text.split("\n\n")
                at = rng.randrange(len(parts) + 1)
                mixed = "\n\n".join(parts[:at] + [sentence] + parts[at:])
                caught += bool(overlap.leaks(mixed, sent, n))
                long += len(overlap.tokens(sentence)) >= n
            examples = sorted({span for spans in flagged for span in spans})[:4]
            shown = f" e.g. {examples!r}" if examples else ""
            print(f"  n = {n}: flags {sum(map(bool, flagged))}/{len(texts)} human texts "
                  f"({sum(map(bool, flagged)) / len(texts):.0%}){shown}; "
                  f"catches {caught}/{len(texts)} with a planted sentence ({caught / len(texts):.0%}; "
                  f"{long} of those sentences have {n} words or more)")  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--fresh-venv", action="store_true", help="install into a new venv first")
    parser.add_argument("--keep", type=Path, help="keep each run's recorded calls and state here")
    parser.add_argument("--measure", type=Path, help="a --keep folder: measure the prompt-text check")
    parser.add_argument("--texts", type=Path, nargs="*", default=[], help="folders of human Markdown texts")
    parser.add_argument("--varied", action="store_true", help="one first run per task of VARIED")
    parser.add_argument("--tasks", nargs="+", help="with --varied: these tasks instead")
    parser.add_argument("--lang", help="with --varied: pass --lang")
    parser.add_argument("--code", type=Path, help="with --varied: run this checkout's code")
    opts = parser.parse_args()
    if opts.measure:
        measure(opts.measure, opts.texts)
        return
    from reflectcli.models.local import ensure_embedded_model

    ensure_embedded_model()  # the one-time download is not part of the timing
    if opts.varied or opts.tasks:
        varied(opts)
        return
    print(f"{TASK!r} on {os.cpu_count()} cores, {opts.runs} runs (the model's sampling varies)")
    walls, failed = [], 0
    venv = tempfile.TemporaryDirectory(prefix="reflectcli-venv-") if opts.fresh_venv else None
    python = str(fresh_venv(Path(venv.name))) if venv else sys.executable
    for i in range(opts.runs):
        with tempfile.TemporaryDirectory() as tmp:
            result = run_once(Path(tmp) / "runs", python)
        state = result["state"]
        if opts.keep:
            where = opts.keep / f"run-{time.strftime('%Y%m%d-%H%M%S')}-{i + 1}"
            where.mkdir(parents=True, exist_ok=True)
            (where / "state.json").write_text(json.dumps(state, ensure_ascii=False), "utf-8")
            (where / "calls.jsonl").write_text("".join(json.dumps(c, ensure_ascii=False) + "\n"
                                                       for c in result["calls"]), "utf-8")  # fmt: skip
        calls = [e for e in state["trace"] if "step" in e]
        problems = check(state, result["calls"])
        failed += bool(problems)
        walls.append(result["wall"])
        sources = ",".join(r["source"] for r in state["reviews"])
        critic_calls = sum(1 for e in calls if e["step"].startswith("review"))
        echoes = sum(len(e.get("removed") or []) for e in state["trace"] if e.get("kind") == "echo")
        print(
            f"run {i + 1}: {result['wall']:.1f}s wall (load {result['load'][0]:.2f} → "
            f"{result['load'][1]:.2f}) · {state['stop_reason']} · {len(state['reviews'])} rounds "
            f"· {len(calls)} calls · {sum(e['prompt_tokens'] + e['completion_tokens'] for e in calls)}"
            f" tokens · reviews {sources} ({critic_calls} critic calls) · {echoes} echo pieces removed by "
            f"the guard · {len(result['calls'])} calls recorded as sent · "
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
