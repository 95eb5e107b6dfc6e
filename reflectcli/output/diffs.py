"""Differences between two versions of an article, as data (the renderer colours them)."""

from __future__ import annotations

import difflib
import re
from typing import Any


def unified(a: str, b: str, label_a: str, label_b: str, context: int = 3) -> list[str]:
    return list(
        difflib.unified_diff(a.splitlines(), b.splitlines(), label_a, label_b, n=context, lineterm="")
    )


def word_ops(a: str, b: str) -> list[tuple[str, str]]:
    """(`=`, `-`, `+`) chunks of a word-level diff; words and whitespace are separate tokens."""
    wa, wb = re.findall(r"\s+|\S+", a), re.findall(r"\s+|\S+", b)
    ops: list[tuple[str, str]] = []
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, wa, wb, autojunk=False).get_opcodes():
        if tag == "equal":
            ops.append(("=", "".join(wa[i1:i2])))
        if tag in ("delete", "replace"):
            ops.append(("-", "".join(wa[i1:i2])))
        if tag in ("insert", "replace"):
            ops.append(("+", "".join(wb[j1:j2])))
    return ops


def trim_context(ops: list[tuple[str, str]], words: int = 12) -> list[tuple[str, str]]:
    """A word diff with long unchanged stretches cut to `words` words on each side of a change
    (the cut marked `…`), so a two-word change in a long article is not the whole article."""
    out: list[tuple[str, str]] = []
    for i, (op, chunk) in enumerate(ops):
        if op != "=":
            out.append((op, chunk))
            continue
        tokens = re.findall(r"\s+|\S+", chunk)
        counted = [t for t in tokens if not t.isspace()]
        if len(counted) <= 2 * words:
            out.append((op, chunk))
            continue
        head = _first_words(tokens, words) if i > 0 else ""
        tail = _first_words(tokens[::-1], words, reverse=True) if i < len(ops) - 1 else ""
        out.append((op, f"{head} … {tail}".strip() if head or tail else "…"))
    return out


def _first_words(tokens: list[str], n: int, reverse: bool = False) -> str:
    taken, seen = [], 0
    for token in tokens:
        if not token.isspace():
            seen += 1
            if seen > n:
                break
        taken.append(token)
    return "".join(taken[::-1] if reverse else taken)


def default_pair(state: dict[str, Any]) -> tuple[int, int]:
    """What `diff` compares by default: what the last revision changed (the version it was
    written from → the last version)."""
    versions = state.get("versions") or []
    if len(versions) < 2:
        return (versions[0]["n"], versions[0]["n"]) if versions else (1, 1)
    last = versions[-1]
    return last.get("base") or versions[-2]["n"], last["n"]


LONG_LINE = 80  # characters: a changed line longer than this is shown as a word diff


def section_diff(old: str, new: str, long_line: int = LONG_LINE) -> list[tuple[str, Any]]:
    """One section's change as display rows: (`=` | `-` | `+`, line), or (`~`, word ops) where a
    changed line is long (a paragraph rewritten in place reads better word by word)."""
    a, b = old.splitlines(), new.splitlines()
    rows: list[tuple[str, Any]] = []
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
        if tag == "equal":
            rows += [("=", line) for line in a[i1:i2]]
            continue
        gone, came = a[i1:i2], b[j1:j2]
        pairs = min(len(gone), len(came)) if tag == "replace" else 0
        for x, y in zip(gone[:pairs], came[:pairs], strict=True):
            if max(len(x), len(y)) > long_line:
                rows.append(("~", word_ops(x, y)))
            else:
                rows += [("-", x), ("+", y)]
        rows += [("-", line) for line in gone[pairs:]]
        rows += [("+", line) for line in came[pairs:]]
    return rows
