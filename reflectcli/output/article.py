"""The article's blocks for the report (output/document.py), read from markdown-it-py's tokens:
headings, paragraphs, lists, tables, quotations and code, their inline text as `Span`s.

Citations are found before the parse, as the rest of the project finds them (in prose, never in
code), and stand in the text as placeholders no Markdown syntax reads; each becomes a `Span`
linking to its References entry. A claim's sentence is found in its paragraph by its text (in
order, whitespace and Markdown marks aside) and becomes a `Segment` carrying the claim; a
citation written after the full stop goes with the sentence before it."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any


def is_web(url: str) -> bool:
    return url.startswith(("http://", "https://"))


@dataclass
class Span:
    """A piece of inline text with its marks; `cite` holds the References anchors a citation
    links to (its text is the citation as shown, `[S1]`), `href` an outside link (http, https,
    mailto only)."""

    text: str
    bold: bool = False
    italic: bool = False
    code: bool = False
    href: str | None = None
    cite: tuple[str, ...] = ()
    labels: tuple[str, ...] = ()  # the cited ids as shown, one per anchor


@dataclass
class Segment:
    """Part of a paragraph: a claim's sentence (its `claim` set) or the text between claims."""

    spans: list[Span]
    claim: Any = None  # a document.Claim


@dataclass
class Heading:
    level: int
    spans: list[Span]
    anchor: str


@dataclass
class Paragraph:
    segments: list[Segment]

    @property
    def spans(self) -> list[Span]:
        return [s for seg in self.segments for s in seg.spans]


@dataclass
class ListBlock:
    ordered: bool
    start: int
    items: list[list[Any]]  # each item: its blocks


@dataclass
class Table:
    header: list[list[Span]]
    rows: list[list[list[Span]]]
    align: list[str]  # "left", "right", "center" or "" per column


@dataclass
class Quote:
    blocks: list[Any]


@dataclass
class Code:
    text: str
    lang: str = ""


@dataclass
class Rule:
    pass


def plain(spans: list[Span]) -> str:
    return "".join(s.text for s in spans)


def sentence_text(sentence: str) -> str:
    """A claim's sentence as the reader sees it: its inline Markdown (links, code) read."""
    from reflectcli.writing.markdown import _html

    tokens = _html().parseInline(sentence)
    return "".join(c.content for t in tokens for c in t.children or [] if c.type in ("text", "code_inline"))


def lay_out(text: str, anchor_of: dict[str, str], claims: list[Any],
            labels: frozenset[str] = frozenset()) -> list[Any]:  # fmt: skip
    """The blocks of `text`; `anchor_of` maps each held id to its References entry; `labels`:
    an outside article's own reference labels (its citations' form)."""
    return _Builder(text, anchor_of, claims, labels).blocks()


_MARK = "\ue000{}\ue001"  # a placeholder no Markdown syntax reads (private-use characters)
_MARKS = re.compile("\ue000(\\d+)\ue001")
_UNKEYED = re.compile(r"[\s`*_]")  # what a claim's sentence and the rendered text may differ by


Cites = list[tuple[str, ...]]


def _marked(
    text: str, held: dict[str, str], labels: frozenset[str] = frozenset()
) -> tuple[str, Cites, Cites]:
    """`text` with each citation of a held source replaced by a placeholder, the ids each one
    cites, and each id as the text writes it (`S3`; an outside article's own `3`). Citations
    are the ones `writing.citations` recognises (a list `[1, 2]`, code, a link: never)."""
    from reflectcli.writing.citations import citations

    out: list[str] = []
    found: list[tuple[str, ...]] = []
    shown: list[tuple[str, ...]] = []
    last = 0
    for cite in citations(text, labels):
        ids = tuple(i for i in cite.ids if i in held) if cite.defined else ()
        if not ids:
            continue
        out += [text[last : cite.start], _MARK.format(len(found))]
        found.append(ids)
        shown.append(tuple(i if cite.named else i[1:] for i in ids))
        last = cite.end
    out.append(text[last:])
    return "".join(out), found, shown


class _Builder:
    """Blocks from markdown-it's tokens; each cited sentence found in its paragraph (by its text,
    in order) becomes a segment carrying its claim."""

    def __init__(self, text: str, anchor_of: dict[str, str], claims: list[Any],
                 labels: frozenset[str] = frozenset()) -> None:  # fmt: skip
        from reflectcli.writing.markdown import _html

        self.source, self.cites, self.shown = _marked(text, anchor_of, labels)
        self.anchor_of = anchor_of
        self.pending = [(c, _key(c.sentence)) for c in claims]
        self.tokens = _html().parse(self.source)
        self.i = 0
        self.heads = 0

    def blocks(self, until: str | None = None) -> list[Any]:
        out: list[Any] = []
        while self.i < len(self.tokens):
            t = self.tokens[self.i]
            self.i += 1
            if until and t.type == until:
                return out
            if t.type == "heading_open":
                self.heads += 1
                out.append(Heading(int(t.tag[1:]), self.inline(), f"h-{self.heads}"))
            elif t.type == "paragraph_open":
                spans = self.inline()
                out.append(Paragraph(self.segments(spans)))
            elif t.type in ("bullet_list_open", "ordered_list_open"):
                items = []
                start = int(t.attrs.get("start") or 1)
                while self.tokens[self.i].type == "list_item_open":
                    self.i += 1
                    items.append(self.blocks("list_item_close"))
                self.i += 1  # the list's close
                out.append(ListBlock(t.type == "ordered_list_open", start, items))
            elif t.type == "blockquote_open":
                out.append(Quote(self.blocks("blockquote_close")))
            elif t.type in ("fence", "code_block"):
                out.append(Code(_unmarked(t.content, self.cites).rstrip("\n"), t.info.strip().split(" ")[0]))
            elif t.type == "table_open":
                out.append(self.table())
            elif t.type == "hr":
                out.append(Rule())
        return out

    def inline(self) -> list[Span]:
        token = self.tokens[self.i]
        self.i += 2  # the inline token and the block's close
        return self.spans(token.children or [])

    def table(self) -> Table:
        header: list[list[Span]] = []
        body: list[list[list[Span]]] = []
        align: list[str] = []
        row: list[list[Span]] = []
        while (t := self.tokens[self.i]).type != "table_close":
            self.i += 1
            if t.type in ("th_open", "td_open"):
                if t.type == "th_open":
                    align.append(str(t.attrs.get("style", "")).removeprefix("text-align:"))
                row.append(self.spans(self.tokens[self.i].children or []))
                self.i += 2
            elif t.type == "tr_close":
                (body.append(row) if header else header.extend(row))
                row = []
        self.i += 1
        return Table(header, body, align)

    def spans(self, children: list[Any]) -> list[Span]:
        out: list[Span] = []
        bold = italic = 0
        href: list[str | None] = []
        for c in children:
            if c.type == "strong_open":
                bold += 1
            elif c.type == "strong_close":
                bold -= 1
            elif c.type == "em_open":
                italic += 1
            elif c.type == "em_close":
                italic -= 1
            elif c.type == "link_open":
                link = str(c.attrs.get("href", ""))
                href.append(link if is_web(link) or link.startswith("mailto:") else None)
            elif c.type == "link_close":
                href.pop()
            elif c.type in ("softbreak", "hardbreak"):
                out.append(Span(" " if c.type == "softbreak" else "\n", bool(bold), bool(italic)))
            elif c.type == "code_inline":
                out.append(Span(_unmarked(c.content, self.cites), code=True, href=href[-1] if href else None))
            elif c.type == "text" or c.content:
                out += self.text_spans(c.content, bool(bold), bool(italic), href[-1] if href else None)
        return out

    def text_spans(self, text: str, bold: bool, italic: bool, href: str | None) -> list[Span]:
        out, last = [], 0
        for m in _MARKS.finditer(text):
            if m.start() > last:
                out.append(Span(text[last : m.start()], bold, italic, href=href))
            ids, shown = self.cites[int(m.group(1))], self.shown[int(m.group(1))]
            out.append(Span(f"[{', '.join(shown)}]", bold, italic, cite=tuple(self.anchor_of[i] for i in ids),
                            labels=shown))  # fmt: skip
            last = m.end()
        if last < len(text):
            out.append(Span(text[last:], bold, italic, href=href))
        return out

    def segments(self, spans: list[Span]) -> list[Segment]:
        """The paragraph cut at its claims' sentences (found by their text, whitespace and marks
        aside; a citation after the full stop goes with the sentence before it)."""
        if not self.pending or not any(s.cite for s in spans):
            return [Segment(spans)]
        where: list[int] = []  # the offset, in the paragraph's text, of each character of the key
        key: list[str] = []
        offset = 0
        for span in spans:
            if not span.cite:
                for k, ch in enumerate(span.text):
                    if not _UNKEYED.match(ch):
                        where.append(offset + k)
                        key.append(ch)
            offset += len(span.text)
        flat, cuts, at = "".join(key), [], 0
        for item in list(self.pending):
            found = flat.find(item[1], at) if item[1] else -1
            if found < 0:
                continue
            at = found + len(item[1])
            cuts.append((where[found], _with_citations(spans, where[at - 1] + 1), item[0]))
            self.pending.remove(item)
        out: list[Segment] = []
        last = 0
        for start, end, claim in cuts:
            if start > last:
                out.append(Segment(_slice(spans, last, start)))
            out.append(Segment(_slice(spans, start, end), claim))
            last = end
        if last < offset:
            out.append(Segment(_slice(spans, last, offset)))
        return out


def _with_citations(spans: list[Span], end: int) -> int:
    """`end`, moved past the citations (and the spaces before them) that follow a sentence."""
    text, cites, offset = "".join(s.text for s in spans), [], 0
    for span in spans:
        if span.cite:
            cites.append((offset, offset + len(span.text)))
        offset += len(span.text)
    for a, b in cites:
        if b > end and (a <= end or not text[end:a].strip()):
            end = b
    return end


def _slice(spans: list[Span], start: int, end: int) -> list[Span]:
    """The spans' text from `start` to `end` (offsets in their joined text), marks kept."""
    out, offset = [], 0
    for span in spans:
        a, b = max(start, offset), min(end, offset + len(span.text))
        if a < b:
            out.append(span if (a, b) == (offset, offset + len(span.text)) else
                       Span(span.text[a - offset : b - offset], span.bold, span.italic, span.code,
                            span.href, span.cite, span.labels))  # fmt: skip
        offset += len(span.text)
    return out


def _unmarked(text: str, cites: list[tuple[str, ...]]) -> str:
    """Code as written (a placeholder never lands in code; this is a fence for safety)."""
    return _MARKS.sub(lambda m: f"[{', '.join(cites[int(m.group(1))])}]", text)  # (ids as held)


def _key(text: str) -> str:
    return _UNKEYED.sub("", text)
