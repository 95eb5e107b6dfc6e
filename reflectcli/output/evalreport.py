"""An eval report for the terminal (Rich) and as one self-contained HTML page with a chart (inline
SVG, every piece of text escaped). Pure rendering of the report dict eval/run.py builds."""

from __future__ import annotations

import html
from typing import Any

from reflectcli.output.rows import plural

CRITERIA = ("interest", "coherence", "relevance", "coverage",
            "accuracy", "completeness", "readability", "structure")  # fmt: skip


def _pct(value: float | None) -> str:
    return "—" if value is None else f"{value:.0%}"


def _num(value: float | None, signed: bool = False) -> str:
    if value is None:
        return "—"
    return f"{value:+.2f}" if signed else f"{value:.2f}"


def judge_lines(report: dict[str, Any]) -> list[str]:
    """First of all: whether the judge is independent of the texts it grades."""
    judge = report.get("judge") or {}
    if judge.get("judge_same"):
        named = judge.get("same_as") or {}
        roles = " and ".join(f"the {r}" + (f" {named[r]} (the same model)" if r in named else "")
                             for r in judge.get("shared") or ["writer"])  # fmt: skip
        return [f"JUDGE NOT INDEPENDENT (--judge-same): the judge {judge.get('model')} is also "
                f"{roles}; these numbers are not evidence"]  # fmt: skip
    return []


def judge_note(verdict: dict[str, Any] | None) -> str:
    """The judge's order consistency and self-agreement, shown beside each of its results."""
    if not verdict:  # a report built before issue 40
        return ""
    j = verdict["judge"]
    shown = ("unknown" if j["order_consistency"] is None
             else f"{_pct(j['order_consistency'])} of {plural(j['pairs'], 'pair', 'pairs')}")  # fmt: skip
    agree = ("unknown" if j["self_agreement"] is None
             else f"{_pct(j['self_agreement'])} of {plural(j['self_pairs'], 'task', 'tasks')}")  # fmt: skip
    return f" [judge: order-consistent on {shown} · self-agreement (rubric vs pairwise) {agree}]"


def no_verdict(verdict: dict[str, Any] | None) -> str | None:
    """The text that stands for a result when the judge cannot decide (eval/reliability.py), else None."""
    if not verdict or verdict["given"]:
        return None
    j = verdict["judge"]
    if not j["pairs"]:
        return ("no verdict (the judge named a winner in no pair it decided in both orders: its order "
                "consistency is unknown)")  # fmt: skip
    pairs = plural(j["pairs"], "pair", "pairs")
    head = f"no verdict (judge order-consistent on {_pct(j['order_consistency'])} of {pairs}"
    if j["needed"] is None:
        return f"{head}: too few pairs to tell it from a judge blind to the texts; 5 at least)"
    return (f"{head}; a judge blind to the texts names the same text in both orders of up to half the pairs "
            f"by chance: {j['needed']} of {j['pairs']} needed to tell it apart)")  # fmt: skip


def listed(result: dict[str, Any] | None) -> str:
    """A finished eval's stored headline, for `eval list`."""
    if not result:
        return ""
    if not result["verdict"]:
        shown = "unknown" if result["order_consistency"] is None else _pct(result["order_consistency"])
        pairs = plural(result["pairs"], "pair", "pairs")
        return f"  no verdict (judge order-consistent on {shown} of {pairs})"
    lc = "confounded" if result.get("lc_unknown") == "confounded" else _pct(result.get("lc_win"))
    return (f"  win {_pct(result['win'])} · tie {_pct(result['tie'])} · loss {_pct(result['loss'])} · at "
            f"equal length {lc} · judge order-consistent on {_pct(result['order_consistency'])}")  # fmt: skip


def _lc_shown(found: dict[str, Any], against: str = "its first draft") -> str:
    """The LC preference with its standard error and interval, or why there is none."""
    lc = found.get("lc_win")
    if lc is None:
        if found.get("lc_unknown") == "no lengths stored":
            return "unknown (no lengths stored: `reflectcli eval resume` computes them)"
        way = (
            "longer" if found.get("mean_length_change", 0) and found["mean_length_change"] > 0 else "shorter"
        )
        if not found.get("lc_reaches_equal"):
            gaps = f"every final is {way} than {against} (by 5 % or more)"
        else:
            vif = f"VIF {found['lc_vif']:.0f} > 10" if found.get("lc_vif") else "all the same"
            gaps = f"the length gaps are nearly all alike ({vif})"
        return (f"none — length and quality are confounded here: {gaps} and no equal-length pair "
                "was judged (`eval run --length-pairs 2` judges them)")  # fmt: skip
    interval = found.get("lc_interval")
    ci = f", 95 % CI {_pct(interval[0])}–{_pct(interval[1])}" if interval else ""
    se = f" (SE {found['lc_se']:.1%}{ci})" if found.get("lc_se") is not None else ""
    pairs = found.get("lc_equal_pairs") or 0
    basis = (f" · from {plural(pairs, 'equal-length pair', 'equal-length pairs')} and the pairs as written"
             if pairs else " · from the pairs as written")  # fmt: skip
    return f"{_pct(lc)}{se}{basis}"


def length_lines(summary: dict[str, Any]) -> list[str]:
    """The length-controlled result beside the raw one, and a loud flag when they disagree."""
    if "lc_win" not in summary:  # a report stored before length control
        return []
    change = summary.get("mean_length_change")
    grew = ("" if change is None else f" · mean length change {change:+.0%} "
            f"({summary['mean_words_added']:+.0f} words)")  # fmt: skip
    lines = [f"length-controlled preference of the final (at equal length): {_lc_shown(summary)} · raw "
             f"preference {_pct(summary['preference'])} (win + half the ties){grew}"]  # fmt: skip
    if summary.get("length_disagrees"):
        lines.insert(0, f"LENGTH: raw says {summary['raw_direction']}, at equal length "
                        f"{summary['lc_direction']}: the raw result is explained by length")  # fmt: skip
    return lines


MODEL_FREE = (("words", "words", "{:.0f}"), ("length_score", "length score S_l", "{:.1f}"),
              ("citations_per_1000_words", "citations per 1,000 words", "{:.1f}"),
              ("claims_supported", "claims supported", "{:.0%}"), ("rouge1", "ROUGE-1", "{:.3f}"),
              ("rouge_l", "ROUGE-L", "{:.3f}"), ("heading_recall_exact", "heading recall exact", "{:.0%}"),
              ("heading_recall_fuzzy", "heading recall fuzzy", "{:.0%}"))  # fmt: skip


def model_free_line(summary: dict[str, Any]) -> list[str]:
    """The metrics computed without a model, first draft → final (→ the other system's)."""
    found = summary.get("model_free") or {}
    if "final" not in found:
        return []
    roles = [r for r in ("first", "final", "other") if r in found]
    parts = []
    for key, label, shape in MODEL_FREE:
        cells = [found[r].get(key) for r in roles]
        if all(c is None for c in cells):
            continue
        shown = " → ".join("—" if c is None or c["mean"] is None else shape.format(c["mean"]) for c in cells)
        count = max(c["tasks"] for c in cells if c)
        parts.append(f"{label} {shown}" + (f" ({plural(count, 'task', 'tasks')})" if key != "words" else ""))
    parts.append(f"invented citations removed {found['final'].get('invented_citations_removed', 0)}")
    return [f"without a model ({' → '.join(roles)}): " + " · ".join(parts)]


def headline(summary: dict[str, Any]) -> list[str]:
    """The lines a reader must not miss, worse-off first."""
    lines = []
    verdict = summary.get("verdict")
    note, missing = judge_note(verdict), no_verdict(verdict)
    if summary["judged"] and missing:
        over = plural(summary["judged"], "task", "tasks")
        lines.append(f"final vs first draft over {over}: {missing}")
    elif summary["judged"]:
        interval = summary["win_interval"]
        ci = f" (95 % CI {_pct(interval[0])}–{_pct(interval[1])})" if interval else ""
        over = plural(summary["judged"], "task", "tasks")
        lines.append(f"final vs first draft over {over}: win {_pct(summary['win'])}"
                     f"{ci} · tie {_pct(summary['tie'])} · loss {_pct(summary['loss'])}{note}")  # fmt: skip
        if summary["loss"] and summary["loss"] > summary["win"]:
            lines.insert(0, "WORSE: the final output lost to the first draft more often than it won")
        lines += [line + note for line in length_lines(summary)]
    if summary["judged"]:
        consistency = summary["position_consistency"]
        decided = summary.get("consistency_pairs", summary.get("decided", summary["judged"]))
        if consistency is None:
            lines.append("position consistency unknown: the judge named a winner in no pair it "
                         "decided in both orders (identical texts are not judged; unusable answers "
                         "fall back to a tie; a tie in both orders says nothing about position)")  # fmt: skip
        else:
            leans = " — below 85 %: the judge leans on position" if consistency < 0.85 else ""
            lines.append(f"position consistency {_pct(consistency)} over {decided} pair"
                         f"{'s' if decided != 1 else ''} the judge decided with a winner (the two "
                         f"orders agreed){leans}")  # fmt: skip
        if summary["judge_fallbacks"]:
            lines.append(f"{summary['judge_fallbacks']} pairwise judgement(s) fell back to a tie "
                         "(the judge's answer was unusable)")  # fmt: skip
    else:
        lines.append("no task judged yet")
    gain = summary["mean_rubric_gain"]
    cost = "unknown" if summary["cost"] is None else f"${summary['cost']:.4f}"
    judged = summary.get("judge_cost")
    judge_cost = "unknown" if judged is None else f"${judged:.4f}"
    lines.append(f"mean rubric gain {_num(gain, True)} (1-5 scale){note} · mean rounds "
                 f"{_num(summary['mean_rounds'])} · writing {summary['tokens']} tokens, {cost} · judging "
                 f"{summary['judge_tokens']} tokens, {judge_cost} · gain per dollar (writing and "
                 f"judging) {_num(summary['gain_per_dollar'])}")  # fmt: skip
    lines += model_free_line(summary)
    return lines


def outputs_lines(outputs: dict[str, Any] | None) -> list[str]:
    """Our final against another system's published articles (`--against-outputs`)."""
    if not outputs:
        return []
    named = (f"{outputs['system']} ({outputs['file']}, sha256 {outputs['sha256']}, "
             f"{outputs['articles']} articles)")  # fmt: skip
    if not outputs["judged"]:
        return [f"ours vs {named}: no task judged yet"]
    missing = no_verdict(outputs.get("verdict"))
    if missing:
        return [f"ours vs {named} over {plural(outputs['judged'], 'task', 'tasks')}: {missing}"]
    interval = outputs["win_interval"]
    ci = f" (95 % CI {_pct(interval[0])}–{_pct(interval[1])})" if interval else ""
    consistency = outputs["position_consistency"]
    change = outputs["mean_length_change"]
    lines = [f"ours vs {named} over {plural(outputs['judged'], 'task', 'tasks')}: ours wins "
             f"{_pct(outputs['win'])}{ci} · tie {_pct(outputs['tie'])} · ours loses "
             f"{_pct(outputs['loss'])} · position consistency "
             f"{'unknown' if consistency is None else _pct(consistency)} · preference "
             f"{_pct(outputs['preference'])}, at equal length {_lc_shown(outputs, 'theirs')}"
             f" · our length vs theirs {'—' if change is None else f'{change:+.0%}'}"
             f"{judge_note(outputs.get('verdict'))}"]  # fmt: skip
    if outputs.get("length_disagrees"):
        lines.insert(0, f"LENGTH: against {outputs['system']}, raw says {outputs['raw_direction']}, "
                        f"at equal length {outputs['lc_direction']}: the raw result is explained by "
                        "length")  # fmt: skip
    return lines


def versus_lines(against: dict[str, Any] | None) -> list[str]:
    """Config B's final against config A's (`--against`)."""
    if not against:
        return []
    if not against["judged"]:
        return ["config B vs A: no task judged yet"]
    over = plural(against["judged"], "task", "tasks")
    missing = no_verdict(against.get("verdict"))
    if missing:
        return [f"config B's final vs config A's over {over}: {missing}"]
    interval = against["b_win_interval"]
    ci = f" (95 % CI {_pct(interval[0])}–{_pct(interval[1])})" if interval else ""
    return [f"config B's final vs config A's over {over}: B wins "
            f"{_pct(against['b_win'])}{ci} · tie {_pct(against['tie'])} · B loses "
            f"{_pct(against['b_loss'])} · position consistency {_pct(against['position_consistency'])}"
            f" · rubric gain B − A {_num(against['rubric_gain_b_over_a'], True)}"
            f"{judge_note(against.get('verdict'))}"]  # fmt: skip


def lines(report: dict[str, Any]) -> list[str]:
    """Every headline line, in the order a reader must see them."""
    return (judge_lines(report) + headline(report["summary"]) + versus_lines(report.get("against"))
            + outputs_lines(report.get("outputs")))  # fmt: skip


def terminal(console, report: dict[str, Any]) -> None:
    from rich.table import Table

    from reflectcli.output.safe import escape

    ev, summary = report["eval"], report["summary"]
    p = console.print
    p(f"[bold]eval {escape(ev['id'])}[/] · {escape(ev['suite'])} · {ev['status']} · writer "
      f"{escape(str(report['models']['writer']))} · critic {escape(str(report['models']['critic']))}"
      f" · judge {escape(ev['judge'])}")  # fmt: skip
    for line in lines(report):
        loud = line.startswith(("WORSE", "JUDGE NOT", "LENGTH:")) or ": no verdict (" in line
        colour = "red bold" if loud else "yellow" if "below 85" in line else ""
        p(f"[{colour}]{escape(line)}[/]" if colour else escape(line))
    table = Table(box=None, padding=(0, 1), header_style="bold", title="rubric gain per criterion",
                  title_justify="left")  # fmt: skip
    for c in CRITERIA:
        table.add_column(c[:11], justify="right")
    table.add_row(*(_num(summary["rubric_gain"][c], True) for c in CRITERIA))
    p(table)
    if report["by_tag"]:
        tags = Table(box=None, padding=(0, 1), header_style="bold", title="per tag", title_justify="left")
        for name in ("tag", "tasks", "win", "tie", "loss", "rubric gain", "rounds"):
            tags.add_column(name, justify="left" if name == "tag" else "right")
        for tag, s in report["by_tag"].items():
            tags.add_row(escape(tag), str(s["tasks"]), *shares(s), _num(s["mean_rubric_gain"], True),
                         _num(s["mean_rounds"]))  # fmt: skip
        p(tags)
    if report["regressions"]:
        p("[bold]worst regressions[/]")
        for r in report["regressions"]:
            thread = escape(str(r["thread_id"]))
            p(
                f"  task {r['n']}: {escape(r['task'][:70])} · pairwise {_outcome(report, r['outcome'])} · "
                f"rubric "
                f"{_num(r['rubric_gain'], True)} · [dim]reflectcli diff {thread} first final[/]"
            )


def shares(summary: dict[str, Any]) -> tuple[str, str, str]:
    """Win, tie and loss as table cells; "no verdict" where the judge cannot decide."""
    if no_verdict(summary.get("verdict")):
        return "no verdict", "—", "—"
    return _pct(summary["win"]), _pct(summary["tie"]), _pct(summary["loss"])


def _outcome(report: dict[str, Any], outcome: str | None) -> str:
    return "no verdict" if no_verdict(report["summary"].get("verdict")) else outcome or "—"


def _bars(values: list[tuple[str, float | None]], width: int = 520) -> str:
    """A horizontal bar chart of gains (-4..+4) as inline SVG."""
    row, half = 22, width // 2
    height = row * len(values) + 10
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width + 140}" height="{height}" '
             'role="img" aria-label="rubric gain per criterion">']  # fmt: skip
    parts.append(f'<line x1="{140 + half}" y1="0" x2="{140 + half}" y2="{row * len(values)}" stroke="#999"/>')
    for i, (name, value) in enumerate(values):
        y = i * row + 4
        parts.append(f'<text x="0" y="{y + 13}" font-size="13">{html.escape(name)}</text>')
        if value is not None:
            length = abs(value) / 4 * half
            x = 140 + half - (length if value < 0 else 0)
            colour = "#b33" if value < 0 else "#4a7"
            parts.append(f'<rect x="{x:.1f}" y="{y}" width="{length:.1f}" height="14" fill="{colour}"/>')
            parts.append(f'<text x="{140 + half + (6 if value >= 0 else -50)}" y="{y + 12}" '
                         f'font-size="11">{value:+.2f}</text>')  # fmt: skip
    parts.append("</svg>")
    return "".join(parts)


def page(report: dict[str, Any]) -> str:
    e = html.escape
    ev, summary = report["eval"], report["summary"]
    out = ["<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">',
           f"<title>eval {e(ev['id'])}</title><style>body{{font:15px/1.5 system-ui,sans-serif;"
           "max-width:60rem;margin:2rem auto;padding:0 1rem}table{border-collapse:collapse}"
           "td,th{border:1px solid #ccc;padding:.2rem .5rem}.worse{color:#b33;font-weight:bold}"
           "</style></head><body>",
           f"<h1>eval {e(ev['id'])}</h1>",
           f"<p>{e(ev['suite'])} · {e(ev['status'])} · writer {e(str(report['models']['writer']))} · "
           f"critic {e(str(report['models']['critic']))} · judge {e(ev['judge'])}</p>"]  # fmt: skip
    for line in lines(report):
        loud = line.startswith(("WORSE", "JUDGE NOT", "LENGTH:")) or ": no verdict (" in line
        cls = ' class="worse"' if loud else ""
        out.append(f"<p{cls}>{e(line)}</p>")
    out.append("<h2>Rubric gain per criterion (final − first draft)</h2>")
    out.append(_bars([(c, summary["rubric_gain"][c]) for c in CRITERIA]))
    if report["by_tag"]:
        out.append("<h2>Per tag</h2><table><tr><th>tag</th><th>tasks</th><th>win</th><th>tie</th>"
                   "<th>loss</th><th>rubric gain</th></tr>")  # fmt: skip
        for tag, s in report["by_tag"].items():
            win, tie, loss = shares(s)
            out.append(f"<tr><td>{e(tag)}</td><td>{s['tasks']}</td><td>{win}</td><td>{tie}</td><td>{loss}"
                       f"</td><td>{_num(s['mean_rubric_gain'], True)}</td></tr>")  # fmt: skip
        out.append("</table>")
    if report["regressions"]:
        out.append("<h2>Worst regressions</h2><ul>")
        for r in report["regressions"]:
            out.append(f"<li>task {r['n']}: {e(r['task'])} — pairwise {e(_outcome(report, r['outcome']))}, "
                       "rubric "
                       f"{_num(r['rubric_gain'], True)} — <code>reflectcli diff {e(str(r['thread_id']))} "
                       "first final</code></li>")  # fmt: skip
        out.append("</ul>")
    out.append("<h2>Tasks</h2><table><tr><th>#</th><th>task</th><th>tags</th><th>pairwise</th>"
               "<th>orders</th><th>rounds</th><th>thread</th></tr>")  # fmt: skip
    for i in report["items"]:
        pair = i.get("pair") or {}
        orders = f"{pair.get('ab', '—')} / {pair.get('ba', '—')}"
        rounds = (i.get("run") or {}).get("rounds", "—")
        out.append(f"<tr><td>{i['n']}</td><td>{e(i['task'])}</td><td>{e(', '.join(i.get('tags') or []))}"
                   f"</td><td>{e(str(pair.get('outcome', '—')))}</td><td>{e(orders)}</td><td>{rounds}</td>"
                   f"<td>{e(i['thread_id'])}</td></tr>")  # fmt: skip
    out.append("</table></body></html>\n")
    return "\n".join(out)
