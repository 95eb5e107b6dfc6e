"""The same Chinese statement said both ways (third pass of issue 32): one side says it with a
negated light verb (不是, 不会, 没有 ...), the other plainly, the words around the verb the same
(for `verify.check`, which calls that `contradicted`)."""

from __future__ import annotations

import re

from reflectcli.sources.polarity import _FUNCTION_ZH, _ZH_NOT_NEGATION, negated, statements
from reflectcli.writing.textops import CJK

# a negated light verb (不是, 不会, 不能, 不可以, 不在, 没有) and the same verb said plainly
_ZH_NEGATED_VERB = re.compile(r"(?:不|没)(是|会|能|可以|在|有)")
_ZH_PLAIN_VERB = re.compile(r"(?<![不没未非无别否])(是|会|能|可以|在|有)")
# not a plain denial: "not A but B", "isn't it ...?", "not only", "no matter", a condition
_ZH_NOT_PLAIN = re.compile(r"不是[^。；;！!？?]{0,40}(?:而是|就是|而|也是)|不只|不光|难道|岂|吗|呢|[?？]|"
                           r"如果|假如|倘若|要是|若是|除了|只要|是否|有没有|会不会|能不能|是不是|"
                           r"可不可以")  # fmt: skip
_ZH_SKIP = frozenset("由于从对把被给向将")  # function characters before what a verb says: 不是由上海…
_ZH_QUOTES = frozenset("》《“”\"'‘’「」：:")
MIRROR_RIGHT = 4  # characters after the verb (function characters left out) that must match
MIRROR_NEAR = 6  # ... or, with the words before the verb the same, the first 2 within these


def _mirror_left(text: str, at: int) -> str:
    """The last 2 content characters before `at` in its clause (function characters and quotes
    skipped)."""
    out = ""
    for ch in reversed(text[:at]):
        if ch in _ZH_QUOTES or ch in _FUNCTION_ZH or ch in _ZH_SKIP:
            continue
        if not (CJK.match(ch) or ch.isdigit()):
            break
        out = ch + out
        if len(out) == 2:
            break
    return out


def _mirror_right(text: str, at: int) -> str:
    """The first content characters after `at` in its clause (function characters, quotes
    and aspect particles skipped), `MIRROR_NEAR` at most."""
    out = ""
    for ch in text[at:]:
        if ch in _ZH_QUOTES or ch in _FUNCTION_ZH or ch in _ZH_SKIP or ch in "了过着":
            continue
        if not (CJK.match(ch) or ch.isdigit() or ch == "."):
            break
        out += ch
        if len(out) == MIRROR_NEAR:
            break
    return out


def _same_place(left: str, right: str, other_left: str, other_right: str) -> bool:
    if len(right) >= 3 and len(other_right) >= 3 and right[:MIRROR_RIGHT] == other_right[:MIRROR_RIGHT]:
        return True
    near = len(left) == 2 and left == other_left and right and other_right
    return bool(near and (right[:2] in other_right or other_right[:2] in right))


def _says_plainly(text: str, verb: str, place: tuple[str, str]) -> bool:
    """Whether `text` also says the verb plainly in that place (1的平方根不是2，4的平方根是2)."""
    return any(
        m.group(1) == verb
        and _same_place(_mirror_left(text, m.start()), _mirror_right(text, m.end()), *place)
        for m in _ZH_PLAIN_VERB.finditer(text)
    )


def mirrored(sentence: str, carriers: list[str]) -> tuple[str, str] | None:
    """(the passage sentence, the denied words) when one side says a Chinese statement with a
    negated light verb and the other says it plainly, the words around the verb the same:
    1的平方根不是1 / 1的平方根是1; 《原神》不是由上海米哈游…制作 / 原神是上海米哈游…制作 (CiteCheck
    dev, the passage's sentence denied by the bench). Not "not A but B", a question, a condition."""
    if not CJK.search(sentence):
        return None
    for carrier in carriers:
        for denier, plain in ((carrier, sentence), (sentence, carrier)):
            for part in statements(denier):
                if _ZH_NOT_PLAIN.search(part) or _ZH_NOT_NEGATION.search(part):
                    continue
                for neg in _ZH_NEGATED_VERB.finditer(part):
                    left, right = _mirror_left(part, neg.start()), _mirror_right(part, neg.end())
                    for other in statements(plain):
                        if _ZH_NOT_PLAIN.search(other) or negated(other):
                            continue
                        for said in _ZH_PLAIN_VERB.finditer(other):
                            if said.group(1) != neg.group(1):
                                continue
                            theirs = _mirror_left(other, said.start()), _mirror_right(other, said.end())
                            if _same_place(left, right, *theirs) and not _says_plainly(
                                denier, neg.group(1), theirs
                            ):
                                return carrier, neg.group() + right[:MIRROR_RIGHT]
    return None
