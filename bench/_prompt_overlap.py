"""Prompt text in an article, measured outside the guards that cleaned it: the word n-grams the
article shares with the instructions of the prompts that were actually sent.

A prompt quotes data: the task, the outline, the sections written so far, the previous version,
a sentence of it the critique names. The article may repeat all of that. So the calls are read
in the order they were sent, and in each message every word covered by an n-gram of what the
run knew before that call (the task, the outline's titles and goals, every earlier answer of
the writer) is data; the runs of words left are the prompt's own wording, its instructions.
The critique is not data (its items are instructions to the writer; an article that repeats one
has echoed its prompt), and an instruction the model echoed into an answer stays an instruction
of every prompt sent before it. An n-gram is N consecutive word tokens (lower-cased `\\w+`; a
CJK character is one token); the article's n-grams found among the instructions' are "prompt
text", merged into spans."""

from __future__ import annotations

import re
from typing import Any

N = 4  # tuned on human text (bench_first_run.py --measure): 5 misses short instructions, 3 flags prose
_CJK = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff"
_TOKEN = re.compile(rf"[{_CJK}]|[^\W{_CJK}]+")


def tokens(text: str) -> list[str]:
    return _TOKEN.findall(text.lower())


def grams(words: list[str], n: int = N) -> set[tuple[str, ...]]:
    return {tuple(words[i : i + n]) for i in range(len(words) - n + 1)}


def _writer(call: dict[str, Any]) -> bool:
    return not (call.get("step") or "").startswith("review")


def instructions(calls: list[dict[str, Any]], state: dict[str, Any], n: int = N) -> list[str]:
    """The prompts' own wording: in each message, as written, the runs of words that no n-gram
    of the data known before its call covers (see the module)."""
    outline = (state.get("outline") or {}).get("sections") or []
    known = grams(tokens(state.get("task") or ""), n)
    for section in outline:
        known |= grams(tokens(f"{section.get('title', '')} {section.get('goal') or ''}"), n)
    runs = []
    for call in calls:
        for message in call["messages"]:
            text = message["content"] if isinstance(message["content"], str) else str(message["content"])
            found = list(_TOKEN.finditer(text.lower()))
            words = [m.group(0) for m in found]
            data = [False] * len(words)
            for i in range(len(words) - n + 1):
                if tuple(words[i : i + n]) in known:
                    data[i : i + n] = [True] * n
            start = None
            for i, flag in enumerate([*data, True]):
                if not flag and start is None:
                    start = i
                elif flag and start is not None:
                    runs.append(text[found[start].start() : found[i - 1].end()])
                    start = None
        if _writer(call):
            known |= grams(tokens(call["text"]), n)
    return runs


def instruction_grams(calls: list[dict[str, Any]], state: dict[str, Any], n: int = N) -> set[tuple[str, ...]]:
    out: set[tuple[str, ...]] = set()
    for run in instructions(calls, state, n):
        out |= grams(tokens(run), n)
    return out


def leaks(article: str, instruction: set[tuple[str, ...]], n: int = N) -> list[str]:
    """The article's spans made of n-grams of the instructions (each span's words, joined)."""
    words = tokens(article)
    hit = [False] * len(words)
    for i in range(len(words) - n + 1):
        if tuple(words[i : i + n]) in instruction:
            hit[i : i + n] = [True] * n
    spans, current = [], []
    for word, flag in zip(words, hit, strict=True):
        if flag:
            current.append(word)
        elif current:
            spans.append(" ".join(current))
            current = []
    if current:
        spans.append(" ".join(current))
    return spans
