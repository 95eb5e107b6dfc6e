"""The checklist critic (writing/checklist.py) on real, human-written articles: how many pass
and which checks fire. The corpus is bench_guards.py's (its `prepare` builds it); each
document's file name stands in for the task and its mean section length for the target, so
`off_topic` and `short` are measured against a stand-in, not a real brief. Titles are also put
through writing/titles.py's rule (not strict) to count real headings it would refuse.

    python bench/bench_checklist.py [/work/corpus/guards]
    python bench/bench_checklist.py --quotes [/work/corpus/guards]

`--quotes` (issue 33): how many findings quote code, HTML or a table as if it were prose, on the
READMEs, Python's docs and the writing advice: a finding's quoted text that stands in the
section but not in its prose (writing/markdown.prose, read from this tree whatever PYTHONPATH
measures: `PYTHONPATH=<main tree> python bench/bench_checklist.py --quotes` for a before).
"""

from __future__ import annotations

import collections
import importlib.util
import os
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if not os.environ.get("PYTHONPATH"):  # a tree given by PYTHONPATH is measured instead of this one
    sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

import bench_guards as bg  # noqa: E402

from reflectcli.writing.checklist import checklist_review, review_article  # noqa: E402
from reflectcli.writing.titles import title_problem  # noqa: E402


def _prose():
    """This tree's `markdown.prose` (the judge of what is prose), whichever tree is measured."""
    spec = importlib.util.spec_from_file_location("bench_markdown", ROOT / "reflectcli/writing/markdown.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules["bench_markdown"] = module
    spec.loader.exec_module(module)
    return module.prose


def quotes(docs: dict) -> None:
    prose_of, fold = _prose(), (lambda t: " ".join(t.split()))
    total = bad = 0
    shown = []
    for part in ("readmes", "pydoc", "advice"):
        for name, text in docs.get(part, []):
            text = bg.leveled(text.replace("\r\n", "\n").strip())
            secs = [(t, b) for t, b in bg.sections(text) if b]
            if len(secs) < 2 or len({t for t, _ in secs}) != len(secs):
                continue
            article = "\n\n".join(f"## {t}\n\n{b}" for t, b in secs)
            findings, _ = review_article(name, article, [{"title": t, "goal": ""} for t, _ in secs], 150)
            bodies = dict(secs)
            for f in findings:
                body = bodies.get(f.section, article)
                prose = fold(" ".join(prose_of(body)))
                for q in re.findall(r'"([^"]{4,})"', f.issue):
                    q = fold(q.rstrip(".").removesuffix("...").strip())
                    if q and q != f.section:
                        total += 1
                        if q not in prose and q in fold(body):
                            bad += 1
                            shown.append(f"  {part}/{name} [{f.check}] {f.issue[:110]}")
    print(f"quoted findings: {total}; quoting code, HTML or a table: {bad}")
    print("\n".join(shown[:6]))


def main() -> None:
    args = [a for a in sys.argv[1:] if a != "--quotes"]
    corpus = Path(args[0] if args else "/work/corpus/guards")
    if not corpus.is_dir():
        print(f"no corpus at {corpus}: build it with `python bench/bench_guards.py prepare`")
        return
    docs = bg.documents(corpus)
    if "--quotes" in sys.argv:
        quotes(docs)
        return
    for part in ("wiki", "weekly", "pydoc"):
        checks: collections.Counter = collections.Counter()
        refused: collections.Counter = collections.Counter()
        n = passed = titles = 0
        for name, text in docs.get(part, [])[:60]:
            text = bg.leveled(text.replace("\r\n", "\n").strip())
            secs = [(t, b) for t, b in bg.sections(text) if b]
            if len(secs) < 2 or len({t for t, _ in secs}) != len(secs):
                continue
            task = name.rsplit(".", 1)[0].replace("_", " ").replace("-", " ")
            outline = [{"title": t, "goal": ""} for t, _ in secs]
            article = "\n\n".join(f"## {t}\n\n{b}" for t, b in secs)
            target = max(40, sum(len(b.split()) for _, b in secs) // len(secs))
            review = checklist_review(task, article, outline, target)
            n += 1
            passed += review["score"] >= 8
            for imp in review["improvements"]:
                checks[f"{imp['check']}/{imp['severity']}"] += 1
            for title, _ in secs:
                titles += 1
                if why := title_problem(title, task):
                    refused[why.split(":")[0]] += 1
        print(f"{part}: {n} articles, {passed} pass at 8; findings shown: {dict(checks.most_common(6))}")
        print(f"  {titles} real headings, {sum(refused.values())} refused as titles: {dict(refused)}")


if __name__ == "__main__":
    main()
