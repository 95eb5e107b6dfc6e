"""What the one segmenter changed on real text (issue 32, item 4; ninth pass): the heuristic
review's repetition finding and the References resolver's title candidates cut sentences with
pysbd (`writing.sentences`) where they used a regular expression. Both are measured here against
that expression (the baseline, kept in this file), on Markdown nobody on the project wrote.

    python bench/bench_one_segmenter.py MD_FOLDER [--zh CITECHECK.jsonl]

- Markdown: every `.md` under MD_FOLDER (sebastianruder/NLP-progress 379f03ff, English and a
  few other languages): per file, the heuristic review's readability (unique sentences) and
  whether it names a repeated sentence, new against old; per list item or table cell that
  holds a year (a reference: "Devlin et al. (2018)"), the title candidates new against old.
- Chinese (`--zh`): the cited web documents of CiteCheck's dev split (xzy-xzy/CiteCheck
  a76b3ec0), 300 of more than 200 characters, as article bodies: the review's readability new
  against old.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from reflectcli.models import fallbacks  # noqa: E402
from reflectcli.sources import resolve  # noqa: E402

_OLD_REVIEW = re.compile(r"[.!?。！？]\s*")  # what heuristic_review cut on
_OLD_REPEAT = re.compile(r"(?<=[.!?。！？])\s+")  # what the repetition finding cut on
_OLD_TITLES = re.compile(r"(?<=[.。])\s+")  # what the resolver cut on
_YEAR = re.compile(r"\b(?:19|20)\d{2}\b")


def old_readability(text: str) -> float:
    said = [s.strip().lower() for s in _OLD_REVIEW.split(text) if s.strip()]
    return len(set(said)) / len(said) if said else 0.0


def repeats(parts: list[str]) -> bool:
    """Whether a sentence of five words or more comes twice (the heuristic review's finding)."""
    seen: set[str] = set()
    for sentence in parts:
        key = fallbacks.normalize(sentence)
        if len(key.split()) >= 5 and key in seen:
            return True
        seen.add(key)
    return False


def new_review(text: str) -> tuple[float, bool]:
    """The share of unique sentences and the repetition finding as heuristic_review now cuts."""
    said = [x.strip().lower() for x in fallbacks._sentences(text) if x.strip()]
    return (len(set(said)) / len(said) if said else 0.0), repeats(fallbacks._sentences(text))


def old_titles(entry: str) -> set[str]:
    original = resolve.sentences_of
    resolve.sentences_of = lambda text: _OLD_TITLES.split(text)
    try:
        return set(resolve._parts(entry)["titles"])
    finally:
        resolve.sentences_of = original


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("folder", type=Path)
    parser.add_argument("--zh", type=Path, help="CiteCheck's dataset/dev.jsonl")
    args = parser.parse_args()
    files = sorted(args.folder.rglob("*.md"))
    moved = repeat_changed = repeats_new = repeats_old = 0
    means = [0.0, 0.0]
    entries = titles_changed = lost_link_titles = gained = 0
    examples: list[str] = []
    for path in files:
        text = path.read_text(encoding="utf-8", errors="replace")
        readability, found = new_review(text)
        before = old_readability(text)
        moved += abs(readability - before) > 0.05
        means[0] += before / len(files)
        means[1] += readability / len(files)
        old = repeats(_OLD_REPEAT.split(text))
        repeats_old += old
        repeats_new += found
        repeat_changed += found != old
        for line in text.splitlines():
            cells = (
                [c.strip() for c in line.strip().strip("|").split("|")] if line.startswith("|") else [line]
            )
            for cell in cells:
                if not _YEAR.search(cell) or len(cell) < 12:
                    continue
                entries += 1
                new, before_titles = set(resolve._parts(cell)["titles"]), old_titles(cell)
                if new != before_titles:
                    titles_changed += 1
                    if len(examples) < 5:
                        examples.append(f"{cell[:80]!r}: only old {sorted(before_titles - new)[:2]}")
                linked = set(re.findall(r"\[([^\]]{8,})\]\(", cell))
                lost_link_titles += bool(linked & before_titles - new)
    print(f"Markdown: {len(files)} files; unique sentences, mean, old cut {means[0]:.3f} -> new "
          f"{means[1]:.3f} (moved by more than 0.05: {moved}); files with a repeated sentence named "
          f"{repeats_old} -> {repeats_new} (differing: {repeat_changed})")  # fmt: skip
    print(f"  entries with a year: {entries}; title candidates changed: {titles_changed}; "
          f"of them with a candidate the old cut lacked: {gained}; a link's own title lost: "
          f"{lost_link_titles}")  # fmt: skip
    for example in examples:
        print(f"    {example}")
    if args.zh and args.zh.exists():
        docs = list(dict.fromkeys(json.loads(line)["quote"] for line in args.zh.read_text().splitlines()))
        docs = [d for d in docs if len(d) > 200][:300]
        shifts = [abs(new_review(d)[0] - old_readability(d)) for d in docs]
        mean = sum(shifts) / max(1, len(shifts))
        print(f"Chinese: {len(docs)} CiteCheck documents; readability moved by more than 0.05: "
              f"{sum(x > 0.05 for x in shifts)}; mean shift {mean:.3f}")  # fmt: skip


if __name__ == "__main__":
    main()
