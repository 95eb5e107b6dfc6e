"""Languages: `--lang fr`, `--lang French` and `--lang français` all mean French. Prompts name
the language in English and in itself ("French (français)"), which small models follow far
better than a bare code."""

from __future__ import annotations

import re

# ISO 639-1 code: (English name, native name)
LANGUAGES = {
    "ar": ("Arabic", "العربية"),
    "bn": ("Bengali", "বাংলা"),
    "ca": ("Catalan", "català"),
    "cs": ("Czech", "čeština"),
    "da": ("Danish", "dansk"),
    "de": ("German", "Deutsch"),
    "el": ("Greek", "Ελληνικά"),
    "en": ("English", "English"),
    "es": ("Spanish", "español"),
    "fa": ("Persian", "فارسی"),
    "fi": ("Finnish", "suomi"),
    "fr": ("French", "français"),
    "he": ("Hebrew", "עברית"),
    "hi": ("Hindi", "हिन्दी"),
    "hu": ("Hungarian", "magyar"),
    "id": ("Indonesian", "Bahasa Indonesia"),
    "it": ("Italian", "italiano"),
    "ja": ("Japanese", "日本語"),
    "ko": ("Korean", "한국어"),
    "nl": ("Dutch", "Nederlands"),
    "no": ("Norwegian", "norsk"),
    "pl": ("Polish", "polski"),
    "pt": ("Portuguese", "português"),
    "ro": ("Romanian", "română"),
    "ru": ("Russian", "русский"),
    "sv": ("Swedish", "svenska"),
    "sw": ("Swahili", "Kiswahili"),
    "th": ("Thai", "ไทย"),
    "tr": ("Turkish", "Türkçe"),
    "uk": ("Ukrainian", "українська"),
    "vi": ("Vietnamese", "Tiếng Việt"),
    "zh": ("Chinese", "中文"),
}
VARIANTS = {
    "zh-cn": ("Simplified Chinese", "简体中文"),
    "zh-hans": ("Simplified Chinese", "简体中文"),
    "zh-tw": ("Traditional Chinese", "繁體中文"),
    "zh-hant": ("Traditional Chinese", "繁體中文"),
    "pt-br": ("Brazilian Portuguese", "português do Brasil"),
    "en-us": ("American English", "American English"),
    "en-gb": ("British English", "British English"),
}


def resolve_language(value: str) -> str:
    """A language as prompts name it, e.g. "French (français)"; raises ValueError on a code or a
    name no language has (CLDR's list of language names, which Babel carries, decides)."""
    text = value.strip()
    key = text.lower().replace("_", "-")
    if key in VARIANTS:
        english, native = VARIANTS[key]
    elif key in LANGUAGES:
        english, native = LANGUAGES[key]
    elif re.fullmatch(r"[a-z]{2,3}(-[a-z0-9]{2,8})?", key) and key not in _names():
        base = key.split("-")[0]
        if base in LANGUAGES:
            english, native = LANGUAGES[base]
        elif base in _codes():
            return _codes()[base]
        else:
            raise ValueError(f"unknown language code {text!r}: use a name such as 'French' or a "
                             "code such as 'fr', 'de', 'zh-CN'")  # fmt: skip
    else:
        for english, native in [*LANGUAGES.values(), *VARIANTS.values()]:
            if key in (english.lower(), native.lower()):
                break
        else:
            if key in _names():
                return _names()[key]
            raise ValueError(_unknown_name(text))
    return english if english == native else f"{english} ({native})"


def _codes() -> dict[str, str]:
    """Every language code CLDR names, with its English name (Babel ships CLDR; courlan, which
    trafilatura needs, depends on it)."""
    global _CLDR
    if _CLDR is None:
        from babel import Locale

        _CLDR = dict(Locale("en").languages)
    return _CLDR


_CLDR: dict[str, str] | None = None


def _names() -> dict[str, str]:
    return {name.lower(): name for name in _codes().values()}


def _unknown_name(text: str) -> str:
    import difflib

    close = difflib.get_close_matches(text.lower(), list(_names()), n=1, cutoff=0.7)
    hint = f" (did you mean {_names()[close[0]]!r}?)" if close else ""
    return (f"unknown language {text!r}{hint}: use a language's name, such as 'French' or "
            "'Klingon', or a code such as 'fr', 'de', 'zh-CN'")  # fmt: skip


# --- which language a text is written in ------------------------------------------------------
#
# A text's script decides most of it (Han, Arabic, Cyrillic ... letters), and among Latin-script
# texts English is told by its function words, which make up about two words in five of English
# prose and few of other languages'. That is all the run needs to say: whether the embedded model
# wrote the language asked for (it writes English). A statistical detector (langid, lingua) would
# name more Latin-script languages, at a model file and a dependency for a question this answers.

_SCRIPTS = {  # the first word of a letter's Unicode name: the language it stands for here
    "CJK": "Chinese", "HIRAGANA": "Japanese", "KATAKANA": "Japanese", "HANGUL": "Korean",
    "ARABIC": "Arabic", "CYRILLIC": "Cyrillic-script", "GREEK": "Greek", "HEBREW": "Hebrew",
    "DEVANAGARI": "Hindi", "BENGALI": "Bengali", "THAI": "Thai", "LATIN": "Latin",
}  # fmt: skip
ENGLISH_WORDS = frozenset(
    "the of and to a in is that it for was on are as with be by this which or from at not have "
    "an they their can has but were more what its also how why when one been would should do does "
    "did who where you your we our will there about into than".split()
)
_ENGLISH_SHARE = 0.2  # of a Latin-script text's words; English prose has about 0.4
_TOLD_WORDS = 6  # a shorter Latin-script text without a function word is not told
_SHORT = 12  # a task-long text: one English function word tells it (one no other language has)
_SHARED = frozenset("a an as at be by do in is it no on or to was will die".split())  # es, fr, de ...


def _script_counts(text: str) -> dict[str, int]:
    """How many of `text`'s letters each script has (by the first word of their Unicode name)."""
    import unicodedata

    counts: dict[str, int] = {}
    for char in text:
        if char.isalpha():
            script = unicodedata.name(char, "").split(" ")[0]
            counts[script] = counts.get(script, 0) + 1
    return counts


def _main_script(text: str, counts: dict[str, int] | None = None) -> str | None:
    counts = _script_counts(text) if counts is None else counts
    return max(counts, key=lambda s: counts[s]) if counts else None


def written_language(text: str) -> str | None:
    """The language `text` is written in, by its letters' script: "English", "Chinese",
    "Arabic", "Japanese" (kana among the Han), "Korean", "Cyrillic-script", ..., "a Latin-script
    language other than English"; None when it has no letters (an emoji-only task) or is too
    short to tell ("Explain HTTPS")."""
    counts = _script_counts(text)
    script = _main_script(text, counts)
    if script is None:
        return None
    if script == "CJK" and counts.get("HIRAGANA", 0) + counts.get("KATAKANA", 0):
        return "Japanese"
    name = _SCRIPTS.get(script, f"{script.title()}-script")
    if name != "Latin":
        return name
    words = re.findall(r"[^\W\d_]+", text.lower())
    english = sum(1 for w in words if w in ENGLISH_WORDS)
    only_english = any(w in ENGLISH_WORDS and w not in _SHARED for w in words)
    if english >= max(1, _ENGLISH_SHARE * len(words)) or (len(words) <= _SHORT and only_english):
        return "English"
    if len(words) < _TOLD_WORDS:  # "Explain HTTPS": too few words to tell
        return None
    return "a Latin-script language other than English"


_WRITTEN_CODES = {"English": "en", "Chinese": "zh", "Japanese": "ja", "Korean": "ko", "Arabic": "ar",
                  "Greek": "el", "Hebrew": "he", "Hindi": "hi", "Bengali": "bn", "Thai": "th"}  # fmt: skip


def language_code(language: str | None, text: str) -> str:
    """The BCP 47 code a document of `text` declares (HTML `lang`, the PDF's hyphenation): the
    language it is written in when its letters tell ("en" for the English an embedded model
    wrote when asked for Chinese), else the one asked for (`--lang`'s name: "French (français)"
    is "fr"), else "" (not told)."""
    if (written := written_language(text)) in _WRITTEN_CODES:
        return _WRITTEN_CODES[written or ""]
    if not language:
        return ""
    name = language_named(language).lower()
    code = next((c for c, n in _codes().items() if n.lower() == name), "")
    return code.replace("_", "-")


def language_named(language: str | None) -> str:
    """The English name in a resolved `--lang` ("Chinese (中文)" → "Chinese")."""
    return (language or "").split(" (")[0]


def language_asked(language: str | None, task: str) -> str | None:
    """The language a run is to be written in: `--lang`'s, else the task's (None: not told)."""
    return language_named(language) if language else written_language(task)


def embedded_notice(language: str | None, task: str) -> str | None:
    """The line said before a run on the embedded model when the article is wanted in another
    language than English (None: English, or not told). Measured (bench/README.md, issue 35
    part 5): asked for Chinese or Arabic, in the task or by `--lang`, it writes English; asked
    for French, garbled French."""
    asked = language_asked(language, task)
    if asked is None or asked in ("English", "American English", "British English"):
        return None
    if asked.startswith("a Latin-script"):  # a task in a language not told apart
        return ("the embedded model writes English only: this task is not in English, and its "
                "article will be garbled or in English; use a real model (--model) for it")  # fmt: skip
    native = next((n for e, n in LANGUAGES.values() if e == asked), "")
    wrote = f"garbled {asked}" if _main_script(native) == "LATIN" else "English"
    return (f"the embedded model writes English only: asked for {asked}, it writes {wrote}; "
            f"for {asked}, use a real model (--model)")  # fmt: skip
