"""An article's own reference list, as another tool (or a person) writes one.

Found in this order: a section under a references heading ("References", "Sources",
"Bibliography", "参考文献", ...) whose blocks are numbered entries; else a numbered list that
ends the document; and footnote definitions (`[^3]: ...`) wherever they are. An entry is a
label (`3`, `S3`, `^3`) and its text, which names a URL, a file path or a title; what it names
is resolved elsewhere (sources/resolve.py). The list's lines are not the article's prose: no
claim is read from them (`without_references`). Read through markdown-it's tokens; a regular
expression only reads an entry's leading label."""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

from reflectcli.writing import markdown
from reflectcli.writing.citations import cited_ids
from reflectcli.writing.textops import markdown_parser

HEADINGS = frozenset({
    "references", "reference", "reference list", "sources", "bibliography", "works cited",
    "citations", "footnotes", "notes and references", "参考文献", "参考资料", "引用", "出典",
})  # fmt: skip
# `[3]`, `[S3]`, `3.`, `(3)`, `3)` at an entry's start (a footnote's `[^3]:` is read apart)
_LABEL = re.compile(r"^\s*(?:[\[［【]\s*(S?\d{1,4})\s*[\]］】]|\(?(\d{1,4})[.)])[:.]?\s+", re.I)
_FOOTNOTE = re.compile(r"^\s{0,3}\[\^(\d{1,4})\]:\s*(.*)$")


@dataclass(frozen=True)
class Entry:
    """One reference: the article's label for it (`3`, `S3`, `^3`), the id its citations are
    read as (`S3`: `[3]`, `[S3]` and `[^3]` all cite it), and its text as written."""

    label: str
    id: str
    text: str


def is_references_heading(title: str) -> bool:
    folded = unicodedata.normalize("NFKC", title).casefold().strip().rstrip(":：").strip()
    return folded in HEADINGS


def _entry(label: str, text: str) -> Entry:
    return Entry(label, "S" + label.lstrip("^Ss"), " ".join(text.split()))


def _labelled(content: str) -> list[Entry] | None:
    """The entries of a paragraph or bullet whose every line starts with a label, else None."""
    entries: list[Entry] = []
    for line in content.split("\n"):
        if not line.strip():
            continue
        found = _LABEL.match(line)
        if found:
            entries.append(_entry(found.group(1) or found.group(2), line[found.end() :]))
        elif (foot := _FOOTNOTE.match(line)) is not None:
            entries.append(_entry("^" + foot.group(1), foot.group(2)))
        elif entries:  # a wrapped line of the entry before
            last = entries[-1]
            entries[-1] = _entry(last.label, f"{last.text} {line}")
        else:
            return None
    return entries


def _entries(text: str, start_line: int, stop_line: int) -> list[Entry] | None:
    """The numbered entries of lines [start_line, stop_line), or None when any top-level block
    there is not one (prose, a table, code: then it is no reference list)."""
    tokens = markdown_parser().parse(text)
    entries: list[Entry] = []
    found: list[Entry] | None
    depth = 0  # lists open; only a top-level list's items are entries (a nested one is a note)
    for i, token in enumerate(tokens):
        if not token.map and token.type not in ("bullet_list_close", "ordered_list_close"):
            continue
        if token.map and not (start_line <= token.map[0] < stop_line):
            continue
        if token.type in ("bullet_list_open", "ordered_list_open"):
            depth += 1
        elif token.type in ("bullet_list_close", "ordered_list_close"):
            depth = max(0, depth - 1)
        elif token.type == "list_item_open" and depth == 1:
            inline = next((t for t in tokens[i:] if t.type == "inline"), None)
            content = inline.content if inline is not None else ""
            if token.info:  # an ordered list's item: its number is the label
                found = _labelled(f"[{token.info}] {content}") or [_entry(token.info, content)]
                entries += found
            elif (found := _labelled(content)) is not None and len(found) == 1:
                entries += found
            else:
                return None
        elif token.type == "paragraph_open" and token.level == 0:
            found = _labelled(tokens[i + 1].content)
            if found is None:
                return None
            entries += found
        elif token.level == 0 and token.nesting != -1 and token.type not in ("inline", "heading_open"):
            return None  # a table, code, a quotation: not a reference list
    return entries


@dataclass(frozen=True)
class RefList:
    """The reference list: its entries (in the order written) and the article's lines it takes
    (`lines`: a set of 0-based line numbers; the heading's line included)."""

    entries: list[Entry]
    lines: frozenset[int]


def find_references(text: str) -> RefList:
    """The article's reference list: the last references section whose blocks are all numbered
    entries, else a numbered list that ends the document, plus every footnote definition."""
    heads = markdown.headings(text)
    line_of = markdown.Lines(text)
    entries: list[Entry] = []
    lines: set[int] = set()
    total = text.count("\n") + 1
    number = {start: n for n, start in enumerate(line_of.starts)}
    for i in range(len(heads) - 1, -1, -1):
        head = heads[i]
        if not is_references_heading(head.title):
            continue
        first = number[head.start]
        after = next((h for h in heads[i + 1 :] if h.level <= head.level), None)
        stop = number[after.start] if after else total
        found = _entries(text, first + 1, stop)
        if found:
            entries, lines = found, set(range(first, stop))
            break
    if not entries:
        entries, lines = _trailing_list(text, total)
    code = _code_lines(text)
    for n, line in enumerate(text.split("\n")):
        if n not in lines and n not in code and (foot := _FOOTNOTE.match(line)) is not None:
            entries.append(_entry("^" + foot.group(1), foot.group(2)))
            lines.add(n)
    return RefList(_unique(entries), frozenset(lines))


def _unique(entries: list[Entry]) -> list[Entry]:
    """One entry per id (the first written); a second `3.` is the list's mistake, not a source."""
    seen: dict[str, Entry] = {}
    for entry in entries:
        seen.setdefault(entry.id, entry)
    return list(seen.values())


def _code_lines(text: str) -> set[int]:
    """The lines of fenced and indented code blocks (a `[^3]:` in them defines nothing)."""
    return {n for t in markdown_parser().parse(text) if t.type in ("fence", "code_block") and t.map
            for n in range(*t.map)}  # fmt: skip


def _trailing_list(text: str, total: int) -> tuple[list[Entry], set[int]]:
    """A numbered list that is the document's last block (after the last section's prose)."""
    tokens = markdown_parser().parse(text)
    top = [t for t in tokens if t.level == 0 and t.nesting != -1 and t.map]
    if len(top) < 2 or top[-1].type != "ordered_list_open" or top[-1].map is None:
        return [], set()
    start = top[-1].map[0]
    found = _entries(text, start, total)
    before = "\n".join(text.split("\n")[:start])
    if not found or not {e.id for e in found} & set(cited_ids(before, {e.label for e in found})):  # steps
        return [], set()
    return found, set(range(start, total))


def labels(text: str) -> frozenset[str]:
    """The labels the article's own reference list defines (`3`, `^3`, `S3`): the bare forms
    (`[3]`, `[^3]`) its citations may take (writing/citations.py)."""
    return frozenset(e.label for e in find_references(text).entries)


def without_references(text: str) -> str:
    """`text` with its reference list's lines blanked (line count kept): what claims are read
    from. The text itself when it has no reference list."""
    found = find_references(text)
    if not found.lines:
        return text
    return "\n".join("" if n in found.lines else line for n, line in enumerate(text.split("\n")))
