"""The shared report: one model of a run's article, built once from its state and rendered by
every export (md, json, html, pdf, docx), so that all of them carry the same sections,
citations, verdicts, References and known issues.

The article is read through markdown-it-py's tokens (the project's one Markdown model): blocks
(headings, paragraphs, lists, tables, quotations, code) hold inline `Span`s, plain text with its
marks; nothing of the article is markup any more, so each renderer escapes for its own medium.
Citations are found before the parse, as the rest of the project finds them (prose only, never in
code), and stand in the text as placeholders the parse cannot read. A cited sentence the critic
and the check judged is a `Segment` of its paragraph carrying its `Claim`: the verdicts of each
source it cites, with the passage sentence quoted for it.

`VERDICTS` is the one table from a verdict to its label, colour, mark and weight; a verdict it does
not know is shown as it is, in a neutral colour."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from reflectcli.output import rows
from reflectcli.output.artifacts import run_status
from reflectcli.output.summary import summarize
from reflectcli.writing.citations import CITATION, ids_in

# --- verdicts --------------------------------------------------------------------------------


@dataclass(frozen=True)
class Verdict:
    """How a verdict is shown: `label` in words, a quiet `colour`, a `mark` beside the sentence,
    and a `weight`: a sentence citing several sources shows its heaviest verdict."""

    name: str
    label: str
    colour: str
    mark: str
    weight: int


VERDICTS: dict[str, Verdict] = {
    v.name: v
    for v in (
        # the critic's verdicts, and code's (consistent / unverified / contradicted)
        Verdict("supported", "supported by the source", "#2e7d32", "✓", 0),
        Verdict("consistent", "consistent with the source", "#2e7d32", "✓", 0),
        Verdict("unsupported", "not supported by the source", "#a15c00", "?", 2),
        Verdict("unverified", "not verified in the source", "#a15c00", "?", 2),
        Verdict("unjudged", "not judged", "#666666", "·", 1),
        Verdict("contradicted", "contradicted by the source", "#b3261e", "✗", 3),
    )
}
NEUTRAL = "#666666"
_KANA = re.compile(r"[\u3040-\u30ff]")
_HANGUL = re.compile(r"[\uac00-\ud7af]")


def verdict(name: str) -> Verdict:
    """The way `name` is shown; a verdict the table does not know is shown as it is."""
    return VERDICTS.get(name) or Verdict(name, name or "no verdict", NEUTRAL, "•", 1)


# --- the model -------------------------------------------------------------------------------


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
class Check:
    """One source's verdict on a claim: the References entry, the verdict and the passage
    sentence quoted for it."""

    anchor: str
    label: str
    verdict: str
    quote: str
    reason: str
    by: str


@dataclass
class Claim:
    """A cited sentence of the article and the verdicts of the sources it cites."""

    id: str
    sentence: str
    checks: list[Check] = field(default_factory=list)

    @property
    def verdict(self) -> str:
        """The sentence's verdict: its heaviest source's."""
        return max((c.verdict for c in self.checks), key=lambda v: verdict(v).weight, default="")

    @property
    def anchor(self) -> str:
        return f"claim-{self.id}"


@dataclass
class Segment:
    """Part of a paragraph: a claim's sentence (its `claim` set) or the text between claims."""

    spans: list[Span]
    claim: Claim | None = None


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


@dataclass
class Reference:
    """One References entry: the ids it is cited by, its title and where it is (a file by its
    name, never its folder), and the claims citing it."""

    anchor: str
    label: str
    title: str
    place: str
    href: str | None
    claims: list[tuple[Claim, Check]]


@dataclass
class Document:
    title: str
    status: str
    notice: str  # an unfinished run says so on the first page; "" when finished
    meta: list[tuple[str, str]]  # the first page's block: task, models, score, rounds, date ...
    text: str  # the version's Markdown as written
    version: dict[str, Any]
    blocks: list[Any]
    claims: list[Claim]
    references: list[Reference]
    known_issues: list[dict[str, Any]]
    reviews: list[dict[str, Any]]
    decisions: list[dict[str, Any]]
    language: str = ""

    @property
    def headings(self) -> list[Heading]:
        return [b for b in self.blocks if isinstance(b, Heading)]

    @property
    def top_level(self) -> int:
        """The article's highest heading level (its sections are usually `##`)."""
        return min((h.level for h in self.headings), default=1)

    @property
    def script(self) -> str | None:
        """`zh`, `ja` or `ko` when the article or its title holds CJK characters (kana: Japanese,
        Hangul: Korean, Han alone: Chinese), else None: what a font must cover."""
        from reflectcli.writing.textops import CJK

        text = self.title + self.text
        if not CJK.search(text):
            return None
        return "ja" if _KANA.search(text) else "ko" if _HANGUL.search(text) else "zh"

    @property
    def legend(self) -> list[Verdict]:
        """The verdicts the article's claims carry, heaviest last."""
        used = {c.verdict for c in self.claims if c.checks}
        return sorted((verdict(v) for v in used), key=lambda v: (v.weight, v.name))

    def summary(self) -> dict[str, Any]:
        """The model as data (the JSON export's `document`)."""
        return {
            "title": self.title,
            "status": self.status,
            "notice": self.notice,
            "meta": dict(self.meta),
            "sections": [plain(h.spans) for h in self.headings],
            "claims": [{"id": c.id, "sentence": c.sentence, "verdict": c.verdict,
                        "checks": [{"source": k.label, "verdict": k.verdict, "quote": k.quote,
                                    "reason": k.reason, "by": k.by} for k in c.checks]}
                       for c in self.claims],
            "references": [{"label": r.label, "title": r.title, "place": r.place,
                            "claims": [c.id for c, _ in r.claims]} for r in self.references],
            "known_issues": [rows.improvement(k, with_id=True) for k in self.known_issues],
        }  # fmt: skip


def plain(spans: list[Span]) -> str:
    return "".join(s.text for s in spans)


# --- building it -------------------------------------------------------------------------------


def shared_place(ref: dict[str, Any]) -> str:
    """Where a reference is, for a page others may read: a URL as it is, a file by its name
    only (its folder on this machine is nobody's business), with its page or heading."""
    if ref["kind"] == "url":
        return ref["place"]
    name = Path(ref["location"]).name
    return ref["place"].replace(ref["location"], name, 1) if ref["location"] else ref["place"]


def _when(timestamp: float | None) -> str:
    if not timestamp:
        return "unknown"
    return datetime.fromtimestamp(timestamp, UTC).strftime("%Y-%m-%d %H:%M UTC")


def build(
    run: dict[str, Any], state: dict[str, Any], version: dict[str, Any], blocks: bool = True
) -> Document:
    """The report of `version` of a run, from its state; without `blocks`, its headings alone
    stand for the article (what `summary` shows: the JSON export need not lay out the text)."""
    text = version["text"]
    refs = rows.reference_rows(state, text)
    anchor_of = {i: r["id"] for r in refs for i in r.get("ids") or [r["id"]]}
    claims: dict[str, Claim] = {}
    for item in rows._claims_of(state, text):  # the verdicts of this version's latest review
        if item.get("source") not in anchor_of:
            continue
        ident = item.get("claim") or f"C{len(claims) + 1}"
        claim = claims.setdefault(
            item.get("claim") or item["sentence"], Claim(ident, _sentence_text(item["sentence"]))
        )
        claim.checks.append(Check(anchor_of[item["source"]], item["source"], item.get("verdict") or "",
                                  item.get("quote") or "", item.get("reason") or "",
                                  item.get("by") or ""))  # fmt: skip
    references = []
    for r in refs:
        ids = set(r.get("ids") or [r["id"]])
        href = r["location"] if r["kind"] in ("url", "web") and _web(r["location"]) else None
        references.append(Reference(
            r["id"], r.get("label") or r["id"], _one_line(r["title"]), _one_line(shared_place(r)), href,
            [(c, k) for c in claims.values() for k in c.checks if k.label in ids]))  # fmt: skip
    if blocks:
        laid = _Builder(text, anchor_of, list(claims.values())).blocks()
    else:
        from reflectcli.writing.markdown import headings

        laid = [
            Heading(h.level, [Span(_sentence_text(h.title))], f"h-{n}")
            for n, h in enumerate(headings(text), 1)
        ]
    return Document(
        title=_one_line(state.get("task", "")),
        status=(status := run_status(state, run)),
        notice=_notice(status, run, version),
        meta=_meta(run, state, version, status),
        text=text,
        version=version,
        blocks=laid,
        claims=list(claims.values()),
        references=references,
        known_issues=list(state.get("known_issues") or []),
        reviews=list(state.get("reviews") or []),
        decisions=list(state.get("decisions") or []),
        language=(state.get("params") or {}).get("language") or "",
    )


def _one_line(text: Any) -> str:
    return " ".join(str(text or "").split())


def _web(url: str) -> bool:
    return url.startswith(("http://", "https://"))


def _notice(status: str, run: dict[str, Any], version: dict[str, Any]) -> str:
    if status == "finished":
        return ""
    said = {"running": "is still running", "failed": "failed", "interrupted": "was interrupted",
            "waiting": "is waiting for a person's approval"}.get(status, f"is {status}")  # fmt: skip
    what = f"This run {said} and is not finished: this is version {version['n']}, not its final article."
    if status == "failed" and run.get("error"):
        what += f" The error: {_one_line(run['error'])}"
    return what


def _meta(run: dict[str, Any], state: dict[str, Any], version: dict[str, Any],
          status: str) -> list[tuple[str, str]]:  # fmt: skip
    s = summarize(state)
    params = state.get("params") or {}
    score = next((r["score"] for r in reversed(state.get("reviews") or []) if r["version"] == version["n"]),
                 None)  # fmt: skip
    writer = run.get("model") or params.get("model") or "?"
    critic = run.get("critic_model") or params.get("critic_model") or writer
    return [
        ("task", _one_line(state.get("task", ""))),
        ("status", status + (f" (stop reason: {rows.stop_words(s)})" if s["stop_reason"] else "")),
        ("model", f"{writer}; critic {critic}"),
        ("version", f"{version['n']} ({version['kind']})"),
        ("score", f"{score:g}/10" if score is not None else "not reviewed"),
        ("rounds", str(s["rounds"])),
        ("date", _when(run.get("updated_at") or run.get("created_at"))),
        ("thread", str(run.get("thread_id", ""))),
        ("calls / tokens", f"{s['calls']} / {s['tokens']}"),
    ]


_MARK = "\ue000{}\ue001"  # a placeholder no Markdown syntax reads (private-use characters)
_MARKS = re.compile("\ue000(\\d+)\ue001")
_UNKEYED = re.compile(r"[\s`*_]")  # what a claim's sentence and the rendered text may differ by


def _marked(text: str, held: dict[str, str]) -> tuple[str, list[tuple[str, ...]]]:
    """`text` with each citation of a held source replaced by a placeholder, and the ids each
    one cites (prose only, as `writing.citations` finds them: never in code)."""
    from reflectcli.writing.textops import prose_parts

    out: list[str] = []
    found: list[tuple[str, ...]] = []
    for piece, prose in prose_parts(text):
        last = 0
        for match in CITATION.finditer(piece) if prose else ():
            ids = tuple(i for i in ids_in(match.group()) if i in held)
            if ids:
                out += [piece[last : match.start()], _MARK.format(len(found))]
                found.append(ids)
                last = match.end()
        out.append(piece[last:])
    return "".join(out), found


class _Builder:
    """Blocks from markdown-it's tokens; each cited sentence found in its paragraph (by its text,
    in order) becomes a segment carrying its claim."""

    def __init__(self, text: str, anchor_of: dict[str, str], claims: list[Claim]) -> None:
        from reflectcli.writing.markdown import _html

        self.source, self.cites = _marked(text, anchor_of)
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
                href.append(link if _web(link) or link.startswith("mailto:") else None)
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
            ids = self.cites[int(m.group(1))]
            out.append(Span(f"[{', '.join(ids)}]", bold, italic, cite=tuple(self.anchor_of[i] for i in ids),
                            labels=ids))  # fmt: skip
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
    return _MARKS.sub(lambda m: f"[{', '.join(cites[int(m.group(1))])}]", text)


def _sentence_text(sentence: str) -> str:
    """A claim's sentence as the reader sees it: its inline Markdown (links, code) read."""
    from reflectcli.writing.markdown import _html

    tokens = _html().parseInline(sentence)
    return "".join(c.content for t in tokens for c in t.children or [] if c.type in ("text", "code_inline"))


def _key(text: str) -> str:
    return _UNKEYED.sub("", text)
