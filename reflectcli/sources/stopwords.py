"""English stop words: a query made only of them ("the of and") says nothing to search for.
The list is Snowball's English stop list, the one PostgreSQL's `english` configuration drops
(its tsearch_data/english.stop), so both stores agree on what a stop word is."""

from __future__ import annotations

import re

STOP_WORDS = frozenset((
    "i me my myself we our ours ourselves you your yours yourself yourselves he him his himself she "
    "her hers herself it its itself they them their theirs themselves what which who whom this that "
    "these those am is are was were be been being have has had having do does did doing a an the and "
    "but if or because as until while of at by for with about against between into through during "
    "before after above below to from up down in out on off over under again further then once here "
    "there when where why how all any both each few more most other some such no nor not only own "
    "same so than too very s t can will just don should now "
).split())  # fmt: skip
_WORD = re.compile(r"\w+")


def content_words(query: str) -> list[str]:
    """The query's distinct words that are not stop words, lower case."""
    return list(dict.fromkeys(w for w in (m.lower() for m in _WORD.findall(query)) if w not in STOP_WORDS))


def only_stop_words(query: str) -> bool:
    """True when the query has words and every one is a stop word."""
    return bool(_WORD.search(query)) and not content_words(query)


def stop_words_message(query: str) -> str:
    return (f"“{query.strip()}” holds only stop words (words such as “the” or “of” that most "
            "texts have): nothing to search for")  # fmt: skip
