"""Is a critic's text a critique at all? Judged by its form, never by its topic.

Not a critique: too few words, the prompt's own example or template, the tool's own messages
echoed, an error or status message, a data dump, a fragment cut from something else, a
refusal, a complaint about the answer's format. A critique may be about anything: tracebacks,
databases, AI, a `KeyError`, and it may open with a citation (`[S2] does not support ...`) or
a section's name in brackets (`[Intro] The opening is vague.`).
"""

from __future__ import annotations

import ast
import re
import unicodedata
from collections.abc import Callable

from reflectcli.writing.citations import CITATION
from reflectcli.writing.textops import normalize

EXAMPLE_TEXTS = {
    "a concrete actionable change",
    "a concrete change",
    "what is wrong in two or three sentences",
    "what this section must achieve",
    "section title",
}
# what the tool itself says to the critic (retry messages, validation errors): echoed, not a review
OWN_MESSAGES = (
    "is too short to be a critique",
    "say in two or three sentences what is wrong",
    "is not a critique of the article",
    "name a concrete change to the article",
    "that answer could not be used",
    "reply again with only the json object",
    "the json did not match the schema",
    "following the requested format exactly",
)

# scripts written without spaces between words: CJK, Thai, Lao, Khmer, Myanmar
_UNSPACED = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\u0e00-\u0eff\u1000-\u109f"
                       r"\u1780-\u17ff]")  # fmt: skip
_STRIP = ".,;:!?()[]{}\"'“”‘’«»*`_~"
# inline code, TeX, links, numbered citations and arrows ("Eqn. 7 -> Eqn. (7)") are part of a
# technical critique's prose, not a sign of a data dump
_NUMBERED = re.compile(r"[\[{]\d+(?:\s*[,;–-]\s*\d+)*[\]}]")  # numbered references: "[1] proposed it"
_INLINE = re.compile(
    r"`[^`\n]{1,60}`|\$[^$\n]+\$|\\\(.+?\\\)|https?://\S+|"
    + _NUMBERED.pattern
    + r"|(?<!\S)(?:->|=>|→|←|<-)(?!\S)"
)
# a template's slots: `[section_name]`, `[issue/topic]`, `<section title>`, `{section_title}`
_SLOT = re.compile(
    r"\[[a-z]{2,}(?:_[a-z]{2,})+\]|\[[a-z]{4,}(?:/[a-z]{4,})+\]|<[a-z]+(?:[ _/-][a-z]+)+>|"
    r"\{[a-z]{2,}(?:_[a-z]{2,})+\}"
)
# an exception with its message ("ValueError: ...", "openai.RateLimitError: ...") or a traceback
_ERROR = re.compile(
    r"^(?:(?:\w+\.)*[A-Z]\w*(?:Error|Exception|Warning)\s*:|traceback \(most recent call last\)|"
    r"(?:\w+ )?error\W*$|an? (?:unexpected |internal )?error (?:has )?occurr)",
    re.I,
)
# a status line about the tool's own work, the whole text: "This information has been added to a
# JSON file." (a critique may say that a record "has been written to the database")
_STATUS = re.compile(
    r"^(?:this|it|the|your|my) (?:information|data|review|result|results|output|content|answer|"
    r"feedback|changes?)\b[^.]{0,30}\b(?:has|have) been (?:added|saved|stored|written|updated|"
    r"exported)\b[^.]{0,40}\b(?:file|database|folder|directory|disk|table)\W*$",
    re.I,
)
# a refusal, at the start: "As an AI, I cannot review this.", "I'm sorry, but I can't help."
_REFUSAL = re.compile(
    r"^(?:as an ai\b[^,.]*[,.]?\s*)?(?:(?:i'm|i am) sorry|sorry|i apologi[sz]e)?[,.]?\s*(?:but\s+)?"
    r"i (?:cannot|can't|can not|am unable to|am not able to|won't|will not) "
    r"(?:help|assist|review|do|provide|comply|fulfil|fulfill|complete)\b",
    re.I,
)
# a complaint about the answer's own format, not the article: "The JSON does not meet the
# specified requirements" (the tool's retry message, paraphrased)
_FORMAT = re.compile(
    r"^(?:the|this|your|my) (?:json|answer|response|output|reply)(?: object)? "
    r"(?:does|did|is|was|do)(?: not|n't) [^.]*\b(?:requirements?|schema|format|specifications?|"
    r"instructions)\b",
    re.I,
)
_BARE = {"none", "null", "n a", "na", "ok", "yes", "no", "true", "false", "undefined", "nan"}
MIN_PROSE = 0.4  # at least this share of a text's tokens are words: below, it is data or code


def _is_word(token: str) -> bool:
    """Letters (with their combining marks: Devanagari, Bengali, Tamil ...), maybe joined by
    an apostrophe or a hyphen; a date, an id, a number or a file name is not a word."""
    token = token.strip(_STRIP)
    if not token or not any(unicodedata.category(ch).startswith("L") for ch in token):
        return False
    return all(unicodedata.category(ch)[0] in "LM" or ch in "'’-/" for ch in token)


def prose_words(text: str) -> int:
    """Words made of letters; in scripts written without spaces (Chinese, Japanese, Thai, ...)
    every two characters count as a word."""
    unspaced = len(_UNSPACED.findall(text))
    return unspaced // 2 + sum(1 for w in text.split() if not _UNSPACED.search(w) and _is_word(w))


_NUMBER = re.compile(r"[(\[]?\d+(?:[.,]\d+)*%?[)\]]?[.,;:]?")


def _line_share(line: str) -> float | None:
    """Words / (words + other tokens) in one line; numbers count as neither (None: no token)."""
    words = others = 0
    for token in _INLINE.sub(" ", line).split():
        if unspaced := len(_UNSPACED.findall(token)):
            words += max(1, unspaced // 2)
        elif _is_word(token):
            words += 1
        elif _NUMBER.fullmatch(token):  # "Tables 2, 3 and 5", "lines 177, 206": neither
            continue
        elif any(unicodedata.category(ch)[0] in "LNS" for ch in token):
            others += 1
    return words / (words + others) if words + others else None


def prose_share(text: str) -> float:
    """The share of words among the tokens of the text's most prose-like line (inline code,
    TeX, links and bare punctuation left out; a run of an unspaced script counts as its
    words): a critique with a table or a formula in it still has a line of prose. 1.0 when
    no token is left."""
    shares = [x for x in map(_line_share, text.splitlines()) if x is not None]
    return max(shares, default=1.0)


def _opening(text: str) -> str:
    """The text after an opening citation or section name in brackets ("[S2, S3] ...",
    "[Intro] ...", "(Section 2) ..."), which are a critique's address, not its form."""
    body = text.strip()
    if found := CITATION.match(body) or _NUMBERED.match(body):
        return body[found.end() :].lstrip(" :-–—")
    if found := re.match(r"[\[(][^\[\]()\n]{1,60}[\])]\s*[:\-–—]?\s*", body):
        rest = body[found.end() :]
        if rest and not _literal(body):
            return rest
    return body


def _literal(text: str) -> bool:
    """The text opens with a Python or JSON literal (a list, a dict, a set): a data dump."""
    body = text.lstrip()
    if not body or body[0] not in "[{(":
        return False
    close = {"[": "]", "{": "}", "(": ")"}[body[0]]
    end = body.find(close)
    while end != -1:
        try:
            value = ast.literal_eval(body[: end + 1])
        except (ValueError, SyntaxError, MemoryError, RecursionError):
            end = body.find(close, end + 1)
            continue
        if isinstance(value, list | tuple | set) and all(isinstance(x, int) for x in value):
            return False  # "[1, 2] already proposed it", "{1} Bellavia, F.": numbered references
        return isinstance(value, list | dict | set | tuple) and bool(value)
    return False


def _short(text: str, min_words: int) -> str | None:
    if prose_words(text) < min_words or normalize(text) in _BARE:
        return f"{text[:80]!r} is too short to be a critique (or not words)"
    return None


def _template(text: str) -> bool:
    """The text is a template: its slots ("[section_name]", "<section title>") are a third or
    more of its tokens (a review may quote one: 'a sentence like "The [doctor/nurse] ..."')."""
    plain = _INLINE.sub(" ", text)
    slots = sum(len(m.group().split()) for m in _SLOT.finditer(plain))
    return slots > 0 and slots * 3 >= len(plain.split())


def _example(text: str, min_words: int) -> str | None:
    if normalize(text) in EXAMPLE_TEXTS or _template(text):
        return f"{text[:80]!r} is the example's text"
    plain = normalize(text)
    if any(normalize(own) in plain for own in OWN_MESSAGES):
        return f"{text[:80]!r} repeats the tool's own message"
    return None


def _error(text: str, min_words: int) -> str | None:
    body = _opening(text)
    if _ERROR.search(body) or _STATUS.search(body):
        return f"{text[:80]!r} is an error or status message, not a critique"
    return None


# markup, from its start: a closing tag, a declaration, or a tag with attributes or closed
# later ('</p> <section id="132">'); "<c> I was looking ..." is a list label
_MARKUP = re.compile(r"\s*(?:</|<[!?]|<[A-Za-z][\w-]*\s+[\w-]+=|<([A-Za-z][\w-]*)\b[^>]*>.*</\1>)", re.S)


def _data(text: str, min_words: int) -> str | None:
    body = _opening(text)
    if _literal(body) or _MARKUP.match(body) or prose_share(body) < MIN_PROSE:
        return f"{text[:80]!r} is data or code, not a critique"
    return None


def _fragment(text: str, min_words: int) -> str | None:
    """A text that starts mid-sentence, after a comma, a semicolon or a lone full stop: cut from
    something (a stray bracket before a capital is a typo, not a cut)."""
    if re.match(r"\s*(?:[,;]|\.(?![.\s]))", text):
        return f"{text[:80]!r} is a fragment, not a critique"
    return None


def _refusal(text: str, min_words: int) -> str | None:
    if _REFUSAL.search(_opening(text)):
        return f"{text[:80]!r} is a refusal, not a critique"
    return None


def _format(text: str, min_words: int) -> str | None:
    if _FORMAT.search(_opening(text)):
        return f"{text[:80]!r} is about the answer's format, not the article"
    return None


RULES: dict[str, Callable[[str, int], str | None]] = {
    "short": _short, "example": _example, "error": _error, "data": _data,
    "fragment": _fragment, "refusal": _refusal, "format": _format,
}  # fmt: skip


def critique_problem(text: str, min_words: int = 3) -> tuple[str, str] | None:
    """(rule, why) for the first rule `text` breaks as a critique, None when it may be one."""
    for name, rule in RULES.items():
        if why := rule(text, min_words):
            return name, why
    return None


def not_a_critique(text: str, min_words: int = 3) -> str | None:
    """Why `text` is not an editor's critique (None when it may be one)."""
    found = critique_problem(text, min_words)
    return found[1] if found else None
