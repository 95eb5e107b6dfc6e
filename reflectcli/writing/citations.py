"""Citations in article text: recognised by a Markdown parse, never guessed from brackets.

Two kinds of citation are recognised, and nothing else:

- the form the writer is told to use, `[S3]` or `[S3, S5]`, and the variants models write of
  it, all naming a source by its `S` (or `Source`, `src`): `[S3][S5]`, `[s 3]`, `(S3)`,
  `[Source 3]`, `[S1, 3]`, ranges (`[S1-S4]`, `[S1–S4]`, `[S1 to 4]`), full-width brackets
  (`［S3］`, `【S3】`), `word[S3]`;
- the forms an outside article defines in its own reference list (writing/reflist.py): `[3]`,
  `[3, 4]`, `[3–5]` and `[^3]` when every number in it is a label the list defines (`labels`).

A bracket of bare numbers the article's list does not define is no citation: a Python list
(`[1, 2, 3]`), an interval (`[0, 1]`), an index (`x[1]`). The text is read through
markdown-it-py's tokens (a citation is an inline token of its own, found by an inline rule), so
code spans and blocks, links (`[99](url)`, `[Tidelift Subscription][1]`, a shortcut `[1]` with
a `[1]: url` definition), images, raw HTML and escaped brackets (`\\[S3]`) are never citations;
each citation's offsets in the original text come from its block's line map.

`clean_citations` writes every held id in the run's one form (`[S3]`, or the outside article's
own numbering for a run from a person's file), removes and names every id the run does not
hold, and names every citation it rewrote: code changes no citation without saying so."""

from __future__ import annotations

import re
from collections.abc import Collection
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING, Any, NamedTuple

from reflectcli.writing.patterns import LazyPattern

if TYPE_CHECKING:
    from markdown_it import MarkdownIt

_PREFIX = r"(?:sources?|src|s)\s?[:#]?\s?"
_ITEM = r"\d+(?:[a-z](?![a-z]))?"
_SEP = r"\s*(?:[,;、，]|[-–—~]|to|and|&)\s*"
_MORE = r"(?:" + _SEP + r"(?:" + _PREFIX + r")?" + _ITEM + r")*"
_OPEN, _CLOSE = r"[\[［【]", r"[\]］】]"
# every bracket that may be a citation (the parse decides which are): what claims.py and the
# exporters match on text already known to be prose
CITATION = LazyPattern(
    r"(?<![\w`])" + _OPEN + r"\s*(?:" + _PREFIX + r")?" + _ITEM + _MORE + r"\s*" + _CLOSE  # [3], [S3]
    + r"|" + _OPEN + r"\s*" + _PREFIX + _ITEM + _MORE + r"\s*" + _CLOSE  # word[S3]
    + r"|(?<![\w`])[(（]\s*" + _PREFIX + _ITEM + _MORE + r"\s*[)）]"  # (S3), (Source 3); not f(s1)
    + r"|\[\^\d+\](?!:)",  # a Markdown footnote's reference, word[^3] (not its definition)
    re.I,
)  # fmt: skip
# CITATION without its look-behinds: whatever CITATION could find in any piece of a text, so a
# text it misses needs no parse at all
ANYWHERE = LazyPattern(CITATION.pattern.replace(r"(?<![\w`])", ""), re.I)
_HAS_PREFIX = LazyPattern(r"(?<![a-z])" + _PREFIX + r"\d", re.I)
_PART = LazyPattern(r"(" + _SEP + r")?(?:" + _PREFIX + r")?(\d+)([a-z]?)", re.I)
MAX_RANGE = 20  # a range naming more ids than this is malformed, not expanded
_OPENERS = frozenset("[［【(（")
_END_PUNCT = ".,;:!?)。，；：！？"


def parse(bracket: str) -> tuple[list[str], list[str]]:
    """The ids a citation names (`S3`, a range expanded) and its malformed parts (`S9a`)."""
    ids: list[str] = []
    bad: list[str] = []
    previous: int | None = None
    for match in _PART.finditer(bracket):
        sep, number, suffix = match.group(1) or "", int(match.group(2)), match.group(3)
        if suffix:
            bad.append(f"S{number}{suffix}")
            previous = None
            continue
        if previous is not None and sep.strip() in ("-", "–", "—", "~", "to"):
            if previous < number <= previous + MAX_RANGE:
                ids += [f"S{n}" for n in range(previous + 1, number + 1)]
            else:
                ids.pop()
                bad.append(f"S{previous}-S{number}")
            previous = None
            continue
        ids.append(f"S{number}")
        previous = number
    return list(dict.fromkeys(ids)), bad


def ids_in(bracket: str) -> list[str]:
    return parse(bracket)[0]


@dataclass(frozen=True)
class Citation:
    """One bracket in prose that may cite: its offsets in the text, as written, the ids it names
    and its malformed parts; `named` when written with the `S` prefix (the writer's form);
    `defined` when it is a citation (named, or of bare labels the reference list defines)."""

    start: int
    end: int
    raw: str
    ids: tuple[str, ...]
    bad: tuple[str, ...]
    named: bool
    defined: bool
    footnote: bool = False


def numbers(labels: frozenset[str] | set[str] | None) -> frozenset[str]:
    """The numbers an article's own labels (`3`, `^3`; not reflectcli's `S3`) make citable bare."""
    return frozenset(label.lstrip("^") for label in labels or () if label[:1] not in ("S", "s"))


def form_of(labels: frozenset[str] | set[str] | None) -> str:
    """How held ids are written in a text whose citations follow `labels`: `named` (`[S3]`,
    reflectcli's), `bare` (`[3]`: the article's own numbering) or `footnote` (`[^3]`)."""
    own = [label for label in labels or () if label[:1] not in ("S", "s")]
    if not own:
        return "named"
    return "footnote" if all(label.startswith("^") for label in own) else "bare"


def run_labels(state: dict[str, Any]) -> frozenset[str]:
    """The bare labels a run's citations may take: none for a run of its own (`[S3]` only); for
    a run from a person's article (`review`, `write --from`), the labels its reference list
    defines (`state["labels"]`) and every id the run holds, in that list's form."""
    own = frozenset(state.get("labels") or ())
    if not own or form_of(own) == "named":
        return own
    mark = "^" if form_of(own) == "footnote" else ""
    return own | {mark + e["id"][1:] for e in state.get("evidence") or []}


def written(ids: list[str], form: str) -> str:
    """Held ids as a citation in `form`: `[S1, S3]`, `[1, 3]` or `[^1][^3]`."""
    if form == "footnote":
        return "".join(f"[^{i[1:]}]" for i in ids)
    if form == "bare":
        return f"[{', '.join(i[1:] for i in ids)}]"
    return f"[{', '.join(ids)}]"


def _text_rule(state: Any, silent: bool) -> bool:
    """markdown-it's `text` rule, stopping also where a citation may open (`(S3)`, `【S3】`)."""
    pos, end, src = state.pos, state.posMax, state.src
    while pos < end and src[pos] not in _TERMINATORS:
        pos += 1
    if pos == state.pos:
        return False
    if not silent:
        state.pending += src[state.pos : pos]
    state.pos = pos
    return True


# markdown-it's own terminators (rules_inline/text.py), and where a citation may open
_TERMINATORS = frozenset("\n!#$%&*+-:<=>@[\\]^_`{}~") | _OPENERS


def _citation_rule(state: Any, silent: bool) -> bool:
    """A bracket the citation pattern matches, as one `citation` token (its offset in the inline
    source in `meta`), unless it is link syntax (the link rule's: `[x](url)`, `[x][ref]`, a
    shortcut `[ref]` that a definition makes a link) or inside a link's text."""
    src, pos = state.src, state.pos
    if silent or src[pos] not in _OPENERS or state.linkLevel > 0:
        return False  # (silent: a link's label being skipped, whose brackets the link rule counts)
    match = CITATION.match(src, pos)
    if match is None or match.end() > state.posMax:
        return False
    if src[pos] == "[" and not match.group().startswith("[^"):
        from markdown_it.rules_inline import link

        saved = state.pos, state.posMax
        is_link = link(state, True)
        state.pos, state.posMax = saved
        if is_link:
            return False
    token = state.push("citation", "", 0)
    token.content = match.group()
    token.meta = {"at": pos}
    state.pos = match.end()
    return True


@lru_cache(maxsize=1)
def _parser() -> MarkdownIt:
    """CommonMark with tables (writing/markdown.py's model) and citations as inline tokens."""
    from markdown_it import MarkdownIt

    md = MarkdownIt("commonmark").enable("table")
    md.inline.ruler.at("text", _text_rule)
    md.inline.ruler.before("link", "citation", _citation_rule)
    return md


def _placed(lines: list[str], starts: list[int], first: int, content: str,
            cursor: dict[int, int]) -> list[tuple[int, int] | None]:  # fmt: skip
    """For each line of a block's inline `content`: (where its text starts in the document, how
    many leading characters of it were indentation), or None when it cannot be placed for
    certain. The content's lines are the ends of the document's lines from `first`; a table cell
    or an ATX heading's text is a piece of its line, found after the pieces before it (`cursor`)."""
    out: list[tuple[int, int] | None] = []
    for k, piece in enumerate(content.split("\n")):
        n = first + k
        body = piece.strip()
        if n >= len(lines) or not body:
            out.append(None)
            continue
        line = lines[n].rstrip()
        if line.endswith(body) and n not in cursor:
            where = len(line) - len(body)
        else:
            where = line.find(body, cursor.get(n, 0))
            if where < 0:
                out.append(None)
                continue
        cursor[n] = where + len(body)
        out.append((starts[n] + where, len(piece) - len(piece.lstrip())))
    return out


@lru_cache(maxsize=128)
def _found(text: str, labels: frozenset[str], skip: frozenset[int]) -> tuple[Citation, ...]:
    from reflectcli.writing.markdown import Lines

    index = Lines(text)
    lines = [text[s:e] for s, e in zip(index.starts, index.ends, strict=True)]
    own = numbers(labels)
    found: list[Citation] = []
    cursor: dict[int, int] = {}  # per line: where the last piece placed on it ends
    for token in _parser().parse(text):
        if token.type != "inline" or not token.map or token.map[0] in skip:
            continue
        depth = 0
        placed = _placed(lines, index.starts, token.map[0], token.content, cursor)
        for child in token.children or []:
            if child.type == "link_open":
                depth += 1
            elif child.type == "link_close":
                depth -= 1
            if child.type != "citation" or depth:
                continue
            at, raw = child.meta["at"], child.content
            k = token.content.count("\n", 0, at)
            line = placed[k] if k < len(placed) else None
            column = at - (token.content.rfind("\n", 0, at) + 1)
            start = None if line is None or column < line[1] else line[0] + column - line[1]
            if start is None or text[start : start + len(raw)] != raw:
                continue  # not placed for certain: left as it is
            ids, bad = parse(raw)
            footnote = raw.startswith("[^")
            named = not footnote and bool(_HAS_PREFIX.search(raw))
            defined = named or bool(ids) and not bad and all(i[1:] in own for i in ids)
            found.append(Citation(start, start + len(raw), raw, tuple(ids), tuple(bad), named, defined,
                                  footnote))  # fmt: skip
    return tuple(found)


def citations(text: str, labels: Collection[str] | None = None,
              skip_lines: frozenset[int] = frozenset()) -> tuple[Citation, ...]:  # fmt: skip
    """Every bracket in `text`'s prose that may cite, in order (`defined` marks the citations);
    `labels`: the outside article's own reference labels; `skip_lines`: lines not read (the
    reference list's own)."""
    if not ANYWHERE.search(text):  # nothing like a citation anywhere: no parse to ask of it
        return ()
    return _found(text, frozenset(labels or ()), frozenset(skip_lines))


def cited_ids(text: str, labels: Collection[str] | None = None) -> list[str]:
    """Every id cited in `text`, in order of first citation."""
    return list(dict.fromkeys(i for c in citations(text, labels) if c.defined for i in c.ids))


class Cleaned(NamedTuple):
    """A text with its citations in the run's form: what was removed (ids, malformed parts) and
    what was rewritten (`(S3)` → `[S3]`), each as written."""

    text: str
    removed: list[str]
    rewritten: list[tuple[str, str]]


def clean_citations(text: str, known: set[str] | frozenset[str],
                    labels: frozenset[str] | set[str] | None = None) -> Cleaned:  # fmt: skip
    """`text` with every citation in the run's one form (`form_of(labels)`): held ids written
    `[S3]` (or in the article's own numbering), every id not in `known` and every malformed
    part removed (a bracket left empty goes with the space before it); a citation already in the
    form, or in the article's own form (`[3]` of a label its list defines), is left byte for
    byte. Brackets that are no citation (`[1, 2, 3]` where the article defines no such labels)
    are never touched."""
    form = form_of(labels)
    removed: list[str] = []
    rewritten: list[tuple[str, str]] = []
    out: list[str] = []
    last = 0
    for cite in (c for c in citations(text, labels) if c.defined):
        if not cite.named:  # the article's own form, of labels its list defines: the person's,
            continue  # kept as written (resolved or not, its entry stays in the list)
        good = [i for i in cite.ids if i in known]
        gone = [*(i for i in cite.ids if i not in known), *cite.bad]
        removed += gone
        new = written(good, form) if good else ""
        if new == cite.raw:
            continue
        if new and not gone:
            rewritten.append((cite.raw, new))
        start, end = cite.start, cite.end
        if not new:  # the space before a removed bracket goes when punctuation or the line's end
            before = len(text[last:start]) - len(text[last:start].rstrip(" \t"))
            after = text[end : end + 1]
            if before and (not after or after == "\n" or after in _END_PUNCT):
                start -= before
            elif before and after in (" ", "\t"):
                start -= 1
        out += [text[last:start], new]
        last = end
    if not out:
        return Cleaned(text, removed, rewritten)
    return Cleaned("".join(out) + text[last:], removed, rewritten)


def strip_invented(text: str, known: set[str] | frozenset[str],
                   labels: frozenset[str] | set[str] | None = None) -> tuple[str, list[str]]:  # fmt: skip
    """`clean_citations` without its rewrites: (the text, what was removed)."""
    cleaned = clean_citations(text, known, labels)
    return cleaned.text, cleaned.removed


def references(evidence: list[dict[str, Any]], text: str,
               labels: frozenset[str] | set[str] | None = None) -> list[dict[str, Any]]:  # fmt: skip
    """The evidence cited in `text`, in order of id: what a References list shows."""
    cited = set(cited_ids(text, labels))
    return sorted((e for e in evidence if e["id"] in cited), key=lambda e: int(e["id"][1:]))


def place(item: dict[str, Any]) -> str:
    """Where a passage is: `notes/a.md, "Heading"`, `report.pdf, page 4`, or the URL."""
    parts = [item.get("location") or ""]
    if item.get("page"):
        parts.append(f"page {item['page']}")
    if item.get("heading"):
        parts.append(f"“{item['heading']}”")
    return ", ".join(p for p in parts if p)
