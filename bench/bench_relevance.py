"""Does `--sources auto` use a library only when it holds the task, and does research's
relevance floor keep only passages about it? The words of a task weighed by their rarity in the
library (now) against counted (before: half the task's content words in one passage), both
measured in this run on the same libraries.

Data (real documents, none written for this bench):

- **howto**: the 19 HOWTOs of Debian's `python3.11-doc` (3.11.2-6+deb12u9,
  /usr/share/doc/python3.11/html/howto/, index.html left out).
- **debian**: 30 other Debian package documents (HTML and text under /usr/share/doc, the
  first 30 in path order between 4 and 300 KB, at most 2 a package, not Python's; the
  packages and versions installed here are listed in bench/README.md).
- **unrelated tasks**: questions of WebQuestions (Berant et al. 2013, CC BY 4.0; the
  brmson/dataset-factoid-webquestions repository at 6688908, `main/devtest.json`, copied to
  /work/corpus/h34a-relevance/), every 4th of the first 160, plus 10 written here; asked of
  each library, which holds nothing about them. Target: 0 used.
- **related tasks**: the questions of Python's own FAQ (`faq/*.html` of the same package)
  whose answer links a library page (`../library/X.html`, its first such link; not an index
  page); each is asked of `howto` plus that page, added for it and removed after. Plus 10
  written here about what the HOWTOs say, asked of `howto` alone. Target: at least 18 of 20.

Each public set is split in two by position: even positions tune (`RELEVANT_SHARE` was set on
them), odd positions are held out. `floor`: the task searched as research searches it
(`LocalRetriever`, top 3), and whether the relevance floor keeps any passage.

    python bench/bench_relevance.py [--json]
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import lxml.html  # noqa: E402

from reflectcli.sources import library  # noqa: E402
from reflectcli.sources.evidence import RELEVANT_SHARE, relevant  # noqa: E402
from reflectcli.sources.research import LocalRetriever, relevant_to  # noqa: E402
from reflectcli.sources.stopwords import only_stop_words  # noqa: E402
from reflectcli.writing.titles import content_stems  # noqa: E402

DOCS = Path(os.environ.get("PYDOC_HTML", "/usr/share/doc/python3.11/html"))
CORPUS = Path(os.environ.get("REFLECTCLI_BENCH_CORPUS", "/work/corpus/h34a-relevance"))
WEBQUESTIONS = CORPUS / "webquestions-devtest.json"

WRITTEN_UNRELATED = [
    "How do lighthouses work?", "How do vaccines work?", "Why do cats sleep so much?",
    "How do bees make honey?", "What causes inflation?", "Should cities ban cars?",
    "The history of printing", "How do tides work?", "What makes a good manager?",
    "How to write a good cover letter",
]  # fmt: skip
WRITTEN_RELATED = [
    "How do I sort a list of dictionaries by a key?", "How to log to a file and the console at once",
    "What is a descriptor in Python?", "How do I parse command-line arguments?",
    "How to match an email address with a regular expression", "How do I fetch a web page with urllib?",
    "How to read a UTF-8 encoded file in Python", "When should I use an Enum?",
    "How do sockets work?", "How do I draw a window in the terminal with curses?",
]  # fmt: skip


def howtos() -> list[str]:
    return [str(p) for p in sorted((DOCS / "howto").glob("*.html")) if p.name != "index.html"]


def debian_docs(n: int = 30, per_package: int = 2) -> list[str]:
    """The first `n` HTML and text documents under /usr/share/doc in path order, 4-300 KB, at
    most `per_package` from each package's folder, none of Python's."""
    found: list[str] = []
    taken: dict[str, int] = {}
    for path in sorted(Path("/usr/share/doc").rglob("*")):
        if len(found) == n:
            break
        package = path.relative_to("/usr/share/doc").parts[0]
        if package.startswith("python3") or taken.get(package, 0) >= per_package:
            continue
        if path.suffix in (".html", ".txt") and path.is_file() and 4_000 <= path.stat().st_size <= 300_000:
            taken[package] = taken.get(package, 0) + 1
            found.append(str(path))
    return found


def faq_questions() -> list[tuple[str, str]]:
    """(question, the library page its answer links first), in the FAQ's order."""
    rows = []
    for name in ("general", "programming", "design", "library", "extending", "gui", "windows", "installed"):
        root = lxml.html.parse(str(DOCS / "faq" / f"{name}.html")).getroot()
        for section in root.iter("section"):
            heading = section.find("h3") if section.find("h3") is not None else section.find("h2")
            if heading is None:
                continue
            question = " ".join(heading.text_content().replace("¶", "").split())
            nested = {a for inner in section.findall(".//section") for a in inner.iter("a")}
            links = [a.get("href") for a in section.iter("a")
                     if a not in nested and (a.get("href") or "").startswith("../library/")]  # fmt: skip
            page = links[0].split("#")[0].removeprefix("../library/") if links else ""
            if question.endswith("?") and page and page not in ("index.html", "internet.html"):
                rows.append((question, str(DOCS / "library" / page)))
    return rows


def webquestions() -> list[str]:
    data = json.loads(WEBQUESTIONS.read_text(encoding="utf-8"))
    return [q["qText"] for q in data[:160:4]]


def counted(task: str, runs: Path) -> bool:
    """The rule before: a top-5 passage holding half the task's content stems, by count."""
    wanted = content_stems(task)
    if not wanted or only_stop_words(task):
        return False
    hits = library.search(runs, task, limit=5)
    return any(len(wanted & content_stems(h["text"])) >= 0.5 * len(wanted) for h in hits)


def judged(task: str, runs: Path) -> dict[str, bool]:
    hits = LocalRetriever(runs, 3)(task)["hits"]
    bare = [{k: v for k, v in h.items() if k != "share"} for h in hits]
    return {
        "auto_before": counted(task, runs), "auto_now": relevant_to(task, runs),
        "floor_before": bool(relevant([(task, bare)], 3)), "floor_now": bool(relevant([(task, hits)], 3)),
    }  # fmt: skip


def build(runs: Path, files: list[str]) -> int:
    outcomes = library.add(runs, files)
    return sum(o.chunks for o in outcomes)


def main() -> None:
    if not (DOCS / "howto").is_dir() or not WEBQUESTIONS.is_file():
        sys.exit(f"needs {DOCS} (apt-get install python3.11-doc) and {WEBQUESTIONS}")
    started = time.monotonic()
    results: list[dict] = []
    with tempfile.TemporaryDirectory() as tmp:
        runs = {"howto": Path(tmp) / "howto", "debian": Path(tmp) / "debian"}
        sizes = {"howto": build(runs["howto"], howtos()), "debian": build(runs["debian"], debian_docs())}
        unrelated = [(q, "webquestions") for q in webquestions()]
        for name in ("howto", "debian"):
            for i, (task, origin) in enumerate(unrelated + [(t, "written") for t in WRITTEN_UNRELATED]):
                split = "written" if origin == "written" else ("tune" if i % 2 == 0 else "held-out")
                results.append({"set": f"unrelated/{name}", "split": split, "task": task,
                                **judged(task, runs[name])})  # fmt: skip
        for i, (task, page) in enumerate(faq_questions()[:40]):
            added = library.add(runs["howto"], [page])
            split = "tune" if i % 2 == 0 else "held-out"
            results.append({"set": "related/howto+page", "split": split, "task": task,
                            "page": Path(page).name, **judged(task, runs["howto"])})  # fmt: skip
            for outcome in added:
                if outcome.status == "added":
                    library.remove(runs["howto"], outcome.source_id)
        for task in WRITTEN_RELATED:
            results.append({"set": "related/howto", "split": "written", "task": task,
                            **judged(task, runs["howto"])})  # fmt: skip
    took = time.monotonic() - started
    if "--json" in sys.argv:
        print(json.dumps(results, indent=1, ensure_ascii=False))
        return
    print(f"libraries: howto {sizes['howto']:,} chunks, debian {sizes['debian']:,} chunks; "
          f"RELEVANT_SHARE {RELEVANT_SHARE}; {took:.0f} s")  # fmt: skip
    print("| set | split | tasks | auto before | auto now | floor before | floor now |")
    print("|---|---|---|---|---|---|---|")
    groups: dict[tuple[str, str], list[dict]] = {}
    for r in results:
        groups.setdefault((r["set"], r["split"]), []).append(r)
    for (name, split), rows in groups.items():
        cells = [sum(r[k] for r in rows) for k in ("auto_before", "auto_now", "floor_before", "floor_now")]
        print(f"| {name} | {split} | {len(rows)} | " + " | ".join(f"{c} used" for c in cells) + " |")
    wrong = [r for r in results if r["auto_now"] != r["set"].startswith("related")]
    for r in wrong:
        print(f"  auto now wrong: {r['set']} [{r['split']}] {r['task']!r} {r.get('page', '')}")


if __name__ == "__main__":
    main()
