"""The checklist critic (writing/checklist.py) on real, human-written articles: how many pass
and which checks fire. The corpus is bench_guards.py's (its `prepare` builds it); each
document's file name stands in for the task and its mean section length for the target, so
`off_topic` and `short` are measured against a stand-in, not a real brief. Titles are also put
through writing/titles.py's rule (not strict) to count real headings it would refuse.

    python bench/bench_checklist.py [/work/corpus/guards]
"""

from __future__ import annotations

import collections
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

import bench_guards as bg  # noqa: E402

from reflectcli.writing.checklist import checklist_review  # noqa: E402
from reflectcli.writing.titles import title_problem  # noqa: E402


def main() -> None:
    corpus = Path(sys.argv[1] if len(sys.argv) > 1 else "/work/corpus/guards")
    if not corpus.is_dir():
        print(f"no corpus at {corpus}: build it with `python bench/bench_guards.py prepare`")
        return
    docs = bg.documents(corpus)
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
