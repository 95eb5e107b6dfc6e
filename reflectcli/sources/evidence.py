"""Evidence for a run, without the database: the query for a section, and numbering passages
as `[S1]`, `[S2]`, ... ids kept for the whole run. The graph imports this (and verify.py), never
the library's storage."""

from __future__ import annotations

import math
import re
from typing import Any

from reflectcli.sources.stopwords import content_words
from reflectcli.writing.citations import strip_invented
from reflectcli.writing.textops import CJK
from reflectcli.writing.titles import content_stems


def section_query(task: str, section: dict[str, Any]) -> str:
    return f"{section['title']} {section.get('goal') or ''}".strip() or task


def number(
    evidence: list[dict[str, Any]], hits: list[dict[str, Any]], section: int | None, query: str,
    round_no: int | None = None,
) -> tuple[list[dict[str, Any]], list[str]]:  # fmt: skip
    """New evidence items for `hits` (ids continue after the highest in `evidence`; a chunk
    already held keeps its id), and the ids of all the hits, in rank order. `section`
    (0-based) for a section's research, None for a query the critic asked for in review `round_no`."""
    held = {(e["chunk_id"], e["text"]): e["id"] for e in evidence}  # a re-indexed chunk is new
    top = max((int(e["id"][1:]) for e in evidence), default=0)  # an article's own ids may skip
    new: list[dict[str, Any]] = []
    ids: list[str] = []
    for hit in hits:
        text = strip_invented(hit["text"], set())[0]  # a passage's own [Sn] would mislead
        ident = held.get((hit["chunk_id"], text))
        if ident is None:
            ident = f"S{top + len(new) + 1}"
            held[(hit["chunk_id"], text)] = ident
            new.append({
                "id": ident, "chunk_id": hit["chunk_id"], "source_id": hit["source_id"],
                "title": strip_invented(hit["title"], set())[0], "location": hit["location"],
                "kind": hit["kind"],
                "page": hit["page"], "heading": hit["heading"], "text": text,
                "section": None if section is None else section + 1, "round": round_no,
                "query": query,
            })  # fmt: skip
        if ident not in ids:
            ids.append(ident)
    return new, ids


RELEVANT = 0.7  # a passage is kept when its strength is at least this share of the best one's
RELEVANT_SHARE = 0.5  # ... and when it holds at least this share of its query's weight (`share`)


def query_stems(text: str) -> dict[str, str]:
    """The text's content stems (writing/titles.content_stems), each with a word of the text
    that has it, to look its rarity up in the index (a CJK character stands for itself)."""
    found: dict[str, str] = {}
    for token in re.findall(r"\w+", text):
        for stem in sorted(content_stems(token)):
            found.setdefault(stem, stem if CJK.fullmatch(stem) else token)
    return found


def rarity(holding: int, total: int) -> float:
    """BM25's IDF for a word that `holding` of `total` documents hold, in Lucene's form (never
    below 0): a word every document holds weighs almost nothing, one that none holds the most."""
    return math.log(1 + (total - holding + 0.5) / (holding + 0.5))


def share(weights: dict[str, float], text: str) -> float:
    """The part of a query's weight that `text` holds: its stems, each weighted by its rarity
    in the library. A common verb the passage shares ("work") is a small part; a rare word it
    lacks ("lighthouses", in no source at all) is the largest. One word alone never carries a
    match: a text holding fewer than two of the query's stems (when it has two) holds 0."""
    whole = sum(weights.values())
    if whole <= 0:
        return 0.0  # a query of no content word ("t 0", "the 1450") holds no weight to share
    found = content_stems(text)
    held = [stem for stem in weights if stem in found]
    if len(held) < min(2, len(weights)):
        return 0.0
    return sum(weights[stem] for stem in held) / whole


def strength(hit: dict[str, Any], query: str) -> float:
    """A hit's score over the square root of its query's content words, higher is better (both
    stores rank lower-is-better). BM25 sums over the words matched: a section's long query
    (title and goal) sums more small, incidental matches than the task's short one, but
    dividing by the whole count would punish it for the words that do not match."""
    return -float(hit.get("score") or 0.0) / math.sqrt(max(1, len(content_words(query))))


def relevant(searches: list[tuple[str, list[dict[str, Any]]]], keep: int) -> list[tuple[str, dict[str, Any]]]:
    """The passages worth citing from one or more searches, as (query, hit): only those that
    hold RELEVANT_SHARE of their query's weight (a library hit's `share`; a web result, which
    the search engine chose, has none and passes) and whose strength clears RELEVANT times the
    best such one's (over all the searches); each chunk once, the first search's first (best
    first within each), at most `keep`. Hits without a score (a web page none of whose chunks
    matched) count only when no hit has one; when none has one the share alone decides."""
    held = [(q, [h for h in hits if h.get("share", 1.0) >= RELEVANT_SHARE]) for q, hits in searches]
    best = max((strength(h, q) for q, hits in held for h in hits), default=0.0)
    floor = RELEVANT * best if best > 0 else float("-inf")
    seen: set[Any] = set()
    kept: list[tuple[str, dict[str, Any]]] = []
    for query, hits in held:
        for hit in sorted(hits, key=lambda h: -strength(h, query)):
            if hit["chunk_id"] not in seen and strength(hit, query) >= floor:
                seen.add(hit["chunk_id"])
                kept.append((query, hit))
    return kept[:keep]
