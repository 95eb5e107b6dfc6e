"""A person's own draft as a run's first version (`reflectcli write --from FILE.md`).

Its headings are the outline: the shallowest level that holds more than one heading (a lone
heading above them all, `# My essay`, is the document's title, and the task when none is
given). Text before the first section heading is kept and belongs to no section. A file
without headings is one section. The text itself is version 1, byte for byte.
"""

from __future__ import annotations

from dataclasses import dataclass

from reflectcli.writing import markdown
from reflectcli.writing.reflist import find_references, is_references_heading
from reflectcli.writing.textops import match_section, section_bodies


@dataclass(frozen=True)
class Draft:
    """What a file gives a run: its text, an outline, each section's body, and a title."""

    text: str
    titles: list[str]
    bodies: list[str]
    title: str | None


def read_draft(text: str, fallback_title: str, references_apart: bool = False) -> Draft:
    """The outline and sections of `text` (raises ValueError when it holds no words). With
    `references_apart` (`review`), the article's own reference list is no section to review:
    it stays in the text, outside the outline, and is checked against the library instead."""
    if not text.strip():
        raise ValueError("the file is empty")
    found = markdown.headings(text)
    levels = sorted({h.level for h in found})
    title = None
    chosen: list[markdown.Heading] = []
    for level in levels:
        at = [h for h in found if h.level == level]
        if len(at) == 1 and at[0] is found[0] and level != levels[-1]:
            title = title or at[0].title  # the document's own title, above its sections
            continue
        chosen = at
        break
    if not chosen and found and title is None:
        chosen = [found[0]]
    if not chosen:  # no headings (or only a title): the whole text is one section
        return Draft(text, [title or fallback_title], [text.strip()], title)
    if references_apart and len(chosen) > 1 and is_references_heading(chosen[-1].title):
        listed = find_references(text).lines
        if listed and text.count("\n", 0, chosen[-1].start) in listed:
            chosen = chosen[:-1]
    titles = [h.title for h in chosen]
    bodies = section_bodies(text, titles)
    if any(b is None for b in bodies):
        raise ValueError("two sections share a heading the parser cannot tell apart")
    return Draft(text, titles, [b or "" for b in bodies], title)


def locked_sections(keep: list[str], titles: list[str]) -> list[int]:
    """The outline positions `--keep` names (a title, part of one, or a number); raises
    ValueError naming one that is not a section."""
    out = []
    for name in keep:
        index = match_section(name, titles)
        if index is None:
            raise ValueError(f"--keep {name!r}: no such section; the file's sections: " + "; ".join(titles))
        out.append(index)
    return sorted(set(out))
