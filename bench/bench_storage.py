"""Database bytes per finished run, divided by the bytes of all its texts (versions + reviews).

N runs on a zero-latency scripted model (4 sections of realistic length, 3 rounds), once with
the compaction a finished run gets, once without it (Store.compact disabled), each into its own
fresh runs_dir. Bytes are the pages SQLite actually uses (page_count - freelist_count, after a
WAL checkpoint), divided by N; the file size is printed too. Target: <= 2x the texts with
compaction.

    python bench/bench_storage.py [--runs 10]
"""

from __future__ import annotations

import argparse
import io
import json
import sqlite3
import tempfile
from pathlib import Path

from rich.console import Console

from reflectcli.config import load_settings
from reflectcli.models.fake import FakeClient, ScriptedResponder, install_fake, prose
from reflectcli.output.render import Renderer
from reflectcli.runner import Runner
from reflectcli.store.db import Store


class LongResponder(ScriptedResponder):
    """Sections of about 1,400 characters of distinct sentences (a repeated one would be cut
    as a loop, and would not be the shape of a real article)."""

    def __call__(self, step, messages):
        if step.startswith("draft"):
            n = int(step.split(":s")[1])
            return f"{prose(n, 14)} {prose(n + 5, 14)} ({step})"
        return super().__call__(step, messages)


def one_batch(runs_dir: Path, runs: int, compact: bool) -> tuple[int, int, int]:
    fake = FakeClient(responder=LongResponder(scores=[6, 7, 8.5], sections=4))
    undo = install_fake("fake", lambda model: fake)
    original = Store.compact
    if not compact:
        Store.compact = lambda self, thread_id: None
    texts = 0
    try:
        settings = load_settings(flags={"model": "fake/w", "runs_dir": str(runs_dir),
                                        "threshold": 8})  # fmt: skip
        ui = Renderer(console=Console(file=io.StringIO()), quiet=True)
        for i in range(runs):
            state = Runner(ui).write(f"Why do writers revise? ({i})", settings).state
            texts += sum(len(v["text"].encode()) for v in state["versions"])
            texts += sum(len(json.dumps(r, ensure_ascii=False).encode()) for r in state["reviews"])
    finally:
        Store.compact = original
        undo()
    return used_bytes(runs_dir), (runs_dir / "reflect.db").stat().st_size, texts


def used_bytes(runs_dir: Path) -> int:
    """Bytes of the pages SQLite uses in runs_dir's database, after a WAL checkpoint."""
    db = sqlite3.connect(runs_dir / "reflect.db")
    db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    page = db.execute("PRAGMA page_size").fetchone()[0]
    used = (db.execute("PRAGMA page_count").fetchone()[0]
            - db.execute("PRAGMA freelist_count").fetchone()[0]) * page  # fmt: skip
    db.close()
    return used


def empty_database(runs_dir: Path) -> int:
    """Used bytes of a database with every migration applied and no run: the schema's own
    pages (about 50 tables and indexes, one page each at least), paid once per database."""
    Store(runs_dir).close()
    return used_bytes(runs_dir)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=10)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        schema = empty_database(Path(tmp) / "runs")
    rows = []
    for compact in (False, True):
        with tempfile.TemporaryDirectory() as tmp:
            used, size, texts = one_batch(Path(tmp) / "runs", args.runs, compact)
        rows.append((compact, (used - schema) / args.runs, used / args.runs, size / args.runs,
                     texts / args.runs))  # fmt: skip
    print(f"{args.runs} finished runs each (4 sections, 3 rounds, 3 versions, 3 reviews); "
          f"the empty database (schema only) uses {schema:,} bytes")  # fmt: skip
    print(f"{'':22} {'bytes/run':>12} {'incl. schema':>13} {'file/run':>10} {'texts/run':>10} "
          f"{'ratio':>7} {'incl. schema':>13}")  # fmt: skip
    for compact, per_run, used, size, texts in rows:
        name = "with compaction" if compact else "without compaction"
        print(f"{name:22} {per_run:12,.0f} {used:13,.0f} {size:10,.0f} {texts:10,.0f} "
              f"{per_run / texts:7.2f} {used / texts:13.2f}")  # fmt: skip
    ratio = rows[1][1] / rows[1][4]
    print(
        f"target: a finished run's bytes <= 2x its texts with compaction: "
        f"{'met' if ratio <= 2 else 'MISSED'} ({ratio:.2f}x; with the schema's pages shared "
        f"over {args.runs} runs {rows[1][2] / rows[1][4]:.2f}x; compaction saves "
        f"{1 - rows[1][1] / rows[0][1]:.0%})"
    )


if __name__ == "__main__":
    main()
