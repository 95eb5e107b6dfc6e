"""What a reader returns: a Document of Segments that keep their place in the source (page,
heading path, code spans), and the one error a source that cannot be read raises."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field

PATH_SEP = " › "  # between the headings of a chunk's heading path ("Errors › Raising")


class SourceError(Exception):
    """A source that cannot be read; the message is one line fit to show the user."""


@dataclass
class Segment:
    text: str
    page: int | None = None
    heading: str | None = None  # the heading path, outermost first, joined by PATH_SEP
    code: list[tuple[int, int]] = field(default_factory=list)  # (start, end) of preformatted text
    toc: bool = False  # a page that lists page numbers (contents, an index): searched last


@dataclass
class Document:
    kind: str
    location: str
    title: str
    content_hash: str
    segments: list[Segment] = field(default_factory=list)
    warning: str | None = None  # one line: the extract kept only part of what the file shows

    @property
    def chars(self) -> int:
        return sum(len(s.text) for s in self.segments)


def digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


class HeadingTrail:
    """The headings above the current point of a document, by level (1 outermost)."""

    def __init__(self) -> None:
        self.levels: list[tuple[int, str]] = []

    def enter(self, level: int, text: str) -> None:
        """A heading of `level`: it replaces that level and closes every deeper one."""
        self.levels = [(lv, t) for lv, t in self.levels if lv < level] + [(level, text)]

    @property
    def path(self) -> str | None:
        return PATH_SEP.join(t for _, t in self.levels) or None
