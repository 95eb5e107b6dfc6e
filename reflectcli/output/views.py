"""Rendering for the inspection commands (history, show, diff, stats): Rich tables on a
terminal, plain text in a pipe, exact JSON with --json. Part of the renderer: it prints."""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence
from datetime import datetime
from typing import Any, Literal

from reflectcli.graph.rules import pending_step
from reflectcli.output import rows, safe
from reflectcli.output.questions import answer_lines
from reflectcli.output.safe import escape, terminal_safe
from reflectcli.output.summary import summarize
from reflectcli.writing.markdown import one_line
from reflectcli.writing.rubric import DIMENSIONS, facts_checked, scored

SPARKS = "▁▂▃▄▅▆▇█"


def sparkline(scores: list[float]) -> str:
    return "".join(SPARKS[min(7, int(s / 10 * 7.999))] for s in scores)


def _when(ts: float | None) -> str:
    return datetime.fromtimestamp(ts).strftime("%Y-%m-%d %H:%M") if ts else "—"


def _place(item: dict[str, Any]) -> str:
    """` · p. 3 · Heading` for a chunk that has a page or a heading."""
    parts = ([f"p. {item['page']}"] if item.get("page") else []) + (
        [item["heading"]] if item.get("heading") else []
    )
    return "".join(f" · {p}" for p in parts)


def _score(value: float | None) -> str:
    return "—" if value is None else f"{value:g}"


class Views:
    """Rich is imported only when something is drawn with it: `history` in a pipe prints
    plain aligned columns and stays fast."""

    def __init__(self, console=None):
        self._console = console

    @property
    def console(self):
        if self._console is None:
            console = safe.console(highlight=False)
            if not console.is_terminal:  # a pipe or file: keep whole rows
                console = safe.console(highlight=False, width=200)
            self._console = console
        return self._console

    def is_terminal(self) -> bool:
        return self._console.is_terminal if self._console is not None else sys.stdout.isatty()

    def json(self, data: Any) -> None:
        sys.stdout.write(terminal_safe(json.dumps(data, ensure_ascii=False, indent=2, default=str)) + "\n")

    def raw(self, text: str | bytes) -> None:
        """Text as it is (an export, a report) but for control characters, shown escaped; the
        bytes of a PDF or DOCX sent down a pipe as they are."""
        if isinstance(text, bytes):
            sys.stdout.flush()
            sys.stdout.buffer.write(text)
            sys.stdout.buffer.flush()
            return
        sys.stdout.write(terminal_safe(text))

    def message(self, text: str) -> None:
        if self._console is None and not self.is_terminal():
            sys.stdout.write(terminal_safe(text) + "\n")
            return
        self.console.print(text, markup=False, soft_wrap=True)

    # --- history ------------------------------------------------------------------------

    def history(self, runs: list[dict[str, Any]], runs_dir, filtered: bool = False) -> None:
        if not runs:
            self.message(f"no run matches in {runs_dir}" if filtered else f"no runs in {runs_dir}")
            return
        rows = [
            (r["thread_id"], _when(r["created_at"]), r["status"], str(r["rounds"]),
             ("form " if r.get("critic_model") == "checklist" else "")
             + f"{_score(r['first_score'])}→{_score(r['final_score'])}",
             ("~" if r.get("estimated_tokens") else "") + str(r["tokens"]),
             r["task"].splitlines()[0][:80])
            for r in runs
        ]  # fmt: skip
        if not self.is_terminal():
            header = ("id", "when", "status", "rounds", "score", "tokens", "task")
            widths = [max(len(row[i]) for row in [header, *rows]) for i in range(6)]
            right = {3, 5}
            for row in [header, *rows]:
                cells = [
                    c.rjust(w) if i in right else c.ljust(w)
                    for i, (c, w) in enumerate(zip(row, widths, strict=False))
                ]
                sys.stdout.write(terminal_safe("  ".join([*cells, row[6]]).rstrip()) + "\n")
            return
        from rich.table import Table

        table = Table(box=None, padding=(0, 1), header_style="bold")
        columns: tuple[tuple[str, Literal["left", "right"]], ...] = (
            ("id", "left"), ("when", "left"), ("status", "left"), ("rounds", "right"),
            ("score", "left"), ("tokens", "right"), ("task", "left"))  # fmt: skip
        for name, justify in columns:
            table.add_column(name, justify=justify, no_wrap=name != "task", overflow="ellipsis")
        colours = {"finished": "green", "failed": "red", "interrupted": "yellow",
                   "running": "cyan", "waiting": "magenta"}  # fmt: skip
        for row in rows:
            status = f"[{colours.get(row[2], 'white')}]{row[2]}[/]"
            table.add_row(escape(row[0]), row[1], status, row[3], row[4], row[5], escape(row[6]))
        self.console.print(table)

    # --- show ---------------------------------------------------------------------------

    def _show_scores(self, state: dict[str, Any]) -> None:
        """`show`'s scores: the sparkline, a row per review (form for the checklist), each
        review's feedback and improvements."""
        from rich.table import Table

        p = self.console.print
        reviews = state.get("reviews") or []
        if reviews:
            threshold = (state.get("params") or {}).get("threshold")
            form = any(scored(r["source"]) == "form" for r in reviews)
            facts = "" if facts_checked("checklist", state) else ", facts not checked"
            what = f"; the checklist scores form{facts}" if form else ""
            p(f"\n[bold]Scores[/] {sparkline([r['score'] for r in reviews])}"
              f"  [dim](threshold {threshold}{what})[/]")  # fmt: skip
            table = Table(box=None, padding=(0, 1), header_style="bold")
            table.add_column("round")
            table.add_column("version", justify="right")
            table.add_column("overall", justify="right")
            for d in DIMENSIONS:
                table.add_column(d[:12], justify="right")
            table.add_column("source")
            for r in reviews:
                (overall, score), *dims = rows.dimension_rows(r, state)
                table.add_row(str(r["round"]), str(r["version"]),
                              f"[bold]{'form ' if overall == 'form' else ''}{score:g}[/]",
                              *(rows.dimension_cell(v) for _, v in dims), r["source"])  # fmt: skip
            p(table)
            for r in reviews:
                p(f"\n[bold]Round {r['round']}[/] [dim]feedback:[/] {escape(r['feedback'])}")
                for line in rows.rejections(r):
                    p(f"  [dim]{escape(line)}[/]")
                for imp in r["improvements"]:
                    colour = "red" if imp["severity"] == "major" else "yellow"
                    p(f"  [{colour}]{escape(rows.improvement(imp, with_id=True))}[/]")

    def _show_trace(self, state: dict[str, Any]) -> None:
        """`show`'s guards, fallbacks, rollbacks and budget stops, then one row per model call."""
        from rich.table import Table

        p = self.console.print
        events = [e for e in state.get("trace") or [] if "kind" in e and e["kind"] != "search"]
        if events:
            p("\n[bold]Guards, fallbacks, rollbacks, budget[/]")
            for e in events:
                p(f"  [yellow]{e['kind']}[/] {e['node']}: {escape(e['note'])}")
        calls = [r for r in rows.trace_rows(state) if r["call"]]
        if calls:
            p("\n[bold]Trace[/]")
            table = Table(box=None, padding=(0, 1), header_style="bold")
            for name in ("step", "model", "time", "seconds", "tokens", "note"):
                table.add_column(name, justify="right" if name in ("seconds", "tokens") else "left")
            for r in calls:
                table.add_row(escape(r["what"]), escape(r["model"]), r["time"][:8], f"{r['seconds']:.2f}",
                              str(r["tokens"] or 0), escape(r["note"]))  # fmt: skip
            p(table)

    def show(self, run: dict[str, Any], state: dict[str, Any]) -> None:
        """Everything about one run, on the terminal (`reflectcli show THREAD`)."""
        p = self.console.print
        s = summarize(state)
        if s["warning"]:  # the first line: the run's output did not pass
            p(f"[bold red]✗ {escape(s['warning'])}[/]")
        p(f"[bold]{escape(run['thread_id'])}[/]  {escape(state.get('task', run['task']))}")
        critic = rows.critic_name(state.get("params") or {}, run["critic_model"])
        p(f"[dim]status {run['status']}{rows.resumed_words(run)} · {escape(run['model'])} → critic "
          f"{escape(critic)} · created {_when(run['created_at'])} · "
          f"{s['calls']} calls · {rows.estimated(s['tokens'], s.get('estimated_tokens', 0))} tokens"
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
        self._show_scores(state)
        recalled = state.get("lessons") or []
        if recalled:
            p("\n[bold]Lessons recalled[/]")
            for x in recalled:
                p(f"  ({x['id']}) {escape(x['text'])}")
        learned = state.get("learned")
        if learned:
            p(
                f"\n[bold]Lessons learned[/] new {learned['written'] or '—'} · reinforced "
                f"{learned['merged'] or '—'} · superseded {learned['superseded'] or '—'}"
            )
        self._grounding(state)
        critiques = list((state.get("critiques") or {}).values())
        if critiques:
            p("\n[bold]Critiques[/]")
            for c in critiques:
                colour = "green" if c["status"] == "addressed" else "yellow"
                p(f"  {c['id']:<6} [{colour}]{rows.critique_status(c):<20}[/] "
                  f"{escape(rows.where(c))}: {escape(c['issue'])}")  # fmt: skip
        for q in state.get("questions") or []:  # `reflectcli ask`: each answer with its marks
            head, *lines = answer_lines(q, state.get("evidence") or [])
            p(f"\n[bold]Question[/] {escape(head)}")
            for line in lines:
                p(f"  {escape(line)}" if line else "", soft_wrap=True)
        known = state.get("known_issues") or []
        if known:
            p("\n[bold]Known issues[/] (the output did not pass)")
            for k in known:
                p(f"  {escape(rows.improvement(k, with_id=True))}")
        decisions = state.get("decisions") or []
        if decisions:
            p("\n[bold]Decisions[/]")
            for d in decisions:
                p(f"  {escape(rows.decision(d))}")
        self._show_trace(state)
        nxt = pending_step(state)
        if nxt and (where := rows.running_where(run)):  # another process runs it: no resume
            p(f"\n[bold]{escape(where[0].upper() + where[1:])}[/]; its next step: {nxt}")
        elif nxt:
            p(f"\n[bold]Resume[/] would start at: {nxt}  "
              f"[dim](reflectcli resume {escape(run['thread_id'])})[/]")  # fmt: skip
        elif run.get("artifact"):
            p(f"\n[dim]artifact:[/] {escape(run['artifact'])}")

    def _grounding(self, state: dict[str, Any]) -> None:
        """Research, the verdicts on the output's cited claims, and its References."""
        p = self.console.print
        searches = [e for e in state.get("trace") or [] if e.get("kind") == "search"]
        if searches:
            p(f"\n[bold]Research[/] ({len(state.get('evidence') or [])} passages)")
            for e in searches:
                p(f"  {escape(e['note'])}")
        s = summarize(state)
        versions = state.get("versions") or []
        wanted = state.get("final_version") or (versions[-1]["n"] if versions else None)
        review = next((r for r in reversed(state.get("reviews") or [])
                       if r["version"] == wanted), None)  # fmt: skip
        if review and review.get("claims") is not None and (review["claims"] or searches):
            counts = ", ".join(f"{n} {v}" for v, n in rows.claim_counts(review["claims"]).items() if n)
            p(
                f"\n[bold]Cited claims[/] (version {wanted}): {s['claims_supported']} of "
                f"{s['claims']} supported ({counts or 'none'}) · {s['citations_removed']} invented "
                "citations removed"
            )
            for c in review["claims"]:
                p(
                    f"  [{rows.CLAIM_COLOURS.get(c['verdict'], 'dim')}]{c['verdict']:<12}[/] "
                    f"{escape(c.get('claim', ''))} {escape('[' + c['source'] + ']')} "
                    f"{escape(c['sentence'])} [dim]— {escape(c['reason'])} ({c['by']})[/]"
                )
        text = next((v["text"] for v in versions if v["n"] == wanted), "")
        found = rows.reference_rows(state, text)
        for line in rows.contradiction_note(state, text):
            p(f"[red]{escape(line)}[/]" if not line.startswith("- ") else f"  {escape(line)}", soft_wrap=True)
        if found:
            p("\n[bold]References[/]")
            for r in found:
                p(
                    f"  {escape('[' + r['label'] + ']')} {escape(r['title'])} — {escape(r['place'])}",
                    soft_wrap=True,
                )
                for c in r["claims"]:
                    p(f"    [dim]{escape(rows.cited_claim(c))}[/]", soft_wrap=True)

    # --- the memory ---------------------------------------------------------------------

    def lessons(self, found: list[dict[str, Any]], runs_dir) -> None:
        if not found:
            self.message(f"no lessons in {runs_dir} yet: runs learn them from their critiques, "
                         "or add one with `reflectcli memory add TEXT`")  # fmt: skip
            return
        source = {"learned": "critic", "user": "you", "human": "your critiques"}
        rows = [(str(x["id"]), f"{x['strength_now']:.2f}" + (" pinned" if x["pinned"] else ""),
                 str(x["seen"]), str(x["uses"]), _when(x["last_seen"]), x["status"], x["scope"],
                 source.get(x["origin"], x["origin"]), x["text"]) for x in found]  # fmt: skip
        self._columns(("id", "strength", "learned", "used", "last seen", "status", "scope", "from", "text"),
                      rows, right={0, 2, 3})  # fmt: skip

    def lesson(self, x: dict[str, Any]) -> None:
        p = self.message
        p(f"lesson {x['id']}: {x['text']}")
        pinned = ", pinned" if x["pinned"] else ""
        p(
            f"status {x['status']}{pinned} · scope {x['scope']} · strength now {x['strength_now']:.2f} "
            f"(stored {x['strength']:.2f}) · learned {x['seen']}× · recalled {x['uses']}× · "
            f"{x['origin']} · created {_when(x['created_at'])} · last seen {_when(x['last_seen'])}"
        )
        if x.get("superseded_by"):
            p(f"superseded by lesson {x['superseded_by']}")
        if x.get("supersedes"):
            p("supersedes lesson " + ", ".join(str(i) for i in x["supersedes"]))
        if x["evidence"]:
            p("evidence:")
            for e in x["evidence"]:
                change = "" if e["score_change"] is None else f" score {e['score_change']:+g}"
                where = f"{e['thread_id']} round {e['round']}" if e["thread_id"] else "you"
                p(f"  {_when(e['at'])} {e['kind']:<9} {where}{change} — {e['detail']}")
        if x["events"]:
            p("log:")
            for e in x["events"]:
                p(f"  {_when(e['at'])} {e['event']:<16} {e['detail']}")

    # --- the source library -------------------------------------------------------------

    def sources_added(self, outcomes: list[Any]) -> None:
        """One line per source that changed or failed, then the totals."""
        self._sources_pruned(outcomes)

        counts: dict[str, int] = {}
        chunks = 0
        for o in outcomes:
            counts[o.status] = counts.get(o.status, 0) + 1
            chunks += o.chunks
            if o.status in ("skipped", "ignored"):
                said = "error" if o.status == "skipped" else "note"
                sys.stderr.write(terminal_safe(f"{said}: {o.error}") + "\n")
            elif o.status in ("added", "updated"):
                count = rows.plural(o.chunks, "chunk", "chunks")
                self.message(f"{o.status} [{o.source_id}] {o.title} ({count})")
                if o.warning:
                    sys.stderr.write(terminal_safe(f"warning: {o.warning}") + "\n")
        order = ("added", "updated", "unchanged", "skipped")
        summary = ", ".join(f"{counts[k]} {k}" for k in order if counts.get(k))
        self.message(f"{summary or 'nothing to add'}; {rows.plural(chunks, 'chunk', 'chunks')} indexed")

    def _sources_pruned(self, outcomes: list[Any]) -> None:
        """The sources `sources add --prune` removed, one line each."""
        for o in outcomes:
            if o.status == "removed":
                self.message(f"removed [{o.source_id}] {o.title}")

    def sources(self, found: list[dict[str, Any]], runs_dir) -> None:
        if not found:
            self.message(f"no sources in {runs_dir}; add some with `reflectcli sources add PATH`")
            return
        rows = [(str(s["id"]), one_line(s["title"])[:50], s["kind"], str(s["chunks"]), _when(s["added_at"]),
                 one_line(s.get("shown") or s["location"])) for s in found]  # fmt: skip
        self._columns(("id", "title", "kind", "chunks", "added", "location"), rows, right={0, 3})

    def source_hits(self, hits: list[dict[str, Any]], query: str) -> None:
        if not hits:
            self.message(f"nothing in the library matches {query!r}")
            return
        for rank, hit in enumerate(hits, 1):
            where = _place(hit)
            title = one_line(hit["title"])
            line = f"{rank:>2}. [{hit['source_id']}] {title}{where}  (score {-hit['score']:.2f})"
            self.message(line)
            self.message(f"    {hit['snippet']}")

    def source(self, found: dict[str, Any], chunks: list[dict[str, Any]]) -> None:
        self.message(f"[{found['id']}] {one_line(found['title'])}")
        count = rows.plural(len(chunks), "chunk", "chunks")
        self.message(f"{found['kind']} · {found['location']} · {found['chars']} characters · "
                     f"{count} · added {_when(found['added_at'])}")  # fmt: skip
        for c in chunks:
            flat = " ".join(c["text"].split())
            self.message(f"  #{c['seq'] + 1}{_place(c)} [{c['char_start']}-{c['char_end']}] "
                         f"{flat[:160]}{'…' if len(flat) > 160 else ''}")  # fmt: skip

    def _columns(self, header: tuple[str, ...], rows: Sequence[tuple[Any, ...]], right: set[int]) -> None:
        """Plain aligned columns (the last one free), in a pipe and on a terminal alike."""
        rows = [tuple(terminal_safe(c) for c in r) for r in rows]  # widths of what is shown
        widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header) - 1)]
        for row in [header, *rows]:
            cells = [c.rjust(w) if i in right else c.ljust(w)
                     for i, (c, w) in enumerate(zip(row, widths, strict=False))]  # fmt: skip
            self.message("  ".join([*cells, row[-1]]).rstrip())

    # --- diff ---------------------------------------------------------------------------

    def unified_diff(self, lines: list[str]) -> None:
        if not lines:
            self.message("no differences")
            return
        if not self.is_terminal():
            sys.stdout.write(terminal_safe("\n".join(lines)) + "\n")
            return
        from rich.text import Text

        for line in lines:
            style = ("bold" if line.startswith(("---", "+++")) else "green" if line.startswith("+")
                     else "red" if line.startswith("-") else "cyan" if line.startswith("@@")
                     else "")  # fmt: skip
            self.console.print(Text(line, style=style), soft_wrap=True)

    def word_diff(self, ops: list[tuple[str, str]]) -> None:
        if self.is_terminal():
            from rich.text import Text

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
        sys.stdout.write(terminal_safe("".join(out).rstrip()) + "\n")

    # --- stats --------------------------------------------------------------------------

    def stats(self, data: dict[str, Any]) -> None:
        from rich.table import Table

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
        form, scored = data.get("form_scored") or 0, data.get("scored") or 0
        what = "mean score"
        if form and form == scored:  # every score is the checklist's: form, facts not checked
            what = "mean form (the checklist's; facts not checked)"
        elif form:
            what = f"mean score ({form} of {scored} runs scored for form by the checklist)"
        p(f"{what}: first {_score(data['mean_first_score'])} → final "
          f"{_score(data['mean_final_score'])} (gain {'+' if (gain or 0) >= 0 else ''}"
          f"{_score(gain)})")  # fmt: skip
        rate = data["fallback_rate"]
        p(f"fallback rate: {'—' if rate is None else f'{rate:.1%}'} of structured answers")
        if data.get("claims") or data.get("sources_used") or data.get("citations_removed"):
            share = data["supported_share"]
            p(f"grounding: {data['sources_used']} sources cited · {data['citations_removed']} "
              f"invented citations removed · {data['claims']} cited claims checked, "
              f"{'—' if share is None else f'{share:.0%}'} supported")  # fmt: skip
        memory = data.get("memory") or {}
        if (memory.get("with lessons") or {}).get("runs"):
            p("memory (finished runs):")
            for name, group in memory.items():
                passed = "—" if group["passed"] is None else f"{group['passed']:.0%}"
                p(f"  {name:<13} {group['runs']:>4} runs · mean rounds {_score(group['mean_rounds'])} · "
                  f"first draft {_score(group['mean_first_score'])} · passed {passed}")  # fmt: skip
        table = Table(box=None, padding=(0, 1), header_style="bold", title="usage per model",
                      title_justify="left")  # fmt: skip
        for name in ("model", "calls", "tokens in", "of which cached", "tokens out", "of which estimated",
                     "cost"):  # fmt: skip
            table.add_column(name, justify="left" if name == "model" else "right")
        for m in data["per_model"]:
            cost = "unknown" if m["cost"] is None else f"${m['cost']:.4f}"
            cost = ("~" if m.get("estimated_tokens") and m["cost"] is not None else "") + cost
            table.add_row(escape(m["model"]), str(m["calls"]), str(m["prompt_tokens"]),
                          str(m.get("cache_read_tokens", 0)), str(m["completion_tokens"]),
                          str(m.get("estimated_tokens", 0)), cost)  # fmt: skip
        p(table)
