"""Evidence for a run, without the database: the query for a section, and numbering passages
as `[S1]`, `[S2]`, ... ids kept for the whole run. The graph imports this (and verify.py), never
the library's storage."""

from __future__ import annotations

from typing import Any

from reflectcli.writing.citations import strip_invented


def section_query(task: str, section: dict[str, Any]) -> str:
    return f"{section['title']} {section.get('goal') or ''}".strip() or task


def number(
    evidence: list[dict[str, Any]], hits: list[dict[str, Any]], section: int | None, query: str,
    round_no: int | None = None,
) -> tuple[list[dict[str, Any]], list[str]]:  # fmt: skip
    """New evidence items for `hits` (ids continue from `evidence`; a chunk already held keeps
    its id), and the ids of all the hits, in rank order. `section` (0-based) for a section's
    research, None for a query the critic asked for in review `round_no`."""
    held = {(e["chunk_id"], e["text"]): e["id"] for e in evidence}  # a re-indexed chunk is new
    new: list[dict[str, Any]] = []
    ids: list[str] = []
    for hit in hits:
        text = strip_invented(hit["text"], set())[0]  # a passage's own [Sn] would mislead
        ident = held.get((hit["chunk_id"], text))
        if ident is None:
            ident = f"S{len(evidence) + len(new) + 1}"
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
