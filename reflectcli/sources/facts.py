"""Hard facts of a sentence, as the veto in `verify.check` compares them with a passage: numbers
read as values (decimals, percentages, currency, units, number words) and names (capitalised
words and acronyms, in the forms real text writes them). Denials and opposite words are in
`polarity.py`."""

from __future__ import annotations

import re
from dataclasses import dataclass

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
    out = []
    for word in _WORD.findall(text):
        if CJK.search(word):
            out += [ch for ch in word if CJK.match(ch)]
            continue
        folded = fold(word)
        if folded.isdigit() or (len(folded) >= 3 and folded not in STOP):
            out.append(folded if folded.isdigit() else stem(folded))
    return out


# --- numbers ------------------------------------------------------------------------------

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
}  # fmt: skip
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


@dataclass(frozen=True)
class Quantity:
    value: float
    unit: str | None
    text: str
    span: int = 0  # years a period covers from `value`: "the 1520s" 10, "the 19th century" 100
    hedged: bool = False  # "about 40": a value within 10 %


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
        ordinal = text[: m.start()].endswith("第")  # 第一, 第三: a rank, never a word
        word = _ZH_NOT_NUMBER.search(run + text[m.end() : m.end() + 1]) or _ZH_NOT_NUMBER.search(run)
        if word and not ordinal:
            continue
        if text[m.end() : m.end() + 2] == "分之" or (
            text[: m.start()].endswith("分之") and not text[: m.start()].endswith("百分之")
        ):
            continue  # 三分之一: a fraction; 百分之五十 is 50 %
        if (value := _zh_value(run)) is not None:
            unit = _UNITS.get(text[m.end() : m.end() + 1]) or _UNITS.get(text[m.end() : m.end() + 2])
            unit = "%" if text[: m.start()].endswith("百分之") else unit
            value, span, said = _period(value, m.group(), text[m.end() :], False)
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
    spans: list[tuple[int, int]] = []
    for m in _NUMBER.finditer(text):
        value = float(m.group("num").replace(",", ""))
        if (year := re.search(r"\b(1[0-9]|20)(\d\d)\s?[-–]\s?$", text[: m.start()])) and len(
            m.group("num")
        ) == 2:
            value = float(year.group(1) + m.group("num"))  # "2018–19": the second year is 2019
        scale = _SCALES.get((m.group("scale") or "").lower(), 1.0)
        unit = _UNITS.get((m.group("cur") or m.group("unit") or "").lower())
        if m.group("cur") and not m.group("scale"):  # "$3M", "$2B": millions, billions
            if (m.group("unit") or "").lower() == "m":
                scale = 1e6
            elif re.match(r"\s?(?:b|mn)\b", text[m.end() :], re.I):
                scale = 1e9 if text[m.end() :].lstrip()[:1] in "bB" else 1e6
        hedged = bool(_HEDGES.search(text[: m.start()][-24:]))
        after = text[m.end("num") + len(m.group("decade") or "") + len(m.group("ord") or "") :]
        value, span, said = _period(value * scale, m.group().strip(), after, bool(m.group("decade")))
        found.append(Quantity(value, None if span else unit, said, span, hedged))
        spans.append(m.span())
    for m in _ORDINAL.finditer(text) if held else ():
        word = m.group("ord").lower()
        if any(a <= m.start() < b for a, b in spans):
            continue
        if (
            not m.group("tens")
            and _FRACTION_BEFORE.search(text[: m.start()])
            and re.match(r"\s+of\b", text[m.end() :])
        ):
            continue  # "a third of the vote"
        value = _ORDINAL_VALUES[word] + (_WORD_VALUES[m.group("tens").lower()] if m.group("tens") else 0)
        value, span, said = _period(value, m.group(), text[m.end() :], False)
        found.append(Quantity(value, None, said, span))
        spans.append(m.span())
    for m in _SPELLED.finditer(text):
        if any(a <= m.start() < b for a, b in spans):
            continue
        scale = _SCALES.get((m.group("scale") or "").lower(), 1.0)
        unit = _UNITS.get((m.group("unit") or "").lower())
        hedged = bool(_HEDGES.search(text[: m.start()][-24:]))
        found.append(Quantity(_spelled(m.group("num")) * scale, unit, m.group().strip(), hedged=hedged))
    return found + (_zh_quantities(text) if CJK.search(text) else [])


def _same_quantity(claim: Quantity, held: Quantity) -> bool:
    if claim.unit and held.unit and claim.unit != held.unit:
        return False
    if claim.span:  # a period holds the years, and the shorter periods, inside it
        return claim.value <= held.value and held.value + max(held.span, 1) <= claim.value + claim.span
    if claim.hedged:  # "about 40": within 10 %; "around 1450": within 10 years
        slack = 10 if claim.unit is None and 1000 <= claim.value <= 2100 else 0.1 * max(abs(claim.value), 1.0)
        return abs(held.value - claim.value) <= slack
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
            months.add(_MONTHS[int(m.group(2)) - 1])
    years += [Quantity(2000.0 + int(m.group(1)), None, m.group()) for m in _SHORT_YEAR.finditer(text)]
    return years, months


def missing_numbers(sentence: str, passage: str) -> list[str]:
    """The numbers of `sentence` that `passage` does not hold as the same value and unit. A
    claim's Chinese numeral of one character (两, 三, 二月) is a word as often as a count: it is
    read in the passage (11 点 / 十一点), not checked in the claim."""
    held = quantities(passage, held=True) + dates(passage)[0]
    claimed = [q for q in quantities(sentence) if len(q.text.rstrip("多余来几")) > 1 or not CJK.match(q.text)]
    return [q.text for q in claimed if not any(_same_quantity(q, h) for h in held)]


# --- names --------------------------------------------------------------------------------

_MONTHS = "january february march april may june july august september october november december".split()
FUNCTION = frozenset(
    "a an the he she it they we i you his her its their our this that these those there here "
    "in on at by for from to of with as after before during since until while when where if "
    "although though because but and or so yet also however today later then now once "
    "some many most all both each every few several such other another one no not never "
    "what which who how why whose many much more less only even still about around over under "
    "between through into upon within without against among despite according unlike like "
    "first second third last next finally meanwhile moreover furthermore additionally instead "
    "thus hence therefore indeed perhaps currently recently previously formerly originally".split()
)
_NOT_CJK = r"(?![\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff])"
# a word of a name: letters, not CJK characters ("Xbox" in "Xbox的销量" is a word of its own)
_NAME = re.compile(rf"{_NOT_CJK}[^\W\d_](?:{_NOT_CJK}[\w'’.\-])*", re.UNICODE)


def _name_form(word: str) -> str:
    """A name as compared: folded, no possessive, no dots ("U.K." → "uk", "Luther's" → "luther")."""
    word = re.sub(r"['’]s?$", "", word)
    folded = fold(word).replace(".", "").strip("-")
    for month in _MONTHS:  # "Dec." and "December", "Sept" and "September" are one name
        if len(folded) >= 3 and month.startswith(folded):
            return month
    return folded


JOINERS = frozenset(("of", "de", "von", "van", "der", "la", "du"))


def _opens_name(word: str, following: str) -> bool:
    """Whether a capitalised first word of a sentence is a name: not a function word ("He"), an
    adverb or participle ("Printing"), or a plural ("Scholars"), unless it is a possessive
    ("Luther's") or starts a run of capitalised words ("Kent State")."""
    folded = fold(word)
    if folded in FUNCTION or folded.endswith(("ly", "ing", "ed")):
        return False
    if re.search(r"['’]s?$", word) or following[:1].isupper():
        return True
    return not re.search(r"[^aeiousy]s$|[^s]es$", folded)  # "Scholars", "Lighthouses": a plural


def name_runs(sentence: str) -> list[list[str]]:
    """Runs of capitalised words and acronyms ("Johannes Gutenberg", "UK"), as compared; the
    sentence's first word only when it opens a name (`_opens_name`)."""
    runs: list[list[str]] = []
    current: list[str] = []
    words = [m for m in _NAME.finditer(sentence) if not sentence[: m.start()][-1:].isdigit()]  # "$3M", "5G"
    for i, match in enumerate(words):
        word = match.group().rstrip(".-") or match.group()
        capital = word[:1].isupper()
        first = i == 0 or bool(re.search(r"[.!?:;\"“(]\s*$", sentence[: match.start()]))
        if capital and first and not _opens_name(word, words[i + 1].group() if i + 1 < len(words) else ""):
            capital = False
        joined = i > 0 and not sentence[words[i - 1].end() : match.start()].strip()
        if current and not joined:  # "Topeka, Kansas" is two names
            runs.append(current)
            current = []
        if capital and CJK.search(word) is None:
            current.append(_name_form(word))
            if re.search(r"['’]s?$", word):  # "Disney's Hollywood Studios": two names
                runs.append(current)
                current = []
            continue
        if current and fold(word) in JOINERS and i + 1 < len(words):
            nxt = words[i + 1].group()
            if nxt[:1].isupper():
                current.append(fold(word))  # "University of Mainz" is one name
                continue
        if current:
            runs.append(current)
            current = []
    if current:
        runs.append(current)
    return [r for r in runs if r]


def _one_edit(a: str, b: str) -> bool:
    """Whether `a` and `b` differ by one letter added, dropped or changed ("Paterson" / "Patterson")."""
    if abs(len(a) - len(b)) > 1 or a == b:
        return a == b
    if len(a) > len(b):
        a, b = b, a
    i = next((k for k, (x, y) in enumerate(zip(a, b, strict=False)) if x != y), len(a))
    return a[i + (len(a) == len(b)) :] == b[i + 1 :]


def _known(word: str, held: set[str]) -> bool:
    if word in held:
        return True
    if len(word) >= 6 and any(len(other) >= 6 and _one_edit(word, other) for other in held):
        return True  # a name spelled one letter apart, as pages spell names
    for other in held:  # "German" / "Germany", "Italy" / "Italian": one stem, another ending
        shorter = min(len(word), len(other))
        if shorter >= 4:
            common = next((i for i, (a, b) in enumerate(zip(word, other, strict=False)) if a != b), shorter)
            if common >= max(4, shorter - 1):
                return True
    return False


# Words that say what kind of thing a name is ("Air Base", "Prefecture"): a name is held when
# the passage holds its other words
DESIGNATORS = frozenset(
    "air base airport station prefecture province county district region river lake mount island "
    "islands city town village church cathedral museum hospital university college school academy "
    "company corporation inc ltd club fc party street road avenue park stadium".split()
)
# The words glued in scraped text ("NewsOPINIONApril": News, OPINION, April)
_GLUED = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z\u00df-\u00ff]+|[A-Z]+|\w+")


def missing_names(sentence: str, passage: str) -> list[str]:
    """The names of `sentence` that `passage` holds in no form: the whole name, its last word
    (a surname alone), its initials ("United Kingdom" / "UK"), the name its initials stand
    for ("UK" / "United Kingdom"), its words glued ("A.V. Club" / "avclub"), its words but the
    kind of place ("Hamamatsu Air Base" / "Hamamatsu"), each spelled up to a letter apart;
    the passage's words read also unglued ("NewsOPINIONApril" holds April). A capitalised word
    the sentence also writes in lower case is a title's word, no name ("A Tribute to ...")."""
    words = _NAME.findall(passage)
    pieces = [p for w in words for p in _GLUED.findall(w.replace(".", " ").replace("-", " "))]
    held = {_name_form(w) for w in words + pieces} | dates(passage)[1]
    acronyms = {w.replace(".", "").lower() for w in re.findall(r"\b[A-Z](?:\.?[A-Z])+\b\.?", passage)}
    passage_runs = name_runs(passage)
    initials = {"".join(w[0] for w in run if w not in JOINERS) for run in passage_runs}
    alone = [r for r in passage_runs if len(r) == 1]
    common = {fold(w) for w in re.findall(r"\b[a-z][a-z]+\b", sentence)}  # "a tribute album": no name
    missing = []
    for run in name_runs(sentence):
        words = [w for w in run if w not in JOINERS and w not in common and w not in FUNCTION]
        if not words:
            continue
        if all(_known(w, held) for w in words):
            continue
        if len(words) > 1 and "".join(words) in held:  # "A.V. Club" / "avclub.com"
            continue
        proper = [w for w in words if w not in DESIGNATORS]
        if proper and len(proper) < len(words) and all(_known(w, held) for w in proper):
            continue  # "Hamamatsu Air Base" / "Hamamatsu": the kind of place is no name
        if len(words) == len(run) <= 3 and _known(run[-1], held) and not _namesake(run, passage_runs, held):
            continue  # a surname alone ("Gutenberg"), unless the passage gives it another given name
        if len(words) >= 3 and all(_known(w, held) for w in words[-2:]):  # titles: "Secretary Mike Pompeo"
            continue
        if len(words) > 1 and "".join(w[0] for w in words) in acronyms:
            continue
        if len(words) == 1 and words[0] in initials:
            continue
        if (
            len(words) == len(run) == 2
            and [words[0]] in alone
            and not any(r[0] == words[0] and len(r) > 1 for r in passage_runs)
        ):  # a given name alone ("Criss" for "Criss Oliva"), never another's ("Criss Angel")
            continue
        if (years := _WARS.get(" ".join(run))) and any(
            years[0] <= q.value <= years[1] for q in quantities(passage) + dates(passage)[0]
        ):  # "World War I" / "in 1916"
            continue
        missing.append(_written(run, sentence))
    return missing


def _written(run: list[str], sentence: str) -> str:
    """A name as `sentence` writes it ("Dürer's" for the compared form "durer")."""
    found = [m for m in _NAME.finditer(sentence)]
    folded = [_name_form(m.group().rstrip(".-") or m.group()) if m.group()[:1].isupper() else fold(m.group())
              for m in found]  # fmt: skip
    for i in range(len(found) - len(run) + 1):
        if folded[i : i + len(run)] == run:
            said = sentence[found[i].start() : found[i + len(run) - 1].end()]
            return re.sub(r"['’]s$", "", said).rstrip(".")
    return " ".join(run)


_WARS = {"world war i": (1914, 1918), "world war ii": (1939, 1945), "first world war": (1914, 1918),
         "second world war": (1939, 1945)}  # fmt: skip


def _namesake(run: list[str], passage_runs: list[list[str]], held: set[str]) -> list[str] | None:
    """The passage's name with the surname of `run` and another given name ("Pierre Curie" for
    "Marie Curie"), when the passage holds the claim's given name nowhere."""
    if len(run) < 2 or _known(run[0], held):
        return None
    return next((r for r in passage_runs if len(r) > 1 and r[-1] == run[-1] and r[0] != run[0]
                 and r[0] not in JOINERS), None)  # fmt: skip


def namesakes(sentence: str, passage: str) -> list[tuple[str, str]]:
    """(the sentence's name, the passage's) for each name of `sentence` whose surname the
    passage gives to another person ("Marie Curie" / "Pierre Curie"): another person named."""
    words = _NAME.findall(passage)
    held = {_name_form(w) for w in words}
    passage_runs = name_runs(passage)
    out = []
    for run in name_runs(sentence):
        if (other := _namesake(run, passage_runs, held)) is not None:
            out.append((_written(run, sentence), _written(other, passage)))
    return out


def _context(text: str, start: int, end: int) -> tuple[str | None, str | None]:
    """The content words (stems) right before and right after `text[start:end]`, with no other
    number between; where none stands between it and the number next to it, that number as
    written ("1992年2月": "2月" after 1992; "3-0": "0" after 3)."""
    ahead, behind = text[max(0, start - 40) : start], text[end : end + 40]
    before = terms(re.split(r"\d", ahead)[-1])  # no other number between
    after = terms(re.split(r"\d", behind)[0])
    if not before and (near := re.search(r"(\d[\d.,]*)\W{0,2}$", ahead)):
        before = [near.group(1)]
    if not after and (near := re.match(r"\W{0,2}(\d[\d.,]*)", behind)):
        after = [near.group(1)]
    if before and CJK.match(before[-1]):  # a CJK character is no word: the two before it, or after
        before = ["".join(before[-2:])]
    if after and CJK.match(after[0]):
        after = ["".join(after[:2])]
    return (before[-1] if before else None), (after[0] if after else None)


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


def _kind(q: Quantity) -> str:
    return "year" if q.unit is None and not q.span and 1000 <= q.value <= 2100 else (q.unit or "")


def renumbered(sentence: str, carrier: str, missing: list[str]) -> tuple[str, str] | None:
    """(the sentence's number, the carrier's) when `carrier` gives a different number of the same
    kind in the same place: the same word before it or after it ("sank in 1912" / "sank in
    1913", "25 points" / "20 points"), for a number of `sentence` the passage lacks."""
    mine = _located(sentence, held=False)
    # a number of the carrier that is one of the sentence's is paired already ("March 4 … March 6"
    # against "March 6th"): it is no other number in the place of the sentence's 4
    theirs = [t for t in _located(carrier, held=True) if not any(_same_quantity(q, t[0]) for q, _, _ in mine)]
    for q, start, end in mine:
        if q.text not in missing:
            continue
        before, after = _context(sentence, start, end)
        for h, h_start, h_end in theirs:
            if _kind(h) != _kind(q) or _same_quantity(q, h):
                continue
            h_before, h_after = _context(carrier, h_start, h_end)
            if (before and before == h_before) or (after and after == h_after):
                return q.text, h.text
    return None
