"""The source library's speed: ingesting generated pages, and searching a large index.

1. Ingest: 1,000 Markdown pages (one file each, ~2,500 characters of distinct sentences) and
   1,000 PDF pages (20 files of 50 pages, ~25 lines of text a page), each through
   `sources add` on a folder (read, chunk, index, one transaction per file), timed end to end
   into a fresh database. Targets on this machine: >= 200 pages/s Markdown, >= 20 pages/s PDF.
   As a baseline measured in the same run: reading the same files' bytes (the floor any
   ingester pays), to put the figures in proportion.
2. Search: 100,000 chunks (~600 characters each) in one library, written directly; then 200
   queries of 1-3 words drawn with the text's own word frequencies (a vocabulary of 20,000
   words with Zipf-like frequencies, as prose has: common words match most chunks) through
   `library.search` (connection opened per query, as each `sources search` does).
   Target: p95 <= 50 ms.

    python bench/bench_sources.py
"""

from __future__ import annotations

import itertools
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from reflectcli.sources import library  # noqa: E402
from reflectcli.sources.chunking import searchable  # noqa: E402
from reflectcli.store.db import Store  # noqa: E402
from reflectcli.store.library import Library  # noqa: E402
from tests.corpus import text_pdf  # noqa: E402

WORDS = ("press type ink paper guild mainz printer letter metal mould psalter bible folio "
         "quarto vellum binding margin column rubric woodcut engraving proof compositor "
         "forme platen screw chase galley sort matrix punch alloy lead tin antimony").split()  # fmt: skip


def vocabulary(rng: random.Random, size: int = 20000) -> tuple[list[str], list[float]]:
    """Words with Zipf-like frequencies, as in real prose: a few very common, most rare."""
    letters = "abcdefghijklmnoprstuvwy"
    made = {w for w in WORDS}
    while len(made) < size:
        made.add("".join(rng.choice(letters) for _ in range(rng.randint(3, 10))))
    words = sorted(made)
    rng.shuffle(words)
    weights = [1.0 / (rank + 1) for rank in range(len(words))]
    return words, list(itertools.accumulate(weights))


VOCAB: tuple[list[str], list[float]] | None = None


def sentence(rng: random.Random) -> str:
    global VOCAB
    if VOCAB is None:
        VOCAB = vocabulary(random.Random(11))
    words = rng.choices(VOCAB[0], cum_weights=VOCAB[1], k=rng.randint(8, 14))
    return " ".join(words).capitalize() + "."


def page(rng: random.Random, chars: int) -> str:
    out = []
    while sum(len(s) + 1 for s in out) < chars:
        out.append(sentence(rng))
    return " ".join(out)


def ingest(tmp: Path, rng: random.Random) -> None:
    md = tmp / "md"
    md.mkdir()
    for i in range(1000):
        (md / f"page{i:04d}.md").write_text(f"# Page {i}\n\n{page(rng, 2500)}\n")
    pdf = tmp / "pdf"
    pdf.mkdir()
    for f in range(20):
        pages = [[sentence(rng)[:90] for _ in range(25)] for _ in range(50)]
        (pdf / f"book{f:02d}.pdf").write_bytes(text_pdf(pages))
    for name, folder, pages, target in (("Markdown", md, 1000, 200), ("PDF", pdf, 1000, 20)):
        started = time.perf_counter()
        raw = sum(len(p.read_bytes()) for p in folder.iterdir())
        floor = time.perf_counter() - started
        started = time.perf_counter()
        outcomes = library.add(tmp / f"runs-{name}", [str(folder)])
        took = time.perf_counter() - started
        assert all(o.status == "added" for o in outcomes), outcomes[:3]
        chunks = sum(o.chunks for o in outcomes)
        rate = pages / took
        print(f"ingest {name}: {pages} pages ({raw / 1e6:.1f} MB, {len(outcomes)} files, {chunks} "
              f"chunks) in {took:.2f}s = {rate:.0f} pages/s (target >= {target}: "
              f"{'met' if rate >= target else 'BELOW TARGET'}); reading the bytes alone "
              f"{floor * 1000:.0f} ms")  # fmt: skip


def search(tmp: Path, rng: random.Random) -> None:
    runs = tmp / "runs-search"
    store = Store(runs)
    lib = Library(store.conn)
    started = time.perf_counter()
    for s in range(1000):  # 1,000 sources of 100 chunks
        chunks = []
        for c in range(100):
            text = page(rng, 600)
            chunks.append({"text": text, "page": c + 1, "heading": None, "start": c * 600,
                           "end": c * 600 + len(text), "body": searchable(text)})  # fmt: skip
        lib.save({"kind": "md", "location": f"/bench/{s}.md", "title": f"Source {s}",
                  "content_hash": str(s), "chars": 60000}, chunks)  # fmt: skip
    store.close()
    print(f"indexed 100,000 chunks in {time.perf_counter() - started:.1f}s")
    timings = []
    hits = 0
    words, cumulative = VOCAB
    for _ in range(200):  # query words drawn as they occur in the text (common ones often)
        query = " ".join(rng.choices(words, cum_weights=cumulative, k=rng.randint(1, 3)))
        started = time.perf_counter()
        found = library.search(runs, query, limit=10)
        timings.append((time.perf_counter() - started) * 1000)
        hits += bool(found)
    timings.sort()
    p95 = timings[int(0.95 * (len(timings) - 1))]
    print(f"search at 100,000 chunks: median {statistics.median(timings):.1f} ms, p95 {p95:.1f} ms, "
          f"max {timings[-1]:.1f} ms over 200 queries ({hits} with hits) (target p95 <= 50 ms: "
          f"{'met' if p95 <= 50 else 'ABOVE TARGET'})")  # fmt: skip


def main() -> None:
    rng = random.Random(7)
    with tempfile.TemporaryDirectory() as tmp:
        ingest(Path(tmp), rng)
        search(Path(tmp), rng)


if __name__ == "__main__":
    main()
