"""Equal-length copies of two versions of an article, for the length-controlled preference.

When every final is longer than its first draft, the judge's verdicts on (first, final) cannot
tell a preference for quality from a preference for length: both point the same way. So the
judge also compares the two texts cut to the same length: each section of both (aligned by
position when both have the same top-level headings in number, else the whole text as one
section) is cut to the sentence that brings it nearest to the shorter of its two versions,
its heading kept: once keeping each section's opening (`head`), once its closing (`tail`), so
that what a revision added at the end of a section is seen too. A paragraph is cut between its
sentences (pysbd, through writing/claims.py); a code block, table or quotation is kept whole or
dropped whole. Both copies have every section; the shorter version of a section is kept whole."""

from __future__ import annotations

from reflectcli.eval.metrics import words
from reflectcli.writing import markdown
from reflectcli.writing.claims import pieces


def _segments(text: str) -> list[tuple[str, str]]:
    """(heading line, body) per top-level section; the text before the first heading has an
    empty heading."""
    found = markdown.headings(text)
    starts = [h.start for h in found] + [len(text)]
    out = [("", text[: starts[0]])]
    for i, h in enumerate(found):
        out.append((text[h.start : h.end], text[h.end : starts[i + 1]]))
    return out


def _units(body: str) -> list[list[str]]:
    """The body's blocks, each as the pieces it may be cut between: a paragraph's sentences
    (as written, whitespace folded), any other block whole."""
    out = []
    for block in markdown.blocks(body):
        text = body[block.start : block.end].strip()
        if not text:
            continue
        out.append(pieces(" ".join(text.split())) if block.kind == "paragraph" else [text])
    return out


def cut(body: str, target: int, end: str = "head") -> str:
    """`body` cut to the pieces that bring its words nearest to `target` (ties: fewer words; at
    least one piece unless `target` is 0), from its start (`head`) or back from its end (`tail`)."""
    units = _units(body)
    if end == "tail":
        units = [block[::-1] for block in reversed(units)]
    kept: list[list[str]] = []
    total = 0
    for block in units:
        taken = []
        for piece in block:
            n = words(piece)
            far = total + n > target and abs(total + n - target) >= abs(total - target)
            if far and (total or not target):
                break
            taken.append(piece)
            total += n
        if taken:
            kept.append(taken)
        if len(taken) < len(block):
            break
    if end == "tail":
        kept = [block[::-1] for block in reversed(kept)]
    return "\n\n".join("".join(block).strip() for block in kept)


ENDS = ("head", "tail")


def equal_length(a: str, b: str, end: str = "head") -> tuple[str, str]:
    """`a` and `b` with each section cut to the shorter of its two versions (see the module)."""
    sa, sb = _segments(a), _segments(b)
    if len(sa) != len(sb):
        sa, sb = [("", a)], [("", b)]
    out_a, out_b = [], []
    for (head_a, body_a), (head_b, body_b) in zip(sa, sb, strict=True):
        na, nb = words(body_a), words(body_b)
        body_a = cut(body_a, nb, end) if na > nb else body_a.strip()
        body_b = cut(body_b, na, end) if nb > na else body_b.strip()
        out_a.append("\n\n".join(p for p in (head_a.strip(), body_a) if p))
        out_b.append("\n\n".join(p for p in (head_b.strip(), body_b) if p))
    return "\n\n".join(p for p in out_a if p), "\n\n".join(p for p in out_b if p)
