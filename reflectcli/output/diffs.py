"""Differences between two versions of an article, as data (the renderer colours them)."""

from __future__ import annotations

import difflib
import re


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


def change_stats(a: str, b: str) -> dict[str, int]:
    ops = word_ops(a, b)
    return {
        "words_removed": sum(len(t.split()) for op, t in ops if op == "-"),
        "words_added": sum(len(t.split()) for op, t in ops if op == "+"),
        "chars_before": len(a),
        "chars_after": len(b),
    }
