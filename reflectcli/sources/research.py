"""Research for a run: which evidence mode it uses, the query for a section, retrieval from the
library, and numbering the passages found as evidence `[S1]`, `[S2]`, ... that keeps its ids
for the whole run (a passage found again keeps its first id)."""

from __future__ import annotations

import hashlib
import json
import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any

from reflectcli.errors import UserError
from reflectcli.sources.evidence import RELEVANT_SHARE, number, query_stems, rarity, section_query, share
from reflectcli.sources.fetch import unused_proxy_note
from reflectcli.sources.library import add_web_results, best_chunks, search, word_counts
from reflectcli.sources.pages import Pages
from reflectcli.sources.stopwords import only_stop_words, stop_words_message
from reflectcli.store.db import DB_NAME, Store, store_url
from reflectcli.writing.titles import content_stems

__all__ = ["JournaledSearch", "LocalRetriever", "WebRetriever", "number", "resolve_mode",
           "section_query"]  # fmt: skip

WebSearch = Callable[[str, int], list[dict[str, Any]]]  # (query, n) -> [{title, url, snippet}]

MODES = ("auto", "none", "local", "web", "hybrid")


def library_size(runs_dir: str | Path) -> int:
    """Chunks in the runs folder's source library (0 without a database or library). Read
    through a plain read-only connection: it never upgrades, creates or locks anything, so a
    `write` starting beside others that are creating the database is not held up."""
    if store_url():  # a shared PostgreSQL: the store's own connection (its tables may be new)
        with Store(runs_dir, read_only=True) as store:
            return store.conn.execute("SELECT COUNT(*) FROM chunks").fetchone()[0]
    path = Path(runs_dir) / DB_NAME
    if not path.is_file():
        return 0
    try:
        conn = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True, timeout=5)
    except sqlite3.Error:
        return 0
    try:
        return conn.execute("SELECT COUNT(*) FROM chunks").fetchone()[0]
    except sqlite3.Error:  # no library in this database yet
        return 0
    finally:
        conn.close()


def weights(runs_dir: str | Path, query: str) -> dict[str, float]:
    """The query's content stems, each weighted by how rare it is in the library (`rarity`)."""
    stems = query_stems(query)
    counts, total = word_counts(runs_dir, list(stems.values()))
    return {stem: rarity(counts[word], total) for stem, word in stems.items()}


def with_shares(hits: list[dict[str, Any]], runs_dir: str | Path, query: str) -> list[dict[str, Any]]:
    """Library hits, each with the `share` of the query's weight its heading and text hold."""
    if hits:
        weighed = weights(runs_dir, query)
        for hit in hits:
            hit["share"] = round(share(weighed, f"{hit.get('heading') or ''}\n{hit['text']}"), 4)
    return hits


def relevant_to(task: str, runs_dir: str | Path) -> bool:
    """Whether the library holds a passage about `task`: among the task's best matches, one
    that holds RELEVANT_SHARE of the task's weight, its content words (Snowball stems, so
    "cars" meets "car") each weighted by how rare it is in the library. BM25 ranks whatever
    shares a word; a library of revision notes has a "best" passage for "Should cities ban
    cars?" too, and citing it would be worse than citing nothing. Counting words alone let a
    common verb carry a match: "How do lighthouses work?" was written from the urllib HOWTO,
    which says "work" in many places and "lighthouse" in none."""
    if not content_stems(task) or only_stop_words(task):
        return False
    hits = with_shares(search(runs_dir, task, limit=5), runs_dir, task)
    return any(hit["share"] >= RELEVANT_SHARE for hit in hits)


def resolve_mode(mode: str, runs_dir: str | Path, web: str | None = None, task: str | None = None) -> str:
    """The evidence a run will use: `auto` is the library when it holds a passage relevant to
    the task (`relevant_to`; any passage when no task is given), else none.
    Web search needs a provider (`[research] web`): asking for it without one is an error, not
    a silent downgrade."""
    if mode in ("web", "hybrid") and not web:
        raise UserError(f"--sources {mode} needs a web search provider",
                        hint="set [research] web = \"searxng\" (and web_api_base), or tavily, "
                        "brave, exa_ai, ... with the provider's key variable", exit_code=2)  # fmt: skip
    size = library_size(runs_dir) if mode in ("auto", "local") else 0
    if mode == "local" and size == 0:
        raise UserError(f"--sources local: the source library in {runs_dir} is empty",
                        hint="add files first: reflectcli sources add notes/ report.pdf",
                        exit_code=2)  # fmt: skip
    if mode == "auto":
        return "local" if size and (task is None or relevant_to(task, runs_dir)) else "none"
    return mode


class LocalRetriever:
    """Top passages from the source library for a query (a fresh connection each time: a
    graph step may run on any thread), as `{"hits": [...], "notes": [{"kind", "note"}, ...]}`
    (every retriever answers so; a note is one line for the run's trace)."""

    def __init__(self, runs_dir: str | Path, top_k: int = 3):
        self.runs_dir = runs_dir
        self.top_k = top_k

    def __call__(self, query: str) -> dict[str, Any]:
        if only_stop_words(query):
            return {"hits": [], "notes": [{"kind": "stop_words", "note": stop_words_message(query)}]}
        hits = with_shares(search(self.runs_dir, query, limit=self.top_k), self.runs_dir, query)
        return {"hits": hits, "notes": []}


class WebRetriever:
    """Top passages from the web: a search (through `search_fn`), each result read into the
    library (its page, fetched safely, or its snippet), then each result's best chunk for the
    query. With `local`, the library's own top passages come first (hybrid). Its notes: one
    per URL refused for where it points, and one when the environment names a proxy that is
    not used. Up to `workers` pages are fetched at once, through `proxy` if given; one
    retriever serves one run, and fetches each page once in it (sources/pages.py)."""

    def __init__(self, search_fn: WebSearch, runs_dir: str | Path, top_k: int = 3,
                 fetch: bool = True, local: bool = False, allow_private: bool = False,
                 workers: int = 1, proxy: str | None = None):  # fmt: skip
        self.search_fn = search_fn
        self.runs_dir = runs_dir
        self.top_k = top_k
        self.fetch = fetch
        self.local = local
        self.allow_private = allow_private
        self.workers = workers
        self.proxy = proxy
        self.pages = Pages()

    def __call__(self, query: str) -> dict[str, Any]:
        hits = LocalRetriever(self.runs_dir, self.top_k)(query)["hits"] if self.local else []
        results = self.search_fn(query, self.top_k)
        ids, refused = add_web_results(self.runs_dir, results[: self.top_k], self.fetch, self.allow_private,
                                       self.workers, self.pages, self.proxy)  # fmt: skip
        seen = {h["chunk_id"] for h in hits}
        hits += [h for h in best_chunks(self.runs_dir, query, ids) if h["chunk_id"] not in seen]
        notes = [{"kind": "refused", "note": line} for line in refused]
        if self.fetch and (unused := unused_proxy_note(self.proxy)):  # the run's trace keeps one
            notes.append({"kind": "proxy", "note": unused})
        return {"hits": hits, "notes": notes}


class JournaledSearch:
    """A retriever whose answers (hits and notes) are journaled per run like model answers: a search repeated
    after a kill (answered, not yet checkpointed) is replayed, never paid twice."""

    def __init__(self, inner: Callable[[str], dict[str, Any]], store: Any, thread_id: str,
                 label: str):  # fmt: skip
        self.inner = inner
        self.store = store
        self.thread_id = thread_id
        self.label = label
        self.replayed = 0

    def __call__(self, query: str) -> dict[str, Any]:
        blob = json.dumps({"thread": self.thread_id, "search": self.label, "query": query},
                          sort_keys=True, ensure_ascii=False)  # fmt: skip
        key = hashlib.sha256(blob.encode("utf-8")).hexdigest()
        saved = self.store.journal_get(key)
        if saved is not None:
            self.replayed += 1
            return {"hits": saved["hits"], "notes": saved.get("notes") or []}
        found = self.inner(query)
        self.store.journal_put(key, self.thread_id, f"search:{query[:80]}",
                               {"model": self.label, **found})  # fmt: skip
        return found
