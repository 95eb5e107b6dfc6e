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
from dataclasses import dataclass, field

from reflectcli.writing.textops import normalize
from reflectcli.writing.titles import STOP

ECHO_SHARE = 0.7  # a sentence whose words are 70 % the words of one instruction sentence is an echo
MIN_WORDS = 3  # content words; shorter sentences are not compared (short phrases match by chance)

_DATA_BLOCK = re.compile(r"<(?P<tag>[a-zA-Z][\w-]*)(?:\s[^<>]*)?>.*?</(?P=tag)>", re.S)
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
_TAG = re.compile(r"</?(p|div|span|section|article|paragraph|h[1-6]|br|body|html|text|answer|response)"
                  r"\b[^<>]*>", re.I)  # fmt: skip
_CHATTER = re.compile(
    r"^\W*(sure|certainly|of course|okay|absolutely)[,!.]\s*(here|i|below|this|the)\b"
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
    r"article|text|draft)\b",
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
    """`text` without prompt echoes, our own messages, labels, markup tags and chatter."""
    removed: list[str] = []
    parts = re.split(r"(`[^`\n]*`)", text)  # a tag in inline code is the topic, not markup
    text = "".join(p if p.startswith("`") else _TAG.sub(lambda m: removed.append(m.group(0)) or " ", p)
                   for p in parts)  # fmt: skip
    text = _LABEL.sub(lambda m: removed.append(m.group(0).strip()) or "", text)
    told = _sentences(instruction_text(messages or []))
    exact = {normalize(s) for s in told if normalize(s)}
    said = [words for words in (_content(s) for s in told) if len(words) >= MIN_WORDS]
    out_lines = []
    fenced = False
    for line in text.split("\n"):
        if re.match(r"^\s*(```|~~~)", line):
            fenced = not fenced
        if fenced or line.lstrip().startswith(("```", "~~~", "    ", "|")):  # code and tables
            out_lines.append(line)
            continue
        pieces = re.split(r"(?<=[.!?。！？:：])(\s+)", line)
        kept = []
        for piece in pieces:
            if label := _LABEL.match(piece):
                removed.append(label.group(0).strip())
                piece = piece[label.end() :]
                if not piece.strip():
                    continue
            words = _content(piece)
            if piece.strip() and (
                _CHATTER.search(piece) or normalize(piece) in exact or _echoes(words, said)
            ):
                removed.append(piece.strip())
                continue
            kept.append(piece)
        changed = len(kept) != len(pieces) or "".join(kept) != line
        out_lines.append("".join(kept).strip() if changed else line)
    cleaned = re.sub(r"[ \t]{2,}", " ", "\n".join(out_lines))
    cleaned = re.sub(r"\n{3,}", "\n\n", cleaned).strip()
    return Echo(cleaned, removed)


def _content(text: str) -> set[str]:
    return {w for w in normalize(text).split() if w not in STOP}


def _echoes(words: set[str], said: list[set[str]]) -> bool:
    if len(words) < MIN_WORDS:
        return False
    return any(len(words & instruction) >= ECHO_SHARE * len(words) for instruction in said)
