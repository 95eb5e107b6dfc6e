"""The one Markdown model: headings and blocks of a text from markdown-it-py's tokens.

markdown-it gives each block token the lines it covers (`token.map`); this module turns them
into offsets in the original string, so that callers can cut and splice a document byte for
byte. A `# comment` inside a fenced or indented code block, an HTML block or a quotation is not a
heading; a setext heading (a line underlined with `===` or `---`) is one. Only headings at the
top of the document (not inside a list item or a quotation) are returned: they are the ones
that can start a section.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from markdown_it import MarkdownIt
    from markdown_it.token import Token


@lru_cache(maxsize=1)
def _md() -> MarkdownIt:
    """The parser, made when first needed: read-only commands that parse no article (history)
    start without importing markdown-it."""
    from markdown_it import MarkdownIt

    return MarkdownIt("commonmark").enable("table")


@lru_cache(maxsize=1)
def _html() -> MarkdownIt:
    from markdown_it import MarkdownIt

    return (
        MarkdownIt("commonmark", {"html": False}).enable("table").disable("image")
    )  # no raw HTML, no fetches


_LINE_BREAK = re.compile(r"\r\n|\r|\n")  # the line breaks markdown-it counts lines by
SKIPPED = {"fence", "code_block", "html_block", "table", "blockquote"}  # no prose in them


@dataclass(frozen=True)
class Heading:
    """A top-level heading: its level, its text, and the offsets of its first line's start and
    its last line's end (line break excluded; a setext heading spans two lines)."""

    level: int
    title: str
    start: int
    end: int


@dataclass(frozen=True)
class Block:
    """A top-level block or a paragraph inside a list item: `kind` is the token type without
    `_open` (`paragraph`, `heading`, `fence`, `table`, `blockquote`, ...); `start:end` its bytes."""

    kind: str
    start: int
    end: int
    in_list: bool = False


class Lines:
    """Offsets of a text's lines, to turn a token's line map into byte offsets."""

    def __init__(self, text: str) -> None:
        self.starts, self.ends = [0], []
        for m in _LINE_BREAK.finditer(text):
            self.ends.append(m.start())
            self.starts.append(m.end())
        self.ends.append(len(text))

    def span(self, first: int, stop: int) -> tuple[int, int]:
        """From the start of line `first` to the end of line `stop - 1` (its break excluded)."""
        last = min(max(stop - 1, first), len(self.ends) - 1)
        return self.starts[min(first, len(self.starts) - 1)], self.ends[last]


@lru_cache(maxsize=64)
def _tokens(text: str) -> tuple[Token, ...]:
    return tuple(_md().parse(text))


def headings(text: str) -> list[Heading]:
    """The document's top-level headings, in order."""
    lines, tokens, found = Lines(text), _tokens(text), []
    for i, token in enumerate(tokens):
        if token.type == "heading_open" and token.level == 0 and token.map:
            start, end = lines.span(*token.map)
            found.append(Heading(int(token.tag[1:]), tokens[i + 1].content.strip(), start, end))
    return found


def blocks(text: str) -> list[Block]:
    """Top-level blocks in order; a list contributes its items' paragraphs (`in_list`), and a
    code block, HTML block, table or quotation is one block whatever it holds."""
    lines, found, depth, lists = Lines(text), [], 0, 0
    for token in _tokens(text):
        kind = token.type.removesuffix("_open").removesuffix("_close")
        if kind in {"bullet_list", "ordered_list"}:
            lists += 1 if token.nesting == 1 else -1
            continue
        if depth:  # inside a skipped container: nothing of it is read
            depth += token.nesting if kind in SKIPPED else 0
            continue
        if token.nesting == -1 or not token.map or kind in {"list_item", "inline"}:
            continue
        if kind in SKIPPED and token.nesting == 1:
            depth = 1
        found.append(Block(kind, *lines.span(*token.map), in_list=lists > 0))
    return found


def tokens(text: str) -> tuple[Token, ...]:
    """markdown-it's block tokens of `text` (tables on; parsed once per text, cached)."""
    return _tokens(text)


def prose(text: str) -> list[str]:
    """The prose a reader reads in `text`, one string per paragraph or list item: inline HTML
    tags and images left out, code spans kept as written (in backticks), soft line breaks as
    spaces; headings, code blocks, tables, HTML blocks and quotations are not prose."""
    found, skipped = [], 0
    previous = None
    for token in _tokens(text):
        kind = token.type.removesuffix("_open").removesuffix("_close")
        if kind in SKIPPED - {"fence", "code_block", "html_block"}:  # containers: table, blockquote
            skipped += token.nesting
        elif token.type == "inline" and not skipped and previous == "paragraph_open":
            found.append(_plain_inline(token))
        previous = token.type
    return [p for p in found if p.strip()]


def _plain_inline(token: Token) -> str:
    out = []
    for child in token.children or []:
        if child.type == "text":
            out.append(child.content)
        elif child.type == "code_inline":
            tick = "``" if "`" in child.content else "`"
            out.append(f"{tick}{child.content}{tick}")
        elif child.type in ("softbreak", "hardbreak"):
            out.append(" ")
    return " ".join("".join(out).split())


_PROBE = "reflectcli-probe-heading"


def left_open(text: str) -> bool:
    """`text` leaves a block open that would swallow what follows it: an unclosed code fence
    (or HTML block) turns the next section's heading into code."""
    probed = text.rstrip() + f"\n\n## {_PROBE}\n"
    return not any(h.title == _PROBE for h in headings(probed))


def closed(text: str) -> str:
    """`text` with a code fence it leaves open closed at its end (a drafted section that forgot
    its closing fence would otherwise turn every later section into code)."""
    if not left_open(text):
        return text
    fences = [t for t in _tokens(text) if t.type == "fence"]
    return text.rstrip() + "\n" + fences[-1].markup if fences else text


def whole_fence(text: str) -> str | None:
    """The content of a text that is one fenced block of Markdown and nothing else, closing fence
    included (a fence of no language counts when what it holds reads as Markdown prose); None
    for anything else, a code block among them."""
    tokens = _tokens(text.strip())
    if len(tokens) != 1 or tokens[0].type != "fence":
        return None
    fence = tokens[0]
    info = fence.info.strip().lower()
    if info not in {"", "markdown", "md", "text"} or (not info and not _reads_as_markdown(fence.content)):
        return None
    last = text.strip().splitlines()[-1].strip()
    closed = (
        len(text.strip().splitlines()) > 1
        and last.startswith(fence.markup)
        and not last.strip(fence.markup[0])
    )
    return fence.content if closed else None


def _reads_as_markdown(content: str) -> bool:
    """A heading, or a paragraph of eight words or more ending a sentence: prose, not code."""
    for block in blocks(content):
        text = content[block.start : block.end].rstrip()
        if block.kind == "heading" or (block.kind == "paragraph" and len(text.split()) >= 8
                                       and text.endswith((".", "!", "?", "。", "！", "？"))):  # fmt: skip
            return True
    return False


def set_level(text: str, heading: Heading, level: int) -> str:
    """`text` with `heading` rewritten as an ATX heading of `level` (a setext one included)."""
    return text[: heading.start] + "#" * level + " " + heading.title + text[heading.end :]


def unwrapped(text: str) -> str:
    """`text` with the fence lines blanked out (offsets kept) when it opens with a fenced
    Markdown block, closed or not yet: a model's answer wrapped in ```` ```markdown ````."""
    first, _, rest = text.partition("\n")
    fence, info = first.strip()[:3], first.strip().lstrip("`~").strip().lower()
    if fence not in {"```", "~~~"} or info not in {"markdown", "md"}:
        return text
    lines = rest.split("\n")
    for i, line in enumerate(lines):
        if line.strip() == fence:
            lines[i] = " " * len(line)
            break
    return " " * len(first) + "\n" + "\n".join(lines)


def to_html(text: str, shift: int = 1) -> str:
    """`text` rendered as HTML, every piece of text escaped (raw HTML is shown, not run; images
    are not fetched), headings `shift` levels deeper (an article's `#` under a page's `<h1>`)."""
    tokens = _html().parse(text)
    for token in tokens:
        if token.type in {"heading_open", "heading_close"}:
            token.tag = f"h{min(6, int(token.tag[1:]) + shift)}"
    return _html().renderer.render(tokens, _html().options, {}).strip()


_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]")
# what may open Markdown inline syntax or raw HTML anywhere in a line (a heading's `#`, a list's
# `-` or `1.` only open one at a line's start, which a text escaped here never is)
_INLINE_SYNTAX = re.compile(r"([\\`*_\[\]<>!|~&#])")


def _control(match: re.Match[str]) -> str:
    """A line break or tab is a space; any other control character or bidirectional override is
    shown as its code (`\\x1b`, `\\u202e`): what was there stays visible, and does nothing."""
    char = match.group()
    if char in "\t\n\r\x0b\x0c\x1c\x1d\x1e\x1f\x85\u2028\u2029":
        return " "
    code = ord(char)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def one_line(text: str | None) -> str:
    """Outside text (a search result's title or snippet, a page's title) as one line of plain
    data: every line break a space, every other control character and bidirectional override
    shown as its code (`\\x1b`), spaces collapsed. What it cannot do any more is start a heading,
    end a table row, or move the terminal's cursor."""
    return " ".join(_CONTROL.sub(_control, text or "").split())


def inline(text: str | None) -> str:
    """`one_line(text)` escaped for a Markdown line: every character that could open emphasis,
    a link, code, a table cell or raw HTML (`<img onerror=...>`) is backslash-escaped, so a
    renderer shows it as written and runs nothing."""
    return _INLINE_SYNTAX.sub(r"\\\1", one_line(text))
