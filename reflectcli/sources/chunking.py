"""Cutting a Document into chunks for retrieval: whole paragraphs up to about 1,000 characters,
never across a page or heading, each with its place in the source (page, heading, character
offsets into the document's text), plus the form the full-text index gets."""

from __future__ import annotations

import re
from collections.abc import Sequence
from itertools import pairwise
from typing import Any

from reflectcli.sources.readers import Document
from reflectcli.writing.sentences import ends
from reflectcli.writing.textops import searchable

__all__ = ["TARGET", "chunk_document", "searchable"]

TARGET = 1000  # characters a chunk aims for
_PARAGRAPHS = re.compile(r"\n\s*\n")


def chunk_document(document: Document) -> list[dict[str, Any]]:
    chunks: list[dict[str, Any]] = []
    offset = 0
    for segment in document.segments:
        for start, end in _pieces(segment.text, segment.code):
            text = segment.text[start:end].strip()
            if text:
                body = searchable(f"{segment.heading or ''}\n{text}")
                chunks.append({"text": text, "page": segment.page, "heading": segment.heading,
                               "start": offset + start, "end": offset + end, "body": body,
                               "toc": segment.toc})  # fmt: skip
        offset += len(segment.text) + 2  # segments are joined by a blank line
    return chunks


def _pieces(text: str, code: Sequence[tuple[int, int]] = ()) -> list[tuple[int, int]]:
    """(start, end) spans of whole paragraphs, up to TARGET characters each; a paragraph
    longer than that is cut at sentence ends (or, failing those, at a space); a code block is
    one paragraph, cut only at line ends."""
    spans: list[tuple[int, int]] = []
    current: tuple[int, int] | None = None  # the piece being filled
    for p_start, p_end, in_code in _paragraphs(text, code):
        for a, b in _split_long(text, p_start, p_end, in_code):
            if current is None:
                current = a, b
            elif b - current[0] <= TARGET:
                current = current[0], b
            else:
                spans.append(current)
                current = a, b
    if current is not None:
        spans.append(current)
    return spans


def _paragraphs(text: str, code: Sequence[tuple[int, int]]) -> list[tuple[int, int, bool]]:
    """(start, end, is code) of the text's paragraphs; a blank line inside code is no break."""
    breaks = [m.end() for m in _PARAGRAPHS.finditer(text) if not any(a < m.start() < b for a, b in code)]
    return [(a, b, any(a <= c < b for c, _ in code)) for a, b in pairwise([0, *breaks, len(text)]) if a < b]


_STATEMENT = re.compile(r"\n(?![ \t]|\.\.\.(?: |$))", re.M)  # a line end the next line does not continue


def _split_long(text: str, start: int, end: int, code: bool = False) -> list[tuple[int, int]]:
    if end - start <= TARGET:
        return [(start, end)]
    out, a = [], start
    while end - a > TARGET:
        window = text[a : a + TARGET]
        b = a + (_cut(window, code) or TARGET)
        out.append((a, b))
        a = b
    out.append((a, end))
    return out


def _cut(window: str, code: bool) -> int:
    """Where to end a piece of `window` (0: nowhere good), never in its first third: code at
    a line end before a new statement (not a `... ` continuation or an indented line), else
    any line end; prose at a sentence end (the segmenter's, `writing.sentences`), else such a
    line end, else a space."""
    statements = [m.end() for m in _STATEMENT.finditer(window)]
    if code:
        cuts = [statements, [window.rfind("\n") + 1]]
    else:
        cuts = [[e for e in ends(window) if e < len(window)], statements, [window.rfind(" ") + 1]]
    return next((max(c) for c in cuts if c and max(c) > TARGET // 3), 0)
