"""Metrics computed without a model, beside the judge's: length (words; a CJK character counts
as a word, as LongBench-Write counts), LongBench-Write's length score S_l when a task states a
length, citations per 1,000 words, the share of cited claims the critic found supported, the
invented citations the run removed, and reference metrics (ROUGE-1 / ROUGE-L F1, heading recall
by exact and fuzzy match) when a task carries a reference article.

Also the rule that splits articles too long for the judge's window into parts (`parts`)."""

from __future__ import annotations

import difflib
import math
import re
from typing import Any

from reflectcli.writing import markdown
from reflectcli.writing.citations import cited_ids
from reflectcli.writing.textops import CJK, estimate_tokens

FUZZY = 0.8  # difflib ratio at or above which two headings are the same heading
_WORD = re.compile(r"\w+", re.UNICODE)


def words(text: str) -> int:
    """Words in `text`: whitespace-separated words, each CJK character one word."""
    wide = len(CJK.findall(text))
    return wide + len(CJK.sub(" ", text).split())


def length_score(required: int, actual: int) -> float:
    """LongBench-Write's S_l (THUDM/LongWriter, evaluation/eval_length.py): 100 at the required
    length, falling by a third per 100 % too long and by a half per 100 % too short, floored at 0."""
    if actual <= 0:
        return 0.0
    if actual > required:
        return round(100 * max(0.0, 1 - (actual / required - 1) / 3), 2)
    return round(100 * max(0.0, 1 - (required / actual - 1) / 2), 2)


def _tokens(text: str) -> list[str]:
    """Lower-cased word tokens for ROUGE (CJK characters one by one)."""
    return [t for t in _WORD.findall(CJK.sub(lambda m: f" {m.group(0)} ", text.lower()))]


def _f1(overlap: int, made: int, wanted: int) -> float:
    if not overlap or not made or not wanted:
        return 0.0
    precision, recall = overlap / made, overlap / wanted
    return round(2 * precision * recall / (precision + recall), 4)


def rouge1(text: str, reference: str) -> float:
    """ROUGE-1 F1 (unigram overlap, clipped counts)."""
    from collections import Counter

    a, b = Counter(_tokens(text)), Counter(_tokens(reference))
    return _f1(sum((a & b).values()), sum(a.values()), sum(b.values()))


def lcs_length(a: list[str], b: list[str]) -> int:
    """The length of the longest common subsequence of two token lists, bit-parallel (Hyyrö
    2004: one big-integer step per token of `b`), equal to the O(n*m) table's answer."""
    masks: dict[str, int] = {}
    for i, token in enumerate(a):
        masks[token] = masks.get(token, 0) | (1 << i)
    full = (1 << len(a)) - 1
    v = full
    for token in b:
        u = v & masks.get(token, 0)
        v = ((v + u) | (v - u)) & full
    return len(a) - v.bit_count()


def rouge_l(text: str, reference: str) -> float:
    """ROUGE-L F1: the longest common subsequence of the two whole texts' token lists (not the
    per-sentence ROUGE-Lsum)."""
    a, b = _tokens(text), _tokens(reference)
    if not a or not b:
        return 0.0
    return _f1(lcs_length(a, b), len(a), len(b))


def _heading(title: str) -> str:
    return " ".join(_tokens(title))


def heading_recall(text: str, reference: str) -> dict[str, float | None]:
    """Share of the reference's headings found in the text: exact (same words, case and
    punctuation aside) and fuzzy (difflib ratio >= FUZZY against some heading of the text)."""
    wanted = [_heading(h.title) for h in markdown.headings(reference)]
    wanted = [h for h in wanted if h]
    if not wanted:
        return {"exact": None, "fuzzy": None, "headings": 0}
    mine = [_heading(h.title) for h in markdown.headings(text)]
    exact = sum(h in mine for h in wanted)
    fuzzy = sum(any(difflib.SequenceMatcher(None, h, m).ratio() >= FUZZY for m in mine) for h in wanted)
    return {"exact": round(exact / len(wanted), 4), "fuzzy": round(fuzzy / len(wanted), 4),
            "headings": len(wanted)}  # fmt: skip


def _final_review(state: dict[str, Any]) -> dict[str, Any] | None:
    reviews = state.get("reviews") or []
    wanted = state.get("final_version")
    for review in reversed(reviews):
        if review.get("version") == wanted:
            return review
    return reviews[-1] if reviews else None


def article(text: str, state: dict[str, Any] | None = None, required: int | None = None,
            reference: str | None = None) -> dict[str, Any]:  # fmt: skip
    """The deterministic metrics of one text (with the run's state: of its final version)."""
    count = words(text)
    out: dict[str, Any] = {
        "words": count,
        "citations_per_1000_words": round(1000 * len(cited_ids(text)) / count, 2) if count else None,
    }
    if required:
        out["length_score"] = length_score(required, count)
    if state is not None:
        claims = (_final_review(state) or {}).get("claims") or []
        out["claims"] = len(claims)
        supported = sum(c.get("verdict") == "supported" for c in claims)
        out["claims_supported"] = round(supported / len(claims), 4) if claims else None
        out["invented_citations_removed"] = sum(len(e.get("removed") or []) for e in state.get("trace") or []
                                                if e.get("kind") == "invented_citation")  # fmt: skip
    if reference:
        out["rouge1"], out["rouge_l"] = rouge1(text, reference), rouge_l(text, reference)
        out["heading_recall"] = heading_recall(text, reference)
    return out


def log_length_ratio(first: int, final: int) -> float:
    """ln(final / first) in words (each at least 1): the length change the LC fit controls for."""
    return math.log(max(final, 1) / max(first, 1))


def parts(text: str, k: int) -> list[str]:
    """`text` in `k` consecutive parts of about equal size, cut only between Markdown blocks
    (a part may be empty when the text has fewer blocks than k)."""
    if k <= 1:
        return [text]
    spans = [(b.start, b.end) for b in markdown.blocks(text)] or [(0, len(text))]
    total = sum(estimate_tokens(text[s:e]) for s, e in spans) or 1
    out: list[str] = []
    start, used = 0, 0
    for i, (_, end) in enumerate(spans):
        used += estimate_tokens(text[spans[i][0] : end])
        if len(out) < k - 1 and used >= total * (len(out) + 1) / k:
            out.append(text[start:end].strip())
            start = end
    out.append(text[start:].strip())
    return out + [""] * (k - len(out))


def part_count(texts: list[str], budget: int) -> int:
    """The smallest number of parts k such that each text's k parts fit `budget` tokens together
    (one part of each text side by side), at most 64."""
    for k in range(1, 65):
        pieces = [parts(t, k) for t in texts]
        if all(sum(estimate_tokens(p[i]) for p in pieces) <= budget for i in range(k)):
            return k
    return 64
