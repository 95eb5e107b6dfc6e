"""The HTML report: one self-contained page from the document model, every piece of text
escaped. Each cited sentence carries its verdict (a quiet underline in the verdict's colour and
a mark, with a legend); clicking or focusing it shows the passage quoted for it and its source,
by CSS alone (`:focus-within`, `:target`): the page runs no script. A print stylesheet drops
what only a screen needs."""

from __future__ import annotations

from html import escape as e

from reflectcli.output import rows
from reflectcli.output.document import (
    VERDICTS,
    Claim,
    Code,
    Document,
    Heading,
    ListBlock,
    Paragraph,
    Quote,
    Rule,
    Span,
    Table,
    verdict,
)

_CSS = """
.contradicted{color:#b3261e;font-weight:600}
body{font:16px/1.6 Georgia,"Noto Serif CJK SC","Noto Serif CJK JP",serif;max-width:46rem;margin:2rem auto;
padding:0 1rem;color:#222}
h1{font-size:1.6rem}h2{font-size:1.25rem;margin-top:2rem}h3{font-size:1.05rem}
table{border-collapse:collapse;margin:.5rem 0}td,th{border:1px solid #ccc;padding:.2rem .6rem;
vertical-align:top}
.meta{color:#555;font:14px/1.5 system-ui,sans-serif}.meta th{text-align:left;font-weight:600}
.bar{display:inline-block;height:.7rem;background:#4a7;vertical-align:middle}
.major{color:#b33}.minor{color:#a70}
.notice{border-left:4px solid #b3261e;background:#fbeeee;padding:.5rem .8rem;font-family:system-ui,sans-serif}
article{border-top:1px solid #ddd;border-bottom:1px solid #ddd;padding:1rem 0}
code,pre{font-family:ui-monospace,"DejaVu Sans Mono",monospace;font-size:13px}
pre{background:#f6f6f6;padding:.6rem .8rem;overflow-x:auto}
blockquote{margin:0;padding-left:1rem;border-left:3px solid #ddd;color:#444}
.refs{list-style:none;padding-left:0}.refs>li{margin-bottom:.6rem}
.claim{border-bottom:2px solid var(--c);cursor:pointer;outline-offset:2px}
.claim:focus{outline:2px solid var(--c)}
.mark{color:var(--c);font:bold 12px/1 system-ui,sans-serif;padding-left:1px;vertical-align:super}
.evidence{display:none;margin:.4rem 0 .6rem;padding:.5rem .8rem;border-left:4px solid var(--c);
background:#f7f7f4;font:14px/1.5 system-ui,sans-serif;color:#222;cursor:auto}
.claim:focus .evidence,.claim:focus-within .evidence,.claim:target .evidence{display:block}
.legend{font:13px/1.5 system-ui,sans-serif;color:#555}.legend>span{margin-right:1rem}
.v{color:var(--c);font-weight:600}
@media print{
body{max-width:none;margin:0;font-size:11pt}a{color:inherit;text-decoration:none}
.evidence{display:none!important}.claim{border-bottom:1px solid var(--c)}
h2,h3{break-after:avoid}pre,table,blockquote,.refs>li{break-inside:avoid}
pre{white-space:pre-wrap;background:none;border:1px solid #ccc}
}
""".strip()


def render(doc: Document) -> str:
    """The page: the first block (task, status, models, score, rounds, date, known issues, the
    legend), the article, References, reviews and decisions."""
    lang = doc.language or "en"  # a BCP 47 code (writing/languages.language_code)
    parts = [
        "<!DOCTYPE html>",
        f'<html lang="{e(lang)}"><head><meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>{e(doc.title)}</title><style>{_CSS}</style></head><body>",
        "<header>",
    ]
    if doc.notice:  # first: an unfinished run, or an output the run did not pass
        parts.append(f'<p class="notice">{e(doc.notice)}</p>')
    parts.append(f"<h1>{e(doc.title)}</h1>")
    parts.append('<table class="meta">'
                 + "".join(f"<tr><th>{e(k)}</th><td>{e(v)}</td></tr>" for k, v in doc.meta)
                 + "</table>")  # fmt: skip
    if doc.known_issues:
        parts.append("<h2>Known issues</h2><ul>")
        parts += [f'<li><span class="{e(i["severity"])}">{e(i["severity"])}</span> {e(rows.where(i))}: '
                  f"{e(i['issue'])} ({e(i['id'])})</li>" for i in doc.known_issues]  # fmt: skip
        parts.append("</ul>")
    if doc.legend:
        parts.append('<p class="legend">Cited sentences are marked with their verdict (click one to see '
                     "the quoted passage): "
                     + "".join(f'<span style="--c:{v.colour}"><span class="v">{e(v.mark)}</span> {e(v.label)}'
                               "</span>" for v in doc.legend) + "</p>")  # fmt: skip
    parts.append("</header>")
    parts.append(f"<article>{blocks(doc.blocks, doc)}</article>")
    if doc.contradicted:
        parts.append(f'<p class="contradicted">{e(doc.contradicted[0])}</p><ul>'
                     + "".join(f"<li>{e(line.removeprefix('- '))}</li>" for line in doc.contradicted[1:])
                     + "</ul>")  # fmt: skip
    if doc.references:
        parts.append('<h2>References</h2><ul class="refs">')
        for r in doc.references:
            where = e(r.place)
            if r.href:
                where = f'<a href="{e(r.href)}">{where}</a>'
            cited = "".join(
                f'<li style="--c:{verdict(k.verdict).colour}"><span class="v">{e(verdict(k.verdict).mark)}'
                f'</span> <a href="#{c.anchor}">{e(c.id)}</a> {e(k.verdict)}: “{e(c.sentence)}” — '
                + (f"the source: “{e(k.quote)}”" if k.quote else "no sentence of the source quoted")
                + "</li>"
                for c, k in r.claims
            )
            also = "".join(f'<span id="ref-{e(i)}"></span>' for i in r.ids if i != r.anchor)
            parts.append(f'<li id="ref-{e(r.anchor)}">{also}[{e(r.label)}] {e(r.title)} — {where}'
                         + (f"<ul>{cited}</ul>" if cited else "") + "</li>")  # fmt: skip
        parts.append("</ul>")
    if doc.reviews:
        parts.append("<h2>Reviews</h2>")
    for review, (title, dims) in zip(doc.reviews, doc.review_rows, strict=True):
        parts.append(f"<h3>{e(title)}</h3><table>")
        for name, value in dims:
            bar = "" if value is None else f'<span class="bar" style="width:{value * 12:.0f}px"></span>'
            parts.append(f"<tr><td>{e(name)}</td><td>{e(rows.dimension_cell(value))}</td><td>{bar}</td></tr>")
        parts.append(f"</table><p>{e(review['feedback'])}</p><ul>")
        for imp in review["improvements"]:
            severity = f'<span class="{e(imp["severity"])}">{e(imp["severity"])}</span>'
            parts.append(f"<li>{severity} {e(rows.where(imp))}: {e(imp['issue'])}</li>")
        parts.append("</ul>")
    if doc.decisions:
        parts.append("<h2>Decisions</h2><table><tr><th>round</th><th>decision</th>"
                     "<th>reason</th><th>detail</th></tr>")  # fmt: skip
        parts += [f"<tr><td>{d['round']}</td><td>{e(d['decision'])}</td><td>{e(d['reason'])}</td>"
                  f"<td>{e(d['detail'])}</td></tr>" for d in doc.decisions]  # fmt: skip
        parts.append("</table>")
    parts.append("</body></html>\n")
    return "\n".join(parts)


def blocks(items: list, doc: Document, tight: bool = False) -> str:
    out = []
    for b in items:
        if isinstance(b, Heading):
            level = min(6, b.level)
            out.append(f"<h{level}>{spans(b.spans)}</h{level}>")
        elif isinstance(b, Paragraph):
            inner = "".join(claim(s.claim, s.spans, doc) if s.claim else spans(s.spans) for s in b.segments)
            out.append(inner if tight else f"<p>{inner}</p>")
        elif isinstance(b, ListBlock):
            tag = "ol" if b.ordered else "ul"
            start = f' start="{b.start}"' if b.ordered and b.start != 1 else ""
            one = len(b.items) and all(len(i) == 1 and isinstance(i[0], Paragraph) for i in b.items)
            shown = "".join(f"<li>{blocks(i, doc, tight=bool(one))}</li>" for i in b.items)
            out.append(f"<{tag}{start}>{shown}</{tag}>")
        elif isinstance(b, Table):

            def cell(tag: str, content: list[Span], n: int, b: Table = b) -> str:
                align = b.align[n] if n < len(b.align) else ""
                style = f' style="text-align:{e(align)}"' if align in ("left", "right", "center") else ""
                return f"<{tag}{style}>{spans(content)}</{tag}>"

            head = "".join(cell("th", c, n) for n, c in enumerate(b.header))
            body = "".join(f"<tr>{''.join(cell('td', c, n) for n, c in enumerate(r))}</tr>" for r in b.rows)
            out.append(f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>")
        elif isinstance(b, Quote):
            out.append(f"<blockquote>{blocks(b.blocks, doc)}</blockquote>")
        elif isinstance(b, Code):
            lang = f' class="language-{e(b.lang)}"' if b.lang else ""
            out.append(f"<pre><code{lang}>{e(b.text)}\n</code></pre>")
        elif isinstance(b, Rule):
            out.append("<hr>")
    return "\n".join(out)


def spans(items: list[Span]) -> str:
    out = []
    for s in items:
        if s.cite:
            text = "[" + ", ".join(f'<a href="#ref-{e(a)}">{e(label)}</a>'
                                   for a, label in zip(s.cite, s.labels, strict=True)) + "]"  # fmt: skip
        elif s.text == "\n":
            text = "<br>"
        else:
            text = f"<code>{e(s.text)}</code>" if s.code else e(s.text)
            if s.href:
                text = f'<a href="{e(s.href)}" rel="noopener noreferrer">{text}</a>'
        if s.italic:
            text = f"<em>{text}</em>"
        if s.bold:
            text = f"<strong>{text}</strong>"
        out.append(text)
    return "".join(out)


def claim(c: Claim, content: list[Span], doc: Document) -> str:
    """A cited sentence: underlined in its verdict's colour, with its mark; focused (clicked,
    tabbed to, or linked as `#claim-C1`), it shows each cited source's verdict and quote."""
    v = verdict(c.verdict)
    titles = {r.anchor: r for r in doc.references}
    notes = []
    for k in c.checks:
        ref = titles.get(k.anchor)
        source = f"[{e(k.label)}] {e(ref.title)} — {e(ref.place)}" if ref else f"[{e(k.label)}]"
        quote = f"“{e(k.quote)}”" if k.quote else "no sentence of the source quoted"
        why = f" <i>({e(k.reason)}{'; ' + e(k.by) if k.by else ''})</i>" if k.reason else ""
        kv = verdict(k.verdict)
        said = f'<span class="v">{e(kv.mark)} {e(kv.label)}</span>'
        notes.append(f'<span style="display:block;--c:{kv.colour}">{said}{why}<br>{source}: {quote}</span>')
    mark = f'<span class="mark" aria-label="{e(v.label)}">{e(v.mark)}</span>'
    return (f'<span class="claim" id="{e(c.anchor)}" tabindex="0" style="--c:{v.colour}" '
            f'title="{e(v.label)}">{spans(content)}{mark}'
            f'<span class="evidence" role="note">{"".join(notes)}</span></span>')  # fmt: skip


__all__ = ["VERDICTS", "render"]
