"""A batch at the terminal: a live progress display (done / failed / running / queued, tokens,
cost, ETA) while `batch run` works, and the per-task table of `batch status`."""

from __future__ import annotations

import json
from typing import Any

from rich.console import Console
from rich.table import Table

from reflectcli.output import safe
from reflectcli.output.safe import escape

COLORS = {"done": "green", "failed": "red", "running": "cyan", "queued": "dim", "cancelled": "yellow"}


def _money(cost: float | None) -> str:
    return "cost unknown" if cost is None else f"${cost:.4f}"


def _eta(seconds: float | None) -> str:
    if seconds is None:
        return "ETA —"
    minutes, secs = divmod(int(seconds), 60)
    return f"ETA {minutes}m{secs:02d}s" if minutes else f"ETA {secs}s"


def headline(status: dict[str, Any]) -> str:
    c = status["counts"]
    parts = [f"[{COLORS[k]}]{c[k]} {k}[/]" for k in ("done", "failed", "running", "queued", "cancelled")
             if c[k] or k in ("done", "running", "queued")]  # fmt: skip
    return (f"{' · '.join(parts)} of {status['tasks']} · {status['tokens']:,} tokens · "
            f"{_money(status['cost'])} · {_eta(status['eta_seconds'])}")  # fmt: skip


class BatchProgress:
    """`batch run`'s live display; prints nothing but the final line when not on a terminal."""

    def __init__(self, console: Console | None = None, quiet: bool = False):
        self.console = safe.guard(console) if console else safe.console(stderr=True)
        self.quiet = quiet
        self._bar: Any = None  # a rich Progress, made at the first status on a terminal
        self._task: Any = None

    def __call__(self, status: dict[str, Any]) -> None:
        if self.quiet or not self.console.is_terminal:
            return
        if self._bar is None:
            from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

            self._bar = Progress(TextColumn("  batch"), BarColumn(), MofNCompleteColumn(),
                                 TimeElapsedColumn(), TextColumn("{task.description}"),
                                 console=self.console, transient=True)  # fmt: skip
            self._bar.start()
            self._task = self._bar.add_task("", total=status["tasks"])
        c = status["counts"]
        self._bar.update(self._task, completed=c["done"] + c["failed"] + c["cancelled"],
                         description=headline(status))  # fmt: skip

    def close(self) -> None:
        if self._bar is not None:
            self._bar.stop()
            self._bar = None


def print_status(console: Console, status: dict[str, Any], limit: int | None = None) -> None:
    """The headline, then one row per task (failed first when there are many)."""
    console = safe.guard(console)
    mode = "queue" if status["mode"] == "queue" else "local"
    state = "cancelled" if status["cancelled"] else ("finished" if status["finished"] else "in progress")
    console.print(f"[bold]batch[/] [cyan]{escape(status['batch_id'])}[/] · {escape(status['source'])} · "
                  f"{mode} · {state}")  # fmt: skip
    console.print(headline(status))
    faults = status.get("queue_faults") or {}
    if faults.get("count"):
        console.print(f"[yellow]{faults['count']} queue maintenance failure"
                      f"{'s' if faults['count'] != 1 else ''}[/] (putting stalled jobs back on the queue; "
                      f"last: {escape(str(faults['last'])[:120])}) — see the workers' log")  # fmt: skip
    items = status["items"]
    if limit is not None and len(items) > limit:
        order = {"failed": 0, "running": 1, "queued": 2, "cancelled": 3, "done": 4}
        items = sorted(items, key=lambda r: (order[r["status"]], r["n"]))[:limit]
    table = Table(show_edge=False, pad_edge=False, box=None)
    for column in ("#", "thread", "status", "rounds", "tokens", "score", "note"):
        table.add_column(column, justify="right" if column in ("#", "rounds", "tokens", "score") else "left")
    for row in items:
        note = row["error"] or (f"attempt {row['attempts']}" if row["attempts"] > 1 else "")
        table.add_row(str(row["n"]), escape(row["thread_id"]),
                      f"[{COLORS[row['status']]}]{row['status']}[/]",
                      "" if row["rounds"] is None else str(row["rounds"]),
                      "" if not row["tokens"] else f"{row['tokens']:,}",
                      "" if row["final_score"] is None
                      else ("form " if row.get("scored") == "form" else "") + f"{row['final_score']:.1f}",
                      escape(note[:80]))  # fmt: skip
    console.print(table)
    if len(items) < len(status["items"]):
        console.print(f"[dim]… {len(status['items']) - len(items)} more (--all, or --json)[/]")


def as_json(status: dict[str, Any]) -> str:
    return json.dumps(status, ensure_ascii=False, indent=2)
