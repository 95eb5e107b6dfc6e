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
