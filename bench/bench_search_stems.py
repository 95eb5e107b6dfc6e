"""Known-answer search on a real corpus, with and without stemming.

The corpus is Python's own HTML documentation as Debian ships it (`apt-get install
python3.11-doc`: /usr/share/doc/python3.11/html), every page but the generated copies and
indexes (`_sources/`, `_static/`, `genindex*`, `py-modindex`, `search`). It is indexed once into
a library kept under /work/corpus/pydoc-index (or $REFLECTCLI_BENCH_INDEX), then each query's
answer page is looked for among the ranked chunks (each page counted at its best chunk):
recall@1, recall@5 and MRR over the queries, searched two ways on the same index:

- stemmed: `library.search`, as `sources search` does (Porter-stemmed match, exact forms
  ranked first);
- exact: the same words against the exact-form index only (`chunk_index`, BM25), as before
  migration 010.

The queries were written (with their answer pages) before any was run, in the words a user
would type, inflected forms included; none is tuned to the result.

Then research on the same index for the issue's drifted outline (task "What does
csv.DictReader do...", sections on recipes and pitfalls): for each section, the pages its own
search finds (all research had before) and the passages research keeps now (the section's
search and the task's, above the relevance floor), with the off-task flag.

    python bench/bench_search_stems.py [HTML_DIR]
"""

from __future__ import annotations

import os
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from reflectcli.graph.nodes import Nodes  # noqa: E402
from reflectcli.sources import library  # noqa: E402
from reflectcli.sources.chunking import searchable  # noqa: E402
from reflectcli.sources.research import LocalRetriever  # noqa: E402
from reflectcli.store.db import Store  # noqa: E402
from reflectcli.store.library import HIT_KEYS, Library, fts_query  # noqa: E402

QUERIES = [
    ("reading and writing CSV files", "library/csv.html"),
    ("parsing command line arguments", "library/argparse.html"),
    ("running coroutines concurrently with tasks", "library/asyncio-task.html"),
    ("regular expression matching operations", "library/re.html"),
    ("serializing python objects to bytes", "library/pickle.html"),
    ("creating temporary files and directories", "library/tempfile.html"),
    ("rotating log files handlers", "library/logging.handlers.html"),
    ("dates and times arithmetic timezones", "library/datetime.html"),
    ("spawning subprocesses and connecting pipes", "library/subprocess.html"),
    ("unit testing framework assertions", "library/unittest.html"),
    ("decimal fixed point and floating point arithmetic", "library/decimal.html"),
    ("low-level networking sockets interface", "library/socket.html"),
    ("thread-based parallelism locks", "library/threading.html"),
    ("heap queue algorithm priority queues", "library/heapq.html"),
    ("encoding and decoding JSON", "library/json.html"),
    ("object-oriented filesystem paths", "library/pathlib.html"),
    ("utilities for with-statement contexts", "library/contextlib.html"),
    ("defining enumerations with members", "library/enum.html"),
    ("compressing and decompressing gzip files", "library/gzip.html"),
    ("sorting lists with key functions", "howto/sorting.html"),
    ("handling exceptions raised in try clauses", "tutorial/errors.html"),
    ("generating pseudo-random numbers", "library/random.html"),
]
SKIP = ("_sources", "_static", "_images", "_downloads")
DEPTH = 50  # chunks looked at per query


def pages(html: Path) -> list[Path]:
    """The documentation's own pages (no generated copies, no indexes)."""
    out = []
    for path in sorted(html.rglob("*.html")):
        rel = path.relative_to(html)
        if rel.parts[0] in SKIP or rel.name.startswith(("genindex", "py-modindex", "search")):
            continue
        out.append(path)
    return out


def build(html: Path, runs: Path) -> None:
    files = pages(html)
    started = time.perf_counter()
    outcomes = library.add(runs, [str(p) for p in files])
    took = time.perf_counter() - started
    added = sum(o.status in ("added", "updated", "unchanged") for o in outcomes)
    print(f"indexed {added} of {len(files)} pages in {took:.0f} s ({len(files) / took:.1f} files/s)")


def exact(runs: Path, query: str, limit: int) -> list[dict]:
    """The ranking before stemming: the exact-form index alone (BM25)."""
    store = Store(runs)
    try:
        lib = Library(store.conn)
        words, _ = lib._useful_words(searchable(query))
        match = fts_query(words)
        if match is None:
            return []
        cursor = store.conn.execute(
            "SELECT c.id, c.source_id, s.title, s.location, s.kind, c.page, c.heading, c.text, "
            "bm25(chunk_index) AS rank FROM chunk_index JOIN chunks c ON c.id = chunk_index.rowid "
            "JOIN sources s ON s.id = c.source_id WHERE chunk_index MATCH ? ORDER BY rank LIMIT ?",
            (match, limit),
        )
        return [dict(zip(HIT_KEYS, row, strict=True)) for row in cursor]
    finally:
        store.close()


def rank_of(hits: list[dict], answer: str) -> int | None:
    """1-based rank of the answer page among the pages the hits come from."""
    seen: list[str] = []
    for hit in hits:
        if hit["location"] not in seen:
            seen.append(hit["location"])
    for n, location in enumerate(seen, 1):
        if location.endswith("/" + answer):
            return n
    return None


def score(name: str, search, runs: Path) -> None:
    ranks, times = [], []
    for query, answer in QUERIES:
        started = time.perf_counter()
        hits = search(runs, query, DEPTH)
        times.append((time.perf_counter() - started) * 1000)
        ranks.append(rank_of(hits, answer))
    at1 = sum(r == 1 for r in ranks) / len(ranks)
    at5 = sum(r is not None and r <= 5 for r in ranks) / len(ranks)
    mrr = statistics.mean(1 / r if r else 0 for r in ranks)
    p95 = sorted(times)[int(0.95 * (len(times) - 1))]
    print(f"{name:8} recall@1 {at1:.2f}  recall@5 {at5:.2f}  MRR {mrr:.3f}  p95 {p95:.0f} ms  "
          f"ranks {[r or '-' for r in ranks]}")  # fmt: skip


TASK = "What does csv.DictReader do, and when should you use it?"
OUTLINE = [
    {"title": "Recipes for everyday scripts", "goal": "Show practical recipes that readers can copy"},
    {"title": "Reading rows as dictionaries",
     "goal": "Explain how DictReader maps each row to a dict keyed by the header"},
    {"title": "Common pitfalls", "goal": "Warn about mistakes people make"},
]  # fmt: skip


def research(runs: Path) -> None:
    retriever = LocalRetriever(runs, 3)
    page = lambda e: e["location"].split("/html/")[-1]  # noqa: E731
    for n, section in enumerate(OUTLINE):
        state = {"task": TASK, "plans": 1, "params": {"research": {"sources": "local"}},
                 "outline": {"sections": OUTLINE}, "research": {"plan": 1, "sections": [[]] * n}}  # fmt: skip
        update = Nodes(None, None, retriever).research(state)
        alone = retriever(f"{section['title']} {section['goal']}")["hits"]
        kept = [f"{page(e)} ({'task' if e['query'] == TASK else 'section'})" for e in update["evidence"]]
        flagged = any(e["kind"] == "off_task" for e in update["trace"])
        print(f"section {n + 1} “{section['title']}”: alone {[page(h) for h in alone]}; kept {kept}"
              f"{'; flagged off-task' if flagged else ''}")  # fmt: skip


def main() -> None:
    html = Path(sys.argv[1] if len(sys.argv) > 1 else "/usr/share/doc/python3.11/html")
    if not (html / "library" / "csv.html").is_file():
        print(f"skipped: no Python HTML docs at {html} (apt-get install python3.11-doc)")
        return
    runs = Path(os.environ.get("REFLECTCLI_BENCH_INDEX", "/work/corpus/pydoc-index"))
    if not (runs / "reflect.db").is_file():
        build(html, runs)
    with Store(runs) as store:  # an index built before 010 is upgraded here
        chunks = store.conn.execute("SELECT COUNT(*) FROM chunks").fetchone()[0]
    print(f"{len(QUERIES)} queries over {len(pages(html))} pages, {chunks} chunks")
    score("stemmed", lambda r, q, n: library.search(r, q, limit=n), runs)
    score("exact", exact, runs)
    research(runs)


if __name__ == "__main__":
    main()
