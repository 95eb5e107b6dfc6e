"""What a client may reach through the server: files only inside the folders it was started with
(`--root`), and no secret from the server's environment in anything it sends back.

A client is a model acting for someone: it chooses paths and reads every answer (and passes the
answers on to its provider). So every path it gives is resolved (symlinks followed) and must lie
inside a root; every result is scrubbed of the values of the environment's secret variables and
of passwords written into URLs before it leaves."""

from __future__ import annotations

import os
import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from reflectcli.errors import UserError

# environment variables whose values are secrets (API keys, tokens, passwords); a value shorter
# than MIN_SECRET is no secret worth the name and would blank ordinary words
SECRET_NAME = re.compile(r"KEY|TOKEN|SECRET|PASSW|CREDENTIAL|AUTH|COOKIE|SESSION|PRIVATE", re.I)
MIN_SECRET = 8
URL_USERINFO = re.compile(r"(?P<scheme>[a-z][a-z0-9+.-]*://)(?P<info>[^/@\s:]*:[^/@\s]*)@", re.I)
REDACTED = "[redacted]"


class Roots:
    """The folders a client's paths must lie in (resolved once, at start)."""

    def __init__(self, folders: Sequence[str | Path]):
        self.folders = [Path(f).expanduser().resolve() for f in folders]

    def __str__(self) -> str:
        return ", ".join(str(f) for f in self.folders)

    def check(self, where: str) -> Path:
        """The real path of `where` (relative ones are read from the first root) when it lies
        inside a root; a one-line error otherwise."""
        path = Path(where).expanduser()
        if not path.is_absolute():
            path = self.folders[0] / path
        real = path.resolve()
        if not any(real == f or real.is_relative_to(f) for f in self.folders):
            raise UserError(
                f"{where}: outside the folders this server may read ({self})",
                hint="start `reflectcli mcp` with --root DIR to allow a folder",
                exit_code=2,
            )
        return real

    def relative(self, path: str | Path | None) -> str | None:
        """`path` as a client should see it: relative to the root it lies in (a path leaves
        the machine relative, never absolute), else its file name."""
        if not path:
            return None
        real = Path(path).resolve()
        for folder in self.folders:
            if real.is_relative_to(folder):
                return str(real.relative_to(folder)) or "."
        return real.name


def secrets_of(environ: Mapping[str, str] | None = None) -> list[str]:
    """The values of the environment's secret variables, longest first."""
    environ = os.environ if environ is None else environ
    found = {v for k, v in environ.items() if SECRET_NAME.search(k) and len(v) >= MIN_SECRET}
    return sorted(found, key=len, reverse=True)


def scrub_text(text: str, secrets: list[str]) -> str:
    for value in secrets:
        if value in text:
            text = text.replace(value, REDACTED)
    return URL_USERINFO.sub(lambda m: f"{m['scheme']}{REDACTED}@", text)


def scrub(value: Any, secrets: list[str] | None = None) -> Any:
    """`value` (text, or JSON-like data) with every secret replaced by `[redacted]`."""
    secrets = secrets_of() if secrets is None else secrets
    if isinstance(value, str):
        return scrub_text(value, secrets)
    if isinstance(value, dict):
        return {scrub(k, secrets): scrub(v, secrets) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [scrub(v, secrets) for v in value]
    return value
