"""The bench's mutations read by hand: how many of those code missed say the opposite of the
other side, and so what share of the real contradictions among them code catches (issue 32,
ninth pass).

`verifier_realtext.py` counts a mutation as a contradiction by construction. Read by hand, most
of what it counts as missed is none: a denial put on a clause the claim does not say, an
"opposite" in another sense (时间 → 空间), a swap that makes nonsense. This file writes the
mutations out for reading and reads the labels back:

    python bench/audit_mutations.py dump --splits held --out FILE.jsonl [--caught 20]
    python bench/audit_mutations.py report --splits held [--labels bench/labels/issue32.tsv]

`dump` writes every mutation code missed and a seeded sample of `--caught` it caught, per row,
with the words that changed and, for the passage side, the sentences of the passage as like the
changed one that the bench left as they were (a passage of several documents says it twice).
A label (`bench/labels/issue32.tsv`: key, label, note; the key a hash of the mutated pair, no
text of the data sets) is one of

    opposite  read beside the other side, the mutated one says the opposite of it
    not       it does not: another clause or thing denied, another sense, nonsense
    unclear   a reader could take it either way

`report` prints, per row, the misses read as opposite, and code's rate among the real ones:
caught × (share of the caught sample read as opposite) ÷ (that + misses read as opposite),
unclear ones left out of both; and the same with every unclear one counted against code (a real
contradiction where code missed it, none where code caught it)."""

from __future__ import annotations

import argparse
import difflib
import hashlib
import json
import random
import sys
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from verifier_realtext import (  # noqa: E402
    CJK,
    CORPUS,
    MUTATIONS,
    REAL,
    _sentences,
    carrier,
    split_role,
    verdict_of,
)

LABELS = Path(__file__).resolve().parent / "labels" / "issue32.tsv"
READ = ("negation", "denial", "antonym")  # the kinds whose target is `contradicted` alone
KINDS = {"opposite", "not", "unclear"}
COPY = 0.8  # a passage sentence this like the changed one, left as it was, is shown to the reader


def key(side: str, kind: str, claim: str, passage: str) -> str:
    """A mutated pair's name in the labels: a hash, so that no text of a data set is kept."""
    return hashlib.sha1(f"{side}\0{kind}\0{claim}\0{passage}".encode()).hexdigest()[:16]


def changed(before: str, after: str) -> str:
    """The words (CJK: characters) that differ, as `old → new` pieces."""
    cut = list if CJK.search(before + after) else str.split
    a, b = cut(before), cut(after)
    glue = "" if cut is list else " "
    out = []
    for op, i, j, k, m in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
        if op != "equal":
            out.append(f"{glue.join(a[i:j]) or '∅'} → {glue.join(b[k:m]) or '∅'}")
    return "; ".join(out)


def _rows(corpus: Path, splits: str) -> Iterator[tuple[str, list[tuple[str, str]]]]:
    """(row name, the true pairs code calls consistent) per data set, split and passage shape:
    the splits judged against the targets (and the tuned ones)."""
    for language, name, split, load, tuned, shape, judged in REAL:
        kind = split_role(tuned)
        if splits not in (kind, "all") or (splits == "all" and kind not in ("tuned", "held")):
            continue
        if kind.startswith(("held", "fresh")) and not judged or shape == "inline":
            continue  # OCNLI dev: NLI, no target, many; a dialogue joined: the same dialogue again
        pairs = load(corpus / name.lower(), split, shape)
        base = [(c, p) for c, p in pairs if verdict_of(c, p)[0] == "consistent"]
        if base:
            yield f"{language} {name} {split} ({shape})", base


def mutations(corpus: Path, splits: str) -> Iterator[dict]:
    """Every mutation of the kinds read (`READ`), as the bench makes them, with code's verdict."""
    for row, base in _rows(corpus, splits):
        for kind, side, mutate, caught in MUTATIONS:
            if kind not in READ:
                continue
            for i, (claim, passage) in enumerate(base):
                if (made := mutate(claim, passage, i)) is None:
                    continue
                c, p = made
                verdict, reason = verdict_of(c, p)
                said = carrier(claim, passage) or ""
                copies: list[str] = []
                if side == "claim":
                    before, after = claim, c
                else:  # the passage sentence the bench changed, before and after
                    now = _sentences(p)
                    before, after = said, _likest(said, [s for s in now if s not in passage])
                    kept = [s for s in now if s != after and s in passage]  # as they were
                    copies = [s[:300] for s in kept if _like(said, s) >= COPY][:2]
                yield {"key": key(side, kind, c, p), "row": row, "side": side, "kind": kind,
                       "caught": verdict in caught, "verdict": verdict, "reason": reason,
                       "claim": claim, "carrier": said, "before": before, "after": after,
                       "changed": changed(before, after), "unchanged_copies": copies}  # fmt: skip


def _like(a: str, b: str) -> float:
    return difflib.SequenceMatcher(None, a, b, autojunk=False).ratio()


def _likest(sentence: str, others: list[str]) -> str:
    """The one of `others` most like `sentence` (the changed copy of it), else `sentence`."""
    return max(others, key=lambda o: _like(sentence, o), default=sentence)


def labels(path: Path) -> dict[str, str]:
    """key → label, from a TSV of key, label, note (`#` starts a comment)."""
    out = {}
    for line in path.read_text(encoding="utf-8").splitlines() if path.exists() else []:
        if line.strip() and not line.startswith("#"):
            name, label, *_ = line.split("\t")
            if label not in KINDS:
                raise SystemExit(f"{path}: label {label!r} for {name} is not one of {sorted(KINDS)}")
            out[name] = label
    return out


def dump(corpus: Path, splits: str, out: Path, caught: int, seed: int) -> None:
    rng = random.Random(seed)
    groups: dict[tuple[str, str, str], list[dict]] = {}
    for item in mutations(corpus, splits):
        groups.setdefault((item["row"], item["side"], item["kind"]), []).append(item)
    with out.open("w", encoding="utf-8") as f:
        for (row, side, kind), items in groups.items():
            hit = [x for x in items if x["caught"]]
            chosen = [x for x in items if not x["caught"]] + rng.sample(hit, min(caught, len(hit)))
            for item in chosen:
                f.write(json.dumps(item, ensure_ascii=False) + "\n")
            print(f"{row}, {side} {kind}: {len(items)} made, {len(items) - len(hit)} missed, "
                  f"{min(caught, len(hit))} of {len(hit)} caught written")  # fmt: skip


def report(corpus: Path, splits: str, path: Path) -> None:
    read = labels(path)
    groups: dict[tuple[str, str, str], list[dict]] = {}
    for item in mutations(corpus, splits):
        groups.setdefault((item["row"], item["side"], item["kind"]), []).append(item)
    print(f"labels: {path} ({len(read)})")
    for (row, side, kind), items in groups.items():
        hit = [x for x in items if x["caught"]]
        miss = [x for x in items if not x["caught"]]
        m = Counter(read.get(x["key"], "unread") for x in miss)
        h = Counter(read.get(x["key"], "unread") for x in hit)
        sampled = h["opposite"] + h["not"]
        rate = _among_real(len(hit), h["opposite"], h["not"], m["opposite"])
        # the reader's unclear ones against code: real where code missed them, not where it caught them
        low = _among_real(len(hit), h["opposite"], h["not"] + h["unclear"], m["opposite"] + m["unclear"])
        print(f"{row}, {side} {kind}: {len(items)} made, caught {len(hit)} ({len(hit) / len(items):.3f}); "
              f"missed {len(miss)}: read opposite {m['opposite']}, not {m['not']}, unclear {m['unclear']}, "
              f"unread {m['unread']}; caught read: opposite {h['opposite']} of {sampled} (unclear "
              f"{h['unclear']}); among the real contradictions: {rate:.3f} (unclear against code: "
              f"{low:.3f})")  # fmt: skip


def _among_real(caught: int, read_real: int, read_not: int, missed_real: int) -> float:
    """Code's share of the real contradictions: the caught ones weighted by the share of the
    caught sample read as real (all, when none was read), against the misses read as real."""
    real = caught * (read_real / (read_real + read_not) if read_real + read_not else 1.0)
    return real / (real + missed_real) if real + missed_real else 1.0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("verb", choices=("dump", "report"))
    parser.add_argument("--corpus", type=Path, default=CORPUS)
    splits = ("all", "tuned", "held", "fresh2", "tune2", "held2", "tune3", "held3", "tune4", "held4")
    parser.add_argument("--splits", default="held", choices=splits)
    parser.add_argument("--out", type=Path, help="dump: the JSONL written")
    parser.add_argument("--caught", type=int, default=20, help="dump: caught ones sampled per row")
    parser.add_argument("--seed", type=int, default=32)
    parser.add_argument("--labels", type=Path, default=LABELS)
    args = parser.parse_args()
    if args.verb == "dump":
        if not args.out:
            parser.error("dump needs --out FILE")
        dump(args.corpus, args.splits, args.out, args.caught, args.seed)
    else:
        report(args.corpus, args.splits, args.labels)


if __name__ == "__main__":
    main()
