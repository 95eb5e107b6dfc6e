"""No prompt text in an article: a guard on every generation, for every model.

A small model copies its instructions back ("Rewrite this section again ... Keep what is good. No
title, no list."), labels its answer ("Section: ..."), leaves markup (`</p> <section id="132">`)
and chats ("I made several changes to enhance clarity", "Here's how you can write this:"); a
capable one adds "Here is the revised section:" too. `strip_echo` removes such sentences and
says which. It compares a generation with the prompt's *instructions* only: the quoted data a
prompt carries (the article or section being revised, sources, sections already written, the
task and titles) may be repeated by a good answer, so it is set aside first.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field

from reflectcli.writing.textops import normalize
from reflectcli.writing.titles import STOP

ECHO_SHARE = 0.7  # a sentence whose words are 70 % the words of one instruction sentence is an echo
MIN_WORDS = 3  # content words; shorter sentences are not compared (short phrases match by chance)

_DATA_BLOCK = re.compile(r"<(?P<tag>[a-zA-Z][\w-]*)(?:\s[^<>]*)?>.*?</(?P=tag)>", re.S)
_QUOTED = re.compile(r'"[^"\n]*"|“[^”\n]*”')
_DATA_HEADER = re.compile(
    r"^(sources|facts you can use|sections already written|improvements asked for in earlier rounds|"
    r"the article cites these sources)\s*:\s*$",
    re.I,
)
_DATA_LINE = re.compile(
    r"^\s*(\[S\d+\]|- |\d+\. |#{1,6} |(task|article|section|outline|the previous section ends|"
    r"the next section begins)\s*:)",
    re.I,
)
_LABEL = re.compile(r"^\s*(section|paragraph|title|heading|answer|(revised|rewritten|new) (section|text|"
                    r"paragraph|article))(\s+\d+)?\s*:\s*", re.I | re.M)  # fmt: skip
_TAG = re.compile(r"(?<!\\)<(?P<close>/?)(?P<name>p|div|span|section|article|paragraph|h[1-6]|br|body|"
                  r"html|text|answer|response)\b[^<>]*>", re.I)  # fmt: skip
_NOT_HTML = {"paragraph", "text", "answer", "response"}  # our prompts' words, not HTML elements
_CHATTER = re.compile(
    r"^\W*(sure|certainly|of course|okay|absolutely)[,!.]?\s+(here('s| is| are)|i('ll| will| can| have)|"
    r"below (is|are))\b"
    r"|^\W*(here is|here's|here are|below is|below are)\s+(the |a |an |my |your )?(revised |rewritten |"
    r"updated |improved |new |final |edited )?(section|article|paragraph|text|version|draft|rewrite|"
    r"answer|response|essay)\b|^\W*here'?s how (you|i|we) (can|could|might|would) (write|rewrite|revise)"
    r"|\bi('ve| have)? (made|added|done) (several |some |a few |the |these |many |minor )?(changes|edits|"
    r"revisions|improvements|adjustments)\b|\bi('ve| have)? (revised|rewritten|rewrote|updated|improved|"
    r"edited) (the|this|your|each) (section|article|text|draft|paragraph|essay)\b|\blet me know if "
    r"(you|there)\b|\bi hope (this|that|it) helps\b|\bfeel free to (ask|reach out|let me know)\b|"
    r"\bas an ai\b|\bas a (large )?language model\b|\b(the|this) (revised|rewritten|updated) (section|"
    r"article|version|paragraph) (is|has|now|keeps|addresses)\b|\bto enhance (its |the )?(clarity|"
    r"readability)\b"
    r"|^\W*(rewrite|revise|write|develop|expand|shorten|improve) (this|the|each|that) (section|paragraph|"
    r"article|text|draft)\b"
    r"|\bthe original (text|section|paragraph|version|answer)\b.*\bi ('ve |have )?(made|changed|edited|"
    r"added|revised|rewrote)\b",
    re.I,
)


@dataclass
class Echo:
    """What `strip_echo` did: the text kept and each sentence or label removed."""

    text: str
    removed: list[str] = field(default_factory=list)

    @property
    def share_removed(self) -> float:
        gone = sum(len(r) for r in self.removed)
        return gone / (gone + len(self.text)) if gone else 0.0


def instruction_text(messages: list[dict[str, str]]) -> str:
    """The words a prompt tells the model, without the data it quotes."""
    kept = []
    for message in messages:
        if message.get("role") == "assistant":  # a retry shows the model its own answer
            continue
        content = _DATA_BLOCK.sub(" ", str(message.get("content") or ""))
        content = _QUOTED.sub(" ", content)  # a quoted title or goal is data too
        skipping = False
        for line in content.splitlines():
            if _DATA_HEADER.match(line.strip()):
                skipping = True
                continue
            if skipping and line.strip():
                continue
            skipping = False
            if not _DATA_LINE.match(line):
                kept.append(line)
    return "\n".join(kept)


def _sentences(text: str) -> list[str]:
    return [s for s in re.split(r"(?<=[.!?。！？])\s+|\n+", text) if s.strip()]


def strip_echo(text: str, messages: list[dict[str, str]] | None = None) -> Echo:
    """`text` without prompt echoes, our own messages, labels, stray markup tags and chatter.
    Code (fenced, indented, inline), tables and every line nothing was removed from are kept
    byte for byte; a text with nothing to remove comes back as it was."""
    removed: list[str] = []
    stray = _stray_tags(text)
    told = _sentences(instruction_text(messages or []))
    exact = {normalize(s) for s in told if normalize(s)}
    said = [words for words in (_content(s) for s in told) if len(words) >= MIN_WORDS]
    out_lines: list[str] = []
    fenced = dropped = False
    for line in text.split("\n"):
        if dropped and not line.strip() and out_lines and not out_lines[-1].strip():
            continue  # the blank line around a line that went: one blank line is enough
        dropped = False
        if re.match(r"^\s*(```|~~~)", line):
            fenced = not fenced
        if fenced or line.lstrip().startswith(("```", "~~~", "|")) or line.startswith(("    ", "\t")):
            out_lines.append(line)  # code and tables are the writer's, whatever they say
            continue
        before = len(removed)
        cleaned = "".join(p if p.startswith("`") else _TAG.sub(lambda m: _drop(m, stray, removed), p)
                          for p in re.split(r"(`[^`\n]*`)", line))  # fmt: skip
        kept = []
        for piece in re.split(r"(?<=[.!?。！？:：])(\s+)", cleaned):
            if label := _LABEL.match(piece):
                removed.append(label.group(0).strip())
                piece = piece[label.end() :]
            echoed = normalize(piece) in exact or _echoes(_content(piece), said)
            if piece.strip() and (_CHATTER.search(piece) or echoed):
                removed.append(piece.strip())
                continue
            kept.append(piece)
        if len(removed) == before:
            out_lines.append(line)
            continue
        tidy = re.sub(r"[ \t]{2,}", " ", "".join(kept)).strip()
        if tidy:
            out_lines.append(tidy)
        else:
            dropped = True
    if not removed:
        return Echo(text)
    return Echo("\n".join(out_lines).strip("\n"), removed)


def _stray_tags(text: str) -> set[str]:
    """Tag names used unbalanced (a `</p>` with no `<p>`, a `<section>` never closed) or not
    HTML at all: markup a model left, not the HTML a Markdown writer puts in on purpose."""
    opened: Counter[str] = Counter()
    closed: Counter[str] = Counter()
    for m in _TAG.finditer(text):
        (closed if m.group("close") else opened)[m.group("name").lower()] += 1
    names = set(opened) | set(closed)
    return {n for n in names if n in _NOT_HTML or (n != "br" and opened[n] != closed[n])}


def _drop(match: re.Match[str], stray: set[str], removed: list[str]) -> str:
    if match.group("name").lower() not in stray:
        return match.group(0)
    removed.append(match.group(0))
    return " "


def _content(text: str) -> set[str]:
    return {w for w in normalize(text).split() if w not in STOP}


def _echoes(words: set[str], said: list[set[str]]) -> bool:
    if len(words) < MIN_WORDS:
        return False
    return any(len(words & instruction) >= ECHO_SHARE * len(words) for instruction in said)
