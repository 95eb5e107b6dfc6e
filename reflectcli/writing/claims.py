"""Sentences and claims. A sentence segmenter (pysbd: abbreviations, decimals, "e.g.", "i.e.",
CJK punctuation) splits prose; Markdown is read through markdown-it-py's tokens, so headings and
code are never prose and each list item is its own paragraph.

A claim is a sentence of the article that cites a source and states something: a question
("What is asyncio [S4]?"), a label ("Speed [S2]:", a list item's "**Speed** [S1]"), a heading
or a table's cells are not one. Claims are numbered `C1 … Cn`
through the whole article, in order; the critic's verdicts are paired to them by that id."""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any

from reflectcli.writing.citations import CITATION, ids_in
from reflectcli.writing.reflist import without_references
from reflectcli.writing.sentences import pieces, sentences  # noqa: F401 (the one segmenter)
from reflectcli.writing.textops import CJK, section_bodies
from reflectcli.writing.textops import markdown_parser as _parser

_LEADING = re.compile(r"^(?:\s*" + CITATION.pattern + r")+", re.I)
_QUESTION_OR_LABEL = ("?", "？", ":", "：")


@lru_cache(maxsize=1)
def _with_tables() -> Any:
    """The Markdown parser with GFM tables read (a table's cells are no paragraph)."""
    return _parser().__class__("commonmark").enable("table")


def paragraphs(markdown: str) -> list[str]:
    """The prose of a Markdown text: each paragraph and each list item's text, its inline
    marks (`**bold**`, `*em*`) kept as written; headings, tables, code and HTML left out."""
    out: list[str] = []
    tokens = _with_tables().parse(markdown)
    for i, token in enumerate(tokens):
        if token.type == "inline" and i and tokens[i - 1].type == "paragraph_open":
            out.append(token.content)
    return out


def _plain(raw: str) -> str:
    """A sentence without its citations and Markdown emphasis, spaces folded."""
    plain = re.sub(r"\s+", " ", CITATION.sub("", raw)).strip()
    plain = re.sub(r"(\*\*|__|\*|_)(\S(?:.*?\S)?)\1", r"\2", plain)
    return re.sub(r"\s+([.,;:!?。，；：！？])", r"\1", plain)


LABEL_WORDS = 2  # words a piece without a full stop may have and still be a label ("Speed", "Cost: low")


# A Chinese question of one clause without its mark: 吗 at the end, or 呢 after a question word
# (她又说：阿二怎么养阿姐呢; not 我还在家呢 "I am still home", nor 我这个外行要请教一下，这不是市场经济吗,
# whose first clause states)
_ASKED_ZH = re.compile(
    r"^(?:请问[，,]?)?[^，,；;]*(?:吗|(?:怎么|什么|为什么|哪|谁|多少|如何|几)[^，,；;]*呢)[\s.。!！]*$"
)


def asked_zh(clause: str) -> bool:
    """Whether `clause` (Chinese, no comma inside) is a question without its mark (`_ASKED_ZH`)."""
    return bool(CJK.search(clause) and _ASKED_ZH.search(clause))


def states_something(sentence: str) -> bool:
    """A question or a label (ending in `?` or `:`; Chinese, `_ASKED_ZH`) states nothing a source
    could hold."""
    bare = sentence.rstrip(" *_")
    if not sentence or bare.endswith(_QUESTION_OR_LABEL):
        return False
    return not asked_zh(bare)


def is_label(sentence: str) -> bool:
    """A word or two with no full stop (a list item's "**Speed** [S1]"): a label, no claim."""
    bare = sentence.rstrip(" *_")
    if bare.endswith((".", "!", "。", "！")):
        return False
    if CJK.search(bare):
        return len(CJK.findall(bare)) <= 4
    return len(re.findall(r"\w+", bare)) <= LABEL_WORDS


def cited_sentences(body: str) -> list[tuple[str, list[str]]]:
    """Each sentence of a Markdown body with the ids it cites. A citation written after the full
    stop ("Mainz. [S1] The ...") belongs to the sentence before it."""
    found: list[list[Any]] = []
    for paragraph in paragraphs(body):
        start = len(found)
        for raw in sentences(paragraph):
            lead = _LEADING.match(raw)
            if lead and len(found) > start:
                found[-1][1] += [i for m in CITATION.finditer(lead.group()) for i in ids_in(m.group())]
                raw = raw[lead.end() :]
            ids = [i for m in CITATION.finditer(raw) for i in ids_in(m.group())]
            found.append([_plain(raw), ids])
    return [(text, list(dict.fromkeys(ids))) for text, ids in found if text]


def claims_in(text: str, titles: list[str]) -> list[dict[str, Any]]:
    """Every claim of `text` (a cited sentence that states something): its id `Cn`, sentence,
    the ids it cites and the section it is in. An article's own reference list (another
    tool's `## References`, footnote definitions) holds no claim."""
    text = without_references(text)
    bodies = section_bodies(text, titles) if titles else [None]
    parts = [(t, b) for t, b in zip(titles, bodies, strict=False) if b] or [("", text)]
    found: list[dict[str, Any]] = []
    for title, body in parts:
        for sentence, ids in cited_sentences(body):
            if ids and states_something(sentence) and not is_label(sentence):
                found.append({"id": f"C{len(found) + 1}", "sentence": sentence, "ids": ids,
                              "section": title})  # fmt: skip
    return found
