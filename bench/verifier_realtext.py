"""The real-text section of bench_verifier.py: the veto (`sources.verify.check`) alone on claims
that people labelled true in public data (WiCE, OCNLI; fetched, never in git: see
bench/README.md), and on those claims mutated by script."""

from __future__ import annotations

import json
import os
import re
import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from reflectcli.sources.chunking import TARGET  # noqa: E402
from reflectcli.sources.facts import negated  # noqa: E402
from reflectcli.sources.verify import check  # noqa: E402

CORPUS = Path(os.environ.get("REFLECT_CORPUS", "/work/corpus"))
OTHER_NAMES = ("Ostrava", "Quimper", "Tromsø")  # replace a name; the first the passage lacks


def wice(folder: Path, split: str, shape: str = "cited") -> list[tuple[str, str]]:
    """WiCE (ryokamoi/wice, data/entailment_retrieval/claim/<split>.jsonl): Wikipedia sentences
    and the web pages they cite, labelled `supported` by annotators. The passage (`shape`):
    "cited", the page's sentences that the annotators marked as supporting (every set of them,
    in page order); "chunks", the page as the product holds it (`windows`)."""
    path = folder / f"claim_{split}.jsonl"
    pairs = []
    for line in path.read_text(encoding="utf-8").splitlines() if path.exists() else []:
        row = json.loads(line)
        if row["label"] == "supported":
            keep = sorted({i for group in row["supporting_sentences"] for i in group})
            if shape == "chunks":
                pairs.append((row["claim"], windows(row["evidence"], keep)))
            else:
                pairs.append((row["claim"], " ".join(row["evidence"][i] for i in keep)))
    return pairs


def windows(page: list[str], keep: list[int], size: int = TARGET) -> str:
    """The page as a claim check in the product sees it (chunks of about `size` characters,
    `sources.chunking.TARGET`): the supporting sentences `keep` grouped (those that fit in one
    window together), each group widened by the page sentences after and before it, one at a
    time, while the window stays within `size` characters; windows joined in page order."""

    def length(a: int, b: int) -> int:
        return sum(len(x) + 1 for x in page[a : b + 1])

    groups: list[list[int]] = []
    for i in keep:
        if groups and length(groups[-1][0], i) <= size:
            groups[-1][1] = i
        else:
            groups.append([i, i])
    spans: list[list[int]] = []
    for a, b in groups:
        grew = True
        while grew:
            grew = False
            if b + 1 < len(page) and length(a, b + 1) <= size:
                b, grew = b + 1, True
            if a > 0 and length(a - 1, b) <= size:
                a, grew = a - 1, True
        if spans and a <= spans[-1][1] + 1:  # overlapping windows are one
            spans[-1][1] = max(spans[-1][1], b)
        else:
            spans.append([a, b])
    return "\n\n".join(" ".join(page[a : b + 1]) for a, b in spans)


def ocnli(folder: Path, split: str, shape: str = "premise") -> list[tuple[str, str]]:
    """OCNLI (CLUEbenchmark/OCNLI, data/ocnli/<split>.json): Chinese premises from real text and
    hypotheses written by annotators, labelled by them (dev: five annotators, train.3k: one);
    the pairs whose label is entailment, the hypothesis as the claim, the premise its passage."""
    path = folder / f"{split}.json"
    rows = (
        [json.loads(x) for x in path.read_text(encoding="utf-8").splitlines() if x.strip()]
        if path.exists()
        else []
    )
    return [(r["sentence2"], r["sentence1"]) for r in rows if r["label"] == "entailment"]


# (language, data set, split, loader, whether the veto was tuned on it, passage shape)
REAL = [
    ("English", "WiCE", "dev", wice, True, "cited"), ("English", "WiCE", "dev", wice, True, "chunks"),
    ("English", "WiCE", "test", wice, False, "cited"), ("English", "WiCE", "test", wice, False, "chunks"),
    ("Chinese", "OCNLI", "train.3k", ocnli, True, "premise"),
    ("Chinese", "OCNLI", "dev", ocnli, False, "premise"),
]  # fmt: skip
SHAPES = {"cited": "the cited sentences", "chunks": f"windows of <= {TARGET} chars around them",
          "premise": "the premise"}  # fmt: skip


_AUX = re.compile(r"\b(is|was|are|were|has|have|had|can|could|will|would|did|does|do)\b")
_ZH_AUX = [("是", "不是"), ("有", "没有"), ("会", "不会"), ("能", "不能"), ("在", "不在"), ("可以", "不可以")]


def negate(claim: str) -> str | None:
    """The claim with a negation added: `not` after its first auxiliary; in Chinese 不/没 before
    its first 是/有/会/能/在/可以. None when it has none of them, or denies something already
    (a second negation would not flip it)."""
    if negated(claim):
        return None
    if re.search(r"[\u4e00-\u9fff]", claim):
        for word, denied in _ZH_AUX:
            if word in claim:
                return claim.replace(word, denied, 1)
        return None
    match = _AUX.search(claim)
    return claim[: match.end()] + " not" + claim[match.end() :] if match else None


def renumber(claim: str, passage: str) -> str | None:
    """The claim with its first number changed to one the passage lacks: a decimal's digits
    reversed (3.5 → 5.3), a year plus 20, another integer plus a quarter (at least 3)."""
    for match in re.finditer(r"(?<![\d.,])\d+(?:\.\d+)?(?![\d.,]\d)", claim):
        number = match.group()
        if "." in number:
            new = number[::-1] if number[::-1] != number else str(float(number) * 2)
        else:
            value = int(number)
            new = str(value + 20 if 1000 <= value <= 2100 else value + max(3, value // 4))
        if not re.search(r"(?<![\d.])" + re.escape(new) + r"(?![\d])", passage):
            return claim[: match.start()] + new + claim[match.end() :]
    return None


def rename(claim: str, passage: str) -> str | None:
    """The claim with its first name inside the sentence (a run of capitalised words after the
    first word, each in the passage) replaced by a place name the passage lacks."""
    other = next(n for n in OTHER_NAMES if n.lower() not in passage.lower())
    for match in re.finditer(r"(?<=\s)[A-Z][a-zà-ÿ]+(?:\s+[A-Z][a-zà-ÿ]+)*", claim):
        if all(w.lower() in passage.lower() for w in match.group().split()):
            return claim[: match.start()] + other + claim[match.end() :]
    return None


def cause(reason: str) -> str:
    """Why the veto said unsupported, in a word (the start of `check`'s reason)."""
    for start, kind in (("the passage does not hold", "number"), ("the passage does not mention", "name"),
                        ("the sentence denies", "claim denies"), ("the passage denies", "passage denies"),
                        ("the sentence says", "opposite word")):  # fmt: skip
        if reason.startswith(start):
            return kind
    return "other"


def verdict(met: bool) -> str:
    return "met" if met else "BELOW TARGET"


def real_text(corpus: Path, splits: str = "all", misses: bool = False) -> bool:
    """The veto alone on human-labelled true claims (share let through) and on them mutated
    (share caught), per split and passage shape; targets are judged on the splits the veto was
    not tuned on, in both shapes. `splits`: "all", "tuned" or "held" (held out); `misses`:
    print each vetoed true claim and the veto's reason."""
    ok, found = True, False
    for language, name, split, load, tuned, shape in REAL:
        if splits != "all" and tuned != (splits == "tuned"):
            continue
        pairs = load(corpus / name.lower(), split, shape)
        if not pairs:
            print(f"{language} ({name} {split}): skipped, no data under {corpus / name.lower()} "
                  "(see bench/README.md)")  # fmt: skip
            continue
        found = True
        verdicts = [(c, p, check(c, p)) for c, p in pairs]
        passed = [(c, p) for c, p, (v, _) in verdicts if v == "supported"]
        share = len(passed) / len(pairs)
        role = "tuned on" if tuned else "held out"
        print(f"{language} ({name} {split}, {role}; passage: {SHAPES[shape]}): {len(pairs)} true claims, "
              f"the veto lets through {share:.2f} ({len(passed)}/{len(pairs)})"
              + ("" if tuned else f" (target >= 0.90: {verdict(share >= 0.9)})"))  # fmt: skip
        why = Counter(cause(reason) for _, _, (v, reason) in verdicts if v != "supported")
        print("  vetoed: " + ", ".join(f"{n} {kind}" for kind, n in why.most_common()))
        if misses:
            for c, _, (v, reason) in verdicts:
                if v != "supported":
                    print(f"    - {c}\n      {reason}")
        caught_all = total_all = 0
        for kind, mutate in (("negation added", lambda c, p: negate(c)), ("number changed", renumber),
                             ("name replaced", rename)):  # fmt: skip
            mutated = [(m, p) for c, p in passed if (m := mutate(c, p)) is not None]
            if not mutated:
                print(f"  {kind}: no claim to mutate")
                continue
            escaped = [(c, p) for c, p in mutated if check(c, p)[0] == "supported"]
            caught = len(mutated) - len(escaped)
            caught_all += caught
            total_all += len(mutated)
            print(f"  {kind}: {len(mutated)} mutated, caught {caught / len(mutated):.2f} ({caught})")
            if misses:
                for c, _ in escaped:
                    print(f"    - let through: {c}")
        rate = caught_all / total_all if total_all else 1.0
        print(f"  all mutations: caught {rate:.2f} ({caught_all}/{total_all})"
              + ("" if tuned else f" (target >= 0.95: {verdict(rate >= 0.95)})"))  # fmt: skip
        if not tuned:
            ok &= share >= 0.9 and rate >= 0.95
    if not found:
        print(f"real-text section skipped: no WiCE or OCNLI data under {corpus} (see bench/README.md)")
    return ok


if __name__ == "__main__":
    import argparse

    parser = argparse.ArgumentParser(description="the veto alone on WiCE and OCNLI (held-out targets)")
    parser.add_argument("--corpus", type=Path, default=CORPUS, help="where wice/ and ocnli/ are")
    parser.add_argument("--splits", choices=("all", "tuned", "held"), default="all",
                        help="tuned: WiCE dev, OCNLI train.3k (tune on these); held: the others")  # fmt: skip
    parser.add_argument("--misses", action="store_true", help="print each vetoed true claim and "
                        "each mutation let through")  # fmt: skip
    args = parser.parse_args()
    sys.exit(0 if real_text(args.corpus, args.splits, args.misses) else 1)
