"""Small helpers shared by tests."""

from __future__ import annotations

import importlib.metadata
import io
from collections.abc import Iterator
from contextlib import contextmanager

from rich.console import Console

from reflectcli.config import load_settings
from reflectcli.output.render import Renderer
from reflectcli.store.db import Store


def quiet_ui() -> Renderer:
    return Renderer(console=Console(file=io.StringIO(), width=100), quiet=False)


def settings(runs_dir, **flags):
    return load_settings(flags={"model": "fake/w", "runs_dir": str(runs_dir), **flags})


class FailOnce:
    """Wrap a responder so that `step` raises `exc` the first time it is asked."""

    def __init__(self, responder, step: str, exc: BaseException):
        self.responder, self.step, self.exc, self.fired = responder, step, exc, False

    def __call__(self, step, messages):
        if step == self.step and not self.fired:
            self.fired = True
            raise self.exc
        return self.responder(step, messages)


@contextmanager
def raw_db(runs_dir) -> Iterator:
    """A connection to the store in force (the SQLite file, or REFLECTCLI_STORE's PostgreSQL),
    taking SQL with `?` marks on both."""
    store = Store(runs_dir)
    try:
        yield store.conn
    finally:
        store.close()


def readme(package: str) -> str:
    """A package's README (its METADATA's body; `Description` once litellm has swapped in the
    importlib_metadata backport, whose messages keep the body there)."""
    found = importlib.metadata.metadata(package)
    return found.get_payload() or found.get("Description") or ""
