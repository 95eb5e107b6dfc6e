"""A faster `--help`: typer.rich_utils (Typer's help screens and usage errors) imports
rich.markdown (markdown-it and pygments) and rich.traceback (attrs) at its top, ~110 ms of a
0.4 s `--help` on the 2 cores measured (bench/bench_help.py), for two things this app's help
never shows: Markdown help text (our markup mode is Typer's default, "rich") and pretty
tracebacks (off: `pretty_exceptions_enable=False`). `lean_rich_utils` imports it with two
stand-ins that load the real class on first use, then takes them out of `sys.modules`, so any
later `import rich.markdown` gets the real module."""

from __future__ import annotations

import importlib
import sys
import types
from typing import Any

DEFERRED = (("rich.markdown", "Markdown"), ("rich.traceback", "Traceback"))


class _Later(type):
    """The class of a stand-in: attributes (Traceback.from_exception) come from the real class."""

    def __getattr__(cls, attr: str) -> Any:
        return getattr(cls.real(), attr)


def _stand_in(module: str, name: str) -> type:
    def real() -> type:
        return getattr(importlib.import_module(module), name)

    def new(cls: type, *args: Any, **kwargs: Any) -> Any:
        return real()(*args, **kwargs)

    # a class, so that typer's annotations (`Markdown | Text`) still evaluate
    return _Later(name, (), {"__new__": new, "real": staticmethod(real), "__module__": module})


def lean_rich_utils() -> None:
    """Import typer.rich_utils without rich.markdown and rich.traceback (see the module's
    docstring); a no-op where it or they are already imported, and the ordinary import on
    any surprise from a Typer version that uses them otherwise."""
    if "typer.rich_utils" in sys.modules:
        return
    placed: dict[str, types.ModuleType] = {}
    for module, name in DEFERRED:
        if module not in sys.modules:
            stand_in = types.ModuleType(module)
            setattr(stand_in, name, _stand_in(module, name))
            placed[module] = stand_in
    sys.modules.update(placed)
    try:
        import typer.rich_utils  # noqa: F401
    except Exception:
        sys.modules.pop("typer.rich_utils", None)
    finally:
        for module, stand_in in placed.items():
            if sys.modules.get(module) is stand_in:
                del sys.modules[module]
    if "typer.rich_utils" not in sys.modules:
        import typer.rich_utils  # noqa: F401, F811
