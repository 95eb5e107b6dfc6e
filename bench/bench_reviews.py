"""The critique filter, the tiny critic's review-sanity rule and the lessons' opposites rule on
real critiques that no one on the project wrote.

- **Real critiques** (English): NeurIPS 2023 peer reviews from OpenReview, as collected in the
  PeerRead format by djroytburg/10718peerread (commit b3f2c323, `output/neurips_2023/reviews/`,
  the first 400 files by name). Feedback = each paragraph of a review's WEAKNESSES section
  (8+ plain words); improvements = each line of its WEAKNESSES and QUESTIONS sections (4+ plain
  words: tokens of ASCII letters only, so formulas and table rows are not taken).
- **Real critiques** (Chinese): the review-comment guide of robbin0919/eng-practices (commit
  54bf7c4; Google's code-review guide with a human Chinese translation and Chinese example
  comments): every Chinese sentence of 8+ characters.
- **Junk**: the embedded critic's real junk from issues 21 and 23 and the tool's own messages.

Reported per rule: real critiques rejected (target 0), junk still rejected (target: all).
Lessons: for each real imperative critique sentence, its negations and antonym swaps; a pair
that `same()` calls the same is a merge of opposites (target 0); beside it, how many sentences
are `same()` as themselves with a courtesy word added (the rule still merges what is alike).

    python bench/bench_reviews.py [--neurips DIR] [--zh DIR]
    (defaults: $REVIEWS_NEURIPS or /work/corpus/neurips2023-reviews,
               $REVIEWS_ZH or /work/corpus/eng-practices-zh)
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from reflectcli.graph.sanity import implausible  # noqa: E402
from reflectcli.memory import lessons  # noqa: E402
from reflectcli.writing.critique import critique_problem  # noqa: E402

JUNK = [
    "The [section_name]: The [issue/topic]…",
    "'is too short to be a critique (or not words); say in two or three sentences what is wrong",
    "');}\\`; });",
    ".25 / page * (num_pages - 1) = $89.60 in faience",
    ", aveleresi mrjenin yar cidade.",
    "The JSON does not meet the specified requirements",
    ".15027 (A) A: [r] Asynchronous Execution",
    ",1968-07-22T22:32:59Zzzz,",
    "jonk.santos_marcusiadevillejoel.",
    "An error occurred while editing the content.",
    "{'ValueError': 'could not convert'}",
    "ValueError: invalid literal for int()",
    "openai.RateLimitError: Rate limit reached for requests on this model",
    "This information has been added to a JSON file.",
    "As an AI, I cannot review this article.",
    "I cannot review this.",
    "<what is wrong, in two or three sentences>",
    "What is wrong, in two or three sentences.",
    "A concrete, actionable change.",
    "",
    "Good.",
]
SECTION = re.compile(r"^([A-Z][A-Z /]+):\s*$", re.M)
VERBS = ("add", "clarify", "explain", "discuss", "provide", "include", "compare", "consider", "show",
         "report", "describe", "define", "cite", "remove", "use", "mention", "give", "state", "move",
         "justify", "elaborate", "expand", "shorten", "simplify", "analyze", "analyse", "evaluate",
         "present", "specify", "highlight", "emphasize", "summarize", "reduce", "increase",
         "test")  # fmt: skip
ANTONYMS = [("formal", "informal"), ("more", "fewer"), ("longer", "shorter"), ("add", "remove"),
            ("include", "exclude"), ("active", "passive"), ("simple", "complex"), ("expand", "shorten"),
            ("increase", "reduce"), ("before", "after"), ("explicit", "implicit")]  # fmt: skip


def sections(comments: str) -> dict[str, str]:
    parts = SECTION.split(comments)
    return {parts[i].strip(): parts[i + 1] for i in range(1, len(parts) - 1, 2)}


def plain_words(text: str) -> int:
    """Tokens of two or more ASCII letters (punctuation around them stripped): the corpus rule
    for a unit holding a sentence, independent of the filter measured (a formula, a table
    row, a bare "Line 116: $x$ -> $y$" is not taken)."""
    stripped = (t.strip(".,;:!?()[]\"'") for t in text.split())
    return sum(1 for t in stripped if len(t) >= 2 and t.isascii() and t.isalpha())


def english(folder: Path) -> tuple[list[str], list[str]]:
    feedback, items = [], []
    for path in sorted(folder.glob("*.json"))[:400]:
        paper = json.loads(path.read_text(encoding="utf-8"))
        for review in paper.get("reviews") or []:
            parts = sections(review.get("comments") or "")
            weak = parts.get("WEAKNESSES", "")
            feedback += [p.strip() for p in re.split(r"\n\s*\n", weak) if plain_words(p) >= 8]
            for text in (weak, parts.get("QUESTIONS", "")):
                items += [line.strip() for line in text.splitlines() if plain_words(line) >= 4]
    return feedback, items


def chinese(folder: Path) -> list[str]:
    found = []
    for path in sorted(folder.glob("*.md")):
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.lstrip().startswith("#"):
                continue
            for part in re.findall(r"[^()（）\[\]\n]*[\u4e00-\u9fff][^()（）\[\]\n]*", line):
                for sentence in re.findall(r"[^。！？]+[。！？]?", part):
                    sentence = sentence.strip(' >-*"“”')
                    if len(re.findall(r"[\u4e00-\u9fff]", sentence)) >= 8:
                        found.append(sentence)
    return list(dict.fromkeys(found))


def rejections(texts: list[str], min_words: int, tiny_feedback: bool) -> tuple[collections.Counter, list]:
    """Per rule, how many texts it rejected, with examples."""
    counts: collections.Counter = collections.Counter()
    examples = []
    for text in texts:
        found = critique_problem(text, min_words)
        if found is None and tiny_feedback:
            dims = dict.fromkeys(("accuracy", "completeness", "readability", "structure"), 6.0)
            if implausible(6.0, dims, text, tiny=True):
                found = ("tiny-prose", "")
        if found:
            counts[found[0]] += 1
            examples.append((found[0], text[:160]))
    return counts, examples


def negations(sentence: str) -> list[str]:
    """Opposites of an imperative sentence: negated ("Do not add ...", "Avoid adding ..."), and
    antonym swaps."""
    low = sentence[0].lower() + sentence[1:]
    verb, _, rest = low.partition(" ")
    gerund = (verb[:-1] if verb.endswith("e") and not verb.endswith("ee") else verb) + "ing"
    out = [f"Do not {low}", f"Never {low}", f"Don't {low}", f"Avoid {gerund} {rest}"]
    for a, b in ANTONYMS:
        for x, y in ((a, b), (b, a)):
            swapped, n = re.subn(rf"\b{x}\b", y, sentence, flags=re.I)
            if n:
                out.append(swapped)
    return out


def imperatives(texts: list[str]) -> list[str]:
    found = []
    for text in texts:
        for sentence in re.split(r"(?<=[.!?])\s+", text):
            sentence = sentence.strip(" -*•\t")
            words = sentence.split()
            if 4 <= len(words) <= 25 and words[0].lower() in VERBS and sentence[0].isupper():
                found.append(sentence)
    return list(dict.fromkeys(found))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    corpus = "/work/corpus"
    parser.add_argument(
        "--neurips", default=os.environ.get("REVIEWS_NEURIPS", f"{corpus}/neurips2023-reviews")
    )
    parser.add_argument("--zh", default=os.environ.get("REVIEWS_ZH", f"{corpus}/eng-practices-zh"))
    args = parser.parse_args()
    en, zh = Path(args.neurips), Path(args.zh)
    if not en.is_dir():
        print(f"skipped: no review corpus at {en} (see the docstring for where it comes from)")
        return
    feedback, items = english(en)
    zh_texts = chinese(zh) if zh.is_dir() else []
    if not zh_texts:
        print(f"note: no Chinese corpus at {zh}; English only")
    failed = False
    for label, texts, min_words, tiny in (
        (f"feedback (en, {en.name}: weaknesses paragraphs)", feedback, 4, True),
        ("improvements (en, weakness/question lines)", items, 2, False),
        ("feedback (zh, eng-practices sentences)", zh_texts, 4, True),
        ("improvements (zh)", zh_texts, 2, False),
    ):
        counts, examples = rejections(texts, min_words, tiny)
        shown = ", ".join(f"{k} {v}" for k, v in sorted(counts.items())) or "none"
        print(f"{label}: {len(texts)} texts, rejected {sum(counts.values())} ({shown})")
        for rule, text in examples[:8]:
            print(f"    [{rule}] {text!r}")
        failed |= bool(counts)
    junk_counts: collections.Counter = collections.Counter()
    passed = []
    for text in JUNK:
        as_feedback = rejections([text], 4, True)[0]
        as_item = rejections([text], 2, False)[0]
        junk_counts.update(as_feedback)
        if not as_feedback or not as_item:
            passed.append((text, "feedback" if not as_feedback else "improvement"))
    shown = ", ".join(f"{k} {v}" for k, v in sorted(junk_counts.items()))
    kept = sum(1 for _, where in passed if where == "feedback")
    print(f"junk: {len(JUNK)} texts, rejected as feedback {len(JUNK) - kept} ({shown}); "
          f"passed somewhere: {len(passed)}")  # fmt: skip
    for text, where in passed:
        print(f"    JUNK PASSED as {where}: {text!r}")
    failed |= bool(passed)
    sentences = imperatives(feedback + items)
    merged, pairs, alike, counted = [], 0, 0, 0
    for sentence in sentences:
        text = lessons.lesson_text(sentence)
        if len(lessons.stems(text)) < 2:
            continue
        counted += 1
        alike += lessons.same(text, text.rstrip(".") + ", please.")
        for other in negations(text):
            pairs += 1
            if lessons.same(text, lessons.lesson_text(other)):
                merged.append((text, other))
    print(f"lessons: {counted} real imperative sentences, {pairs} opposite pairs, merged {len(merged)}; "
          f"same as themselves with 'please' added: {alike}/{counted}")  # fmt: skip
    for a, b in merged[:8]:
        print(f"    MERGED {a!r} ~ {b!r}")
    failed |= bool(merged)
    good = "on target (0 real rejected, all junk rejected, 0 merged)"
    print("verdict:", "ABOVE TARGET (see above)" if failed else good)


if __name__ == "__main__":
    main()
