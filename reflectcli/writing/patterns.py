"""Regular expressions compiled on first use. Some of ours take milliseconds to compile (the
CJK ranges, the citation grammar), and the read-only commands (history, show, --help) import
their modules through the renderer without matching any of them."""

from __future__ import annotations

import re
from typing import Any


class LazyPattern:
    """A `re.Pattern` stand-in: `pattern` and `flags` at once, everything else (search, sub,
    finditer, ...) from the pattern compiled the first time it is asked for."""

    def __init__(self, pattern: str, flags: int = 0):
        self.pattern, self.flags = pattern, flags
        self._compiled: re.Pattern[str] | None = None

    def __getattr__(self, name: str) -> Any:
        if self._compiled is None:
            self._compiled = re.compile(self.pattern, self.flags)
        return getattr(self._compiled, name)


# a CJK character (kana, CJK ideographs, Hangul, compatibility ideographs): one word each
CJK = LazyPattern(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff]")
