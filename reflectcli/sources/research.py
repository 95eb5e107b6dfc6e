"""Research for a run: which evidence mode it uses, the query for a section, retrieval from the
library, and numbering the passages found as evidence `[S1]`, `[S2]`, ... that keeps its ids
for the whole run (a passage found again keeps its first id)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from reflectcli.errors import UserError
from reflectcli.sources.library import search
from reflectcli.store.db import Store

MODES = ("auto", "none", "local", "web", "hybrid")


def library_size(runs_dir: str | Path) -> int:
    """Chunks in the runs folder's source library (0 without a database or library)."""
    store = Store.existing(runs_dir)
    if store is None:
        return 0
    try:
        return store.conn.execute("SELECT COUNT(*) FROM chunks").fetchone()[0]
    except Exception:  # an old database with no library yet
        return 0
    finally:
        store.close()


def resolve_mode(mode: str, runs_dir: str | Path) -> str:
    """The evidence a run will use: `auto` is the library when it holds anything, else none.
    Web search is not built yet: asking for it is an error, not a silent downgrade."""
    if mode in ("web", "hybrid"):
        raise UserError(f"--sources {mode}: web search is not available in this version",
                        hint="use --sources local (the library: `reflectcli sources add ...`) "
                        "or none", exit_code=2)  # fmt: skip
    size = library_size(runs_dir) if mode in ("auto", "local") else 0
    if mode == "local" and size == 0:
        raise UserError(f"--sources local: the source library in {runs_dir} is empty",
                        hint="add files first: reflectcli sources add notes/ report.pdf",
                        exit_code=2)  # fmt: skip
    if mode == "auto":
        return "local" if size else "none"
    return mode


def section_query(task: str, section: dict[str, Any]) -> str:
    return f"{section['title']} {section.get('goal') or ''}".strip() or task


class LocalRetriever:
    """Top passages from the source library for a query (a fresh connection each time: a
    graph step may run on any thread)."""

    def __init__(self, runs_dir: str | Path, top_k: int = 3):
        self.runs_dir = runs_dir
        self.top_k = top_k

    def __call__(self, query: str) -> list[dict[str, Any]]:
        return search(self.runs_dir, query, limit=self.top_k)


def number(
    evidence: list[dict[str, Any]], hits: list[dict[str, Any]], section: int, query: str
) -> tuple[list[dict[str, Any]], list[str]]:
    """New evidence items for `hits` (ids continue from `evidence`; a chunk already held keeps
    its id), and the ids of all the hits, in rank order."""
    held = {e["chunk_id"]: e["id"] for e in evidence}
    new: list[dict[str, Any]] = []
    ids: list[str] = []
    for hit in hits:
        ident = held.get(hit["chunk_id"])
        if ident is None:
            ident = f"S{len(evidence) + len(new) + 1}"
            held[hit["chunk_id"]] = ident
            new.append({
                "id": ident, "chunk_id": hit["chunk_id"], "source_id": hit["source_id"],
                "title": hit["title"], "location": hit["location"], "kind": hit["kind"],
                "page": hit["page"], "heading": hit["heading"], "text": hit["text"],
                "section": section + 1, "query": query,
            })  # fmt: skip
        if ident not in ids:
            ids.append(ident)
    return new, ids
