"""Reflection memory: does a learned lesson save rounds, does merging keep the bank small, and is
recall fast at 10,000 lessons.

1. Rounds. A scripted scenario through the real runner (zero-latency fake model): the critic
   asks for the same fix ("add a concrete example") until the draft has one; the writer gives
   one when a recalled lesson asks for it (or when revising for that improvement). 10 tasks in
   a row with memory, and the same 10 in another runs folder with --no-memory. Target: the
   runs after the first reach the threshold in >= 25 % fewer rounds with memory.
2. Growth. 50 runs whose critiques are drawn (seeded) from 8 recurring themes, each said in 3
   different words; every run revises once and passes, so each critique "worked". Lessons in
   the bank after each run. Target: after the first 10 runs, at most 1 new lesson per 3 runs
   (merging works).
3. Recall. 10,000 lessons written in one bank (random rules over a 2,000-word vocabulary),
   then 200 recalls for random tasks, each through `Memory.recall` (a transaction that also
   archives decayed lessons and counts uses), as a run starts. Target: p95 <= 20 ms.

    python bench/bench_memory.py
"""

from __future__ import annotations

import io
import json
import random
import re
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from rich.console import Console  # noqa: E402

from reflectcli.config import load_settings  # noqa: E402
from reflectcli.memory.bank import Memory  # noqa: E402
from reflectcli.models.fake import TITLES, FakeClient, LessonScenario, install_fake, outline_json  # noqa: E402
from reflectcli.output.render import Renderer  # noqa: E402
from reflectcli.runner import Runner  # noqa: E402
from reflectcli.store.db import Store  # noqa: E402
from reflectcli.store.memory import MemoryTables  # noqa: E402
from reflectcli.writing.textops import searchable  # noqa: E402

TASKS = ["Why do writers revise?", "How do editors read a draft?", "What makes an opening work?",
         "Why do long sentences tire readers?", "How should a report end?", "What is a lede?",
         "Why cut adverbs?", "How to structure an explainer?", "What makes an argument land?",
         "Why do examples persuade?"]  # fmt: skip
THEMES = [
    ("Add a concrete example to every section.", "Give each section a concrete example.",
     "Support every section with one concrete example."),
    ("Shorten the introduction to two sentences.", "Cut the introduction down to two sentences.",
     "Make the introduction two sentences shorter."),
    ("Define each technical term when it first appears.",
     "Explain technical terms the first time they appear.",
     "Give a definition for every technical term at first use."),
    ("End with a clear takeaway for the reader.", "Close with one clear takeaway for readers.",
     "Finish the article with a clear takeaway."),
    ("Replace vague adjectives with numbers.", "Use numbers instead of vague adjectives.",
     "Swap vague adjectives for concrete numbers."),
    ("Cite a source for each statistic.", "Give the source of every statistic.",
     "Name a source for each statistic quoted."),
    ("Break long paragraphs into shorter ones.", "Split the long paragraphs into short ones.",
     "Divide each long paragraph into shorter paragraphs."),
    ("Order the sections from cause to effect.", "Arrange sections from cause to effect.",
     "Put the sections in cause then effect order."),
]  # fmt: skip


def quiet() -> Renderer:
    return Renderer(console=Console(file=io.StringIO()), quiet=True)


def run(runs_dir: Path, task: str, **flags):
    settings = load_settings(flags={"model": "fake/w", "runs_dir": str(runs_dir), "max_sections": 2,
                                    "max_rounds": 3, "threshold": 8, **flags})  # fmt: skip
    return Runner(quiet()).write(task, settings)


def rounds(tmp: Path) -> bool:
    client = FakeClient(responder=LessonScenario())
    undo = install_fake("fake", lambda model: client)
    try:
        with_memory = [run(tmp / "with", t).summary["rounds"] for t in TASKS]
        without = [run(tmp / "without", t, memory={"enabled": False}).summary["rounds"] for t in TASKS]
    finally:
        undo()
    a, b = statistics.mean(with_memory[1:]), statistics.mean(without[1:])
    saved = 1 - a / b
    print(f"rounds to pass, runs 2-10: with memory {a:.2f}, --no-memory {b:.2f} ({saved:.0%} fewer; "
          f"target >= 25%: {'met' if saved >= 0.25 else 'NOT MET'}); run 1: {with_memory[0]} vs "
          f"{without[0]}")  # fmt: skip
    return saved >= 0.25


def growth(tmp: Path) -> bool:
    rng = random.Random(4)
    asked: list[str] = []

    def respond(step: str, messages) -> str:
        kind = step.split(":")[0]
        if kind == "plan":
            return outline_json(2)
        if kind == "draft":
            return "Writers revise because a draft records thinking, and readers notice it."
        if kind == "review":
            if step == "review:r1":
                asked[:] = [rng.choice(rng.choice(THEMES)) for _ in range(2)]
                return json.dumps({"score": 6, "feedback": "The draft needs work in several places.",
                                   "improvements": [{"section": TITLES[0], "issue": i, "severity": "major"}
                                                    for i in asked]})  # fmt: skip
            return json.dumps({"score": 9, "feedback": "Much better now; the fixes landed well.",
                               "improvements": []})  # fmt: skip
        body = re.search(r"<section>\n(.*)\n</section>", messages[-1]["content"], re.S).group(1)
        return body + " Revised."

    client = FakeClient(responder=respond)
    undo = install_fake("fake", lambda model: client)
    counts = []
    try:
        for n in range(50):
            run(tmp / "growth", f"Task number {n} about writing", memory={"k": 0})
            counts.append(len(Memory(tmp / "growth").list()))
    finally:
        undo()
    late = (counts[-1] - counts[9]) / 40
    print(f"lessons after runs 1, 5, 10, 20, 30, 40, 50: {counts[0]}, {counts[4]}, {counts[9]}, "
          f"{counts[19]}, {counts[29]}, {counts[39]}, {counts[49]} (8 themes x 3 wordings); new "
          f"lessons per run after run 10: {late:.3f} (target <= 0.333: "
          f"{'met' if late <= 1 / 3 else 'NOT MET'})")  # fmt: skip
    return late <= 1 / 3


def recall(tmp: Path) -> bool:
    rng = random.Random(9)
    letters = "abcdefghijklmnoprstuvwy"
    vocab = ["".join(rng.choice(letters) for _ in range(rng.randint(4, 9))) for _ in range(2000)]
    store = Store(tmp / "recall")
    tables = MemoryTables(store.conn)
    now = time.time()
    with store.transaction():
        for _ in range(10_000):
            text = " ".join(rng.choice(vocab) for _ in range(rng.randint(5, 10))).capitalize() + "."
            tables.insert(text, "general", "", rng.uniform(0.5, 5), now - rng.uniform(0, 60) * 86400,
                          "learned", searchable(text))  # fmt: skip
    store.close()
    memory = Memory(tmp / "recall")
    memory.recall("warm up", k=3)
    timings = []
    for _ in range(200):
        task = " ".join(rng.choice(vocab) for _ in range(rng.randint(3, 8)))
        started = time.perf_counter()
        memory.recall(task, k=3)
        timings.append((time.perf_counter() - started) * 1000)
    timings.sort()
    p95 = timings[int(0.95 * (len(timings) - 1))]
    print(
        f"recall at 10,000 lessons: median {statistics.median(timings):.1f} ms, p95 {p95:.1f} ms "
        f"over 200 recalls (target p95 <= 20 ms: {'met' if p95 <= 20 else 'ABOVE TARGET'})"
    )
    return True


def main() -> int:
    with tempfile.TemporaryDirectory() as tmp:
        ok = rounds(Path(tmp))
        ok = growth(Path(tmp)) and ok
        recall(Path(tmp))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
