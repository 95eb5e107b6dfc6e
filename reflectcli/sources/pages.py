"""The pages a run has fetched, so that none is fetched twice in one run: each web search of a
run reads its results' pages, and the searches of one run (a section's, the task's, the
critic's) keep finding the same pages. Keyed by the URL normalised (`page_key`); what the fetch
gave is kept whatever it was (a page, a refusal, a failure such as a page cut at the time cap,
which would cost the cap again on every search)."""

from __future__ import annotations

import threading
from collections.abc import Callable
from concurrent.futures import Future
from typing import TypeVar
from urllib.parse import urlsplit, urlunsplit

T = TypeVar("T")
DEFAULT_PORTS = {"http": 80, "https": 443}


def page_key(url: str) -> str:
    """`url` as a fetch sees it: scheme and host in lower case, the scheme's default port and
    the fragment dropped (the server never sees them), an empty path as `/`. The path and query
    are kept as written: a server may tell their case and order apart."""
    try:
        parts = urlsplit(url.strip())
        port = parts.port
    except ValueError:  # a port out of range: fetching it fails the same way each time
        return url
    scheme, host = parts.scheme.lower(), parts.hostname or ""
    if ":" in host:  # IPv6
        host = f"[{host}]"
    user = parts.netloc.rpartition("@")[0]
    netloc = (f"{user}@" if user else "") + host
    if port is not None and port != DEFAULT_PORTS.get(scheme):
        netloc += f":{port}"
    return urlunsplit((scheme, netloc, parts.path or "/", parts.query, ""))


class Pages:
    """What each page fetched in a run gave, by `page_key`. Searches at once that want the same
    page wait for the one fetch in flight instead of starting their own."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._got: dict[str, Future] = {}

    def get(self, url: str, load: Callable[[], T]) -> T:
        """`load()`'s answer for `url`, loaded the first time only (an exception is kept too)."""
        key = page_key(url)
        with self._lock:
            future = self._got.get(key)
            mine = future is None
            if future is None:
                future = self._got[key] = Future()
        if mine:
            try:
                future.set_result(load())
            except Exception as exc:
                future.set_exception(exc)
            except BaseException:  # Ctrl-C: not an answer to keep (whoever waits is cancelled)
                with self._lock:
                    del self._got[key]
                future.cancel()
                raise
        return future.result()

    def __len__(self) -> int:
        return len(self._got)
