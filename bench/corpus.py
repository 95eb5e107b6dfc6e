"""Lay out the claim check's real-text corpus (issue 32) from git mirrors of the public sets, at
the commits the bench README names, so that a lost corpus is rebuilt in one command:

    python bench/corpus.py --mirrors /work/.mirror --out /work/corpus

`--mirrors` holds one bare repository per set, `<owner>+<name>/repo` (the layout the search
tool's `fetch` leaves); each file is read with `git show COMMIT:PATH`, so the mirror's newest
snapshot may be later than the commit. A file the mirror lacks (a large file left out of the
snapshot) is reported and skipped: its split reads as empty. WordNet is Debian's `wordnet-base`
(`apt-get install wordnet-base`), read from /usr/share/wordnet, not laid out here.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path

SUMMEDITS = ("news", "scitldr", "ectsum", "podcast", "qmsumm", "samsum", "sales_call", "sales_email")

# (mirror, commit, path in the repository, path under --out)
FILES = [
    ("ryokamoi+wice", "ddeb6c18", "data/entailment_retrieval/claim/dev.jsonl", "wice/claim_dev.jsonl"),
    ("ryokamoi+wice", "ddeb6c18", "data/entailment_retrieval/claim/test.jsonl", "wice/claim_test.jsonl"),
    ("ryokamoi+wice", "ddeb6c18", "data/entailment_retrieval/claim/train.jsonl", "wice/claim_train.jsonl"),
    ("xzy-xzy+CiteCheck", "a76b3ec0", "dataset/dev.jsonl", "citecheck/dev.jsonl"),
    ("xzy-xzy+CiteCheck", "a76b3ec0", "dataset/test.jsonl", "citecheck/test.jsonl"),
    ("xzy-xzy+CiteCheck", "a76b3ec0", "dataset/train.jsonl", "citecheck/train.jsonl"),
    ("CLUEbenchmark+OCNLI", "b53efdee", "data/ocnli/dev.json", "ocnli/dev.json"),
    ("CLUEbenchmark+OCNLI", "b53efdee", "data/ocnli/train.3k.json", "ocnli/train.3k.json"),
    ("CLUEbenchmark+OCNLI", "b53efdee", "data/ocnli/train.10k.json", "ocnli/train.10k.json"),
    *[("salesforce+factualNLG", "0da1dfa6", f"data/summedits/summedits_{d}.json",
       f"summedits/summedits_{d}.json") for d in SUMMEDITS],
    *[("TalSchuster+FeverSymmetric", "fa25d17e", f"symmetric_v0.2/fever_symmetric_{s}.jsonl",
       f"feversym/{s}.jsonl") for s in ("dev", "test")],
    *[("cylnlp+dialogsum", "848cc8c0", f"DialogSum_Data/dialogsum.{s}.jsonl", f"dialogsum/{s}.jsonl")
      for s in ("dev", "test")],
    ("Yale-LILY+QMSum", "83d7768c", "data/ALL/jsonl/val.jsonl", "qmsum/val.jsonl"),
    *[("W4ngatang+qags", "47798e9b", f"data/mturk_{s}.jsonl", f"qags/mturk_{s}.jsonl")
      for s in ("cnndm", "xsum")],
    ("artidoro+frank", "80a88fb1", "data/human_annotations.json", "frank/human_annotations.json"),
    ("GEM-benchmark+NL-Augmenter", "b64a8efe",
     "nlaugmenter/transformations/chinese_antonym_synonym_substitution/反义词库.txt",
     "antonyms-zh-nlaug/反义词库.txt"),
    ("asaakyan+covidfact", "ceeb613c", "COVIDFACT_dataset.jsonl", "covid-fact/COVIDFACT_dataset.jsonl"),
    *[("sarrouti+HealthVer", "b20ac99c", f"data/healthver_{s}.csv", f"healthver/{s}.csv")
      for s in ("dev", "test")],
    ("IAAR-Shanghai+UHGEval", "affd38ea", "src/eval_suite/benchs/uhgeval/dataset_uhgeval_concise.jsonl",
     "uhgeval/concise.jsonl"),
]  # fmt: skip

# FRANK's articles with every model's summary, removed from its tree after this commit
FRANK_ARTICLES = ("artidoro+frank", "5860706b", "data/articles-wbertscore-json")


def git(mirror: Path, *args: str) -> bytes | None:
    done = subprocess.run(["git", "--git-dir", str(mirror), *args], capture_output=True)
    return done.stdout if done.returncode == 0 else None


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--mirrors", type=Path, default=Path("/work/.mirror"))
    parser.add_argument("--out", type=Path, default=Path("/work/corpus"))
    args = parser.parse_args()
    missing = 0
    wanted = list(FILES)
    name, commit, folder = FRANK_ARTICLES
    listing = git(args.mirrors / name / "repo", "ls-tree", "--name-only", f"{commit}:{folder}") or b""
    for item in listing.decode().split():
        wanted.append((name, commit, f"{folder}/{item}", f"frank/articles/{item}"))
    for mirror, commit, path, out in wanted:
        data = git(args.mirrors / mirror / "repo", "show", f"{commit}:{path}")
        if data is None:
            print(f"missing: {mirror} {commit}:{path}", file=sys.stderr)
            missing += 1
            continue
        target = args.out / out
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
    print(f"{len(wanted) - missing} files under {args.out}, {missing} missing")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
