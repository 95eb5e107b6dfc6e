"""Everything the user sees: the only module that prints (through Rich).

On a terminal: a spinner per model call with elapsed time, then a line per finished call.
In a pipe or with NO_COLOR: plain lines, no spinners, no colour.
"""

from __future__ import annotations

import re
import threading
from typing import Any

from rich.console import Console
from rich.progress import Progress, SpinnerColumn, TextColumn, TimeElapsedColumn
from rich.table import Table

from reflectcli.output import rows, safe
from reflectcli.output.rows import CLAIM_COLOURS, final_words, plural, stop_words
from reflectcli.output.safe import escape
from reflectcli.writing.languages import embedded_notice
from reflectcli.writing.rubric import score_words

_STEP = re.compile(r"^(?P<kind>[a-z]+)(?::[srgq](?P<num>\d+))?(?::s(?P<sec>\d+))?(?::retry(?P<retry>\d+))?$")


def step_label(step: str, state: dict[str, Any]) -> str:
    """A human name for a call's step label, e.g. `draft:s2` → `section 2/4 · Title`."""
    match = _STEP.match(step)
    if not match:
        return step
    kind, num, retry = match["kind"], match["num"], match["retry"]
    sections = (state.get("outline") or {}).get("sections") or []
    if kind == "plan":
        label = "planning the outline" + (f", attempt {num}" if num else "")
    elif kind == "draft":
        i = int(num)
        title = f" · {sections[i - 1]['title']}" if i <= len(sections) else ""
        label = f"drafting section {i}/{len(sections) or '?'}{title}"
    elif kind == "review":
        label = f"reviewing, round {num}"
    elif kind == "revise" and match["sec"]:
        i = int(match["sec"])
        title = f" · {sections[i - 1]['title']}" if i <= len(sections) else ""
        label = f"revising for round {num}, section {i}{title}"
    elif kind == "revise":
        label = f"revising for round {num}"
    elif kind == "ask":
        label = f"answering question {num}"
    elif kind == "check":
        label = f"checking the cited claims of answer {num}"
    else:
        label = step
    if retry:
        label += f" · retry {retry}, the answer was not usable"
    return label


def bar(score: float, width: int = 10) -> str:
    filled = round(max(0.0, min(10.0, score)) / 10 * width)
    return "█" * filled + "·" * (width - filled)


class Renderer:
    """Turns run events into terminal output."""

    def __init__(self, console: Console | None = None, quiet: bool = False):
        self.console = safe.guard(console) if console else safe.console(highlight=False)
        self.err = safe.console(stderr=True, highlight=False)
        self.quiet = quiet
        self.live = self.console.is_terminal and not quiet
        self._progress: Progress | None = None
        self._tasks: dict[str, Any] = {}
        self._download: dict[str, Any] | None = None
        self._shown: dict[str, Any] = {}  # what this process has printed (gates do not repeat it)
        self._bar: Progress | None = None
        self._calls_lock = threading.RLock()

    def _print(self, *args: Any, **kwargs: Any) -> None:
        if not self.quiet:
            self.console.print(*args, **kwargs)

    # --- run lifecycle ------------------------------------------------------------------

    def started(self, thread_id, task, settings, path, resumed: bool) -> None:
        verb = "resuming" if resumed else "thread"
        self._print(f"[bold]{verb}[/] [cyan]{thread_id}[/]")
        critic = "the checklist" if settings.critic == "checklist" else settings.critic_name
        models = settings.model if critic == settings.model else f"{settings.model} → critic {critic}"
        profile = " · tiny-model profile" if getattr(settings, "profile", None) == "tiny" else ""
        self._print(
            f"[dim]{escape(models)} · threshold {settings.threshold:g} · max rounds "
            f"{settings.max_rounds} · sections ≤ {settings.max_sections}{profile}[/]"
        )
        if profile and (said := embedded_notice(settings.language, task)):  # before the run, in one line
            self.warn(said)

    def download(self, done: int, total: int) -> None:
        """The embedded model's one-time download: a bar with size and speed on a terminal, a
        line at the end elsewhere."""
        import time

        if self._download is None:
            self._download = {"started": time.monotonic(), "bar": None, "task": None}
            if self.live:
                from rich.progress import (
                    BarColumn,
                    DownloadColumn,
                    TimeRemainingColumn,
                    TransferSpeedColumn,
                )

                bar = Progress(TextColumn("  model"), BarColumn(), DownloadColumn(),
                               TransferSpeedColumn(), TimeRemainingColumn(), console=self.console,
                               transient=True)  # fmt: skip
                bar.start()
                self._download.update(bar=bar, task=bar.add_task("model", total=total))
        state = self._download
        if state["bar"] is not None:
            state["bar"].update(state["task"], completed=done, total=total)
        if done >= total and not state.get("done"):
            state["done"] = True
            if state["bar"] is not None:
                state["bar"].stop()
            took = max(0.001, time.monotonic() - state["started"])
            self._print(f"  [green]✓[/] model downloaded [dim]{total / 1e6:.1f} MB in {took:.1f}s "
                        f"({total / 1e6 / took:.1f} MB/s)[/]")  # fmt: skip

    def task_progress(self, done: int, total: int, what: str) -> None:
        """A bar for work in many parts (`sources add` over many files); nothing when few."""
        if not self.live or total < 5:
            return
        if self._bar is None:
            from rich.progress import BarColumn, MofNCompleteColumn

            self._bar = Progress(TextColumn("  reading"), BarColumn(), MofNCompleteColumn(),
                                 TextColumn("[dim]{task.description}"), TimeElapsedColumn(),
                                 console=self.console, transient=True)  # fmt: skip
            self._bar.start()
            self._bar_task = self._bar.add_task("", total=total)
        self._bar.update(self._bar_task, completed=done, description=escape(what[-50:]))
        if done >= total:
            self._bar.stop()
            self._bar = None

    def notice(self, message: str) -> None:
        self._print(f"[dim]{escape(message)}[/]")

    def warn(self, message: str) -> None:
        self._print(f"[yellow]! {escape(message)}[/]")

    # --- model calls -------------------------------------------------------------------

    def call_event(self, kind: str, data: dict[str, Any], state: dict[str, Any]) -> None:
        """A call started (a spinner of its own: calls at once show one each), made progress,
        finished (its cost line) or was replayed. Calls at once report from several threads."""
        with self._calls_lock:
            self._call_event(kind, data, state)

    def _call_event(self, kind: str, data: dict[str, Any], state: dict[str, Any]) -> None:
        step = data["step"]
        label = step_label(step, state)
        if kind == "call_progress":
            task = self._tasks.get(step)
            if self._progress is not None and task is not None:
                tokens = f"{data['tokens']} tokens"
                self._progress.update(task, description=f"{escape(self._fit(label, tokens))} "
                                      f"[dim]· {tokens}[/]")  # fmt: skip
            return
        if kind == "call_started":
            if self.live:
                if self._progress is None:
                    self._progress = Progress(
                        SpinnerColumn(),
                        TextColumn("{task.description}"),
                        TimeElapsedColumn(),
                        console=self.console,
                        transient=True,
                    )
                    self._progress.start()
                self._tasks[step] = self._progress.add_task(
                    f"{escape(self._fit(label, data['model']))} [dim]· {escape(data['model'])}[/]",
                    total=None,
                )
            return
        self._drop_task(step)
        if kind == "call_finished":
            c = data["completion"]
            retries = f" · {plural(c.retries, 'retry', 'retries')}" if c.retries else ""
            cut = {"length": " · stopped by the token cap", "loop": " · cut: it repeated"}.get(
                c.finish_reason or "", ""
            )
            line = rows.cost_line({**c.to_dict(), rows.CACHED: getattr(c, rows.CACHED, 0)},
                                  data.get("run_tokens", c.tokens), data.get("run_cost", c.cost),
                                  data.get("in_flight", 0))  # fmt: skip
            self._print(f"  [green]✓[/] {escape(label)} [dim]{c.duration:.1f}s · {escape(line)}"
                        f"{retries}[/][yellow]{cut}[/]")  # fmt: skip
        elif kind == "call_replayed":
            self._print(f"  [blue]↺[/] {escape(label)} [dim]· answer replayed from the journal, "
                        "not paid again[/]")  # fmt: skip

    def _fit(self, label: str, after: str) -> str:
        """A spinner line must fit on one line, or the elapsed time falls off the screen."""
        room = self.console.width - len(after) - 18  # spinner, separators, elapsed time
        return label if len(label) <= room else label[: max(10, room - 1)].rstrip() + "…"

    def _drop_task(self, step: str) -> None:
        task = self._tasks.pop(step, None)
        if self._progress is not None and task is not None:
            self._progress.remove_task(task)

    def close(self) -> None:
        if self._progress is not None:
            self._progress.stop()
            self._progress = None
            self._tasks.clear()

    # --- node results -------------------------------------------------------------------

    def node_done(self, node: str, update: dict[str, Any], state: dict[str, Any]) -> None:
        for event in update.get("trace") or []:
            if event.get("kind") == "search":
                self._print(f"  [green]✓[/] research · {escape(event['note'])}")
            elif event.get("kind") == "checklist":
                self._print(f"  [green]✓[/] checklist review · {escape(event['note'])}")
            elif event.get("kind") in ("attributed", "memory", "pick", "steer"):
                self.notice(f"  {event['note']}")
            elif "kind" in event:
                self.warn(f"{event['kind']}: {event['note']}")
        # a node the budget stopped before (or inside) its call returns no outline or review
        if node == "plan" and update.get("outline"):
            self._outline(state["outline"])
        elif node == "review" and update.get("reviews"):
            self._review(state["reviews"][-1], state["params"]["threshold"], state)
        elif node == "decide":
            self._decision(state["decisions"][-1])
        elif node.startswith("gate_") and update.get("decisions"):  # a pick answer makes none
            self._decision(state["decisions"][-1])

    def _decision(self, d: dict[str, Any]) -> None:
        self._shown["decision"] = d["detail"]
        colour = {"passed": "green", "human": "magenta"}.get(d["reason"], "yellow")
        if d["decision"] == "revise":
            colour = "cyan"
        self._print(f"[{colour}]→ {d['decision']}[/] ({d['reason']}): {escape(d['detail'])}")

    def _outline(self, outline: dict[str, Any]) -> None:
        self._shown["outline"] = outline["sections"]
        flag = " [yellow](fallback)[/]" if outline["source"] == "fallback" else ""
        self._print(f"[bold]outline[/]{flag}")
        for i, section in enumerate(outline["sections"], 1):
            self._print(f"  {i}. {escape(section['title'])}")

    def _review(self, review: dict[str, Any], threshold: float, state: dict[str, Any]) -> None:
        if self.quiet:
            return
        passed = review["score"] >= threshold and review["source"] != "fallback"
        mark = "[green]✓ pass[/]" if passed else "[red]✗ below[/]"
        if review["source"] == "fallback":
            mark = "[yellow]heuristic fallback: cannot pass[/]"
        source = {"llm-retry": " · source llm-retry", "checklist": " · [cyan]checklist[/]"}.get(
            review["source"], ""
        )
        said = score_words(review["score"], review["source"], state)
        self._print(f"[bold]Round {review['round']}[/]: {escape(said)} vs threshold {threshold:g} "
                    f"{mark}{source}")  # fmt: skip
        table = Table(show_header=True, box=None, padding=(0, 2))
        table.add_column("dimension")
        table.add_column("score", justify="right")
        table.add_column("")
        for i, (name, value) in enumerate(rows.dimension_rows(review, state)):
            shown = f"[bold]{name}[/]" if i == 0 else name
            table.add_row(shown, rows.dimension_cell(value), "" if value is None else bar(value))
        self.console.print(table)
        if review["feedback"]:
            self._print(f"  [dim]feedback:[/] {escape(review['feedback'])}")
        if review.get("claims"):
            counts = rows.claim_counts(review["claims"])
            verdicts = [f"[{CLAIM_COLOURS[v]}]{n} {v}[/]" if n else f"[dim]0 {v}[/]"
                        for v, n in counts.items() if n or v in ("supported", "contradicted")]  # fmt: skip
            self._print("  [dim]cited claims:[/] " + ", ".join(verdicts))
        for imp in review["improvements"]:
            colour = "red" if imp["severity"] == "major" else "yellow"
            self._print(f"  [{colour}]{imp['severity']}[/] {escape(rows.where(imp))}: "
                        f"{escape(imp['issue'])}")  # fmt: skip

    # --- the human gate ----------------------------------------------------------------

    def can_ask(self) -> bool:
        """Questions need a person: a terminal on both ends. Without one nothing blocks."""
        import sys

        return self.console.is_terminal and sys.stdin.isatty() and not self.quiet

    def ask(self, question: dict[str, Any], state: dict[str, Any]) -> dict[str, Any]:
        from rich.prompt import Prompt

        self.close()
        if question["gate"] in ("steer", "pick"):  # change by change (output/pickview.py)
            from reflectcli.output.pickview import ask_gate

            return ask_gate(self, question)
        if question["gate"] == "outline":
            if self._shown.get("outline") != question["outline"]:  # not on screen already
                self._outline({"sections": question["outline"], "source": "llm"})
            choice = Prompt.ask(
                "outline: \\[a]pprove, \\[e]dit in $EDITOR, \\[r]egenerate",
                choices=["a", "e", "r"],
                default="a",
                console=self.console,
            )
            if choice == "e":
                from reflectcli.writing.editing import edit_outline

                return {"action": "edit", "sections": edit_outline(question["outline"])}
            return {"action": {"a": "approve", "r": "regenerate"}[choice]}
        best = question.get("best_score")
        if self._shown.get("decision") != question["detail"]:  # not on screen already
            self._print(f"[yellow]stopped without passing[/] ({question['reason']}): "
                        f"{escape(question['detail'])}")  # fmt: skip
        choice = Prompt.ask(
            f"\\[a]ccept version {question['best_version']} (score "
            f"{best if best is not None else '?'}) as the output, one \\[m]ore round, or "
            "\\[s]top (the same output, recorded as not accepted)",
            choices=["a", "m", "s"], default="a", console=self.console,
        )  # fmt: skip
        return {"action": {"a": "accept", "m": "more", "s": "stop"}[choice]}

    def waiting(self, result) -> None:
        self.close()
        q = result.waiting
        what = ("approval of the outline" if q["gate"] == "outline"
                else f"a decision after stopping ({q['reason']})")  # fmt: skip
        if q["gate"] in ("steer", "pick"):
            from reflectcli.output.pickview import waiting_words

            what = waiting_words(q)
        self.console.print(
            f"waiting for {what}; answer at a terminal with: "
            f"reflectcli resume {result.thread_id} --interactive", markup=False, soft_wrap=True,
        )  # fmt: skip

    # --- endings --------------------------------------------------------------------------

    def finished(self, result) -> None:
        self.close()
        s = result.summary
        if self.quiet:
            if s.get("warning"):
                self.err.print(f"warning: {s['warning']}", markup=False, soft_wrap=True)
            self.console.print(str(result.artifact), soft_wrap=True)
            return
        if s.get("warning"):  # the ending's first line: the output is not an article that passed
            self._print(f"[bold red]✗ {escape(s['warning'])}[/]")
        cost = f" · ${s['cost']:.4f}" if s.get("cost") else ""
        final = final_words(s)
        if s.get("final_version") and s["final_version"] != s.get("last_version"):
            last = f"{s['last_score']:g}" if s.get("last_score") is not None else "no score"
            if s.get("scored") == "form" and s.get("last_score") is not None:
                last = f"form {last}/10"
            final += (f" (version {s['final_version']} kept; version {s['last_version']} "
                      f"scored {last})")  # fmt: skip
        self._print(
            f"[bold green]done[/] {stop_words(s)} · {escape(final)} · "
            f"{s['rounds']} round{'s' if s['rounds'] != 1 else ''} · {s['calls']} calls · "
            f"{rows.estimated(s['tokens'], s.get('estimated_tokens', 0))} tokens{cost} · "
            f"{result.elapsed:.1f}s"
        )
        if s.get("claims") or s.get("sources_used") or s.get("citations_removed"):
            flagged = "".join(f" · [{CLAIM_COLOURS[k]}]{s.get('claims_' + k, 0)} {k}[/]"
                              for k in ("unverified", "contradicted") if s.get("claims_" + k))  # fmt: skip
            self._print(f"[dim]sources:[/] {s['sources_used']} cited · cited claims "
                        f"{s['claims_supported']}/{s['claims']} supported{flagged} · "
                        f"{s['citations_removed']} invented citations removed")  # fmt: skip
        self.console.print(f"article: {result.artifact}", soft_wrap=True, markup=False)

    def already_finished(self, result) -> None:
        s = result.summary
        if s.get("warning"):
            self.console.print(f"✗ {s['warning']}", markup=False, soft_wrap=True)
        self.console.print(
            f"thread {result.thread_id} already finished ({s['stop_reason']}, {final_words(s)}); "
            "nothing to resume", markup=False,
        )  # fmt: skip
        self.console.print(f"article: {result.artifact}", soft_wrap=True, markup=False)

    def interrupted(self, thread_id: str) -> None:
        self.close()
        self.err.print(
            f"interrupted; the checkpoint is kept. Continue with: reflectcli resume {thread_id}",
            markup=False,
            soft_wrap=True,
        )

    def error(self, message: str, hint: str | None = None) -> None:
        self.close()
        text = f"error: {message}" + (f" ({hint})" if hint else "")
        self.err.print(text, markup=False, soft_wrap=True)
