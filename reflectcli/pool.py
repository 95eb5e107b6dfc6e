"""Independent calls at once, their answers in the callers' order (never in arrival order).

Daemon threads rather than concurrent.futures: an executor's workers are joined when the
interpreter exits, so a Ctrl-C during a two-minute model call would wait for that call. A daemon
worker is left behind instead; its answer, if one comes, is journaled and replayed on resume.
After a failure no new item is started; the items already running finish, then the first
failure (in input order) is raised.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable
from typing import TypeVar

T = TypeVar("T")
R = TypeVar("R")


def in_order(fn: Callable[[T], R], items: Iterable[T], workers: int) -> list[R]:
    """`[fn(x) for x in items]`, with up to `workers` calls at once (1: in this thread)."""
    items = list(items)
    if workers <= 1 or len(items) <= 1:
        return [fn(x) for x in items]
    results: list = [None] * len(items)
    errors: list[BaseException | None] = [None] * len(items)
    lock = threading.Lock()
    finished = threading.Event()
    state = {"next": 0, "running": 0, "failed": False}

    def work() -> None:
        while True:
            with lock:
                i = state["next"]
                if i >= len(items) or state["failed"]:
                    state["running"] -= 1
                    if state["running"] == 0:
                        finished.set()
                    return
                state["next"] = i + 1
            try:
                results[i] = fn(items[i])
            except BaseException as exc:  # raised in the caller's thread
                errors[i] = exc
                with lock:
                    state["failed"] = True

    count = min(workers, len(items))
    state["running"] = count
    for n in range(count):
        threading.Thread(target=work, name=f"reflectcli-pool-{n}", daemon=True).start()
    try:
        finished.wait()  # a signal (Ctrl-C, SIGTERM) interrupts the wait in the main thread
    except BaseException:
        with lock:
            state["failed"] = True  # start nothing more; what runs is left to finish alone
        raise
    for error in errors:
        if error is not None:
            raise error
    return results
