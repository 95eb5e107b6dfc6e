"""A text file's bytes as text. UTF-8 (a BOM, or bytes that decode as it) is read as UTF-8;
an encoding the file declares (an XML prolog, an HTML <meta charset>) is used when its bytes
fit it. Otherwise the bytes that are not UTF-8 decide a legacy encoding, and:

- where those bytes are single-byte text (a high byte alone between ASCII ones, as "é" is in
  Latin-1), each run of bytes that is valid UTF-8 stays UTF-8 and only the rest is read in the
  legacy code page: a UTF-8 changelog with two stray Latin-1 bytes keeps its "Rogério";
- the code page is Windows-1252 when the text, read so, is in a Western language (by
  langdetect, on the decoded words), else charset-normalizer's best single-byte guess
  (Polish is ISO-8859-2): a short Western text fits DOS, Big5 or Central European code pages
  as well ("Klaus K鄝pf"), so charset-normalizer's ranking alone is not enough;
- multi-byte text (EUC-JP, Shift_JIS, GB18030) is decoded whole in charset-normalizer's
  guess.

Windows-1252 stands for Latin-1 as browsers read it: Latin-1 makes the bytes 0x80-0x9F (€,
dashes, curly quotes) control characters."""

from __future__ import annotations

import codecs
import re

# languages written in Windows-1252's letters (langdetect's codes)
WESTERN_LANGUAGES = frozenset("af ca cy da de en es et fi fr ga id is it nl no pt so sv sw tl".split())
SINGLE_BYTE = 0.5  # text is single-byte when at least this share of its high-byte runs are one byte long
_HIGH_RUN = re.compile(rb"[\x80-\xff]+")
_DECLARED_XML = re.compile(rb"^\s*<\?xml[^>]*encoding=[\"']([A-Za-z0-9._-]+)")
_DECLARED_META = re.compile(rb"<meta[^>]+charset=[\"']?([A-Za-z0-9._-]+)", re.I)


def decode(data: bytes, html: bool = False) -> str:
    """The text of a file's bytes (see the module's docstring); bytes no guess explains are
    replacement characters, never an error."""
    if data[:2] in (b"\xff\xfe", b"\xfe\xff"):
        try:
            return data.decode("utf-16")
        except UnicodeDecodeError:
            pass
    declared = declared_encoding(data, html)
    if declared and declared != "utf_8":
        try:
            return data.decode(declared)
        except UnicodeDecodeError:
            pass
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        pass
    encoding = legacy_encoding(_not_utf8(data))
    if not _is_single_byte_codec(encoding):
        return data.decode(encoding, errors="replace")
    return _mixed(data, encoding)


def declared_encoding(data: bytes, html: bool = False) -> str | None:
    """The encoding a file names in its XML prolog (or, for HTML, its <meta charset> in the
    first 2 KB), as Python's codec name; Latin-1 read as Windows-1252."""
    found = _DECLARED_XML.match(data[:200]) or (_DECLARED_META.search(data[:2048]) if html else None)
    if not found:
        return None
    try:
        name = codecs.lookup(found.group(1).decode("ascii")).name.replace("-", "_")
    except LookupError:
        return None
    return "cp1252" if name in ("latin_1", "iso8859_1", "ascii") else name


def _not_utf8(data: bytes) -> bytes:
    """The lines of `data` that are not valid UTF-8 (the words around a legacy byte tell its
    language)."""
    lines = []
    for line in data.split(b"\n"):
        try:
            line.decode("utf-8")
        except UnicodeDecodeError:
            lines.append(line)
    return b"\n".join(lines)


def _single_byte(outside: bytes) -> bool:
    """Whether the lines outside UTF-8 are single-byte text: a high byte mostly alone."""
    runs = [len(run) for run in _HIGH_RUN.findall(outside)]
    return not runs or sum(1 for n in runs if n == 1) >= SINGLE_BYTE * len(runs)


def _mixed(data: bytes, encoding: str) -> str:
    """UTF-8 where the bytes are, `encoding` for each run that is not."""
    name = f"reflectcli-{encoding}"

    def legacy(error: UnicodeError) -> tuple[str, int]:
        if not isinstance(error, UnicodeDecodeError):  # registered for decoding only
            raise error
        return error.object[error.start : error.end].decode(encoding, errors="replace"), error.end

    codecs.register_error(name, legacy)
    return data.decode("utf-8", errors=name)


def legacy_encoding(data: bytes) -> str:
    """The legacy encoding of lines that are not UTF-8: Windows-1252 for Western text (what
    the lines say, read so, is in a Western language, and its high bytes stand alone or read
    as letters or Western signs, as "äöüß" does); for text in a language with code pages of
    its own (Polish: ISO-8859-2, Windows-1250), the one of them that reads the most high bytes
    as letters; else charset-normalizer's guess."""
    import charset_normalizer

    matches = [m.encoding for m in charset_normalizer.from_bytes(data)]
    language = _language(data.decode("cp1252", errors="replace"))
    western = language is None or language in WESTERN_LANGUAGES
    if western and (_single_byte(data) or _letters(data, "cp1252") >= LETTERS):
        return "cp1252"
    own = CODE_PAGES.get(language or "", ())
    if own and _single_byte(data):
        return max(own, key=lambda name: _letters(data, name))  # the first of equals
    if _single_byte(data):
        return next((m for m in matches if _is_single_byte_codec(m)), "cp1252")
    return matches[0] if matches else "cp1252"


def _letters(data: bytes, encoding: str) -> float:
    """The share of the high bytes that `encoding` reads as letters (or Western signs)."""
    high = [ch for ch in data.decode(encoding, errors="replace") if ord(ch) >= 0x80]
    return sum(1 for ch in high if ch.isalpha() or ch in WESTERN_SIGNS) / len(high) if high else 1.0


WESTERN_SIGNS = frozenset("«»°©®§¿¡–—‘’“”„€£•…·\xa0")  # not ± ² ³ ¼ ¶: Latin-2's ą ł ź ś read so
LETTERS = 0.8  # ... at least this share of them (CJK text read as Windows-1252 is mostly symbols)
# the single-byte code pages of languages not written in Windows-1252's letters
CODE_PAGES = {
    **dict.fromkeys("pl cs sk hu sl hr ro sq".split(), ("iso8859_2", "cp1250")),
    **dict.fromkeys("ru uk bg mk".split(), ("cp1251", "koi8_r", "iso8859_5", "koi8_u")),
    "el": ("iso8859_7", "cp1253"), "tr": ("iso8859_9", "cp1254"), "he": ("iso8859_8", "cp1255"),
    "ar": ("cp1256", "iso8859_6"), "lt": ("iso8859_13", "cp1257"), "lv": ("iso8859_13", "cp1257"),
    "th": ("cp874", "tis_620"), "vi": ("cp1258",),
}  # fmt: skip


def _language(text: str) -> str | None:
    """The language of a text by langdetect (its code), None when there is nothing to tell."""
    from langdetect import DetectorFactory, LangDetectException, detect_langs

    if not re.search(r"[^\W\d_]{3}", text):
        return None
    DetectorFactory.seed = 0  # langdetect samples at random: the same text, the same answer
    try:
        return detect_langs(text)[0].lang
    except LangDetectException:
        return None


def _is_single_byte_codec(name: str) -> bool:
    """A code page that reads each byte as one character (not EUC-JP, Big5, GB18030...)."""
    try:
        return len(bytes(range(256)).decode(name, errors="replace")) == 256
    except LookupError:
        return False
