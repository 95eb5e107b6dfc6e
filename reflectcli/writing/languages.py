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
    """A language as prompts name it, e.g. "French (français)"; raises ValueError on an unknown
    code. A name not in the table is kept as written (any language a model knows)."""
    text = value.strip()
    key = text.lower().replace("_", "-")
    if key in VARIANTS:
        english, native = VARIANTS[key]
    elif key in LANGUAGES:
        english, native = LANGUAGES[key]
    elif re.fullmatch(r"[a-z]{2,3}(-[a-z0-9]{2,8})?", key):
        base = key.split("-")[0]
        if base not in LANGUAGES:
            raise ValueError(f"unknown language code {text!r}: use a name such as 'French' or a "
                             "code such as 'fr', 'de', 'zh-CN'")  # fmt: skip
        english, native = LANGUAGES[base]
    else:
        for english, native in [*LANGUAGES.values(), *VARIANTS.values()]:
            if key in (english.lower(), native.lower()):
                break
        else:
            return text[:1].upper() + text[1:]
    return english if english == native else f"{english} ({native})"
