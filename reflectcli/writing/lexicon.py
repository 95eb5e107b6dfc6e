"""Words as the project compares them: one stemmer (Snowball's English, after WordNet's irregular
forms: "sank" is "sink", "won" is "win", "children" is "child") and the opposite words of English
(WordNet 3.0's antonym relation) and Chinese (the antonym list NL-Augmenter redistributes under MIT).

The lists are compact files derived once from their public sources by `bench/build_lexicon.py`
and shipped in `writing/data/` with their licences (see the README there). They are read the
first time a word is compared: commands that compare none never load them."""

from __future__ import annotations

import threading
from functools import lru_cache
from importlib import resources

_LOCAL = threading.local()


def _stemmer():
    """This thread's Snowball stemmer: one keeps its word in its own fields while it stems, so
    two threads sharing one (a run's searches at once) corrupt each other's words."""
    if not hasattr(_LOCAL, "stemmer"):
        import snowballstemmer

        _LOCAL.stemmer = snowballstemmer.stemmer("english")
    return _LOCAL.stemmer


def _pairs(name: str) -> list[tuple[str, str]]:
    text = resources.files("reflectcli.writing").joinpath("data", name).read_text(encoding="utf-8")
    return [(a, b) for a, space, b in (line.partition(" ") for line in text.splitlines()) if space]


@lru_cache(maxsize=1)
def irregular() -> dict[str, str]:
    """An irregular form's base ("sank" → "sink", "better" → "good")."""
    return dict(_pairs("irregular_en.txt"))


@lru_cache(maxsize=65536)
def stem(word: str) -> str:
    """A lower-case English word's stem: its base if the form is irregular, then Snowball's stem
    ("works", "worked", "working" → "work"; "sank" → "sink"; "revision" → "revis")."""
    return _stemmer().stemWord(irregular().get(word, word))


def stems(words: list[str]) -> list[str]:
    return [stem(w) for w in words]


@lru_cache(maxsize=65536)
def forms(word: str) -> frozenset[str]:
    """The stems a word may be compared as: its stem, and Snowball's stem of the form itself
    when it is irregular ("born": "bear" and "born", the word "born" / "died" opposes)."""
    return frozenset((stem(word), _stemmer().stemWord(word)))


@lru_cache(maxsize=1)
def english_opposites() -> dict[str, frozenset[str]]:
    """Each stem and the stems of its opposite words ("increas" → {"decreas"}, "safe" →
    {"danger", "unsaf"}), both ways."""
    out: dict[str, set[str]] = {}
    for a, b in _pairs("antonyms_en.txt"):  # lemmas: stemmed as written ("born" is no "bear")
        x, y = _stemmer().stemWord(a), _stemmer().stemWord(b)
        if x != y:
            out.setdefault(x, set()).add(y)
            out.setdefault(y, set()).add(x)
    return {k: frozenset(v) for k, v in out.items()}


# pairs of the Chinese list that are no opposites: another name (别名 "alias" / 笔名 "pen name"),
# one wrong done (不法 / 违法, both "unlawful"); read in real text (twentieth pass)
_NOT_OPPOSITES_ZH = frozenset((frozenset(("别名", "笔名")), frozenset(("不法", "违法"))))


@lru_cache(maxsize=1)
def chinese_words() -> frozenset[str]:
    """Every word of the Chinese list, as written (its near-synonym pairs' words too)."""
    return frozenset(w for pair in _pairs("antonyms_zh.txt") for w in pair)


@lru_cache(maxsize=1)
def chinese_opposites() -> dict[str, frozenset[str]]:
    """Each Chinese word of the list and its opposite words (有效 → {无效}), both ways; not the
    list's few near-synonyms (`_NOT_OPPOSITES_ZH`)."""
    out: dict[str, set[str]] = {}
    for a, b in _pairs("antonyms_zh.txt"):
        if frozenset((a, b)) in _NOT_OPPOSITES_ZH:
            continue
        out.setdefault(a, set()).add(b)
        out.setdefault(b, set()).add(a)
    return {k: frozenset(v) for k, v in out.items()}


def _word_set(name: str) -> frozenset[str]:
    """The words of a shipped list of one word a line (`data/<name>`)."""
    path = resources.files("reflectcli.writing").joinpath("data", name)
    return frozenset(path.read_text(encoding="utf-8").split())


@lru_cache(maxsize=1)
def english_verbs() -> frozenset[str]:
    """Words used mostly as verbs ("come", "keep", "call"; not "water"): an imperative opens with one."""
    return _word_set("verbs_en.txt")


@lru_cache(maxsize=1)
def english_adjectives() -> frozenset[str]:
    """Words WordNet holds as adjectives and never capitalises ("simple", "recurrent"; not
    "french", "young"): a sentence that opens with one opens with no name."""
    return _word_set("adjectives_en.txt")


@lru_cache(maxsize=1)
def places_within() -> dict[str, frozenset[str]]:
    """A place's name (folded) and the names of the places it is part of, to the largest
    ("london" → {"england", "united kingdom", "uk", …}; WordNet 3.0's part holonyms)."""
    text = resources.files("reflectcli.writing").joinpath("data", "places_en.txt").read_text(encoding="utf-8")
    return {
        name: frozenset(inside.split("|"))
        for name, tab, inside in (line.partition("\t") for line in text.splitlines())
        if tab
    }


def one_within(a: str, b: str) -> bool:
    """Whether one of two places (their names, any case) is part of the other ("London" and
    "England", "England" and "London")."""
    a, b = a.lower(), b.lower()
    found = places_within()
    return b in found.get(a, ()) or a in found.get(b, ())
