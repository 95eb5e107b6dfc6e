"""Denials and opposite words, on both sides: whether a claim and the passage sentence that
carries it say opposite things (for `verify.check`, which calls that `contradicted`).

- **A negation's scope.** English: `not`, `n't`, `never`, `no`, `no longer`, `neither`/`nor`,
  `without`, `cannot`, `fail(ed) to`, `unable to`, ... deny the content words after them, to the
  end of their clause ("not only", "not until", "no doubt", "no more than" deny nothing).
  Chinese: 不 没 未 无 非 别 勿 (so 没有, 并未, 不会, 从未 ...; not 否: 否认, 否定 are verbs) deny
  the characters after them in their clause, a light verb after the negation skipped (不是, 没有,
  不会, 不能: what follows says what is denied); the words in which they deny nothing (不断, 不同,
  未来, 非常, 无论 ...) and double negations (不能不, 无不) are left out. Aspect particles (了 过
  着) are dropped before comparing: 他去了北京 is what 他不去北京 denies.
- **The passage denies what the claim asserts**: a negation in the clause of the carrying
  sentence that holds the claim denies, as the first word after it (its verb: "did not sink",
  没有发明; a Chinese pair of characters), a word the claim asserts.
- **The claim denies what the passage asserts**: a negation of the claim denies one of the
  first words after it that the carrying clause asserts (says outside any negation), unless the
  clause denies in other words ("prohibit", "refused", 禁止, 拒绝), or the claim says it does not
  know what the passage asks or doubts (不知道 / 请问 ... 吗).
- **Opposite words** are `opposites.py`'s, the same statement said with a negated Chinese light
  verb and plainly `mirror.py`'s (both read the scopes found here).
"""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from collections.abc import Callable, Iterator
from functools import lru_cache
from itertools import accumulate

from reflectcli.sources import english
from reflectcli.sources.quantities import gives, spelled
from reflectcli.sources.words import placed, terms
from reflectcli.writing.claims import asked_zh
from reflectcli.writing.lexicon import chinese_opposites, chinese_words, english_opposites, forms
from reflectcli.writing.textops import CJK, fold

_NEGATION = re.compile(
    r"\b(no longer|not|never|no|none|nor|neither|nobody|nothing|nowhere|without|cannot|lacks?|lacked|"
    r"fail(?:s|ed|ing)? to|unable to|incapable of)\b"
    r"(?!\s+(?:only|just|merely|least|doubt|until|till|later|earlier|more|less|fewer|longer than|sooner|"
    r"other|to mention|but)\b)|n't\b(?!\s+(?:only|just|until|till)\b)",
    re.I,
)  # "not only", "not until 1990", "no doubt", "no more than", "nothing but" deny nothing
# A negation that asks or suggests denies nothing: "why don't we replace it", "why not use
# wood", and a present-tense auxiliary that opens its clause before its subject ("Don't you
# think it's too expensive", "Isn't it great", "Shouldn't we first discuss"), said in speech
# without its question mark (ninth pass, QMSum val's meetings). Not in the past: "why didn't you
# call?" and "didn't he win?" take the denial as given.
_WHY = re.compile(r"\bwhy(?:\s+do(?:es)?)?\s*$", re.I)
_INVERTED = re.compile(
    r"(?:^|[,;:.!?—–-]\s*|\b(?:well|so|but|and|or|uh|um|oh|then|yeah|ok|okay)\s*,?\s+)"
    r"(?:do|does|is|are|can|will|would|should|could|must)$",
    re.I,
)
_SUBJECT_AFTER = re.compile(r"\s+(?:I|you|we|they|he|she|it|there|that|this)\b", re.I)
# An idiom whose negation asserts (tenth pass, SummEdits' sales emails): "I cannot help but
# notice" notices ("cannot help during check-in" still denies help)
_CANNOT_HELP = re.compile(r"\s+help\s+(?:but|noticing|thinking|feeling|wondering|laughing|smiling|wishing|"
                          r"admiring|being)\b", re.I)  # fmt: skip
_CAN_NOT = re.compile(r"\bcould\s+$|\bcan\s+$", re.I)  # "could not help but"
# "at no cost", "with no charge", "without any extra fee": the thing is free. It denies a cost, a
# charge or a fee of that thing ("The service has a cost"), not another one the claim names with
# a word of its own before it ("reduce energy costs"; `english.other_cost`), and says what
# another of these idioms says ("a trial with no charge" / "a trial at no cost")
_FREE = re.compile(r"\b(?:(?:at|with|for)\s+no|without(?:\s+any)?)\s+(?:(?:extra|additional|added|hidden|"
                   r"further)\s+)?(?:cost|charge|fee)s?\b", re.I)  # fmt: skip  # ("a no-fee tool" denies)
FREE_WORDS = frozenset(("cost", "charg", "fee"))


# a negation right before one that fails ("never failed to attend", "didn't fail to"), or right
# before "without" ("not without merit"): the two cancel, the thing is said (twenty-first pass).
# "did not go without problems" too: an event, in the past, a word between; not what a thing
# cannot, may not or does not do without (a requirement: "cannot run without oil", "is not sold
# without a prescription" say no running, no sale: the pass's review)
_TWICE = re.compile(r"[^\S\n]+(?:(?:once|ever|even)[^\S\n]+)?(?:fail(?:s|ed|ing)?[^\S\n]+to|without)\b", re.I)
_DID_WITHOUT = re.compile(r"[^\S\n]+[a-z]+[^\S\n]+without\b", re.I)
_DID = re.compile(r"\bdid\s*$", re.I)
# "lack of" as the subject a sentence opens with says what a lack does, and denies nothing: "the
# lack of vitamin D makes you susceptible" (twenty-second pass, HealthVer dev: five false
# contradictions of one claim); "there is a lack of evidence" and "discussed the lack of
# usefulness" still say there is none
_LACK_OF = re.compile(r"\s+of\b", re.I)
_OPENING = re.compile(r"(?:^|[.!?;:\n]\s*)(?:(?:the|a|an)\s+)?$", re.I)


def _negations(text: str) -> list[re.Match[str]]:
    """The English negations of `text` that deny: not those that ask, nor "cannot help but", nor
    two that cancel ("never failed to")."""
    out = []
    cancelled = -1
    for match in _NEGATION.finditer(text):
        if match.start() < cancelled:
            continue  # the second of two that cancel
        twice = _TWICE.match(text, match.end())
        if twice is None and _DID.search(text[max(0, match.start() - 6) : match.start()]):
            twice = _DID_WITHOUT.match(text, match.end())  # "did not go without", "didn't end without"
        if twice:
            cancelled = twice.end()
            continue
        before = text[max(0, match.start() - 40) : match.start()]
        if _WHY.search(before):
            continue
        if match.group().lower() == "lack" and _LACK_OF.match(text, match.end()) and _OPENING.search(before):
            continue  # "The lack of vitamin D makes …": a subject, what it does is said
        said = match.group().lower()
        if (said in ("cannot", "n't") or (said == "not" and _CAN_NOT.search(before))) and _CANNOT_HELP.match(
            text, match.end()
        ):
            continue
        if (
            match.group().lower() == "n't"
            and _INVERTED.search(before)
            and _SUBJECT_AFTER.match(text, match.end())
        ):
            continue
        out.append(match)
    return out


# Chinese: 不 没 未 无 非 别 勿, but not in words where they do not deny (不断 "constantly",
# 不同 "different", 未来 "future", 非常 "very", 无论 "whatever", 不仅 "not only", 有没有 and 是否
# "whether", 别人 "others", 特别 "especially", 非洲 "Africa", 不良 "bad", 看不起 "despise"; 非遗
# "intangible heritage" and 未知 "unknown": twenty-second pass, UHGEval a), nor
# twice (不能不 "must", 无不 "all")
# the second characters of the Chinese list's words that open with 不 (`lexical_negatives`: 不幸,
# 不利 …): a denial before one of them denies that word (并不是不幸), it makes no double denial
_NOT_WORD_ZH = (
    "一久伏休倦值停允公关再决凡利力可吉同和妨安宜巧幸必快惯愿敢料曾服满爽甘端等能行要讳许论该详足适雅高"
)
_ZH_NOT_NEGATION = re.compile(r"[不没]有?[能会可敢]不|无不|不无|没有不|"
                              r"(?:并不是|不是|并非)\s?(?:真的\s?)?(?:没有?(?!不)|不(?![断同止仅但过久少错良管敌禁免由外动]|一(?!定))"
                              rf"(?![{_NOT_WORD_ZH}])|无(?![数论疑不]))|不断|不同|不一(?!定)|不相同|不止|非同|"
                              r"不仅|不但|不过|不久|不少|不错|不得不|差不多|未来|非常|无论|不敌|"
                              r"无数|相安无事|毫不犹豫|不管|不论|无疑|莫过于|别人|别的|特别|区别|分别|告别|级别|不良|"
                              r"类别|性别|个别|识别|辨别|派别|差别|别名|别称|别号|别墅|别处|别致|别具|别有|别针|离别|送别|道别|辞别|鉴别|判别|"
                              r"有别|永别|临别|惜别|久别|是否|能否|可否|与否|非洲|除非|非遗|未知|"
                              r"不愧|不禁|不免|不妨|不由得|不料|不外乎|不一定不|要不(?!是)|不动产|看不起|瞧不起|免不了|少不了|"
                              r"([\u4e00-\u9fff])\s?[不没]\s?\1")  # fmt: skip
_ZH_NEGATION = re.compile(r"[不没未无非别勿]")  # (not 否: 否认, 否定, 否决 are verbs, 是否 asks)
_COMPLEMENT = frozenset("了到起完住掉")  # a verb, 不, and one of these: it cannot be done (找不到)
# ... unless they begin a word: 他不了解, 资料不完整 deny 了解, 完整 (eighth pass)
_COMPLEMENT_WORDS = frozenset(("了解", "完整", "完善", "完美", "完全", "到位", "住院"))
_ASPECT = re.compile(r"[了过着]")
# light verbs and modals after a Chinese negation: the words after them say what is denied
_LIGHT = frozenset("是有会能在可要得曾再太很够以该必")
DENIED = 2  # content words an English negation of a claim denies after it ("not invent the press")
SCOPE = 4  # CJK characters after a Chinese negation that it denies
_CLAUSE_END = re.compile(r"[,;:.!?，；：。！？()\[\]]|\b(but|and|while|whereas|although|though|because|after|"  # noqa: E501
                         r"before|when|since|until|unless|who|which|whom|whose|where|if)\b|"
                         r"(?<!not )(?<!n't )(?<!never )\bso\b|"  # "so" ends a clause, not "not so easy"
                         r"但|而|因为|所以|如果|虽然|可是", re.I)  # fmt: skip
# (not "cannot help but")
_HELP_BUT = r"(?<!cannot help)(?<!can't help)(?<!couldn't help)(?<!could not help)(?<!can not help)\sbut\s"
_CLAUSE = re.compile(rf"[,;:，；：]|{_HELP_BUT}|\s(?:while|whereas|although)\s", re.I)
# How far after a negation its scope can reach, in characters: no real clause runs longer, and a
# hostile run of negations ("no no no …" thousands of times) costs linear time, not quadratic
REACH = 300


def _zh(text: str, aspect: bool = False) -> str:
    """The CJK characters of `text` and its clause marks, as compared: aspect particles dropped
    unless `aspect`."""
    chars = "".join(ch for ch in text if CJK.match(ch) or ch in "，,；;：:。.！!？?")
    return chars if aspect else _ASPECT.sub("", chars)


def _pairs(text: str) -> list[str]:
    chars = [ch for ch in _zh(text) if CJK.match(ch)]
    return [a + b for a, b in zip(chars, chars[1:], strict=False)]


def _run_pairs(text: str) -> list[str]:
    """The pairs of CJK characters of `text` that stand side by side in it (aspect particles
    dropped): none across a number or a Latin word ("对（63个）" gives no "对个")."""
    return [p for run in re.findall(r"[\u3400-\u9fff]+", _ASPECT.sub("", text)) for p in _pairs(run)]


def units(text: str) -> set[str]:
    """What a text says, as compared: content-word stems, and pairs of CJK characters."""
    return set(terms(text)) | set(_pairs(text))


_X_FREE = re.compile(r"\b([A-Za-z]{3,})-free\b", re.I)  # sugar-free, risk-free, tax-free: none of it


_SENTENCE_END = re.compile(r"[.!?;。！？；\n](?!\d)")


# (after "not", "never", "n't" only: "No, this is her sister, Nancy." denies no Nancy; DialogSum
# test, read while tuning) and holding no negation of its own ("not, not exactly, …")
_ASIDE = re.compile(r"[^\S\n]*,[^\S\n]*(?!(?:no|not|never)\b)[^,;.!?\n]{1,40}?,[^\S\n]*", re.I)
_ASIDED = re.compile(r"not|never|n't|cannot", re.I)
_ASIDE_AFTER = re.compile(
    r"\b(not|never|n't|cannot)[^\S\n]*,[^\S\n]*(?!(?:no|not|never)\b)[^,;.!?\n]{1,40}?,[^\S\n]*", re.I
)


def denials(
    text: str, scope: int = SCOPE, clause: bool = False, sentence: bool = False, own: tuple[str, ...] = ()
) -> list[list[str]]:
    """What each negation of `text` denies, in order: the first content words after it (all of
    its clause when `clause`; English, to its sentence's end when `sentence` too); in CJK, the
    pairs of characters in the few characters after it (a light verb skipped; its clause when
    `clause`), or the one character a clause ends on. The Chinese words `own` are words of their
    own (不幸): their negation character denies nothing."""
    out: list[list[str]] = []
    found = _negations(text) if _NEGATION.search(text) else []
    words = placed(text) if found else []
    starts = [start for start, _ in words]
    ends = [m.start() for m in (_SENTENCE_END if sentence else _CLAUSE_END).finditer(text)] if words else []
    for match in found:
        # an aside between commas right after it denies nothing: "does not, however, read" denies
        # "read" (thirteenth pass: a capable model's prose)
        aside = _ASIDE.match(text, match.end()) if _ASIDED.fullmatch(match.group()) else None
        past = aside.end() if aside else match.end()
        end = ends[at] if (at := bisect_left(ends, past)) < len(ends) else len(text)
        if doubted := _undeniable(text, match, past):
            end = doubted.end()  # "cannot deny that he works hard": it denies the denial, not what follows
        first = bisect_left(starts, past)
        last = bisect_left(starts, min(end, past + REACH))
        out.append([term for _, term in words[first : last if clause else min(last, first + DENIED)]])
    if "-free" in text.lower():  # "a risk-free trial": no risk (tenth pass, SummEdits' sales emails)
        out += [said for m in _X_FREE.finditer(text) if (said := terms(m.group(1))[:1])]
    if not CJK.search(text):
        return out
    cleaned = _ZH_NOT_NEGATION.sub(lambda m: "\0" * len(m.group()), text)
    for word in own:
        cleaned = cleaned.replace(word, "\0" * len(word))
    for match in _ZH_NEGATION.finditer(cleaned):
        before, after = text[: match.start()][-1:], text[match.end() : match.end() + REACH]
        if (
            match.group() == "不"
            and after[:1] in _COMPLEMENT
            and after[:2] not in _COMPLEMENT_WORDS
            and CJK.match(before)
            and before not in _FUNCTION_ZH
        ):
            # 找不到, 影响不了: "cannot"; it denies the verb and its complement (找到: 我找到了钥匙 /
            # 我找不到钥匙, eighth pass), not a word after it
            out.append([before + after[:1]])
            continue
        stop = _CLAUSE_END.search(after)
        raw = after[: stop.start()] if stop else after
        if (doubted := _DOUBTED_ZH.match(raw)) and not _IF.search(
            text[max(0, match.start() - 12) : match.start()]
        ):
            raw = doubted.group()  # 无法否认他很努力: it denies the denial, and says 他很努力 (not 如果…)
        span = _zh(raw)
        head = [match.group() + span[:1]] if span else []  # 不去, 无效: the negated word itself
        if match.group() in "没无" and span[:1] != "有":
            head.append("有" + span[:1])  # 无效 denies 有效, 没钱 denies 有钱
        stepped = match.group()
        while len(span) > 1 and (span[0] in _LIGHT or _should(span, stepped) or _unable(span, stepped)):
            stepped = span[0]
            span, raw = span[1:], raw[raw.index(span[0]) + 1 :]
        pairs = _run_pairs(raw) if clause else _run_pairs(raw)[: max(1, scope - 1) + _opening(span)]
        out.append(head + (pairs or ([span] if len(span) == 1 else [])))
    return out


# English, a verb that denies or doubts a clause after "that", where none can ("No one can deny
# that", "It cannot be denied that", "Nobody disputes that"): the negation denies that verb only,
# what follows is said. Not where one only did not ("He did not deny that he took it" says
# nothing of the taking; "never doubted that she would win" is a belief: the pass's review)
_DOUBTED_EN = re.compile(r"[^\S\n]*(?:[A-Za-z]+[^\S\n]+){0,3}?"
                         r"(?:deny|denies|denied|doubt|doubts|doubted|dispute|disputes|disputed|question|questions|"
                         r"questioned)[^\S\n]+that\b", re.I)  # fmt: skip
_ABLE = re.compile(r"\b(?:can|could|ca|be|been)\b", re.I)  # "cannot", "can't" (ca n't), "no one can"


def _undeniable(text: str, negation: re.Match[str], past: int) -> re.Match[str] | None:
    """The span from a negation to "that" when it denies that one can deny or doubt what follows
    (`_DOUBTED_EN`): the negation is "cannot", a "not" after "can" or "could", or nobody's;
    or an "able" word stands between ("No one can deny", "It cannot be denied")."""
    doubted = _DOUBTED_EN.match(text, past)
    if doubted is None:
        return None
    said = negation.group().lower()
    if said in ("cannot", "nobody", "none") or (
        said == "no" and text[past : past + 5].strip().startswith("one")
    ):
        return doubted
    if _ABLE.search(text[max(0, negation.start() - 7) : negation.start()]) or _ABLE.search(doubted.group()):
        return doubted
    return None


# a negation of a verb that denies or doubts what follows, where none can (无法否认, 不能怀疑, 不容
# 置疑, 没人能否认): it denies that verb only; what follows it is said ("undeniably he works
# hard"). Not 不否认, 没否认, 从未否认: one did not deny it, which says nothing of it (the review)
_DOUBTED_ZH = re.compile(r"(?:有?人)?(?:法|能|可|容)(?:否认|置疑|怀疑)")


def _unable(span: str, negation: str) -> bool:
    """Whether `span` opens with the 法 of 无法 "cannot", stepped over as 能 of 不能 is, before a
    verb that denies or doubts (无法否认 denies 否认). Not before others: 无法消化这些内核 and
    无法与1号线进行换乘 named what a true claim speaks of (消化时, 3号线: CiteCheck test, two new
    false contradictions when every 无法 was stepped over, twenty-first pass)."""
    return negation == "无" and span[:1] == "法" and _DOUBTED_ZH.match(span) is not None


def _should(span: str, negation: str) -> bool:
    """Whether `span` opens with 应 "should" that a negation's reach steps over, as a light verb:
    应该, 应当, or 应 alone right after 不 (不应加强 denies 加强: 政府不应加强投入 / 政府必须加强投入,
    twelfth pass), not a word of its own (应用, 应对, 应急 …)."""
    if span[:1] == "当" and negation == "应":  # the second character of 应当
        return True
    return span[:1] == "应" and (span[1:2] in "该当" or (negation == "不" and span[1:2] not in _YING))


_YING = frozenset("用对急变答聘邀征酬届试援允许有得")


def denied_spans(text: str) -> list[tuple[int, int]]:
    """Where the English negations of `text` deny: (start, end) offsets from a negation to its
    clause's end (`REACH` at most), overlapping spans merged, in order."""
    ends = [m.start() for m in _CLAUSE_END.finditer(text)]
    out: list[tuple[int, int]] = []
    for match in _negations(text):
        end = ends[at] if (at := bisect_left(ends, match.end())) < len(ends) else len(text)
        start, end = match.end(), min(end, match.end() + REACH)
        if out and start <= out[-1][1]:
            out[-1] = (out[-1][0], max(end, out[-1][1]))
        else:
            out.append((start, end))
    return out


def in_spans(at: int, spans: list[tuple[int, int]], starts: list[int]) -> bool:
    """Whether offset `at` lies in one of the merged `spans` (`starts`: their starts)."""
    i = bisect_right(starts, at) - 1
    return i >= 0 and at < spans[i][1]


def _opening(span: str) -> int:
    """The pairs of characters at the start of `span` that open the words a negation denies and
    are none of them: a coverb (不是由朱亚文主演, 不会随着惯性, 不是受两个机制, 不是关于国内的) or "one"
    and a classifier (不是一位实力派, 不是个动物; CiteCheck dev, fifth pass). `_heads` steps over
    them, and a negation's scope does not count them: 不是一个以奖励全球…为宗旨的 denies 奖励
    (eighth pass)."""
    if (
        (span[:1] == "一" and span[1:2] in _CLASSIFIER_ZH)
        or span[:2] in _COVERB2_ZH
        or span[:2] in _ANY_ZH
        or (span[:2] == "真正" and span[2:3] != "的")
    ):
        return 2
    if span and (span[0] in _COVERB_ZH or (span[0] in "个种" and span[:2] not in _CLASSIFIED_ZH)):
        return 1
    return 0


def denied(text: str, scope: int = SCOPE, clause: bool = False, own: tuple[str, ...] = ()) -> set[str]:
    """What the negations of `text` deny (`denials`, together)."""
    return {word for group in denials(text, scope, clause, own=own) for word in group}


# a word of the list that opens with a negation and is a word of its own (不幸 "misfortune",
# 不利, 非法, 未婚), against an opposite that keeps what it denies (幸运, 有利, 合法, 已婚) and is
# not itself a negative word (不法 / 违法, 不当 / 失当, 无望 / 绝望: the list's near-synonyms)
_NEGATIVE_START = re.compile(_ZH_NEGATION.pattern[:-1] + "违失绝]")  # a negation, or 违法, 失当, 绝望


@lru_cache(maxsize=1)
def lexical_negatives() -> dict[str, frozenset[str]]:
    """The Chinese list's words that open with a negation character and whose opposite holds
    the rest of the word (不幸 → {幸运}, 不满 → {满意}, 非法 → {合法}); each read as a word, not as a
    denial of a single character (nineteenth pass: 生于末世的不幸 / 生于末世的幸运 was consistent)."""
    out: dict[str, frozenset[str]] = {}
    for word, others in chinese_opposites().items():
        if not _ZH_NEGATION.match(word) or word[0] == "别":
            continue  # 别名, 别字 deny nothing
        kept = frozenset(o for o in others if set(o) & set(word[1:]) and not _NEGATIVE_START.match(o))
        if kept:
            out[word] = kept
    return out


def negated(text: str) -> bool:
    """Whether `text` denies something (English or Chinese negation)."""
    return bool(_negations(text) or _ZH_NEGATION.search(_ZH_NOT_NEGATION.sub("", text)))


def _said_outside_zh(text: str) -> set[str]:
    """The pairs of CJK characters `text` says outside every Chinese negation's clause (该工具读取
    你的文件（它不读取别人的想法）says 读取)."""
    cleaned = _ZH_NOT_NEGATION.sub(lambda m: "\0" * len(m.group()), text)
    out: set[str] = set()
    at = 0
    for match in _ZH_NEGATION.finditer(cleaned):
        if match.start() < at:
            continue
        out.update(_pairs(text[at : match.start()]))
        stop = _CLAUSE_END.search(text, match.end())
        at = stop.start() if stop else len(text)
    return out | set(_pairs(text[at:]))


def asserted(text: str, twice: bool = False) -> set[str]:
    """What `text` says outside the scope of its negations; with `twice`, a word it says both
    inside and outside them too (a carrier, once what the passage denies with the claim's word
    is known to be another thing: "reads your files (it does not read folders)", 读取你的文件
    （它不读取别人的想法）: twelfth pass; not a claim: "伪创新 … 再无创新" says neither)."""
    out = units(text) - denied(text, clause=True)
    if not twice:
        return out
    if CJK.search(text):
        out |= _said_outside_zh(text) & units(text)
    if not (spans := denied_spans(text)):
        return out
    starts = [start for start, _ in spans]
    inside: set[str] = set()
    outside: set[str] = set()
    for at, term in placed(text):
        if not CJK.search(term):
            (inside if in_spans(at, spans, starts) else outside).add(term)
    return out | (inside & outside)  # not a "-free" word: no negation's


# Words that deny without a negation: "not allowed" is said "prohibited", 不许 is said 禁止
_DENYING = re.compile(r"\b(prohibit\w*|forbid\w*|ban|banned|bans|barred|abstain\w*|abstinence|refus\w*|"
                      r"reject\w*|declin\w*|turn\w* down|absent|absence|avoid\w*|"
                      r"against(?!\s+(?:all\s+)?(?:the\s+)?odds\b)|"  # not the idiom: "Against all odds, …"
                      r"denied|denies|deny|ceas(?:e|es|ed|ing)|"  # stop, quit, give up: before a verb's -ing
                      r"(?:stop|stops|stopped|stopping|quit|quits|quitting|g[ai]ve\w* up)(?=\s+\w+ing\b))\b|"
                      r"禁止|严禁|避免|拒绝|反对|缺乏|缺少|取消|停止|杜绝", re.I)  # fmt: skip
# Not knowing (不知道, 不确定, 不清楚) is what a passage that asks (问), or doubts, says too;
# disagreeing (不赞成, 不认同) what a passage that asks or denies says
_NOT_KNOWING = frozenset(("不知", "不确", "不清", "不晓"))
_DISAGREEING = frozenset(("不赞", "不认", "不支"))
_DOUBT = re.compile(
    r"[吗呢][\s.。?？!！]*$|[?？]|怎么|为什么|什么|能否|是否|对不对|是不是|问(?!题)|不好说|说不清|难说|不知|"
    r"不确定|不清楚"
)


def clauses(sentence: str, carrier: str) -> list[str]:
    """The clause of `carrier` that holds the most of `sentence`'s words (on a tie, the one
    with the fewest other words), as a list (empty for an empty carrier)."""
    wanted = units(sentence)
    parts = [p for p in _CLAUSE.split(carrier) if p and p.strip()] or [carrier]
    return [max(parts, key=lambda p: (len(wanted & units(p)), -len(units(p) - wanted)))]


def _heads(group: list[str]) -> list[str]:
    """What a negation denies first: its first content word (English: "did not sink" → sink);
    in Chinese its first pair of characters after a light verb (没有发明 → 发明), and the pair
    the negation makes with what follows (无效 → 有效)."""
    if not group:
        return []
    if not CJK.search(group[0]):
        return group[:1]
    first = [w for w in group if len(w) >= 2 and not _ZH_NEGATION.match(w)]
    out = [first.pop(0)] if first and first[0][0] == "有" and group[0][0] in "没无" else []  # 无效: 有效
    first = first[_opening(first[0]) :] if first else first  # 不是由朱亚文主演 → 朱亚, 不是一位实力派 → 实力
    # the word right after it (a function character opens none: 不是这三种 → 三种), never its object
    # further on (没理老婆 denies 理, not 老婆)
    return out + [w for w in first[:2] if w[0] not in _FUNCTION_ZH and w[1] not in _PARTICLE_ZH][:1]


# characters that open no word a negation denies (是维, 也会, 就是) and particles that end none (的)
_FUNCTION_ZH = frozenset(
    "是有会能在可要得曾再太很够以该必也都就还又才的了地着过和与及或而并且把被给对向从于为这那其"
)
_PARTICLE_ZH = frozenset("的地得了着过吗呢吧啊")
_COVERB_ZH = frozenset("由受随靠依凭经")
_CLASSIFIER_ZH = frozenset("个位种名家款部件项条次本座只")
_COVERB2_ZH = frozenset(("关于", "对于", "通过", "根据", "按照", "依照"))  # 不是关于国内的 → 国内
# "any", "the least": a denial made emphatic, denying the word after it (没有任何奖励 → 奖励,
# 没有一丝轻松 → 轻松; nineteenth pass, OCNLI train.3k)
_ANY_ZH = frozenset(("任何", "丝毫", "一点", "一丝", "半点", "一阵", "一毫", "真的"))  # 不是真的爱吃 → 爱吃
# (真正 too, as an adverb: 并不真正理解 → 理解; not 真正的 "true", which names a kind: 不是真正的朋友)
_CLASSIFIED_ZH = frozenset(
    ("个人", "个别", "个性", "个体", "种类", "种族", "种子", "种植")
)  # words, no classifier


COVER = 0.5  # share of a negation's clause the other side must say for the two to be one statement


def _parts(text: str) -> list[str]:
    return [p for p in _CLAUSE.split(text) if p and p.strip()] or [text]


def _one_statement(clause: str, other: str) -> bool:
    """Whether `other` says what `clause` says: `COVER` of the clause's words, and no number
    the other lacks (a clause about 1912 is not a sentence about 1913)."""
    mine = units(clause)
    if not mine:
        return False
    numbers = {w for w in mine if w.isdigit()}
    theirs = _units_of(other)
    if len(mine & theirs) < COVER * len(mine):
        return False
    return numbers <= theirs or numbers - theirs <= spelled(other)  # "3" said as "three"


@lru_cache(maxsize=64)
def _units_of(text: str) -> frozenset[str]:
    """`units`, kept for the texts compared again and again (a carrier against each of a
    claim's clauses: read once, not once per clause; thirteenth pass)."""
    return frozenset(units(text))


# Where one statement of a sentence ends and another begins: a semicolon or colon, a contrast
# ("but", "whereas", 但, 而), a clause joined after a comma ("…, and it sank", "…, which"), a
# consequence drawn after a comma (…，所以…: CiteCheck dev "不能推出…，所以如果…推出假的来"); a
# comma alone does not end a negation's statement ("did not release the track, Grind, to radio")
_STATEMENT = re.compile(rf"[;；:：]|{_HELP_BUT}|\s(?:whereas|while|although|though|yet)\s|"
                        r",\s*(?:and|which|who)\s|"
                        r"[，,]\s*(?:但是|但|而|可是|然而|却|所以|因此|因而|于是)", re.I)  # fmt: skip


# an English condition, to the comma that ends it: what it holds is not said ("If I had a job,
# I'd lend you $50" says no job; DialogSum test), what follows it is ("if I were you I would just
# … clear the air", "If I know the format it always affects …": SummEdits, held out). A Chinese one
# (如果…) cost CiteCheck test 3 real denials caught and saved no false alarm: not read so.
_CONDITION = re.compile(r"\b(?:if|unless)\b[^,;:.!?]*,", re.I)
_IF = re.compile(r"\b(?:if|unless|whether)\b|如果|假如|倘若|要是|若是|如[无没不未]|"
                 r"当[^，,。；;]{1,30}(?:时|的时候)", re.I)  # fmt: skip


# "did not sink until 1912": it sank (WiCE dev, ninth pass)
_NOT_UNTIL = re.compile(r"\b(?:not|n't|never)\s+(?:\w+\s+){1,3}?(?:until|till)\b", re.I)
# a year a time preposition introduces ("from 1991 to 2000", "in early 1954"), not one that names
# a thing ("the 2013 film")
_TIMED_YEAR = re.compile(r"\b(?:in|on|from|to|during|between|until|till|since|before|after|through)\s+"
                         r"(?:[A-Za-z]+,?\s+){0,2}(?:\d{1,2},?\s+)?(\d{4})\b", re.I)  # fmt: skip


def _timed_years(text: str) -> set[str]:
    return set(_TIMED_YEAR.findall(text))


# A denial is about another year when the year stands among the first `DATED` words it denies
# ("did not sink in 1912"), not a sentence further on that a caption run into the text without a
# full stop carries ("did not learn Tagalog to score a role on sitcom Ismol Family The Darwin woman
# moved to the Philippines in 2012": seventeenth pass, FRANK CNN/DM valid)
DATED = 8

# an English condition that comes after a negation conditions it unless "and", "that", "which" or
# "who" stands between: "did not speak with him for an hour and … looks set to be offered the job
# if he can reach agreement", "I did not hear that if you drink enough beer …" deny (seventeenth
# pass, FRANK CNN/DM valid, DialogSum dev); "did not go if it rained" does not
_AFTER_IF = re.compile(r"\b(?:and|that|which|who)\b[^.;:!?]*?\b(?:if|unless|whether)\b", re.I)


# A condition on the saying, not on what is said: "if you ask me", "if I remember correctly", "if
# memory serves", 如果我没记错的话 (eighteenth pass, the hostile hole left by the seventeenth: "Blake
# did not go to the park if you ask me" excused its own denial). A fixed list of speech-act
# conditionals; "if you like", "if you want" can condition a deed and are left out, and "if
# anything" is one only before a comma or a pronoun's clause ("if anything, it grew", "if anything
# she snuck out": WiCE; not "if anything does get thrown over": FRANK)
_SPEECH_IF = re.compile(
    r"\b(?:if|unless)\s+(?:you\s+(?:ask\s+me|will|please|must\s+know|want\s+my\s+opinion)|"
    r"I\s+(?:may|might|can)\s+(?:say\s+so|add|be\s+honest|be\s+frank|ask)|I\s+may\b|"
    r"I\s+(?:remember|recall)(?:\s+(?:it\s+)?(?:correctly|rightly|right|well))?|"
    r"I(?:\s+am|['’]m)\s+(?:not\s+mistaken|(?:being\s+)?(?:honest|frank|candid))|"
    r"memory\s+serves(?:\s+me)?(?:\s+(?:right|well|correctly))?|truth\s+be\s+told)\b|"
    r"\bif\s+anything(?=\s*[,;:—–-]|\s+(?:I|he|she|it|we|they)\b)|"
    r"(?:如果|要是|假如|若)我?(?:没有?记错|记得没错)(?:的话)?",
    re.I,
)


def condition(text: str) -> re.Match[str] | None:
    """The first condition (`_IF`) of `text` that bears on what it says: not one on the saying
    (`_SPEECH_IF`)."""
    return _IF.search(_SPEECH_IF.sub(lambda m: " " * len(m.group()), text))


def _conditioned(part: str) -> bool:
    """Whether a condition (`condition`) in `part` bears on its denials: a Chinese one always; an
    English one when it opens `part` or stands before its first negation, or follows that
    negation with nothing that opens another clause between (`_AFTER_IF`)."""
    if not (found := condition(part)):
        return False
    if CJK.search(part) or not (first := _NEGATION.search(part)) or found.start() < first.start():
        return True
    return not _AFTER_IF.search(part, first.end())


# a negated light verb and a colon: what follows the colon is what is denied (…旆怪异”的不是：刘知几;
# 分别不是：氮气大约占78%、…: CiteCheck dev, fifth pass)
_NEGATED_COLON = re.compile(r"((?:不|没|并非|并不)(?:是|有|会|能|为))\s*[:：]\s*")


def statements(text: str) -> list[str]:
    """`text` cut where one statement ends and another begins (`_STATEMENT`); a colon right
    after a negated light verb (不是：) joins what it introduces to the denial."""
    text = _NEGATED_COLON.sub(r"\1", text)
    return [p for p in _STATEMENT.split(text) if p and p.strip()] or [text]


# "zero films" says "no films"; "zero degrees", "zero percent" are a measure, not a denial, and
# so is a zero a word points to ("below zero", "fell to zero") or one a preposition or a verb
# follows ("below zero at the summit", "zero is even")
_ZERO = re.compile(r"(?<!\bbelow\s)(?<!\babove\s)(?<!\bto\s)(?<!\bfrom\s)(?<!\bnear\s)(?<!\bthan\s)"
                   r"\bzero\b(?=\s+[a-z])(?!\s+(?:degrees?|percent|per\s?cent|point|kelvin|celsius|"
                   r"fahrenheit|hours?|minutes?|seconds?|days?|years?|[kcm]?m|meters?|metres?|kilo\w*|"
                   r"miles?|feet|inch\w*|gravity|sum|tolerance|hour|at|in|on|by|for|with|of|and|or|"
                   r"is|was|are|were|when|if|as|that|the|a|an)\b)", re.I)  # fmt: skip


_COMMA = re.compile(r"([，,]|(?<=[\u4e00-\u9fff])\s+(?=[\u4e00-\u9fff]))")


def _unasked(part: str) -> str:
    """`part` without its Chinese comma clauses that ask (…没有阶级吗，难道说…吗: a question,
    rhetorical or not, denies nothing; ninth pass, OCNLI train.3k), or asserts nothing; a space
    between two Chinese characters parts them too (a page's title, 石蜡熔化属于化学变化吗 石蜡熔化是
    物理变化: CiteCheck test, twelfth pass)."""
    if "吗" not in part and "呢" not in part:
        return part
    pieces = _COMMA.split(part)
    return "".join(p if i % 2 or not asked_zh(p) else "" for i, p in enumerate(pieces))


def _only_in(text: str, group: list[str], outside: Callable[[str], str]) -> bool:
    """Whether the negation of `text` that denies `group` stands only in what `outside` takes
    out of `text`: no denial of `group` is left in `outside(text)`."""
    return bool(group) and not set(group) & _denied_in(text, outside)


@lru_cache(maxsize=8)
def _denied_in(text: str, outside: Callable[[str], str]) -> frozenset[str]:
    """What `outside(text)` denies: once per text, not once per denial of it (`_only_in`)."""
    return frozenset(denied(outside(text)))


def _named(claim: str, group: list[str]) -> bool:
    """In a topic or a request the claim names, not says is so (`english.unasserted`: "asks
    Blake not to go")."""
    return _only_in(claim, group, english.unasserted)


def _questioned(claim: str, group: list[str]) -> bool:
    """In a question the claim names (`english.unquestioned`: "talk about whether not to go"): no
    statement, contradicted by nothing."""
    return _only_in(claim, group, english.unquestioned)


def _wished(text: str, group: list[str]) -> bool:
    """In what a passage's statement wishes, asks for or says should be (`english.unwished`:
    "I'd like not to send it")."""
    return _only_in(text, group, english.unwished)


def passage_denies(sentence: str, carriers: list[str]) -> tuple[str, str] | None:
    """(the passage sentence, the word) when a negation in a statement of a sentence carrying
    `sentence` denies, first, a word `sentence` asserts ("did not sink" / "sank"; 并未发明 /
    发明了): unless the denial is about a number `sentence` does not give ("did not sink in
    1912" / "sank in 1913"), or another statement of the carriers says that word and as much
    of `sentence` ("…; it sank in 1913")."""
    plain = _ZERO.sub("no", sentence)  # "produced zero films" denies as "produced no films"
    said, mine, mine_denied = asserted(plain), units(sentence), denied(plain)
    free = asserted(english.unasserted(plain))  # ... said to be so, not wished, asked or named
    unquestioned = asserted(english.unquestioned(plain))  # ... not only a question it names
    numbers = {w for w in mine if w.isdigit()} | spelled(sentence)  # "three" is 3
    # a better-ranked carrier's statements too: one that says the denied word and more of
    # `sentence` excuses a denial in a carrier ranked after it (fifteenth pass, FRANK valid: the
    # article says the summary's sentence word for word, and a paraphrase of it further down
    # "denied it will fail to pay"); not one ranked after (a denied carrier is the best match)
    before: list[tuple[str, set[str]]] = []
    for carrier in carriers:
        parts = [(part, units(part)) for part in statements(_ZERO.sub("no", carrier))]
        for part, _ in parts:
            share = len(units(part) & mine)
            if _conditioned(part) and not condition(sentence):
                continue  # "if it did not", 如没有…: a condition asserts nothing
            unasked = _unasked(part)
            for group, whole in zip(denials(unasked), denials(unasked, clause=True), strict=True):
                found = [w for w in _heads(group) if w in said and not _only_in_negative_word(plain, w)]
                dated = (set(whole[:DATED]) & _timed_years(unasked)) | {w for w in group if w.isdigit()}
                if dated - numbers and all(gives(sentence, n) for n in dated - numbers):
                    dated = numbers  # "more than 100" / "did not exhume 116": the claim's number
                if not found or dated - numbers or found[0] in asserted(part) or _NOT_UNTIL.search(unasked):
                    continue  # about another year ("from 1991 to 2000"); "did not sink until 1912": it sank
                if found[0] not in unquestioned or (found[0] not in free and not _wished(unasked, group)):
                    continue  # "tells Blake to clean the bathtub" / "didn't clean the bathtub"
                if _REPLY.match(unasked):
                    continue  # "No problem." answers; it denies no problem the claim names
                heads = set(_heads(group))
                if any(other != part and len(have & mine) >= share and heads <= asserted(other)
                       for other, have in parts):  # fmt: skip
                    continue  # another statement says what this one denies, and as much of `sentence`
                if any(len(have & mine) > share and heads <= asserted(other) for other, have in before):
                    continue  # a better carrier says it, and more of `sentence`
                if _said_in_another_clause(part, heads, mine):
                    continue  # 一半认为划算，20%认为不划算: the half's clause says what the claim says
                if (
                    english.same_denial(group, mine_denied, plain)
                    or english.adjective_only(found[0], sentence, part)
                    or english.changed_since(part, sentence, found[0])
                    or english.only_other(part, sentence)
                    or (_FREE.search(part) is not None and english.other_cost(sentence, found[0]))
                ):
                    continue  # English: no denial of the claim's statement (`english`)
                return carrier, found[0]
        before += parts
    return None


_COMMA_ZH = re.compile(r"[，,]")


def _said_in_another_clause(part: str, heads: set[str], mine: set[str]) -> bool:
    """Whether a Chinese statement says the denied words `heads` undenied in a clause of its own
    (its commas) that holds as much of the claim (`mine`) as any clause denying them: "一半的受访
    海归认为留学划算，20.2%的人认为不划算" speaks of two groups, and the claim "半数认为留学划算" of the
    first (twenty-second pass, UHGEval a: three headlines so contradicted). Only where a negation
    stands right before each denied word (不划算, 尚未扭转): 不是中国大陆唯一…的法学院 or 没有两种定义
    beside a clause that says 是 … or 两种 again is still a denial (CiteCheck dev and test, OCNLI)."""
    if not CJK.search(part) or not _COMMA_ZH.search(part):
        return False
    clauses = _comma_clauses(part)
    if len(clauses) > CLAUSES or not heads <= _right_after_negation(part):
        return False  # 不是中国大陆唯一…, 没有两种定义: a thing denied, not an act or a quality
    saying = [len(have & mine) for have, says in clauses if heads <= says]
    denying = [len(have & mine) for have, says in clauses if not heads <= says]
    return bool(saying) and bool(denying) and max(saying) >= max(denying)


CLAUSES = 20  # comma clauses of a statement this rule reads at most (a sentence's; a run of
# thousands, each denying, would be read once per denial: quadratic)


@lru_cache(maxsize=64)
def _right_after_negation(part: str) -> frozenset[str]:
    """The strings of 1-4 characters that stand right after a negation character in `part`."""
    return frozenset(part[m.end() : m.end() + n] for m in _ZH_NEGATION.finditer(part) for n in range(1, 5))


@lru_cache(maxsize=64)
def _comma_clauses(part: str) -> tuple[tuple[frozenset[str], frozenset[str]], ...]:
    """Each comma clause of `part`: its units and what it asserts (read once per statement, not
    once per denial in it)."""
    return tuple((frozenset(units(c)), frozenset(asserted(c))) for c in _COMMA_ZH.split(part) if c.strip())


# A reply that denies nothing it names: "No problem.", "No worries." (QMSum val: "No problem"
# against a summary's "turned to the budget problem"); not "Not really", "Not bad", "No way": those
# answer what was asked
_REPLY = re.compile(
    r"^\W*(?:[A-Z][\w.-]*\s*:\s*)?(?:(?:oh|well|yes|yeah|ok|okay|sure|uh|um|so)\W+)*"
    r"(?:no\s+problems?|not\s+a\s+problem|no\s+worries|never\s+mind|no\s+kidding)\W*$",
    re.I,
)


# A claim's contrast ("…写出来的，而不是历史教授", "…, not by a professor") denies that the other
# did it, not that the passage's words are said: CiteCheck dev "而不是历史教授" against a passage
# that says 历史 of the author (but one that says 历史教授 is denied: _without_contrasts)
_CONTRAST = re.compile(r"[，,]?\s*(?:而|并)(?:不是|非|并非)[^，,。；;！!？?]*|,\s*not\s+(?!only\b)[^,;.]*",
                       re.I)  # fmt: skip
_CONTRAST_HEAD = re.compile(r"^[，,]?\s*(?:而|并)(?:不是|非|并非)|^,\s*not\s+", re.I)


def _without_contrasts(sentence: str, passage: str) -> str:
    """`sentence` without the contrasts whose denied words the passage does not all say: a
    contrast denying what the passage says ("by the committee, not by the minister" / "by the
    minister"; 是作家，而不是历史教授 / 是历史教授) stays, and is read as the denial it is."""
    said = units(passage)

    def drop(match: re.Match[str]) -> str:
        denied_words = units(_CONTRAST_HEAD.sub("", match.group(0)))
        return match.group(0) if denied_words and denied_words <= said else ""

    return _CONTRAST.sub(drop, sentence)


# a passage that asks whether ("要不要杀丧尸", 是否) asserts neither way
_A_NOT_A = re.compile(r"([\u4e00-\u9fff])[不没]\1|是否|能否|可否")
# a claim's "cannot" (无法分辨) and the passage's verb that cannot be done (看不出来) say one thing
_UNABLE = frozenset(("无法", "不能", "没法", "不可"))
_CANNOT_VERB = re.compile(r"[\u4e00-\u9fff]不[出到见清懂完住掉起]")


# a Chinese order that denies, at a clause's start: 不要读取文件, 请勿…, 别… (not 别人, 别的), behind
# a label without a colon too (注意不要…); 不可 at a sentence's start (不可读取文件; not 不可能…):
# thirteenth pass
_ORDER_ZH = re.compile(
    r"(?:^|(?<=[。！？!?：:，,；;\n.\-•>「『“（(《 ]))[^\S\n]*(?:注意|重要|提示|警告|切记|记住|提醒)?"
    r"(?:请|請|你|您|你们|大家|千万|千萬|一定)*"
    r"(?:不要|切勿|请勿|請勿|勿|不许|不准|不得(?![不已])|别(?![人的处墅名称致样具]))[^，,。！？!?；;\n]*|"
    r"(?:^|(?<=[。！？!?：:\n]))[^\S\n]*(?:注意|重要|提示|警告|切记|记住|提醒)?不可(?!能|以外|思议|或缺|避免|否认|多得)"
    r"[^，,。！？!?；;\n]*|"
    r"(?:不应该|不应当|不应|不该|不得(?![不已])|不准|不许)[^，,。！？!?；;\n]*"  # a rule, whoever it binds
)


# a claim that reports what one tells, asks or advises another, says or blames one for, compares
# it with the passage's orders and questions too ("blames her for not fixing the guitar sooner" /
# "Why didn't you fix it sooner?": DialogSum dev)
_REPORTED = re.compile(
    r"\b(?:suggest(?:s|ed|ing)?|advis(?:e|es|ed|ing)|recommend(?:s|ed|ing)?|tell(?:s|ing)?|told|"
    r"warn(?:s|ed|ing)?|urg(?:e|es|ed|ing)|ask(?:s|ed|ing)?|remind(?:s|ed|ing)?|instruct(?:s|ed|ing)?|"
    r"says?|said|insist(?:s|ed|ing)?|encourag(?:e|es|ed|ing)|blam(?:e|es|ed|ing)|complain(?:s|ed|ing)?|"
    r"criticiz(?:e|es|ed|ing)|accus(?:e|es|ed|ing)|wonder(?:s|ed|ing)?)\b|"
    r"建议|劝|告诉|提醒|叮嘱|嘱咐|责怪|抱怨|问道|说道|(?<![题])问(?:他|她|我|你)|(?<![小])说(?:他|她|我|你|过)",
    re.I,
)
# a question, to its mark: from the last clause's end (or a turn's label) before it, so what a
# tag follows is said ("But you don't have a job, do you?": DialogSum test); and all of a
# sentence that opens on an auxiliary ("Is it true that it never reads files, is it?": a made-up
# tag asks it all; thirteenth pass)
_QUESTION = re.compile(r"(?:^|(?<=[.!?。！？:：\n,，;；]))[^.!?。！？:：\n,，;；]*[?？‽]")
_YES_NO = re.compile(
    r"(?:^|(?<=[.!?:：\n]))[^\S\n]*(?:is|are|was|were|do|does|did|can|could|will|would|should|has|have|"
    r"had|isn['’]t|aren['’]t|doesn['’]t|don['’]t|didn['’]t)[^\S\n][^.!?\n]*\?",
    re.I,
)


def _unordered(passage: str) -> str:
    """`passage` without the orders to its reader that deny ("Do not read files.", 不要读取文件)
    and without its questions ("Does the tool never read your files?"): what a passage forbids
    its reader, or asks, says nothing of what a thing does, so its denial there excuses no
    claim's denial (a hostile passage; twelfth pass)."""
    if "?" in passage or "？" in passage:
        passage = _QUESTION.sub("", _YES_NO.sub("", passage))
    if CJK.search(passage):
        passage = _ORDER_ZH.sub("", passage)
    return english.unordered(passage)


def sentence_denies(sentence: str, carriers: list[str], passage: str) -> tuple[str, str] | None:
    """(the passage sentence, the word) when a negation in a clause of `sentence` denies, first,
    a word a sentence carrying it asserts, and that sentence says what the rest of the clause
    says; not when that sentence denies it too, in a negation or in other words ("prohibit",
    拒绝), nor when `sentence` says it does not know (or agree with) what the passage asks or
    doubts."""
    doubt = bool(_DOUBT.search(passage))
    # what the passage denies too, anywhere but in an order to its reader (unless the claim
    # gives one, 不要轻易被学长撩走 quoting the passage's own: CiteCheck dev; or reports one, "She
    # suggests he … never eat late at night": DialogSum test)
    ordered = _unordered(sentence) != sentence or _REPORTED.search(sentence)
    stated = passage if ordered else _unordered(passage)
    too = _denied_by(stated if (plain := _ZERO.sub("no", stated)) == stated else f"{stated}\n{plain}")
    kept = _ZERO.sub("no", _NEGATED_COLON.sub(r"\1", _without_contrasts(sentence, passage)))
    kept = _ASIDE_AFTER.sub(r"\1 ", kept)  # "does not, however, read": one clause, as `denials` reads it
    for clause in _parts(kept):
        wide = denials(_othered(clause), clause=True, sentence=True)
        # each carrier's statement that says most of the clause, and what it says: once per clause,
        # not once per denial (a claim of 300 denials against a passage of 2,000 took minutes)
        read: list[tuple[str, str, set[str]]] = []
        for group, whole in zip(denials(clause), wide, strict=False):
            if (
                not group
                or (doubt and group[0] in _NOT_KNOWING)
                or _denied_too(whole, set(_heads(group)), too)
            ):
                continue
            if _questioned(clause, group):
                continue  # "talk about whether not to go": a question, no statement
            if group[0] in _DISAGREEING and (doubt or negated(passage)):
                continue
            if _both_free(group, clause, carriers):
                continue  # "a trial with no charge" / "a trial at no cost"
            if not read:
                wanted = units(clause)
                for carrier in carriers:
                    where = max(statements(carrier), key=lambda p: (len(wanted & units(p)), -len(units(p))))
                    read.append((carrier, where, english.unliked(
                        where, asserted(_unasked(_CONDITION.sub(",", where)), twice=True))))  # fmt: skip
            for carrier, where, said in read:
                found = [w for w in _heads(group) if w in said and not _denied_otherwise(where, w)
                         and not _unreal(where, w, clause, group[0])]  # fmt: skip
                if found and _denied_too(whole, set(found[:1]), too, units(where)):
                    continue  # the passage denies the word elsewhere; its carrier says nothing else
                if found and _named(clause, group) and found[0] in asserted(english.unwished(where)):
                    continue  # "asks Blake not to clean it" / "Blake cleaned it": a wish, a fact
                if found and (english.unsaid_denial(clause, group, units(carrier))
                              or _kept_away(carrier, group)):  # fmt: skip
                    continue  # "is not an album by Danny Devito" / "is … album by … Pink Floyd"
                if found:
                    return carrier, found[0]
    return _unmatched(sentence, kept, carriers[:1], passage, too, doubt)


# a denial of "other files" (其他文件) denies nothing of "your files": the word after "other" is
# compared as one with it (thirteenth pass, a hostile passage: "It does not read other files.")
_OTHER = re.compile(r"\b((?:an)?other)\s+(?=[a-z])|(其他|其它|别的|另外的)[\u4e00-\u9fff]{1,2}", re.I)


def _othered(text: str) -> str:
    """`text` with "other" joined to the word after it, and 其他 (其它, 别的, 另外的) for what follows
    it, as `_denied_by` and `_denied_too` compare denials: "does not read other files" denies
    "otherfiles", not "files"."""
    return _OTHER.sub(lambda m: m.group(1) or m.group(2), text) if _OTHER.search(text) else text


def _denied_by(text: str) -> dict[str, set[str]]:
    """For each word the negations of `text` deny first (`denials`; in Chinese, to the clause's
    end), what is denied with it, to its sentence's end, as `_denied_too` compares it (`_bits`; a
    negation's own pair, 不读, left out); an empty set where one denies it alone. Once per
    passage, each word's set built in place: linear in the passage's denials."""
    alone: set[str] = set()
    with_it: dict[str, set[str]] = {}
    text = _othered(text)
    for first, whole in zip(denials(text), denials(text, clause=True, sentence=True), strict=False):
        words = {w for w in whole if not _ZH_NEGATION.match(w)}
        for word in set(first) | {w for w in whole if CJK.search(w)}:
            if others := words - {word}:
                with_it.setdefault(word, set()).update(others)
            else:
                alone.add(word)
    return {w: set() if w in alone else _bits(with_it[w], w) for w in alone | with_it.keys()}


def _denied_too(
    whole: list[str], heads: set[str], too: dict[str, set[str]], carried: set[str] | None = None
) -> bool:
    """Whether the passage denies what a claim's denial denies (`whole`: all it denies to its
    clause's end; `heads`: the words of it that must be denied) in its own denials (`too`, from
    `_denied_by`): a word of `heads` denied there, and one more word of `whole` denied with it
    when both deny more ("never reads your files" / "does not read files"). A denial of the
    word with other things ("It does not read folders.", 它不读取别人的想法) does so only when
    the carrier (`carried`: its words) says none of the claim's other words: "The tool reads your
    files" is contradicted (twelfth pass, a hostile passage), "You can send a compressed one" is
    not by "can't send out an email" where the passage says "I can't send out this e-mail"
    (DialogSum test: a paraphrase around the word)."""
    for head in heads:
        if (with_it := too.get(head)) is None:
            continue
        others = {w for w in whole if w != head and not _ZH_NEGATION.match(w)}
        rest = _bits(others, head)
        if not rest or not with_it or rest & with_it:
            return True
        if carried is not None and not others & carried:
            return True
    return False


def _bits(words: set[str], head: str) -> set[str]:
    """What `_denied_too` compares of the words denied with `head`: English words as they are;
    of Chinese pairs, their characters, not the head's nor a function character's (不再被正式使用
    and 没有正式场合再用 share 再 and 用 beside 正式; OCNLI train.3k, CiteCheck dev)."""
    out = {w for w in words if not CJK.search(w)}
    for word in words - out:
        out.update(word)
    return out - set(head) - _FUNCTION_ZH - {"不", "没", "未", "无", "非"}


_CJK_CLAUSE = re.compile(r"[，,；;。！!？?]")


def _both_free(group: list[str], clause: str, carriers: list[str]) -> bool:
    """Whether a claim's clause says a thing is free ("with no charge") and a carrier says so
    too, in other words ("at no cost"): `_FREE`."""
    return (
        bool(group)
        and group[0] in FREE_WORDS
        and _FREE.search(clause) is not None
        and any(_FREE.search(c) for c in carriers)
    )


@lru_cache(maxsize=1)
def _negative_words_zh() -> frozenset[str]:
    """The Chinese list's words of two characters that open with 违 or 失 and have a twin that
    opens with 不 (违法 / 不法, 失当 / 不当, 失实 / 不实): each denies what follows its first
    character, as its twin does, though no negation stands there."""
    words = chinese_words()  # all of the list's words (不法 too, though it is no opposite of 违法)
    return frozenset(
        w for w in words if len(w) == 2 and w[0] in "违失" and "不" + w[1] in words and w != "失时"
    )  # (not 绝对 "absolute", 失时 / 不时 "now and then")


# words that end in 失 or 违 ("lost", "long missed"): 流失利润 holds no 失利, 丢失调查 no 失调
_ENDING_NEGATIVE_ZH = frozenset(
    "丢失 遗失 损失 流失 缺失 消失 迷失 丧失 散失 得失 过失 亡失 走失 久违 有违 不违 无违".split()
)


@lru_cache(maxsize=8)
def _zh_cached(text: str) -> str:
    return _zh(text)


def _only_in_negative_word(text: str, word: str) -> bool:
    """Whether each place of the CJK pair `word` in `text` opens inside such a word, standing as a
    word (not the end of 流失): 违法行为 says no 法行 that 不法行为 denies (twentieth pass)."""
    chars = _zh_cached(text)
    ats = [m.start() for m in re.finditer(re.escape(word), chars)]
    return bool(ats) and all(
        at and chars[at - 1] + word[0] in _negative_words_zh() and chars[max(0, at - 2) : at] not in
        _ENDING_NEGATIVE_ZH for at in ats
    )  # fmt: skip


def _denied_otherwise(where: str, word: str) -> bool:
    """Whether `where` denies `word` in other words ("prohibited the sale", 禁止使用): English, a
    denying word anywhere before it in the statement ("an actress who refused to be a model" does not
    deny "actress"); Chinese, one before the word in its clause, or after it
    in the passive (使用这个APP被禁止): 比亚迪…停止生产 does not deny 比亚迪, …坚决反对，背叛了 does
    not deny 背叛 (CiteCheck dev)."""
    if not CJK.search(word):
        return _denied_later(where, word)
    if _only_in_negative_word(where, word):
        return True
    for clause in _CJK_CLAUSE.split(_ASPECT.sub("", where)):
        at = clause.find(word)
        if at >= 0 and any(m.start() < at or clause[: m.start()].endswith(("被", "遭", "受到", "遭到"))
                           for m in _DENYING.finditer(clause)):  # fmt: skip  # …使用被禁止: passive
            return True
    return False


def _denied_later(where: str, word: str) -> bool:
    """Whether a denying word stands before the English `word` (a stem) in `where`."""
    first = next(_denying(where), None)
    return first is not None and word in terms(where[first.end() :])


def _denying(text: str) -> Iterator[re.Match[str]]:
    """The denying words of `text` (`_DENYING`) that no negation denies: "It cannot be denied
    that he works hard" denies nothing of his work (twenty-first pass). Each word is looked up
    among the negated spans by bisection: a clause of thousands of them stays linear."""
    spans = [(n.end(), d.end()) for n in _negations(text) if (d := _undeniable(text, n, n.end()))] if (
        _NEGATION.search(text)) else []  # fmt: skip
    starts = [a for a, _ in spans]
    reach = list(accumulate((b for _, b in spans), max))  # the furthest any span up to here reaches
    return (
        m for m in _DENYING.finditer(text)
        if not ((k := bisect_right(starts, m.start()) - 1) >= 0 and m.start() < reach[k])
    )  # fmt: skip


def _unmatched(
    sentence: str, kept: str, carriers: list[str], passage: str, too: dict[str, set[str]], doubt: bool
):
    """(the carrier, the word) when `sentence` denies something (a word after its negation)
    that the passage denies nowhere, and the clause of the best carrying sentence that carries
    it denies none of the sentence's words, in a negation or in other words: the passage says
    it without the denial (the rule of issue 20, kept), when the carrier says the clause of
    `sentence` that holds the negation (`_one_statement`) and not the opposite of its word."""
    if not carriers:
        return None
    clause = clauses(sentence, carriers[0])[0]
    if next(_denying(clause), None) or denied(clause) & units(sentence):
        return None
    clause_denied = denied(clause, clause=True)
    for part in _parts(kept):  # (`kept`: the sentence without its contrasts the passage lacks)
        if not _one_statement(part, carriers[0]):
            continue  # the carrier does not say this clause: a detail it lacks, no contradiction
        wanted = units(part)
        where = max(statements(carriers[0]), key=lambda p: (len(wanted & units(p)), -len(units(p))))
        stated_there = english.unliked(where, units(_CONDITION.sub(",", where)))
        if _A_NOT_A.search(where):
            continue  # the carrier asks whether (一开始很犹豫要不要杀丧尸 / 一开始并不愿意杀丧尸)
        wide = denials(_othered(part), clause=True, sentence=True)
        for group, whole, to_end in zip(denials(part), denials(part, clause=True), wide, strict=False):
            if (
                not group
                or _denied_too(to_end, set(group), too, units(where))
                or (doubt and group[0] in _NOT_KNOWING)
            ):
                continue
            if _both_free(group, part, carriers):
                continue
            if any(terms(m.group())[:1] == group[:1] for m in _DENYING.finditer(part)):
                continue  # "did not refuse to sign", "never stopped selling" / "signed", "sold": it is said
            if len(group) > 1 and CJK.search(group[1]) and _only_in_negative_word(where, group[1]):
                continue  # 不法行为 / 违法行为: the carrier's own negative word denies it too
            if (heads := set(_heads(group))) & units(where) and not heads & stated_there:
                continue  # said only in a condition ("If I had a job, …"), or as "like" is in "It's like …"
            if group[0] in _UNABLE and _cannot_either(whole, where):
                continue  # 无法分辨出他自身的性格 / 看不出来丹尼尔自身的性格
            if english.both_deny(whole, clause_denied):
                continue  # "not considered a risk to humans" / "not deemed a threat to humans"
            if english.unsaid_compound(part, group, units(where)):
                continue  # "a no-fee tool" / "creation tools that allow you": the carrier lacks "fee"
            if english.unsaid_denial(part, group, units(carriers[0])):
                continue  # "is not an American series" / "is a French … series": "American" unsaid
            if english.then_not_now(part, where):
                continue  # "are not currently part of" / "between 1035 and 1814 … were part of"
            if english.unchanged(group, where) and group[0] not in asserted(where):
                continue  # "has not grown in size" / "has always maintained its size"
            if _nothing_denied_said(part, whole, units(carriers[0])) or _unsaid_head_zh(group, where):
                continue  # "Croatia does not have king" / "Croatia is a republic"; 不良的坐姿 / 坐姿
            if _denied_after(where, group[0]) or _kept_away(carriers[0], group):
                continue  # "is not a model" / "an actress who refused to be a model"
            if group[0] in _DISAGREEING and (doubt or negated(passage)) or _opposed(group, carriers[0]):
                continue
            if any(_unreal(where, w, part, group[0]) for w in heads):
                continue  # 还没有解除 / 所有制裁都必须解除
            if _questioned(part, group) or (
                _named(part, group) and heads & asserted(english.unwished(where))
            ):
                continue  # a question; a wish not to do what the carrier says is done
            return carriers[0], group[0]
    return None


# What a statement says must, should, may or will be, or is planned, is not what it says is: a
# claim that it is not does not deny it (现实中对伊拉克的制裁还没有解除 / 对伊拉克的所有制裁都必须
# 解除: OCNLI train.3k, eighth pass). Not 能 (what one is able to do is a fact).
_UNREAL_ZH = re.compile(r"必须|应该|应当|(?<![主重需只不想])要(?![求素点是])|可以|可能|也许|或许|希望|"
                        r"争取|力争|打算|计划|准备|逐步|到时候|使[^，,；;。]{0,12}成为|"
                        r"像是|好像|似乎|仿佛|犹如|宛如")  # fmt: skip  # ... or seems to be (像是一对夫妻)


def _unreal(where: str, word: str, clause: str, negation: str) -> bool:
    """Whether `where` says the Chinese `word` right after a modal of its own clause and the
    claim's `clause` says none: it must, should or will be so, not that it is (a claim's own
    modal, 不可以 / 可以, is what the two compare); for a claim that says it has not happened
    (没, 未) or is not (不是): 他不去北京 refuses what 他要去北京 means to do. English: never (its
    "must be lifted" / "has not been lifted" cost WiCE test 1-2 claim negations, eighth pass, and
    helped no tuned set)."""
    if not CJK.search(word) or (negation[:1] not in "没未" and negation != "不是"):
        return False
    for part in _CJK_CLAUSE.split(_ASPECT.sub("", where)):
        at = part.find(word)
        if at >= 0:
            before = part[:at]
            gaps = (at - m.end() - 2 * _counted(before[m.end() :]) for m in _UNREAL_ZH.finditer(before))
            return not _UNREAL_ZH.search(clause) and any(gap <= GOVERNED for gap in gaps)
    return False


def _counted(text: str) -> bool:
    """Whether `text` opens with "one" and a classifier (一对, 一个), which a modal's reach skips."""
    return text[:1] == "一" and (text[1:2] in _CLASSIFIER_ZH or text[1:2] == "对")


# How close after the modal the word must stand for the modal to govern it: Chinese, characters
# between (都必须解除, 还可以替你; not 要坚持两手抓 "must keep to", 力争…赶上亚洲四小龙, whose object
# exists)
GOVERNED = 1


AFTER = 4  # words after an English denying word ("refused", "avoided") that it denies


def _denied_after(where: str, word: str, pattern: re.Pattern[str] = _DENYING) -> bool:
    """Whether `where` denies the English `word` (a stem) in other words: `word` among the
    `AFTER` words right after a denying word (`pattern`: "who refused to be a model", "has stayed
    away from the historical fiction novels genre"; not "a decline in sales …", whose denying word
    stands far from it)."""
    if CJK.search(word):
        return False
    spans = (where[m.end() : m.end() + REACH] for m in pattern.finditer(where))
    return any(word in terms(" ".join(span.split()[:AFTER])) for span in spans)


def _unsaid_head_zh(group: list[str], where: str) -> bool:
    """Whether the character a Chinese negation denies (良 of 不良, 利 of 不利; not a light verb:
    不是, 没有) stands nowhere in the carrier's statement `where`: the negation makes a word of its
    own ("bad" posture) for something the carrier speaks of without it, no contradiction
    (不良的坐姿…可能会导致 / 患者长期伏案工作，可能会使: CiteCheck dev, eighth pass)."""
    head = group[0] if group else ""
    return (
        len(head) == 2
        and head not in _UNABLE  # 无法看清 / 看得清
        and bool(_ZH_NEGATION.match(head))
        and CJK.match(head[1]) is not None
        and head[1] not in _LIGHT
        and head[1] not in _zh(where, aspect=True)
    )


RESTATED = 2  # words of a claim's clause, besides what it denies, a carrier lacking the denied words says


def _nothing_denied_said(part: str, whole: list[str], theirs: set[str]) -> bool:
    """Whether the carrier (`theirs`: its words) says none of the words a claim's clause denies
    (`whole`) and fewer than `RESTATED` of the clause's other words: it speaks of the subject, not
    of what is denied ("Croatia does not have king" / "Croatia is a republic governed under a
    parliamentary system"). A paraphrased verb keeps its contradiction when the carrier restates
    the rest ("has not been detained on fraud charges" / "has been arrested on fraud charges")."""
    return not set(whole) & theirs and len((units(part) - set(whole)) & theirs) < RESTATED


# verbs of keeping away: what follows them is denied, whichever word of a claim's denial it is
_AVOIDING = re.compile(r"\b(?:avoid\w*|refrain\w*|abstain\w*|shun\w*|stay\w* away from|"
                       r"stayed away from|steer\w* clear of|refus\w* to)\b", re.I)  # fmt: skip


def _kept_away(carrier: str, group: list[str]) -> bool:
    """Whether `carrier` keeps away from a word a claim's negation denies after its verb
    ("has stayed away from the historical fiction novels genre" / "did not write any historical
    fiction novels"): the claim's denial is said there too; not when the claim denies the keeping
    away itself ("did not refuse to sign" / "refused to sign")."""
    return not (_AVOIDING.match(group[0]) or _DENYING.fullmatch(group[0])) and any(
        _denied_after(carrier, w, _AVOIDING) for w in group[1:]
    )


def _cannot_either(group: list[str], where: str) -> bool:
    """Whether `where` says, with a verb that cannot be done (看不出来), what a claim's "cannot"
    (`group`, its clause: 无法分辨出他自身的性格) denies: 2 of its pairs in the 10 characters after."""
    return any(
        len(set(group) & set(_run_pairs(where[m.end() : m.end() + 10]))) >= 2
        for m in _CANNOT_VERB.finditer(where)
    )


def _opposed(group: list[str], carrier: str) -> bool:
    """Whether `carrier` says the opposite of a word `group` denies ("not dangerous" / "safe")."""
    theirs = units(carrier) | set().union(*(forms(fold(w)) for w in _WORD.findall(carrier)))
    table, zh = english_opposites(), chinese_opposites()
    return any((table.get(w, frozenset()) | zh.get(w, frozenset())) & theirs for w in group)


_WORD = re.compile(r"[^\W\d_]+", re.UNICODE)
