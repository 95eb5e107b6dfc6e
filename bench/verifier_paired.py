"""The claim check's verdicts before and after a change, for the same pairs and the same mutations
(issue 32, twelfth pass).

`verifier_realtext.py` mutates the claims code calls consistent, in a rotation by their index, so
a claim that stops (or starts) being a false alarm shifts which mutations are made: its rates
before and after compare different mutations. This file dumps every true pair's verdict and, for
every pair, every mutation made with the pair's own index (whatever the pair's verdict), then
compares two dumps row by row:

    python bench/verifier_paired.py dump --splits tuned,tune4 --out after.jsonl
    (cd OLD_TREE && python bench/verifier_paired.py dump --splits tuned,tune4 --out before.jsonl)
    python bench/verifier_paired.py diff before.jsonl after.jsonl [--show]
    python bench/verifier_paired.py dump --splits tuned --typeset --out curly.jsonl  # ’ for '
    python bench/verifier_paired.py dump --splits fresh4 --only 'if (you|I)' --out if.jsonl

The bench reads its own tree's `reflectcli` first (see `verifier_realtext.py`), so an older tree
is dumped by running this file inside it (a `git worktree`, this file copied in). `diff` counts,
per split, true claims newly contradicted or newly consistent, and mutations newly caught or
missed among pairs that were consistent on both sides; `--show` prints each with its reason.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import verifier_realtext as vr  # noqa: E402


def typeset(text: str) -> str:
    """`text` as a typesetter, or a capable model, writes it: each straight apostrophe curly
    ("doesn’t"). `dump --typeset` reads every pair so: the check's verdicts should not move."""
    return text.replace("'", "\u2019")


def dump(
    splits: list[str], out: Path, corpus: Path, typeset_them: bool = False, only: str | None = None
) -> None:
    look = typeset if typeset_them else (lambda text: text)
    wanted = re.compile(only) if only else None

    def verdict_of(claim: str, passage: str) -> tuple[str, str]:
        return vr.verdict_of(look(claim), look(passage))

    with out.open("w", encoding="utf-8") as f:
        for _language, name, split, load, tuned, shape, _judged in vr.REAL:
            if vr.split_role(tuned) not in splits:
                continue
            row = f"{name}/{split}/{shape}"
            for i, (claim, passage) in enumerate(load(corpus / name.lower(), split, shape)):
                if wanted and not (wanted.search(claim) or wanted.search(passage)):
                    continue  # a change that acts only on text `only` finds leaves this pair as it was
                verdict, reason = verdict_of(claim, passage)
                f.write(json.dumps({"k": f"{row}|{i}|true", "v": verdict, "c": claim, "r": reason}) + "\n")
                for kind, side, mutate, caught in vr.MUTATIONS:
                    if (made := mutate(claim, passage, i)) is None:
                        continue
                    got, why = verdict_of(*made)
                    shown = (vr.carrier(*made) or "")[:300] if side == "passage" else ""
                    record = {"k": f"{row}|{i}|{side}-{kind}", "v": got, "base": verdict, "ok": got in caught,
                              "c": made[0], "r": why, "car": shown}  # fmt: skip
                    f.write(json.dumps(record, ensure_ascii=False) + "\n")


def diff(before: Path, after: Path, show: bool) -> Counter:
    old = {d["k"]: d for d in map(json.loads, before.open(encoding="utf-8"))}
    new = {d["k"]: d for d in map(json.loads, after.open(encoding="utf-8"))}
    count: Counter = Counter()
    for key, was in old.items():
        now = new.get(key)
        if now is None or now["v"] == was["v"]:
            continue
        row, _, kind = key.split("|")
        if kind == "true":
            tag = "true claim newly " + ("consistent" if now["v"] == "consistent" else now["v"])
        elif was["base"] != "consistent" or now["base"] != "consistent":
            continue
        elif now["ok"] != was["ok"]:
            tag = f"{kind} newly " + ("caught" if now["ok"] else "missed")
        else:  # caught both ways, in another verdict ("unverified" → "contradicted")
            tag = f"{kind} {was['v']} → {now['v']}"
        count[(row, tag)] += 1
        if show:
            print(f"[{tag}] {key}: {was['v']} -> {now['v']}\n    claim: {now['c'][:300]}")
            if now.get("car"):
                print(f"    passage: {now['car'][:300]}")
            print(f"    {now['r'][:200]}")
    for (row, tag), n in sorted(count.items()):
        print(f"{row:<48} {tag:<40} {n:>4}")
    if not count:
        print(f"no verdict moved ({len(old)} rows before, {len(new)} after)")
    return count


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    d = sub.add_parser("dump", help="every verdict of the splits, to a JSON-lines file")
    d.add_argument("--splits", required=True, help="comma-separated roles: tuned, held, tune2 … fresh4")
    d.add_argument("--out", type=Path, required=True)
    d.add_argument("--corpus", type=Path, default=vr.CORPUS)
    d.add_argument("--typeset", action="store_true", help="every apostrophe curly, on both sides")
    d.add_argument("--only", help="a regular expression: only pairs whose claim or passage it finds "
                   "(for a change that acts only on such text; the rest cannot move)")  # fmt: skip
    c = sub.add_parser("diff", help="what changed between two dumps")
    c.add_argument("before", type=Path)
    c.add_argument("after", type=Path)
    c.add_argument("--show", action="store_true", help="print each change with its reason")
    args = parser.parse_args()
    if args.command == "dump":
        dump(args.splits.split(","), args.out, args.corpus, args.typeset, args.only)
    else:
        diff(args.before, args.after, args.show)


if __name__ == "__main__":
    main()
