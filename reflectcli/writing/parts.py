"""What of a text a rewrite must keep: its headings (a section or a subsection), code blocks,
tables, HTML blocks (comments, markup) and licence text. A revision is asked to improve prose;
one that drops any of these loses the writer's work without a word (a README's License
section with its MIT text, a code block turned into a sentence about it).

Parts are read from markdown-it-py's tokens (writing/markdown.py). A part counts as kept when
the rewrite still holds it: a heading of the same title (at any level: a rewrite's headings are
demoted under its section), a code block holding the same code, a table with the same header,
the same HTML block or licence paragraph (spaces folded). A licence is a paragraph of a
section headed "License", "Licence" or "Copyright", or a paragraph that reads as a licence
notice (a copyright line, an SPDX identifier, "licensed under", the MIT grant); a sentence that
merely says "licence" (a driving licence) is prose.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from reflectcli.writing import markdown
from reflectcli.writing.textops import locate_sections, normalize, replace_bodies, section_bodies

_LICENCE_HEADING = re.compile(r"^\W*(licen[cs]e|licen[cs]ing|copyright|copying)\b", re.I)
_LICENCE_TEXT = re.compile(
    r"\bcopyright\b|©|\(c\)\s*(19|20)\d\d|\bspdx-license-identifier\b|\blicensed under\b|"
    r"\breleased under the\b[^.\n]{0,60}\blicen[cs]e\b|\bpermission is hereby granted\b|"
    r"\ball rights reserved\b|\bwithout warranty of any kind\b",
    re.I,
)


@dataclass(frozen=True)
class Part:
    """One thing a rewrite must keep: its kind, how it is shown, and what must be found again."""

    kind: str  # heading | code | table | html | licence
    shown: str
    key: str


def _folded(text: str) -> str:
    return " ".join(text.split())


def _code(content: str) -> str:
    return "\n".join(line.rstrip() for line in content.strip("\n").splitlines())


def parts(text: str, licensed: bool = False) -> list[Part]:
    """The parts of `text` a rewrite must keep, in order; `licensed`: the text is the body of a
    section headed License (each of its paragraphs is licence text)."""
    lines = markdown.Lines(text)
    tokens = markdown.tokens(text)
    found: list[Part] = []
    depth = 0  # inside a table or quotation
    for i, token in enumerate(tokens):
        if token.type == "heading_open":
            title = tokens[i + 1].content.strip()
            if token.level == 0:
                licensed = bool(_LICENCE_HEADING.match(title))
            found.append(Part("heading", title, normalize(title) or title))
        elif token.type in ("fence", "code_block") and token.content.strip():
            found.append(Part("code", token.content.strip().splitlines()[0], _code(token.content)))
        elif token.type == "table_open":
            header = []
            for cell in tokens[i:]:
                if cell.type == "inline":
                    header.append(normalize(cell.content))
                elif cell.type == "tr_close":
                    break
            found.append(Part("table", "| " + " | ".join(header) + " |", "\0".join(header)))
        elif token.type == "html_block" and token.content.strip():
            found.append(Part("html", token.content.strip().splitlines()[0], _folded(token.content)))
        elif token.type == "paragraph_open" and token.map and not depth:
            start, end = lines.span(*token.map)
            said = text[start:end]
            if licensed or _LICENCE_TEXT.search(said):
                found.append(Part("licence", _folded(said), _folded(said)))
        if token.type in ("table_open", "blockquote_open"):
            depth += 1
        elif token.type in ("table_close", "blockquote_close"):
            depth -= 1
    return found


def lost_parts(previous: str, candidate: str, title: str = "") -> list[Part]:
    """The parts of `previous` (the body of the section `title`, or a whole text) that
    `candidate`, its rewrite, no longer holds."""
    wanted = parts(previous, bool(_LICENCE_HEADING.match(title)))
    if not wanted:
        return []
    have = parts(candidate)
    headings = {p.key for p in have if p.kind == "heading"}
    code = [p.key for p in have if p.kind == "code"]
    tables = {p.key for p in have if p.kind == "table"}
    flat = _folded(candidate)
    lost = []
    for part in wanted:
        if part.kind == "heading":
            kept = part.key in headings
        elif part.kind == "code":
            kept = any(part.key in c for c in code)
        elif part.kind == "table":
            kept = part.key in tables
        else:  # html, licence: the same text, spaces folded
            kept = part.key in flat
        if not kept:
            lost.append(part)
    return lost


_KINDS = {"heading": "the heading", "code": "a code block", "table": "a table", "html": "an HTML block",
          "licence": "licence text"}  # fmt: skip


def describe(lost: list[Part], limit: int = 3) -> str:
    """`the heading “License”, a code block (“pip install x”)`: what a rewrite dropped."""
    shown = []
    for part in lost[:limit]:
        said = part.shown if len(part.shown) <= 50 else part.shown[:49] + "…"
        shown.append(f"{_KINDS[part.kind]} “{said}”")
    more = f" and {len(lost) - limit} more" if len(lost) > limit else ""
    return ", ".join(shown) + more


Dropped = list[tuple[int | None, list[Part]]]  # (section index, or None before the first; lost)


def restore_parts(before: str, text: str, titles: list[str]) -> tuple[str, Dropped]:
    """A whole-article rewrite (`text` of `before`, both holding the outline's `titles`) with
    each section that dropped a part given back its old body, and the text before the first
    section too (index None); returns the text and what each restored place had dropped."""
    dropped: Dropped = []
    restored: dict[int, str] = {}
    pairs = zip(section_bodies(before, titles), section_bodies(text, titles), strict=True)
    for i, (old, new) in enumerate(pairs):
        if old is not None and new is not None and (lost := lost_parts(old, new, titles[i])):
            dropped.append((i, lost))
            restored[i] = old
    if restored:
        text = replace_bodies(text, titles, restored)
    first_old = next((s.heading_start for s in locate_sections(before, titles) if s), len(before))
    first_new = next((s.heading_start for s in locate_sections(text, titles) if s), len(text))
    if lost := lost_parts(before[:first_old], text[:first_new]):
        dropped.append((None, lost))
        text = before[:first_old] + text[first_new:]
    return text, dropped
