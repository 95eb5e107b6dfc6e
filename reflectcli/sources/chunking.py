"""Cutting a Document into chunks for retrieval: whole paragraphs up to about 1,000 characters,
never across a page or heading, each with its place in the source (page, heading, character
offsets into the document's text), plus the form the full-text index gets."""

from __future__ import annotations

import re
from typing import Any

from reflectcli.sources.readers import Document
from reflectcli.writing.textops import searchable

__all__ = ["TARGET", "chunk_document", "searchable"]

TARGET = 1000  # characters a chunk aims for
_PARAGRAPHS = re.compile(r"\n\s*\n")


def chunk_document(document: Document) -> list[dict[str, Any]]:
    chunks: list[dict[str, Any]] = []
    offset = 0
    for segment in document.segments:
        for start, end in _pieces(segment.text):
            text = segment.text[start:end].strip()
            if text:
                body = searchable(f"{segment.heading or ''}\n{text}")
                chunks.append({"text": text, "page": segment.page, "heading": segment.heading,
                               "start": offset + start, "end": offset + end, "body": body})  # fmt: skip
        offset += len(segment.text) + 2  # segments are joined by a blank line
    return chunks


def _pieces(text: str) -> list[tuple[int, int]]:
    """(start, end) spans of whole paragraphs, up to TARGET characters each; a paragraph
    longer than that is cut at sentence ends (or, failing those, every TARGET characters)."""
    spans: list[tuple[int, int]] = []
    bounds = [0, *[m.end() for m in _PARAGRAPHS.finditer(text)], len(text)]
    paragraphs = [(bounds[i], bounds[i + 1]) for i in range(len(bounds) - 1)]
    start = end = None
    for p_start, p_end in paragraphs:
        for a, b in _split_long(text, p_start, p_end):
            if start is None:
                start, end = a, b
            elif b - start <= TARGET:
                end = b
            else:
                spans.append((start, end))
                start, end = a, b
    if start is not None:
        spans.append((start, end))
    return spans


def _split_long(text: str, start: int, end: int) -> list[tuple[int, int]]:
    if end - start <= TARGET:
        return [(start, end)]
    out, a = [], start
    while end - a > TARGET:
        window = text[a : a + TARGET]
        cut = max((m.end() for m in re.finditer(r"[.!?。！？]\s", window)), default=0)
        b = a + (cut if cut > TARGET // 3 else TARGET)
        out.append((a, b))
        a = b
    out.append((a, end))
    return out
