"""Text for a terminal: every string from outside (a task, a file's or a page's title, a search
result) or from a model is shown, never obeyed. A control character (an escape sequence's ESC, a
carriage return that overwrites the line, a bell, a C1 control such as CSI) or a bidirectional
override is shown escaped (`\\x1b[31m`), line breaks and tabs are kept.

Two layers, both here: `escape` (Rich markup escaped too) for each string a view puts in its
markup, so that tables are laid out on what will be shown; and a render hook on every console the
renderer makes (`console`), which escapes whatever text still reaches it, whoever wrote the view.
Plain writes (a pipe, stdout, JSON) go through `terminal_safe`."""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any

# C0 but tab and line feed, DEL, C1, and the embeddings/overrides/isolates that reorder a line
_UNSAFE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


def _shown(match: re.Match[str]) -> str:
    """`\\x1b` for a C0 control; `\\u009b` for the others, which is also how JSON writes them
    (JSON text, whose C0 controls `json.dumps` has escaped, stays valid JSON)."""
    code = ord(match.group())
    return f"\\x{code:02x}" if code < 0x20 else f"\\u{code:04x}"


def terminal_safe(text: Any) -> str:
    """`text` with its control characters shown escaped (a Windows line end is a line end)."""
    text = str(text)
    if text.isprintable():  # the common case: nothing to do (tabs and line breaks are not printable)
        return text
    return _UNSAFE.sub(_shown, text.replace("\r\n", "\n"))


def escape(text: Any) -> str:
    """`text` for Rich markup: control characters shown escaped, then `[` escaped."""
    from rich.markup import escape as rich_escape

    return rich_escape(terminal_safe(text))


@lru_cache(maxsize=1)
def _hook() -> Any:
    """The render hook (made once, when the first console is): each renderable is drawn as it
    would be, its text segments escaped; Rich's own control segments (cursor moves) pass."""
    from rich.console import RenderHook
    from rich.measure import Measurement
    from rich.segment import Segment

    class Safe:
        def __init__(self, inner: Any) -> None:
            self.inner = inner

        def __rich_console__(self, console, options):
            for segment in console.render(self.inner, options):
                if segment.control or segment.text.isprintable():
                    yield segment
                else:
                    yield Segment(_UNSAFE.sub(_shown, segment.text), segment.style, segment.control)

        def __rich_measure__(self, console, options):
            return Measurement.get(console, options, self.inner)

    class Hook(RenderHook):
        def process_renderables(self, renderables):
            return [Safe(r) for r in renderables]

    return Hook()


def console(**options: Any) -> Any:
    """A Rich console that shows no control character raw (see the module docstring)."""
    from rich.console import Console

    return guard(Console(**options))


def guard(made: Any) -> Any:
    """`made` (a Rich console someone else made: a test's, a batch's) with the hook, once."""
    if not getattr(made, "_reflectcli_safe", False):
        made.push_render_hook(_hook())
        made._reflectcli_safe = True
    return made
