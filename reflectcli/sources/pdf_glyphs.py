"""What a PDF's characters mean where its fonts do not say. PDFium maps nearly every glyph to
Unicode, but a TeX font without a ToUnicode map can leave a code as it is in the font's own
encoding: a control character that means a ligature, a dash or a math sign. Those codes are
read by the font's encoding (TeX's OT1, OML, OMS, OMX and T1, chosen by the font's name);
any other control character is dropped and counted, never stored. Private-use characters are
the pieces of large brackets and arrows (CMEX, Symbol, XY-pic): drawing, not text, dropped."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable

# Codes 0x00-0x1F of each encoding, and what 0x7F (DEL) is in it
OT1 = [*"ΓΔΘΛΞΠΣΥΦΨΩ", "ff", "fi", "fl", "ffi", "ffl", *"ıȷ`´ˇ˘¯˚¸ßæœøÆŒØ"], "¨"
OT1_TYPEWRITER = [*"ΓΔΘΛΞΠΣΥΦΨΩ↑↓'¡¿ıȷ`´ˇ˘¯˚¸ßæœøÆŒØ"], "¨"
OML = [*"ΓΔΘΛΞΠΣΥΦΨΩαβγδϵζηθικλμνξπρστυϕχ"], "⁀"
OMS = [*"−·×∗÷⋄±∓⊕⊖⊗⊘⊙◯∘•≍≡⊆⊇≤≥⪯⪰∼≈⊂⊃≪≫≺≻"], "♠"
OMX = [*"()[]⌊⌋⌈⌉{}⟨⟩|‖/\\()()[]⌊⌋⌈⌉{}⟨⟩/\\"], ""
T1 = [*"`´ˆ˜¨˝˚ˇ˘¯˙¸˛‚‹›“”„«»–—", "", "", "ı", "ȷ", "ff", "fi", "fl", "ffi", "ffl"], ""

# Font name prefixes (the subset tag "ABCDEF+" aside, upper case) and their encodings
FAMILIES = [
    (("CMTT", "CMSLTT", "CMITT", "CMTCSC"), OT1_TYPEWRITER),
    (("CMSY", "CMBSY", "LMMATHSYMBOLS"), OMS),
    (("CMMI", "LMMATHITALIC"), OML),
    (("CMEX", "LMMATHEXTENSION"), OMX),
    (("SFRM", "SFBX", "SFTT", "SFSS", "SFTI", "SFSL", "SFCC", "ECRM", "ECBX", "ECTT", "ECSS", "ECTI"), T1),
    (("CMR", "CMBX", "CMB", "CMSS", "CMTI", "CMSL", "CMCSC", "CMU", "CMDUNH", "CMFIB", "CMFF"), OT1),
]
LIGATURES = {chr(0xFB00 + n): s for n, s in enumerate(["ff", "fi", "fl", "ffi", "ffl", "st", "st"])}
# TeX's © is a circle (OMS 0x0D, or U+20DD as PDFium names it) with a c set over it
_COPYRIGHT = re.compile("[◯\u20dd]c|c\u20dd")
_SUBSET = re.compile(r"^[A-Z]{6}\+")


def encoding_of(font: str) -> tuple[list[str], str] | None:
    """The TeX encoding of a font by its name (None: not a TeX font we know)."""
    name = _SUBSET.sub("", font or "").upper().replace(" ", "")
    for prefixes, encoding in FAMILIES:
        if name.startswith(prefixes):
            return encoding
    return None


CONTROL = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]|\r(?!\n)")  # Cc, but tabs and line ends
# what `readable` changes: line ends, control and private-use characters, PDFium's hyphen mark
_PRIVATE = "\ue000-\uf8ff\U000f0000-\U0010ffff"
_ATTENTION = re.compile(f"\r\n|{CONTROL.pattern}|[\ufffe{_PRIVATE}{''.join(LIGATURES)}]")


def is_control(ch: str) -> bool:
    return unicodedata.category(ch) == "Cc" and ch not in "\n\t"


def readable(text: str, font_of: Callable[[int], str]) -> tuple[str, int]:
    """A page's text (PDFium's, one character per index, "\\r\\n" between lines) with every
    control character read by its font's encoding or dropped, private-use characters
    dropped, line breaks as "\\n", a line-end hyphen PDFium marks (U+FFFE) back as "-\\n" (for
    join_hyphens to judge) and ligatures unfolded. Returns it and how many characters were
    dropped because no font said what they are."""
    dropped = 0

    def read(match: re.Match) -> str:
        nonlocal dropped
        ch = match.group()
        if ch == "\r\n":
            return "\n"
        if ch == "\ufffe":
            return "-\n"
        if ch in LIGATURES:
            return LIGATURES[ch]
        if not is_control(ch):
            return ""  # private use: a piece of a drawing
        code, encoding = ord(ch), encoding_of(font_of(match.start()))
        if encoding is not None and (code < 0x20 or code == 0x7F):
            return encoding[0][code] if code < 0x20 else encoding[1]
        dropped += 1
        return ""

    return _COPYRIGHT.sub("©", _ATTENTION.sub(read, text)), dropped
