"""Rendering for the inspection commands (history, show, diff, stats): Rich tables on a
terminal, plain text in a pipe, exact JSON with --json. Part of the renderer: it prints."""

from __future__ import annotations

import json
import sys
from datetime import datetime
from typing import Any

from rich.console import Console
from rich.markup import escape
from rich.table import Table
from rich.text import Text

from reflectcli.summary import DIMENSIONS, pending_step, summarize

SPARKS = "▁▂▃▄▅▆▇█"


def sparkline(scores: list[float]) -> str:
    return "".join(SPARKS[min(7, int(s / 10 * 7.999))] for s in scores)


def _when(ts: float | None) -> str:
    return datetime.fromtimestamp(ts).strftime("%Y-%m-%d %H:%M") if ts else "—"


def _score(value: float | None) -> str:
    return "—" if value is None else f"{value:g}"


class Views:
    def __init__(self, console: Console | None = None):
        if console is None:
            console = Console(highlight=False)
            if not console.is_terminal:  # a pipe or file: keep whole rows
                console = Console(highlight=False, width=200)
        self.console = console

    def json(self, data: Any) -> None:
        sys.stdout.write(json.dumps(data, ensure_ascii=False, indent=2, default=str) + "\n")

    def raw(self, text: str) -> None:
        sys.stdout.write(text)

    def message(self, text: str) -> None:
        self.console.print(text, markup=False, soft_wrap=True)

    # --- history ------------------------------------------------------------------------

    def history(self, runs: list[dict[str, Any]], runs_dir) -> None:
        if not runs:
            self.message(f"no runs in {runs_dir}")
            return
        table = Table(box=None, padding=(0, 1), header_style="bold")
        for name, justify in (("id", "left"), ("when", "left"), ("status", "left"),
                              ("rounds", "right"), ("score", "left"), ("tokens", "right"),
                              ("task", "left")):  # fmt: skip
            table.add_column(name, justify=justify, no_wrap=name != "task", overflow="ellipsis")
        colours = {"finished": "green", "failed": "red", "interrupted": "yellow",
                   "running": "cyan", "waiting": "magenta"}  # fmt: skip
        for r in runs:
            status = f"[{colours.get(r['status'], 'white')}]{r['status']}[/]"
            score = f"{_score(r['first_score'])}→{_score(r['final_score'])}"
            table.add_row(
                escape(r["thread_id"]), _when(r["created_at"]), status, str(r["rounds"]),
                score, str(r["tokens"]), escape(r["task"].splitlines()[0][:80]),
            )  # fmt: skip
        self.console.print(table)

    # --- show ---------------------------------------------------------------------------

    def show(self, run: dict[str, Any], state: dict[str, Any]) -> None:
        p = self.console.print
        s = summarize(state)
        p(f"[bold]{escape(run['thread_id'])}[/]  {escape(state.get('task', run['task']))}")
        p(f"[dim]status {run['status']} · {escape(run['model'])} → critic "
          f"{escape(run['critic_model'])} · created {_when(run['created_at'])} · "
          f"{s['calls']} calls · {s['tokens']} tokens"
          + (f" · ${s['cost']:.4f}" if s["cost"] else "") + "[/]")  # fmt: skip
        if run.get("error"):
            p(f"[red]last error:[/] {escape(run['error'])}")
        outline = state.get("outline")
        if outline:
            flag = " [yellow](fallback)[/]" if outline["source"] == "fallback" else ""
            p(f"\n[bold]Outline[/]{flag}")
            for i, sec in enumerate(outline["sections"], 1):
                goal = f" [dim]— {escape(sec['goal'])}[/]" if sec.get("goal") else ""
                p(f"  {i}. {escape(sec['title'])}{goal}")
        reviews = state.get("reviews") or []
        if reviews:
            threshold = (state.get("params") or {}).get("threshold")
            p(f"\n[bold]Scores[/] {sparkline([r['score'] for r in reviews])}"
              f"  [dim](threshold {threshold})[/]")  # fmt: skip
            table = Table(box=None, padding=(0, 1), header_style="bold")
            table.add_column("round")
            table.add_column("version", justify="right")
            table.add_column("overall", justify="right")
            for d in DIMENSIONS:
                table.add_column(d[:12], justify="right")
            table.add_column("source")
            for r in reviews:
                table.add_row(str(r["round"]), str(r["version"]), f"[bold]{r['score']:g}[/]",
                              *(f"{r['dimensions'][d]:g}" for d in DIMENSIONS),
                              r["source"])  # fmt: skip
            p(table)
            for r in reviews:
                p(f"\n[bold]Round {r['round']}[/] [dim]feedback:[/] {escape(r['feedback'])}")
                for imp in r["improvements"]:
                    colour = "red" if imp["severity"] == "major" else "yellow"
                    p(f"  [{colour}]{imp['severity']}[/] {escape(imp['section'] or 'whole')}: "
                      f"{escape(imp['issue'])}")  # fmt: skip
        critiques = list((state.get("critiques") or {}).values())
        if critiques:
            p("\n[bold]Critiques[/]")
            for c in critiques:
                colour = "green" if c["status"] == "addressed" else "yellow"
                p(f"  {c['id']:<6} [{colour}]{c['status']:<9}[/] {escape(c['section'] or 'whole')}: "
                  f"{escape(c['issue'])}")  # fmt: skip
        known = state.get("known_issues") or []
        if known:
            p("\n[bold]Known issues[/] (the output did not pass)")
            for k in known:
                p(f"  {k['id']} {escape(k['section'] or 'whole')}: {escape(k['issue'])}")
        decisions = state.get("decisions") or []
        if decisions:
            p("\n[bold]Decisions[/]")
            for d in decisions:
                p(f"  round {d['round']}: {d['decision']} ({d['reason']}) — {escape(d['detail'])}")
        events = [e for e in state.get("trace") or [] if "kind" in e]
        if events:
            p("\n[bold]Guards, fallbacks, rollbacks, budget[/]")
            for e in events:
                p(f"  [yellow]{e['kind']}[/] {e['node']}: {escape(e['note'])}")
        calls = [e for e in state.get("trace") or [] if "step" in e]
        if calls:
            p("\n[bold]Trace[/]")
            table = Table(box=None, padding=(0, 1), header_style="bold")
            for name in ("step", "model", "time", "seconds", "tokens", "note"):
                table.add_column(name, justify="right" if name in ("seconds", "tokens") else "left")
            for e in calls:
                note = ("replayed " if e.get("replayed") else "") + (
                    f"{e['retries']} retries" if e.get("retries") else "")
                table.add_row(e["step"], escape(e["model"]), e["at"][11:19], f"{e['duration']:.2f}",
                              str(e["prompt_tokens"] + e["completion_tokens"]), note)  # fmt: skip
            p(table)
        nxt = pending_step(state)
        if nxt:
            p(f"\n[bold]Resume[/] would start at: {nxt}  "
              f"[dim](reflectcli resume {escape(run['thread_id'])})[/]")  # fmt: skip
        elif run.get("artifact"):
            p(f"\n[dim]artifact:[/] {escape(run['artifact'])}")

    # --- diff ---------------------------------------------------------------------------

    def unified_diff(self, lines: list[str]) -> None:
        if not lines:
            self.message("no differences")
            return
        if not self.console.is_terminal:
            sys.stdout.write("\n".join(lines) + "\n")
            return
        for line in lines:
            style = ("bold" if line.startswith(("---", "+++")) else "green" if line.startswith("+")
                     else "red" if line.startswith("-") else "cyan" if line.startswith("@@")
                     else "")  # fmt: skip
            self.console.print(Text(line, style=style), soft_wrap=True)

    def word_diff(self, ops: list[tuple[str, str]]) -> None:
        if self.console.is_terminal:
            text = Text()
            for op, chunk in ops:
                style = {"=": "", "-": "red strike", "+": "green underline"}[op]
                text.append(chunk, style=style)
            self.console.print(text, soft_wrap=True)
            return
        out = []
        for op, chunk in ops:
            core = chunk.strip()
            if op == "=" or not core:
                out.append("" if op == "-" else chunk)
                continue
            lead = chunk[: len(chunk) - len(chunk.lstrip())]
            trail = chunk[len(chunk.rstrip()) :]
            out.append(f"{lead}[{op}{core}{op}]{trail}")
        sys.stdout.write("".join(out).rstrip() + "\n")

    # --- stats --------------------------------------------------------------------------

    def stats(self, data: dict[str, Any]) -> None:
        p = self.console.print
        if not data.get("runs"):
            self.message("no runs")
            return
        p(f"[bold]{data['runs']} runs[/] · " + ", ".join(
            f"{k} {v}" for k, v in data["by_status"].items()))  # fmt: skip
        p(f"mean rounds (finished): {_score(data['mean_rounds'])}")
        reasons = ", ".join(f"{k} {v}" for k, v in data["stop_reasons"].items()) or "—"
        p(f"stop reasons: {reasons}")
        gain = data["mean_gain"]
        p(f"mean score: first {_score(data['mean_first_score'])} → final "
          f"{_score(data['mean_final_score'])} (gain {'+' if (gain or 0) >= 0 else ''}"
          f"{_score(gain)})")  # fmt: skip
        rate = data["fallback_rate"]
        p(f"fallback rate: {'—' if rate is None else f'{rate:.1%}'} of structured answers")
        table = Table(box=None, padding=(0, 1), header_style="bold", title="usage per model",
                      title_justify="left")  # fmt: skip
        for name in ("model", "calls", "tokens in", "tokens out", "cost"):
            table.add_column(name, justify="left" if name == "model" else "right")
        for m in data["per_model"]:
            cost = "unknown" if m["cost"] is None else f"${m['cost']:.4f}"
            table.add_row(escape(m["model"]), str(m["calls"]), str(m["prompt_tokens"]),
                          str(m["completion_tokens"]), cost)  # fmt: skip
        p(table)
