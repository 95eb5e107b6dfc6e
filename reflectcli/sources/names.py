"""Names of a sentence, as the veto in `verify.check` compares them with a passage: capitalised
words and acronyms in the forms real text writes them (a surname alone, initials, words glued,
spelled a letter apart), and another person of the same surname (`namesakes`)."""

from __future__ import annotations

import re
from functools import lru_cache

from reflectcli.sources.quantities import MONTHS, dates, quantities
from reflectcli.writing.lexicon import english_adjectives, one_within
from reflectcli.writing.textops import CJK, fold

FUNCTION = frozenset(
    "a an the he she it they we i you his her its their our this that these those there here "
    "in on at by for from to of with as after before during since until while when where if "
    "although though because but and or so yet also however today later then now once "
    "some many most all both each every few several such other another one no not never "
    "what which who how why whose many much more less only even still about around over under "
    "between through into upon within without against among despite according unlike like "
    "first second third last next finally meanwhile moreover furthermore additionally instead "
    "thus hence therefore indeed perhaps currently recently previously formerly originally "
    # a sentence opened by a bound or a hedge ("Fewer than 50 …", "Up to 30 …", "Almost 30 …")
    "fewer almost up just".split()
)
_NOT_CJK = r"(?![\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff])"
# a word of a name: letters, not CJK characters ("Xbox" in "Xbox的销量" is a word of its own)
_NAME = re.compile(rf"{_NOT_CJK}[^\W\d_](?:{_NOT_CJK}[\w'’.\-])*", re.UNICODE)


def _name_form(word: str) -> str:
    """A name as compared: folded, no possessive, no dots ("U.K." → "uk", "Luther's" → "luther")."""
    word = re.sub(r"['’]s?$", "", word)
    folded = fold(word).replace(".", "").strip("-")
    for month in MONTHS:  # "Dec." and "December", "Sept" and "September" are one name
        if len(folded) >= 3 and month.startswith(folded):
            return month
    return folded


JOINERS = frozenset(("of", "de", "von", "van", "der", "la", "du"))


def _opens_name(word: str, following: str) -> bool:
    """Whether a capitalised first word of a sentence is a name: not a function word ("He"), an
    adverb or participle ("Printing"), or a plural ("Scholars"), unless it is a possessive
    ("Luther's") or starts a run of capitalised words ("Kent State"), or an adjective WordNet
    never capitalises ("Simple", "Recurrent": `english_adjectives`)."""
    folded = fold(word)
    if folded in FUNCTION or folded.endswith(("ly", "ing", "ed")):
        return False
    if re.search(r"['’]s?$", word) or following[:1].isupper():
        return True
    if folded in english_adjectives():
        return False  # "Simple probiotics help": an adjective, no name (twenty-second pass)
    return not re.search(r"[^aeiousy]s$|[^s]es$", folded)  # "Scholars", "Lighthouses": a plural


_AFTER_END = re.compile(r"[.!?:;\"“(]\s*$")


def name_runs(sentence: str) -> list[list[str]]:
    """Runs of capitalised words and acronyms ("Johannes Gutenberg", "UK"), as compared; the
    sentence's first word only when it opens a name (`_opens_name`)."""
    runs: list[list[str]] = []
    current: list[str] = []
    words = [m for m in _NAME.finditer(sentence) if not sentence[: m.start()][-1:].isdigit()]  # "$3M", "5G"
    for i, match in enumerate(words):
        word = match.group().rstrip(".-") or match.group()
        capital = word[:1].isupper()
        # what stands between the word before and this one, and that word's last character
        # (not the whole text before: a sentence of 20,000 words is read in linear time)
        first = i == 0 or bool(_AFTER_END.search(sentence[words[i - 1].end() - 1 : match.start()]))
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


class _Held(set):
    """A passage's names as compared, with the index `_known` reads them by: the names of 6
    letters or more by their first and last three letters (one edit keeps one of the two), of 4
    or more by their first four (a common stem keeps them). Built on first use; a passage of n
    names against a claim of n was n × n (thirteenth pass)."""

    _ends: dict[str, list[str]] | None = None
    _stems: dict[str, list[str]] | None = None

    def near(self, word: str) -> tuple[list[str], list[str]]:
        """The names that may be `word` one letter apart, and those that may share its stem."""
        if self._ends is None or self._stems is None:
            self._ends, self._stems = {}, {}
            for other in self:
                if len(other) >= 6:
                    self._ends.setdefault("<" + other[:3], []).append(other)
                    self._ends.setdefault(">" + other[-3:], []).append(other)
                if len(other) >= 4:
                    self._stems.setdefault(other[:4], []).append(other)
        ends = self._ends.get("<" + word[:3], []) + self._ends.get(">" + word[-3:], [])
        return ends, self._stems.get(word[:4], [])


def _known(word: str, held: set[str]) -> bool:
    if word in held:
        return True
    ends, stems = held.near(word) if isinstance(held, _Held) else (held, held)
    if len(word) >= 6 and any(len(other) >= 6 and _one_edit(word, other) for other in ends):
        return True  # a name spelled one letter apart, as pages spell names
    for other in stems:  # "German" / "Germany", "Italy" / "Italian": one stem, another ending
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
    held = _Held({_name_form(w) for w in words + pieces} | dates(passage)[1])
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
    found, folded, starts = _words_of(sentence)
    for i in starts.get(run[0], []) if run else []:
        if folded[i : i + len(run)] == run:
            said = sentence[found[i].start() : found[i + len(run) - 1].end()]
            return re.sub(r"['’]s$", "", said).rstrip(".")
    return " ".join(run)


@lru_cache(maxsize=8)
def _words_of(sentence: str) -> tuple[list[re.Match[str]], list[str], dict[str, list[int]]]:
    """The words of `sentence`, their compared forms, and where each form stands: read once per
    sentence, not once per name (a claim of n names was n × n; thirteenth pass)."""
    found = list(_NAME.finditer(sentence))
    folded = [_name_form(m.group().rstrip(".-") or m.group()) if m.group()[:1].isupper() else fold(m.group())
              for m in found]  # fmt: skip
    starts: dict[str, list[int]] = {}
    for i, form in enumerate(folded):
        starts.setdefault(form, []).append(i)
    return found, folded, starts


_WARS = {"world war i": (1914, 1918), "world war ii": (1939, 1945), "first world war": (1914, 1918),
         "second world war": (1939, 1945)}  # fmt: skip


# The last words of names of things, not surnames: "Empire State Building" is no namesake of
# "Chrysler Building" (sixth pass, FEVER-Symmetric dev)
KINDS = DESIGNATORS | frozenset(
    "building tower bridge centre center palace castle temple theatre theater hotel square library "
    "institute foundation society records award prize war bay sea ocean state states kingdom republic "
    "empire dynasty cup league festival series band".split()
)


def _namesake(run: list[str], passage_runs: list[list[str]], held: set[str]) -> list[str] | None:
    """The passage's name with the surname of `run` and another given name ("Pierre Curie" for
    "Marie Curie"), when the passage holds the claim's given name nowhere: not a longer form of it
    ("Timothy Simon Roth" for "Tim Roth") nor an article ("The Exponents" for "Dance Exponents").
    A passage's name that is the end of the claim's is the same one said shorter ("Supreme
    Court" for "United States Supreme Court")."""
    if len(run) < 2 or _known(run[0], held):
        return None
    return next((r for r in passage_runs if len(r) > 1 and r[-1] == run[-1] and r[0] != run[0]
                 and r[0] not in JOINERS and r[0] not in FUNCTION and run[-len(r):] != r
                 and not (len(run[0]) >= 3 and r[0].startswith(run[0]))), None)  # fmt: skip


def namesakes(sentence: str, passage: str) -> list[tuple[str, str]]:
    """(the sentence's name, the passage's) for each name of `sentence` whose surname the
    passage gives to another person ("Marie Curie" / "Pierre Curie"): another person named."""
    words = _NAME.findall(passage)
    held = _Held({_name_form(w) for w in words})
    passage_runs = name_runs(passage)
    out = []
    for run in name_runs(sentence):
        if run[-1] in KINDS:
            continue  # "Chrysler Building" / "Empire State Building": two buildings, no one's surname
        if (other := _namesake(run, passage_runs, held)) is not None:
            out.append((_written(run, sentence), _written(other, passage)))
    return out


# a run of capitalised words, as `renamed` places it: its two words before and after
_RUN = re.compile(r"[A-Z][\w'’.\-]*(?:\s+(?:(?:of|de|von|van|der|la|du)\s+)?[A-Z][\w'’.\-]*)*")
_WORD = re.compile(r"[^\W_]+", re.UNICODE)


def _places(text: str) -> list[tuple[str, tuple[str, ...], tuple[str, ...]]]:
    """Each run of capitalised words of `text` with the two words before it and after it
    (folded; fewer at the text's ends)."""
    out = []
    for m in _RUN.finditer(text):
        before = tuple(fold(w) for w in _WORD.findall(text[max(0, m.start() - 60) : m.start()])[-2:])
        after = tuple(fold(w) for w in _WORD.findall(text[m.end() : m.end() + 60])[:2])
        out.append((m.group().rstrip(".").removesuffix("'s").removesuffix("’s"), before, after))
    return out


def _telling(words: tuple[str, ...]) -> bool:
    """Two words that place a name: both there, one of them no function word ("born in", "directed
    by"; not "in the")."""
    return len(words) == 2 and any(w not in FUNCTION and not w.isdigit() for w in words)


# capitalised words that name no one: function words, pronouns, a reply or greeting
_NO_NAME = FUNCTION | frozenset(
    "my your me him them us mine yours ours theirs yes oh okay ok hi hello hey well "
    "thanks thank sorry please dear sir madam".split()
)


def _forms(run: str) -> set[str]:
    """The words of a run of capitalised words as `renamed` compares them: folded, no function
    word ("The", "Its"), a word spelled a letter apart ("L_C_D_") joined."""
    return {f for w in _NAME.findall(run.replace("_", "")) if (f := _name_form(w)) not in _NO_NAME}


def _initialled(a: str, b: str) -> bool:
    """Whether one name is the other's initials, or their start ("PGA" for "Producers Guild of
    America Award" and for "Producers Guild"), the longer name of two words or more."""
    for short, long in ((a, b), (b, a)):
        letters = short.replace(".", "")
        words = [w for w in _NAME.findall(long) if w.lower() not in JOINERS and w.lower() not in FUNCTION]
        if len(letters) >= 2 and letters.isupper() and len(words) >= 2:
            initials = "".join(w[0] for w in words).upper()
            if initials.startswith(letters) or letters.startswith(initials):
                return True
    return False


def renamed(sentence: str, carrier: str, missing: list[str]) -> tuple[str, str] | None:
    """(the sentence's name, the carrier's) when `carrier` names another in the place of a name
    of `sentence` the passage holds in no form (`missing`): the same two words before it or
    after it ("was born in Mainz" / "was born in Strasbourg", "Sydney is the capital" /
    "Canberra is the capital"), the carrier's name one the sentence does not name, and neither
    place part of the other (WordNet's: "born in England" / "born in London" is no contradiction)."""
    if not missing or CJK.search(sentence):
        return None  # (in Chinese text, the words around a Latin name are no words to compare)
    said = {_name_form(w) for w in _NAME.findall(sentence)}
    placed: dict[tuple[str, ...], list[tuple[str, set[str]]]] = {}  # each place, its names: read once
    for other, o_before, o_after in _places(carrier):
        # not a pronoun ("It", "Its") nor a name the sentence says too
        if (forms := _forms(other)) and not forms <= said:
            for key in {("<", *o_before), (">", *o_after)}:
                placed.setdefault(key, []).append((other, forms))
    for name, before, after in (p for p in _places(sentence) if p[0] in missing):
        own = _forms(name)
        there = (placed.get(("<", *before), []) if _telling(before) else []) + (
            placed.get((">", *after), []) if _telling(after) else []
        )
        for other, forms in there:
            if not forms & own and not _initialled(name, other) and not one_within(name, other):
                return name, other  # not the same one said shorter or spelled out ("F-35" for
                # "Lockheed Martin F-35", "L_C_D_" for "LCD"); no place part of the other
    return None
