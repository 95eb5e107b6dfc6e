"""Issue 38's text handling on real revisions nobody on the project wrote: the Vue docs' pages
(vuejs/docs `src/guide` at 01e098a9, vuejs-translations/docs-zh-cn at c2715ff7), each page 4
commits before its newest (old) and its newest (new), split by path hash into tune and held
(/work/corpus/revisions, made by its build.py).

1. Picking (graph/pick.py `propose`, `picked_version`): the real revision offered as changes of
   the old page's sections. Accepting every change must give each section its new body, and
   accepting every other one must give the accepted sections their new bodies and leave the
   rejected ones, read back from the version, byte for byte as they were (and the text before
   the first section untouched). Beside it, the questions a writer answers: one per changed
   section, against `git add -p`'s one per hunk of the page's line diff (the baseline).
2. Marks (graph/ask.py `marked`): each prose paragraph of a new page made an answer, each
   sentence citing [S1] before its full stop and judged contradicted; every mark must stand in
   its sentence (a mark only on the line above the answer is the fallback). Baseline: a mark
   placed where `str.find` finds the claim's sentence, as the check quotes it, in the answer
   with its citations taken out and its spaces folded (none before a stop).

    python bench/bench_pick.py [--split held|tune] [--corpus /work/corpus/revisions]
"""

from __future__ import annotations

import argparse
import difflib
import re
import time
from pathlib import Path

from reflectcli.graph.ask import marked
from reflectcli.graph.pick import picked_version, propose
from reflectcli.writing.citations import CITATION
from reflectcli.writing.claims import claims_in, paragraphs
from reflectcli.writing.draftfile import read_draft
from reflectcli.writing.textops import locate_sections, section_bodies

END = re.compile(r"([.!?。！？])(\s*)$")


def pairs(corpus: Path, language: str, split: str) -> list[tuple[str, str, str]]:
    folder = corpus / language / split
    return [(p.name.removesuffix(".old.md"), p.read_text(encoding="utf-8"),
             p.with_name(p.name.replace(".old.md", ".new.md")).read_text(encoding="utf-8"))
            for p in sorted(folder.glob("*.old.md"))]  # fmt: skip


def hunks(old: str, new: str) -> int:
    """The hunks `git add -p` would ask about: changed runs of the line diff (3 lines of context)."""
    groups = difflib.SequenceMatcher(None, old.splitlines(), new.splitlines()).get_grouped_opcodes(3)
    return sum(1 for _ in groups)


def pick_case(name: str, old: str, new: str) -> dict:
    draft = read_draft(old, name)
    titles = draft.titles
    state = {"outline": {"sections": [{"title": t, "goal": ""} for t in titles]},
             "versions": [{"n": 1, "kind": "file", "text": old}], "params": {"max_rounds": 3},
             "critiques": {}, "reviews": []}  # fmt: skip
    proposed = propose(state, state["versions"][0], new, {"improvements": []}, 2)
    changes = proposed["changes"]
    out = {"changes": len(changes), "hunks": hunks(old, new), "sections": len(titles), "ok_all": True,
           "ok_some": True, "whole": any(c["section"] is None for c in changes)}  # fmt: skip
    if not changes or out["whole"]:
        return out
    before, after = section_bodies(old, titles), section_bodies(new, titles)
    every_other = ["accept" if i % 2 == 0 else "reject" for i in range(len(changes))]
    for answers in (["accept"] * len(changes), every_other):
        update = picked_version(state, proposed, [{"action": a} for a in answers])
        text = update["versions"][0]["text"] if update.get("versions") else old
        got = section_bodies(text, titles)
        taken = {c["section"] for c, a in zip(changes, answers, strict=True) if a == "accept"}
        want = [after[i] if i in taken else before[i] for i in range(len(titles))]
        spans = [s for s in locate_sections(old, titles) if s is not None]
        first = spans[0].heading_start if spans else 0
        ok = got == want and text[:first] == old[:first]
        out["ok_all" if all(a == "accept" for a in answers) else "ok_some"] = ok
    return out


def cite(paragraph: str) -> str:
    """The paragraph with [S1] before each sentence's full stop, as a writer cites."""
    from reflectcli.writing.claims import pieces

    return "".join(END.sub(r" [S1]\1\2", piece) for piece in pieces(paragraph))


def mark_case(text: str) -> tuple[int, int, int]:
    """(claims, marks in their sentence, marks the baseline places) for one answer."""
    claims = claims_in(text, [])
    verdicts = [{"sentence": c["sentence"], "source": "S1", "verdict": "contradicted"} for c in claims]
    sentences = list(dict.fromkeys(c["sentence"] for c in claims))
    shown = marked(text, verdicts)
    top = [line for line in shown.splitlines() if line.startswith("(✗")]
    inline = shown.count("(✗ contradicted by S1)") - len(top)
    bare = " ".join(CITATION.sub("", text).split())  # the text as the check reads it, roughly
    bare = re.sub(r"\s+([.,;:!?。，；：！？])", r"\1", bare)
    baseline = sum(1 for s in sentences if bare.find(s) >= 0)
    return len(sentences), inline, baseline


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--split", default="held", choices=("held", "tune"))
    parser.add_argument("--corpus", default="/work/corpus/revisions")
    args = parser.parse_args()
    started = time.perf_counter()
    print(f"split {args.split}; corpus {args.corpus}")
    print(
        "| pages | with changes | accept all: sections as new | every other: as picked | questions "
        "(sections) | baseline (git add -p hunks) | ratio |"
    )
    print("|---|---|---|---|---|---|---|")
    for language in ("en", "zh"):
        found = [pick_case(*p) for p in pairs(Path(args.corpus), language, args.split)]
        used = [f for f in found if f["changes"] and not f["whole"]]
        q, h = sum(f["changes"] for f in used), sum(f["hunks"] for f in used)
        print(f"| {language} {len(found)} | {len(used)} | {sum(f['ok_all'] for f in used)} / {len(used)} | "
              f"{sum(f['ok_some'] for f in used)} / {len(used)} | {q} | {h} | {q / h:.2f} |")  # fmt: skip
    print()
    print("| answers (paragraphs) | cited sentences | marked in the sentence | baseline (str.find) |")
    print("|---|---|---|---|")
    for language in ("en", "zh"):
        totals = [0, 0, 0]
        n = 0
        for _, _, new in pairs(Path(args.corpus), language, args.split):
            for paragraph in paragraphs(new):
                if len(paragraph.split()) < 8 and len(paragraph) < 40:
                    continue
                n += 1
                for i, v in enumerate(mark_case(cite(paragraph))):
                    totals[i] += v
        claims, inline, baseline = totals
        print(f"| {language} {n} | {claims} | {inline} ({inline / claims:.1%}) | "
              f"{baseline} ({baseline / claims:.1%}) |")  # fmt: skip
    print(f"\n{time.perf_counter() - started:.1f} s")


if __name__ == "__main__":
    main()
