"""Numbers of a sentence as values, as the veto in `verify.check` compares them with a passage:
decimals, percentages, currency, units, number words (English and Chinese numerals), decades
and centuries, the years and months numeric dates stand for; a sentence's numbers a passage
lacks, and another number in the same place (`renumbered`)."""

from __future__ import annotations

import bisect
import math
import re
from collections.abc import Iterable
from dataclasses import dataclass, replace
from functools import lru_cache
from itertools import accumulate

from reflectcli.sources.words import terms
from reflectcli.writing.textops import CJK

# the months a numeric date stands for, by name (names.py reads "Dec." and "December" as one)
MONTHS = "january february march april may june july august september october november december".split()
_UNITS = {
    "%": "%", "％": "%", "percent": "%", "per cent": "%", "pct": "%",
    "$": "usd", "us$": "usd", "usd": "usd", "dollar": "usd", "dollars": "usd", "美元": "usd",
    "€": "eur", "eur": "eur", "euro": "eur", "euros": "eur", "欧元": "eur",
    "£": "gbp", "gbp": "gbp", "英镑": "gbp", "lb": "lb", "lbs": "lb",
    "¥": "yen", "yen": "yen", "日元": "yen", "yuan": "cny", "rmb": "cny", "元": "cny",
    "florin": "florin", "florins": "florin", "guilder": "guilder", "guilders": "guilder",
    "km": "km", "kilometre": "km", "kilometres": "km", "kilometer": "km", "kilometers": "km",
    "公里": "km", "mile": "mile", "miles": "mile", "m": "m", "metre": "m", "metres": "m",
    "meter": "m", "meters": "m", "米": "m", "ft": "ft", "foot": "ft", "feet": "ft",
    "kg": "kg", "kilogram": "kg", "kilograms": "kg", "公斤": "kg", "ton": "t", "tons": "t",
    "tonne": "t", "tonnes": "t", "吨": "t", "year": "year", "years": "year", "年": "year",
    "month": "month", "months": "month", "月": "month", "day": "day", "days": "day", "天": "day",
    "日": "day", "hour": "hour", "hours": "hour", "小时": "hour", "minute": "minute",
    "minutes": "minute", "分钟": "minute", "week": "week", "weeks": "week", "周": "week",
    "decade": "decade", "decades": "decade",
}  # fmt: skip
_IN_YEARS = {"decade": 10.0}  # "five decades" is 50 years (FEVER-Symmetric dev, seventh pass)
_SCALES = {"hundred": 1e2, "thousand": 1e3, "million": 1e6, "billion": 1e9, "trillion": 1e12,
           "bn": 1e9, "百": 1e2, "千": 1e3, "万": 1e4, "萬": 1e4, "亿": 1e8, "億": 1e8}  # fmt: skip
_ONES = "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen " \
        "fifteen sixteen seventeen eighteen nineteen".split()  # fmt: skip
_TENS = "twenty thirty forty fifty sixty seventy eighty ninety".split()
_WORD_VALUES = {w: float(i) for i, w in enumerate(_ONES)} | {w: 20.0 + 10 * i for i, w in enumerate(_TENS)}
_ORDINALS = ("first second third fourth fifth sixth seventh eighth ninth tenth eleventh twelfth thirteenth "
             "fourteenth fifteenth sixteenth seventeenth eighteenth nineteenth").split()  # fmt: skip
_TENTHS = "twentieth thirtieth fortieth fiftieth sixtieth seventieth eightieth ninetieth".split()
_ORDINAL_VALUES = {w: i + 1.0 for i, w in enumerate(_ORDINALS)} | {
    w: 20.0 + 10 * i for i, w in enumerate(_TENTHS)
}
_HEDGES = re.compile(r"\b(about|around|approximately|roughly|nearly|almost|some|over|more than|less "
                     r"than|fewer than|under|up to|at least|close to|circa|c\.|estimated)\s*$|[约近逾超]\s*$",
                     re.I)  # fmt: skip
# a bound, not a value: "more than 100" holds 116, "fewer than 50" holds 40 (fourteenth pass: QAGS
# XSum's "more than 100 bodies" against the article's 116 was another number)
_FLOOR = re.compile(r"\b(?:over|more than|at least)\s*$", re.I)
_CEILING = re.compile(r"\b(?:less than|fewer than|under|up to)\s*$", re.I)


def _bound_of(before: str) -> str:
    """What bound the words `before` a number make of it: "floor", "ceiling" or none ("")."""
    return "floor" if _FLOOR.search(before) else "ceiling" if _CEILING.search(before) else ""


# a minus sign (a hyphen, U+2212, or the en dash typesetters use) against the number, after a space,
# a bracket or a colon, or a Chinese word a value follows ("降至-5℃", "增长-3.7%"); a hyphen
# after a letter, a digit or a sign joins ("COVID-19", "3-5", "10%-20%", "北溪-2", "(SA)-40");
# "- 5" is a list's dash, and "(1901 -90)" a range
_SIGNED = re.compile(r"(?:^|(?<!\d)\s|[(\[{:=/;（：，]|[至到为是的达长])[-\u2212\u2013]$")
# a fall said in words near an unsigned number, in its clause: "fell 5.6%" is the "-5.6%" of a
# table, "5 degrees below zero" or 零下5度 a "-5 °C" (the sign is then not a different number)
_DOWN_BEFORE = re.compile(
    r"(?:\b(?:fell|falls?|falling|fallen|drop(?:s|ped|ping)?|down|declin(?:e|es|ed|ing)|"
    r"decreas(?:e|es|ed|ing)|lost|los(?:e|es|ing|s|ses)|shr(?:ank|ink|inks|inking|unk)|"
    r"sl(?:id|ide|ides|iding)|slump(?:s|ed|ing)?|plung(?:e|es|ed|ing)|plummet(?:s|ed|ing)?|"
    r"dip(?:s|ped|ping)?|tumbl(?:e|es|ed|ing)|sank|sunk|sinks?|sinking|deficits?|contract(?:s|ed|ing|ion)|"
    r"cut|cuts|minus|negative|lower(?:ed)?|reduc(?:ed|tion|es|e))\b|"
    r"下降|下跌|下滑|回落|跌|降|减少|减|缩|萎缩|亏损?|零下|负)[^.!?;。；！？\n\d]{0,16}$",
    re.I,
)
_DOWN_AFTER = re.compile(r"^[^.!?;。；！？\n\d]{0,16}?\b(?:below|lower|down|less)\b", re.I)
_UNIT_AFTER = "|".join(sorted((re.escape(u) for u in _UNITS if u not in "$€£¥"), key=len, reverse=True))
_SCALE_AFTER = "|".join(sorted(map(re.escape, _SCALES), key=len, reverse=True))
_NUMBER = re.compile(
    r"(?P<cur>US\$|[$€£¥])?\s?(?P<num>(?<![A-Za-z0-9_.])\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?)"
    r"(?P<decade>s\b|'s\b)?(?P<ord>st|nd|rd|th)?"
    r"(?:[\s-]?(?P<scale>" + _SCALE_AFTER + r")(?![a-z]))?"
    r"(?:[\s-]?(?P<unit>" + _UNIT_AFTER + r")(?![a-z]))?",
    re.I,
)  # fmt: skip
_SPELLED = re.compile(
    r"\b(?P<num>(?:" + "|".join(_TENS) + r")(?:[\s-](?:" + "|".join(_ONES[1:10]) + r"))?|"
    + "|".join(_ONES[2:]) + r")\b"
    r"(?:[\s-](?P<scale>hundred|thousand|million|billion|trillion)\b)?"
    r"(?:[\s-](?P<unit>" + _UNIT_AFTER + r")\b)?",
    re.I,
)  # fmt: skip
# "third", "twenty-first" (an ordinal word, read in a passage); "a third of" is a fraction
_ORDINAL = re.compile(
    r"\b(?:(?P<tens>" + "|".join(_TENS) + r")[\s-])?(?P<ord>" + "|".join(_ORDINALS + _TENTHS) + r")\b", re.I
)  # fmt: skip
_FRACTION_BEFORE = re.compile(r"\b(?:a|an|one|two|three|four|five)[\s-]$", re.I)
_CENTURY = re.compile(r"^[\s-]century\b|^\s?世纪", re.I)  # "19th century", "19世纪": 1800 to 1899
_ZH_DECADE = re.compile(r"^\s?年代")  # "90年代", "八十年代": the 1990s, the 1980s
_YEAR_TO = re.compile(r"\b(1[0-9]|20)(\d\d)\s?[-–]\s?$")  # "2018–" before "19"
_OF = re.compile(r"\s+of\b")
# What a number's reading looks at around it ("19th century", "90年代", "$3 bn") is this many
# characters at most: never the whole rest of the text, which made a text of many numbers cost
# time quadratic in its length.
_AHEAD = 16


class _Spans:
    """The (start, end) spans already read as numbers, none overlapping, and whether a position
    falls in one: a bisect, not a scan of every span."""

    def __init__(self) -> None:
        self.starts: list[int] = []
        self.ends: list[int] = []

    def add(self, span: tuple[int, int]) -> None:
        at = bisect.bisect(self.starts, span[0])
        self.starts.insert(at, span[0])
        self.ends.insert(at, span[1])

    def __contains__(self, position: int) -> bool:
        at = bisect.bisect(self.starts, position) - 1
        return at >= 0 and position < self.ends[at]


@dataclass(frozen=True)
class Quantity:
    value: float
    unit: str | None
    text: str
    span: int = 0  # years a period covers from `value`: "the 1520s" 10, "the 19th century" 100
    hedged: bool = False  # "about 40": a value within 10 %
    bound: str = ""  # "floor" ("more than 100": up to half as much again), "ceiling" ("under 50")
    down: bool = False  # a fall said in words ("fell 5.6%", "5 degrees below zero"): may be a minus


def _period(value: float, text: str, after: str, decade: bool) -> tuple[float, int, str]:
    """(first year, years covered, matched text) of a decade or a century written as a number:
    "1520s" (10), "1800s" (100: the century as often), "19th century" (100), "90年代" (10)."""
    if (century := _CENTURY.match(after)) and 1 <= value <= 21:
        return 100 * (value - 1), 100, text + century.group()
    if (zh := _ZH_DECADE.match(after)) or decade:
        year = value + 1900 if zh and value < 100 else value
        return year, 100 if decade and year >= 1000 and year % 100 == 0 else 10, text
    return value, 0, text


def _spelled(words: str) -> float:
    words = words.lower()
    return sum(_WORD_VALUES.get(w, 0.0) for w in re.split(r"[\s-]+", words))


_ZH_DIGITS = {"零": 0, "〇": 0, "一": 1, "二": 2, "两": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7,
              "八": 8, "九": 9}  # fmt: skip
_ZH_UNITS = {"十": 10, "百": 100, "千": 1000}
_ZH_NUMBER = re.compile(
    r"(?<![数几上成零〇一二两三四五六七八九十百千万亿])"
    r"[零〇一二两三四五六七八九十百千万亿]+(?P<more>[多余来几])?"
)
_ZH_NOT_NUMBER = re.compile(
    r"^(?:一|万一|千万|一一|十一五|十分|万万|千千万万)$|"
    r"^一(?=[样起直般些点切定旦向度再共同]|$)"
)


def _zh_value(run: str) -> float | None:
    """A Chinese numeral's value: 十一 = 11, 三百五十 = 350, 两万 = 20000, 三亿 = 3e8, and
    digit by digit as years are written (一九五七 = 1957); None when it is no number."""
    if all(ch in _ZH_DIGITS for ch in run):
        return float("".join(str(_ZH_DIGITS[ch]) for ch in run)) if len(run) > 1 else float(_ZH_DIGITS[run])
    total, section, digit = 0.0, 0.0, None
    for ch in run:
        if ch in _ZH_DIGITS:
            digit = _ZH_DIGITS[ch]
        elif ch in _ZH_UNITS:
            section += (1 if digit is None else digit) * _ZH_UNITS[ch]
            digit = None
        else:  # 万, 亿
            scale = 1e4 if ch == "万" else 1e8
            part = section + (digit or 0)
            total = (total + part) * scale if ch == "亿" or total == 0 else total + part * scale
            section, digit = 0.0, None
    return total + section + (digit or 0)


def _zh_quantities(text: str) -> list[Quantity]:
    """The Chinese numerals of `text` (三 = 3, 十一 = 11, 两万 = 20000), not 一 alone nor the words
    it starts (一样, 一起, 一些 ...), nor the vague ones (数百, 几十); 三十多 is about 30."""
    found = []
    for m in _ZH_NUMBER.finditer(text):
        run = m.group().rstrip("多余来几")
        if not set(run) - {"万", "亿"}:
            continue
        start, end = m.span()
        before, ahead = text[max(0, start - 3) : start], text[end : end + _AHEAD]  # never the whole rest
        ordinal = before.endswith("第")  # 第一, 第三: a rank, never a word
        word = _ZH_NOT_NUMBER.search(run + ahead[:1]) or _ZH_NOT_NUMBER.search(run)
        if word and not ordinal:
            continue
        if ahead.startswith("分之") or (before.endswith("分之") and not before.endswith("百分之")):
            continue  # 三分之一: a fraction; 百分之五十 is 50 %
        if (value := _zh_value(run)) is not None:
            unit = _UNITS.get(ahead[:1]) or _UNITS.get(ahead[:2])
            unit = "%" if before.endswith("百分之") else unit
            value, span, said = _period(value, m.group(), ahead, False)
            said = "第" + said if ordinal else said
            found.append(Quantity(value, None if span else unit, said, span, hedged=bool(m.group("more"))))
    return found


def quantities(text: str, held: bool = False) -> list[Quantity]:
    """The numbers of `text` as values with their units: "3.5 %", "$30", "$3M" and "20 million"
    (= 2e7), "forty-one" (= 41), "3rd" (= 3), "1520s" and "19th century" (periods). "one" is
    left out: it is a pronoun as often. Ordinal words ("third", "twenty-first century") are read
    only when `held` (in a passage, where a claim's "3rd" may be written "third"): in a claim
    they are words as often ("first he", "the third quarter" for "September")."""
    found: list[Quantity] = []
    spans = _Spans()
    for m in _NUMBER.finditer(text):
        value = float(m.group("num").replace(",", ""))
        before, ahead = text[max(0, m.start() - 24) : m.start()], text[m.end() : m.end() + _AHEAD]
        if (year := _YEAR_TO.search(before)) and len(m.group("num")) == 2:
            value = float(year.group(1) + m.group("num"))  # "2018–19": the second year is 2019
        scale = _SCALES.get((m.group("scale") or "").lower(), 1.0)
        unit = _UNITS.get((m.group("cur") or m.group("unit") or "").lower())
        if m.group("cur") and not m.group("scale"):  # "$3M", "$2B": millions, billions
            if (m.group("unit") or "").lower() == "m":
                scale = 1e6
            elif re.match(r"\s?(?:b|mn)\b", ahead, re.I):
                scale = 1e9 if ahead.lstrip()[:1] in "bB" else 1e6
        hedged = bool(_HEDGES.search(before))
        at = m.end("num") + len(m.group("decade") or "") + len(m.group("ord") or "")
        after = text[at : at + _AHEAD]
        value, span, said = _period(value * scale, m.group().strip(), after, bool(m.group("decade")))
        if (
            not span and not m.group()[:1].isspace() and _SIGNED.search(before)
        ):  # "-5 °C", "−5", "(-$3)": below zero
            value, said = -value, before[-1] + said
        down = not span and value > 0 and _said_down(before, text[m.end() : m.end() + 24])
        found.append(
            Quantity(
                value, None if span else unit, said, span, hedged, "" if span else _bound_of(before), down
            )
        )
        spans.add(m.span())
    for m in _ORDINAL.finditer(text) if held else ():
        word = m.group("ord").lower()
        if m.start() in spans:
            continue
        if (
            not m.group("tens")
            and _FRACTION_BEFORE.search(text[max(0, m.start() - 12) : m.start()])
            and _OF.match(text, m.end())
        ):
            continue  # "a third of the vote"
        value = _ORDINAL_VALUES[word] + (_WORD_VALUES[m.group("tens").lower()] if m.group("tens") else 0)
        value, span, said = _period(value, m.group(), text[m.end() : m.end() + _AHEAD], False)
        found.append(Quantity(value, None, said, span))
        spans.add(m.span())
    for m in _SPELLED.finditer(text):
        if m.start() in spans:
            continue
        scale = _SCALES.get((m.group("scale") or "").lower(), 1.0)
        unit = _UNITS.get((m.group("unit") or "").lower())
        before = text[max(0, m.start() - 24) : m.start()]
        value = _spelled(m.group("num")) * scale
        found.append(
            Quantity(
                value,
                unit,
                m.group().strip(),
                hedged=bool(_HEDGES.search(before)),
                bound=_bound_of(before),
                down=value > 0 and _said_down(before, text[m.end() : m.end() + 24]),
            )
        )
    found = [
        replace(q, value=q.value * _IN_YEARS[q.unit], unit="year") if q.unit in _IN_YEARS else q
        for q in found
    ]
    return found + (_zh_quantities(text) if CJK.search(text) else [])


# "fell to 5 °C", "fell from 24 per cent", "down from about 2.2 million": a level, not the fall
_LEVEL = re.compile(
    r"(?:\b(?:to|at|from)(?:\s+(?:about|around|nearly|almost|roughly|some|just|only))?|[至到为从])\s*$", re.I
)


def _said_down(before: str, after: str) -> bool:
    """Whether words around a number say it is a fall or below zero ("fell 5.6%", "a loss of $3",
    "5 degrees below zero", "下降2.3%"); "fell to 5 °C" or "from 24%" says a level (its sign its own)."""
    return bool(_DOWN_BEFORE.search(before) and not _LEVEL.search(before) or _DOWN_AFTER.search(after))


def signed_after(word: str, text: str) -> bool:
    """Whether a minus sign follows `word` in `text` before any other word: "increased -2.3%",
    增长-2.3% (statistics' way of saying a fall) say the opposite of the word."""
    return bool(re.search(re.escape(word) + r"\s*(?:by\s+|of\s+|了)?[-\u2212\u2013]\s?[$€£¥]?\d", text, re.I))


def _mirrored(qs: Iterable[Quantity]) -> list[Quantity]:
    """`qs` and, for each one said with a fall in words, the same below zero ("fell 5.6%" is -5.6%)."""
    qs = list(qs)
    return qs + [replace(q, value=-q.value, down=False) for q in qs if q.down]


def _same_quantity(claim: Quantity, held: Quantity) -> bool:
    if claim.unit and held.unit and claim.unit != held.unit:
        return False
    if claim.span:  # a period holds the years, and the shorter periods, inside it
        return claim.value <= held.value and held.value + max(held.span, 1) <= claim.value + claim.span
    if claim.hedged:  # "about 40": within 10 %; "around 1450": within 10 years; "more than 100": 100-150
        lo, hi = _hedge(claim, bound=not held.bound)
        return lo <= held.value <= hi
    return abs(held.value - claim.value) <= 1e-9 * max(abs(claim.value), 1.0)


_NUMERIC_DATE = re.compile(r"\b((?:1[5-9]|20)\d\d)[-./](\d\d?)[-./]\d\d?\b")  # 2018-06-30, 2003.06.11
_SHORT_YEAR = re.compile(
    r"\b(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\.?\s+(\d\d)\b(?!:\d)", re.I
)


def dates(text: str) -> tuple[list[Quantity], set[str]]:
    """The years and month names that numeric dates in `text` stand for ("2018-06-30": 2018 and
    June; "15 Jul 19": 2019), as real pages write them."""
    years, months = [], set()
    for m in _NUMERIC_DATE.finditer(text):
        years.append(Quantity(float(m.group(1)), None, m.group(1)))
        if 1 <= int(m.group(2)) <= 12:
            months.add(MONTHS[int(m.group(2)) - 1])
    years += [Quantity(2000.0 + int(m.group(1)), None, m.group()) for m in _SHORT_YEAR.finditer(text)]
    return years, months


def _hedge(claim: Quantity, bound: bool = True) -> tuple[float, float]:
    """The values a hedged quantity may be: within 10 % ("about 40"), 10 years ("around 1450");
    a floor from itself up to half as much again ("more than 100": 100 to 150; "more than 125"
    is not 116), a ceiling down to half ("under 50": 25 to 50). A year is never a bound ("over
    1990" is about it). Not `bound` (the passage gives a bound too: "orders over $125"), a
    bound is a value like any other: two thresholds are two numbers."""
    v = claim.value
    if _year(claim):
        return v - 10, v + 10
    if bound and claim.bound == "floor" and v > 0:
        return v, 1.5 * v
    if bound and claim.bound == "ceiling" and v > 0:
        return 0.5 * v, v
    slack = 0.1 * max(abs(v), 1.0)
    return v - slack, v + slack


def _beyond(claim: Quantity, held: Quantity) -> bool:
    """Whether `held` lies where a bound lets it ("more than 10" and 40, "under 50" and 12): no
    other number in its place, though too far to be the one the claim gives (it stays missing)."""
    if held.bound:
        return False  # two thresholds: two numbers
    if claim.bound == "floor":
        return held.value >= claim.value
    if claim.bound == "ceiling":
        return 0 <= held.value <= claim.value
    return False


def _bounds(claim: Quantity) -> tuple[float, float]:
    """The values a quantity `claim` may be (`_same_quantity`) lie within, widened a little: a
    superset, so that `_same_quantity` still decides."""
    v = claim.value
    if claim.span:
        lo, hi = v, v + claim.span
    elif claim.hedged:  # whether the passage's number is a bound or not
        (lo, hi), (lo2, hi2) = _hedge(claim), _hedge(claim, bound=False)
        lo, hi = min(lo, lo2), max(hi, hi2)
    else:
        lo = hi = v
    pad = 1e-6 * max(abs(lo), abs(hi), 1.0)
    return lo - pad, hi + pad


class _Held:
    """A text's quantities by unit and value: whether it holds a claim's quantity
    (`_same_quantity`) is read among those in its range, not from every one (a claim of n
    numbers against a passage of n was n × n; fourteenth pass)."""

    def __init__(self, held: Iterable[Quantity]) -> None:
        by_unit: dict[str | None, list[Quantity]] = {}
        self.odd: list[Quantity] = []  # an infinite or undefined value: compared as it is
        for h in _mirrored(held):
            if math.isfinite(h.value):
                by_unit.setdefault(h.unit, []).append(h)
            else:
                self.odd.append(h)
        self.units = {u: sorted(hs, key=lambda h: h.value) for u, hs in by_unit.items()}
        self.values = {u: [h.value for h in hs] for u, hs in self.units.items()}

    def holds(self, claim: Quantity) -> bool:
        if claim.down and self.holds(replace(claim, value=-claim.value, down=False)):
            return True
        lo, hi = _bounds(claim)
        for unit in self.units:
            if claim.unit and unit and unit != claim.unit:
                continue
            held, values = self.units[unit], self.values[unit]
            if math.isfinite(lo) and math.isfinite(hi):
                held = held[bisect.bisect_left(values, lo) : bisect.bisect_right(values, hi)]
            if any(_same_quantity(claim, h) for h in held):
                return True
        return any(_same_quantity(claim, h) for h in self.odd)


class _Claimed:
    """A claim's quantities by the range of values each may be (`_bounds`): whether one of them
    is a given quantity of a passage is read among those whose range can reach it."""

    def __init__(self, claimed: list[Quantity]) -> None:
        ranged = [(_bounds(q), q) for q in _mirrored(claimed)]
        finite = sorted(((lo, hi, q) for (lo, hi), q in ranged if math.isfinite(lo) and math.isfinite(hi)),
                        key=lambda x: x[0])  # fmt: skip
        self.los = [lo for lo, _, _ in finite]
        self.finite = finite
        self.width = max((hi - lo for lo, hi, _ in finite), default=0.0)
        self.others = [q for (lo, hi), q in ranged if not (math.isfinite(lo) and math.isfinite(hi))]

    def says(self, held: Quantity) -> bool:
        if not math.isfinite(held.value):
            near = self.finite  # never one of a finite range: read as the claims read it
        else:
            start = bisect.bisect_left(self.los, held.value - self.width)
            near = self.finite[start : bisect.bisect_right(self.los, held.value)]
        return any(_same_quantity(q, held) for _, _, q in near) or any(
            _same_quantity(q, held) for q in self.others
        )


def missing_numbers(sentence: str, passage: str) -> list[str]:
    """The numbers of `sentence` that `passage` does not hold as the same value and unit. A
    claim's Chinese numeral of one character (两, 三, 二月) is a word as often as a count: it is
    read in the passage (11 点 / 十一点), not checked in the claim."""
    held = _Held(quantities(passage, held=True) + dates(passage)[0])
    claimed = [q for q in quantities(sentence) if len(q.text.rstrip("多余来几")) > 1 or not CJK.match(q.text)]
    return [q.text for q in claimed if not held.holds(q)]


def gives(sentence: str, number: str) -> bool:
    """Whether a hedged or bounded quantity of `sentence` holds `number` (a passage's digits):
    "more than 100" gives 116, "about 120" gives 116 (a denial naming 116 is about the claim's)."""
    try:
        value = float(number)
    except ValueError:
        return False
    return any(q.hedged and _same_quantity(q, Quantity(value, q.unit, number)) for q in quantities(sentence))


@lru_cache(maxsize=256)  # a carrier is asked once for each clause of a claim
def spelled(sentence: str) -> frozenset[str]:
    """The whole numbers `sentence` gives in words, as digits ("three seats": "3"): a passage's
    denial naming 3 is about the claim's "three" (seventeenth pass, DialogSum dev: "I'd like to not
    book 3 seats" against "book three seats" was excused as a denial about another number)."""
    return frozenset(
        str(int(q.value)) for q in quantities(sentence) if q.value.is_integer() and not q.text[:1].isdigit()
    )


# between two numbers, what still ties them: "$480 in 2021", "3 points on 12 May"
_TIE = r"(?:(?:in|on|at|by|for|during|of)\s+)?"
_NEAR_BEFORE = re.compile(rf"(\d[\d.,]*)\W{{0,2}}{_TIE}$", re.I)
_NEAR_AFTER = re.compile(rf"\W{{0,2}}{_TIE}(\d[\d.,]*)", re.I)


def _context(text: str, start: int, end: int) -> tuple[str | None, str | None]:
    """The content words (stems) right before and right after `text[start:end]`, with no other
    number between; where none stands between it and the number next to it, that number as
    written ("1992年2月": "2月" after 1992; "3-0": "0" after 3; "$480 in 2021": "480" before
    2021, "2021" after $480)."""
    ahead, behind = text[max(0, start - 40) : start], text[end : end + 40]
    before = terms(re.split(r"\d", ahead)[-1])  # no other number between
    after = terms(re.split(r"\d", behind)[0])
    if not before and (near := _NEAR_BEFORE.search(ahead)):
        before = [near.group(1)]
    if not after and (near := _NEAR_AFTER.match(behind)):
        after = [near.group(1)]
    if before and CJK.match(before[-1]):  # a CJK character is no word: the two before it, or after
        before = ["".join(before[-2:])]
    if after and CJK.match(after[0]):
        after = ["".join(after[:2])]
    return (before[-1] if before else None), (after[0] if after else None)


# a name's number, joined by a hyphen to the letters before it ("COVID-19", "SARS-CoV-2", "MiG-29"):
# it is compared only with a number of the same name (twenty-second pass, COVID-Fact: "covid-19
# infection" against "SARS-CoV-2 infection" was "the passage says 2 where the sentence says 19").
# Not a time ("mid-2020", "pre-1990") nor a bound ("top-10", "under-21")
_NAMED = re.compile(r"(?<![A-Za-z])([A-Za-z]{2,})-$")
_NOT_NAMES = frozenset(("mid", "pre", "post", "early", "late", "circa", "ca", "since", "top", "under",
                        "over", "non", "anti", "about", "around", "up", "in", "by", "of", "to", "from", "and",
                        "or"))  # fmt: skip


def _name_of(text: str, start: int) -> str:
    """The letters a hyphen joins to the number at `start` ("covid" in "covid-19"), folded; "" for none."""
    m = _NAMED.search(text, max(0, start - 24), start)
    return m.group(1).lower() if m and m.group(1).lower() not in _NOT_NAMES else ""


def _located(text: str, held: bool) -> list[tuple[Quantity, int, int]]:
    out, at = [], 0
    for q in quantities(text, held=held):
        start = text.find(q.text, at)
        if start < 0:
            start = text.find(q.text)
        if start >= 0:
            out.append((q, start, start + len(q.text)))
            at = start + len(q.text)
    return out


_GROUPED = re.compile(r"\d[,\u00a0\u202f]\d{3}(?!\d)")  # "1,500": a count; no year is written so


def _bare_year(q: Quantity) -> bool:
    return q.unit is None and not q.span and 1000 <= q.value <= 2100


def _year(q: Quantity) -> bool:
    """Whether `q` reads as a year: a bare number from 1000 to 2100, not written with a thousands
    separator ("more than 1,500 copies" is a count: its bound is not a year's ten-year window)."""
    return _bare_year(q) and not _GROUPED.search(q.text)


def _kind(q: Quantity) -> str:
    """What a number counts, for pairing it with the passage's: a bare 1000-2100 pairs as a year,
    grouped or not (a passage's "1600 copies" is the claim's "1,600 copies")."""
    return "year" if _bare_year(q) else (q.unit or "")


_CLAUSE_MARK = re.compile(r"[,;:，；：。]")


class _Clauses:
    """The clauses of a text (cut at commas, semicolons, colons), their words read once, and how
    many words each shares with `carried`: for each number of a claim, the words of the clause
    holding it and whether another clause shares more (in constant time: a claim of thousands of
    numbers is read once, not once for each)."""

    def __init__(self, text: str, carried: set[str]) -> None:
        self.text = text
        marks = list(_CLAUSE_MARK.finditer(text))
        self.starts = [m.start() for m in marks]
        self.ends = [m.end() for m in marks]
        bounds = [0, *self.ends], [*self.starts, len(text)]
        scores = [len(set(terms(text[a:b])) & carried) for a, b in zip(*bounds, strict=True)]
        self.before = list(accumulate(scores, max))  # the best of clauses 0..k
        self.after = list(accumulate(reversed(scores), max))[::-1]  # ... of clauses k..
        self._words: dict[tuple[int, int], set[str]] = {}

    def at(self, start: int, end: int) -> tuple[set[str], int]:
        """The words of the clause holding `start:end` (a mark inside the number, "1,200", left
        in), and the most words another clause shares with `carried`."""
        i = bisect.bisect_left(self.starts, start)  # marks before the number: 0..i-1; the clause opens at i
        j = bisect.bisect_left(self.starts, end)  # the first mark after it closes the clause at j
        left = self.ends[i - 1] if i else 0
        right = self.starts[j] if j < len(self.starts) else len(self.text)
        best = max(self.before[i - 1] if i else 0, self.after[j + 1] if j + 1 < len(self.after) else 0)
        if (left, right) not in self._words:  # once per clause: a clause of thousands of numbers
            self._words[(left, right)] = set(terms(self.text[left:right]))  # was read once for each
        return self._words[(left, right)], best


# a Chinese year and what it says of it, in one clause: "2021年营收432万元"
_ZH_BETWEEN = re.compile(r"[^\d，,；;。：:、]{0,8}")
_BETWEEN = re.compile(rf"\s*{_TIE}", re.I)  # no comma: a list


class _Placed:
    """The numbers of the passage's other sentences, indexed by the word before and the word
    after each (`_context`): which of them gives a claim's number in its place is read from
    the index, not from every sentence anew (a claim of n numbers against a passage of m
    sentences was n × m; thirteenth pass)."""

    def __init__(self, texts: list[str]) -> None:
        self.words: list[set[str] | None] = [None] * len(texts)
        self.texts = texts
        self.by_before: dict[str, list[tuple[int, Quantity]]] = {}
        self.by_after: dict[str, list[tuple[int, Quantity]]] = {}
        for k, text in enumerate(texts):
            for h, start, end in _located(text, held=True):
                h_before, h_after = _context(text, start, end)
                if h_before:
                    self.by_before.setdefault(h_before, []).append((k, h))
                if h_after:
                    self.by_after.setdefault(h_after, []).append((k, h))
        # each word's numbers by value, to read those within a claim's range (`_bounds`); an
        # infinite or undefined value is read whatever the range
        self.odd: dict[tuple[str, str], list[tuple[int, Quantity]]] = {}
        self.values: dict[tuple[str, str], list[float]] = {}
        for side, index in (("before", self.by_before), ("after", self.by_after)):
            for word, found in index.items():
                finite = [(k, h) for k, h in found if math.isfinite(h.value)]
                index[word] = sorted(finite, key=lambda x: x[1].value)
                self.odd[(side, word)] = [(k, h) for k, h in found if not math.isfinite(h.value)]
                self.values[(side, word)] = [h.value for _, h in index[word]]

    def _near(self, side: str, word: str | None, q: Quantity) -> list[tuple[int, Quantity]]:
        if not word:
            return []
        found = (self.by_before if side == "before" else self.by_after).get(word, [])
        odd = self.odd.get((side, word), [])
        lo, hi = _bounds(q)
        if not (math.isfinite(lo) and math.isfinite(hi)):
            return found + odd
        values = self.values[(side, word)] if found else []
        return found[bisect.bisect_left(values, lo) : bisect.bisect_right(values, hi)] + odd

    def carries(
        self, q: Quantity, before: str | None, after: str | None, clause: set[str], near: int
    ) -> bool:
        """Whether another sentence gives `q` with the same word before or after it and shares
        more than `near` words with `clause` (the claim's clause around it)."""
        found = self._near("before", before, q) + self._near("after", after, q)
        for k, h in found:
            if _same_quantity(q, h):
                if (words := self.words[k]) is None:
                    words = self.words[k] = set(terms(self.texts[k]))
                if len(clause & words) > near:
                    return True
        return False


def _paired(text: str, held: bool) -> list[tuple[tuple[Quantity, int, int], tuple[Quantity, int, int]]]:
    """Two numbers of `text` of different kinds said together, a tie at most between them
    ("$480 in 2021", "3 goals on 12 May": an amount and when)."""
    located = _located(text, held)
    return [
        (a, b)
        for a, b in zip(located, located[1:], strict=False)
        if _kind(a[0]) != _kind(b[0])
        and (
            _BETWEEN.fullmatch(text, a[2], b[1])
            or (_kind(a[0]) == "year" and _ZH_BETWEEN.fullmatch(text, a[2], b[1]))
        )
    ]


def mispaired(sentence: str, carrier: str) -> tuple[str, str] | None:
    """(what the sentence says, what `carrier` says) when the sentence ties two numbers the
    carrier ties to others: "$480 in 2021" where the carrier says "$480 in 2020 and $432 in
    2021". Every number is held, so no number is missing; the pairing is wrong both ways."""
    theirs = _paired(carrier, held=True)
    for (a, a_start, _), (b, _, b_end) in _paired(sentence, held=False):
        other_b = [x for x, y in theirs if _same_quantity(a, x[0]) and _kind(y[0]) == _kind(b)
                   and not _same_quantity(b, y[0])]  # fmt: skip
        other_a = [(x, y) for x, y in theirs if _same_quantity(b, y[0]) and _kind(x[0]) == _kind(a)
                   and not _same_quantity(a, x[0])]  # fmt: skip
        if other_b and other_a:
            (x, x_start, _), (_, _, y_end) = other_a[0]
            return sentence[a_start:b_end], carrier[x_start:y_end]
    return None


def renumbered(
    sentence: str, carrier: str, missing: list[str], others: Iterable[str] = ()
) -> tuple[str, str] | None:
    """(the sentence's number, the carrier's) when `carrier` gives a different number of the same
    kind in the same place: the same word before it or after it ("sank in 1912" / "sank in
    1913", "25 points" / "20 points"), for a number of `sentence` the carrier lacks and no
    sentence of `others` (the passage's other sentences) gives in that place and carries the
    claim's clause around it better than the carrier does, while the carrier carries another
    clause of the claim better (a plan's "had planned to produce 500 tons" does not excuse
    "produced 500 tons in 2020" against "produced 300 tons in 2020"): a claim that joins
    "for just $480/month" and "an extra 10% off" says what two sentences say, not that the second
    one's "just $432/month" is $480 (tenth pass, SummEdits' sales emails)."""
    mine = _located(sentence, held=False)
    lacking = set(missing)
    # a number of the carrier that is one of the sentence's is paired already ("March 4 … March 6"
    # against "March 6th"): it is no other number in the place of the sentence's 4
    said = _Claimed([q for q, _, _ in mine])
    theirs = [t for t in _located(carrier, held=True) if not said.says(t[0])]
    elsewhere = _Placed([o for o in others if o != carrier]) if others else None
    carried = set(terms(carrier))
    clauses = _Clauses(sentence, carried) if any(q.text in lacking for q, _, _ in mine) else None
    if clauses is None:
        return None
    # the carrier's numbers by the word before and the word after each (read once, not per number)
    # ... and by the name a hyphen joins them to (`_name_of`: "covid-19" is compared with "covid-20" only)
    by_before: dict[tuple[str, str], list[int]] = {}
    by_after: dict[tuple[str, str], list[int]] = {}
    for k, (_, h_start, h_end) in enumerate(theirs):
        h_before, h_after = _context(carrier, h_start, h_end)
        h_name = _name_of(carrier, h_start)
        if h_before:
            by_before.setdefault((h_name, h_before), []).append(k)
        if h_after:
            by_after.setdefault((h_name, h_after), []).append(k)
    for q, start, end in mine:
        if q.text not in lacking:
            continue
        before, after = _context(sentence, start, end)
        clause, best = clauses.at(start, end)
        near = len(clause & carried)
        # the carrier carries another clause of the claim better than this one ...
        if best > near and elsewhere is not None and elsewhere.carries(q, before, after, clause, near):
            continue  # ... and another sentence says this number in this place, and carries its clause better
        name = _name_of(sentence, start)  # "covid-19" is no other number than "SARS-CoV-2"'s 2
        placed = (by_before.get((name, before), []) if before else []) + (
            by_after.get((name, after), []) if after else []
        )
        for k in sorted(set(placed)):
            h = theirs[k][0]
            if _kind(h) == _kind(q) and not _same_quantity(q, h) and not _beyond(q, h):
                return q.text, h.text
    return None
