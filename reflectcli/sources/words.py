"""Content words of a sentence (stems, and single CJK characters), as the claim check compares a
sentence with a passage's. The hard facts the veto in `verify.check` reads are in
`quantities.py` (numbers read as values) and `names.py` (names in the forms real text writes
them); denials in `polarity.py`, opposite words in `opposites.py`."""

from __future__ import annotations

import re

from reflectcli.writing.lexicon import stem
from reflectcli.writing.textops import CJK, fold

_WORD = re.compile(r"\w+", re.UNICODE)
STOP = frozenset(
    "the and for that with this from were was are has have had its his her their they them "
    "been being which who whom whose what when where while into onto than then there these "
    "those such also but nor can could would should will may might must very most "
    "any each other about per via upon within because however although though "
    "one two many much only just even still yet both either our your you she him how why out off "
    "did does not never cannot".split()
)


def terms(text: str) -> list[str]:
    """Content words (folded, as their stem: `writing.lexicon.stem`) and single CJK characters."""
    return [term for _, term in placed(text)]


def placed(text: str) -> list[tuple[int, str]]:
    """`terms(text)`, each with the offset in `text` where it starts (so that what follows a
    point of the text is read once for the whole text, not once for each point)."""
    out = []
    for match in _WORD.finditer(text):
        word = match.group()
        if CJK.search(word):
            out += [(match.start() + i, ch) for i, ch in enumerate(word) if CJK.match(ch)]
            continue
        folded = fold(word)
        if folded.isdigit() or (len(folded) >= 3 and folded not in STOP):
            out.append((match.start(), folded if folded.isdigit() else stem(folded)))
    return out
