"""The PDF report: the document model written as Typst source and compiled by the `typst` wheel
(the Typst compiler in-process: no LaTeX, no browser, no system library; about 0.3 s of CPU for a
5,000-word article, see bench/bench_export.py).

Every piece of text goes into the source as a Typst string literal, in code mode, never as
markup: a title such as `#panic()` or `*bold* <x>` stays the characters it is. Labels and
colours come from the model's own anchors and the verdict table, never from outside text.

Typst's own fonts (Libertinus Serif, DejaVu Sans Mono) hold no CJK glyph. A text with CJK
characters is set in a system font whose character map covers every one of them (read with
fontTools); when no installed font does, the export stops and says what to install, instead of
writing boxes."""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any

from reflectcli.errors import UserError
from reflectcli.output import rows
from reflectcli.output.document import (
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
from reflectcli.writing.textops import CJK

INSTALL = "pip install 'reflectcli[reports]'"
FONT_HINT = ("install a CJK font, e.g. `apt-get install fonts-noto-cjk` (Debian, Ubuntu), "
             "`dnf install google-noto-sans-cjk-fonts` (Fedora), `brew install --cask font-noto-sans-cjk` "
             "(macOS), or put an OpenType font in ~/.local/share/fonts")  # fmt: skip
SERIF, MONO, MARKS = "Libertinus Serif", "DejaVu Sans Mono", "DejaVu Sans Mono"  # Typst ships all three
LINK = "#1a4f8b"
# preferred CJK families for each script, best first (any other installed font that covers the
# text is taken after them)
_PREFERRED = {
    "zh": ("Noto Serif CJK SC", "Noto Sans CJK SC", "Source Han Serif SC", "Source Han Sans SC",
           "Noto Serif CJK TC", "Noto Sans CJK TC", "WenQuanYi Zen Hei", "WenQuanYi Micro Hei",
           "AR PL UMing CN", "Droid Sans Fallback"),
    "ja": ("Noto Serif CJK JP", "Noto Sans CJK JP", "Source Han Serif JP", "IPAexMincho", "IPAMincho",
           "TakaoMincho"),
    "ko": ("Noto Serif CJK KR", "Noto Sans CJK KR", "Source Han Serif KR", "NanumMyeongjo", "UnBatang"),
}  # fmt: skip


def render(doc: Document) -> bytes:
    """The PDF's bytes."""
    typst = _typst()
    script = doc.script
    cjk = choose_cjk_font(doc, script) if script else None
    source = typst_source(doc, cjk, script or "")
    try:
        return typst.compile(source.encode("utf-8"))
    except typst.TypstError as exc:  # our own source failed: a bug, said in one line
        raise UserError(f"the PDF could not be made: {str(exc).splitlines()[0]}") from exc


def _typst() -> Any:
    try:
        import typst
    except ImportError as exc:
        raise UserError("PDF export needs the typst package", hint=INSTALL) from exc
    return typst


# --- fonts ----------------------------------------------------------------------------------


def all_text(doc: Document) -> str:
    """Every character the PDF sets: the first page, the article, References, known issues."""
    parts = [doc.title, doc.notice, *(f"{k} {v}" for k, v in doc.meta), doc.text]
    parts += [f"{r.title} {r.place}" for r in doc.references]
    parts += [f"{c.sentence} {k.quote} {k.reason}" for c in doc.claims for k in c.checks]
    parts += [rows.improvement(i) for i in doc.known_issues]
    return "\n".join(parts)


def cjk_characters(doc: Document) -> set[str]:
    return set(CJK.findall(all_text(doc)))


def choose_cjk_font(doc: Document, script: str) -> str:
    """The installed font family that covers every CJK character of `doc` (the preferred ones
    for its script first); a one-line error naming what to install when none does."""
    needed = cjk_characters(doc)
    candidates = _installed()
    order = [f for name in _PREFERRED[script] for f in candidates if f[0] == name]
    order += [f for f in candidates if f not in order]
    best: tuple[int, str] = (-1, "")
    for family, path, index in order:
        missing = needed - _covered(path, index, frozenset(needed))
        if not missing:
            return family
        if len(needed) - len(missing) > best[0]:
            best = (len(needed) - len(missing), family)
    example = "".join(sorted(needed)[:3])
    where = f" (the closest, {best[1]}, lacks some)" if best[0] > 0 else ""
    raise UserError(f"no installed font covers the {len(needed)} CJK characters of this article, e.g. "
                    f"{example}{where}: the PDF would show boxes", hint=FONT_HINT)  # fmt: skip


@lru_cache(maxsize=1)
def _installed() -> list[tuple[str, str, int]]:
    """(family, file, index in the collection) of each regular system font Typst can use."""
    typst = _typst()
    seen, out = set(), []
    for f in typst.Fonts(include_system_fonts=True, include_embedded_fonts=False).fonts():
        if f.path and f.style == "normal" and f.weight == 400 and f.family not in seen:
            seen.add(f.family)
            out.append((f.family, str(f.path), int(f.index)))
    return out


@lru_cache(maxsize=32)
def _covered(path: str, index: int, needed: frozenset[str]) -> set[str]:
    """The characters of `needed` the font's character map holds."""
    try:
        from fontTools.ttLib import TTFont
    except ImportError as exc:
        raise UserError("PDF export needs the fonttools package", hint=INSTALL) from exc
    try:
        with TTFont(path, fontNumber=index, lazy=True) as font:
            cmap = font.getBestCmap() or {}
    except Exception:  # a font file fontTools cannot read covers nothing we can rely on
        return set()
    return {ch for ch in needed if ord(ch) in cmap}


# --- Typst source ---------------------------------------------------------------------------


def s(text: str) -> str:
    """`text` as a Typst string literal: nothing in it is markup or code."""
    escaped = (text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n").replace("\r", "\\r")
               .replace("\t", "\\t"))  # fmt: skip
    return f'"{escaped}"'


def label(anchor: str) -> str:
    """A Typst label from one of the model's anchors (letters, digits, `-`, `_` only)."""
    return re.sub(r"[^A-Za-z0-9_-]", "_", anchor)


def colour(value: str) -> str:
    return f'rgb("{value}")' if re.fullmatch(r"#[0-9a-fA-F]{6}", value) else 'rgb("#666666")'


def typst_source(doc: Document, cjk: str | None, script: str) -> str:
    lang = script or (doc.language.split("-")[0].lower() if re.fullmatch(r"[A-Za-z]{2,3}(-.*)?", doc.language)
                      else "en")  # fmt: skip
    body_fonts = [SERIF] + ([cjk] if cjk else [])
    mono_fonts = [MONO] + ([cjk] if cjk else [])
    out = [
        f"#set document(title: {s(doc.title)})",
        '#set page(paper: "a4", margin: (x: 2.2cm, y: 2.4cm), numbering: "1")',
        f"#set text(font: ({', '.join(map(s, body_fonts))},), size: 10.5pt, lang: {s(lang)}, "
        "hyphenate: false)",  # a word cut by a hyphen is not the word to a reader's search
        "#set par(justify: true, leading: 0.65em)",
        "#set heading(numbering: none)",
        "#show heading: set block(above: 1.4em, below: 0.8em)",
        f"#show raw: set text(font: ({', '.join(map(s, mono_fonts))},), size: 9pt)",
        "#show raw.where(block: true): block.with(fill: luma(246), inset: 8pt, radius: 2pt, width: 100%)",
        "#show quote.where(block: true): it => block(width: 100%, inset: (left: 12pt, y: 4pt), "
        "stroke: (left: 2pt + luma(190)), text(fill: luma(60), it.body))",
        "#set table(stroke: 0.5pt + luma(180), inset: 5pt)",
        "#{",
    ]
    out += first_page(doc)
    out += [blocks(doc.blocks, doc)]
    for line in doc.contradicted:  # the claims its sources contradict, above References
        out.append(f"[#par(text(fill: rgb({s('#b3261e')}), {s(line)}))]")
    if doc.references:
        out.append(f"[#heading(level: 1, {s('References')}) <references>]")
        for r in doc.references:
            where = f"link({s(r.href)}, {s(r.place)})" if r.href else s(r.place)
            entry = [f"strong({s('[' + r.label + ']')})", s(" " + r.title + " — "), where]
            items = []
            for c, k in r.claims:
                quoted = f"the source: “{k.quote}”" if k.quote else "no sentence of the source quoted"
                back = f"link(label({s(label(c.anchor))}), text(fill: rgb({s(LINK)}), {s(c.id)}))"
                said = s(f" {k.verdict}: “{c.sentence}” — {quoted}")
                items.append("{ " + "; ".join([mark(k.verdict), s(" "), back, said]) + " }")
            listed = f"list({', '.join(items)})" if items else "none"
            out.append(f"[#block(breakable: true, below: 0.9em, {{ {'; '.join(entry)}; {listed} }}) "
                       f"<{label('ref-' + r.anchor)}>]")  # fmt: skip
    out.append("}")
    return "\n".join(out) + "\n"


def first_page(doc: Document) -> list[str]:
    out = []
    if doc.notice:  # first: an unfinished run, or an output the run did not pass
        out.append('block(fill: rgb("#fbeeee"), stroke: (left: 3pt + rgb("#b3261e")), inset: 8pt, '
                   f'width: 100%, below: 1em, text(fill: rgb("#7a1b15"), {s(doc.notice)}))')  # fmt: skip
    out.append(f'block(below: 1.2em, text(size: 20pt, weight: "bold", {s(doc.title)}))')
    cells = ", ".join(f'text(weight: "bold", {s(k)}), {s(v)}' for k, v in doc.meta)
    out.append(f"block(below: 1em, text(size: 9pt, grid(columns: (auto, 1fr), column-gutter: 10pt, "
               f"row-gutter: 4pt, {cells})))")  # fmt: skip
    if doc.known_issues:
        items = ", ".join(s(rows.improvement(i, with_id=True)) for i in doc.known_issues)
        out.append(f'block(below: 1em, {{ text(weight: "bold", {s("Known issues")}); list({items}) }})')
    if doc.legend:
        keys = "; ".join(f"{mark(v.name)}; {s(' ' + v.label + '    ')}" for v in doc.legend)
        intro = s("Cited sentences carry their verdict: ")
        out.append(f"block(below: 1em, text(size: 9pt, {{ {intro}; {keys} }}))")
    out.append("line(length: 100%, stroke: 0.5pt + luma(200))")
    return out


def mark(name: str) -> str:
    v = verdict(name)
    return f"text(font: {s(MARKS)}, fill: {colour(v.colour)}, size: 0.8em, {s(v.mark)})"


def blocks(items: list[Any], doc: Document) -> str:
    return "\n".join(block(b, doc) for b in items)


def block(b: Any, doc: Document) -> str:
    if isinstance(b, Heading):
        level = max(1, b.level - doc.top_level + 1)
        return f"heading(level: {min(level, 6)}, {content(b.spans)})"
    if isinstance(b, Paragraph):
        parts = [claim(seg.claim, seg.spans) if seg.claim else content(seg.spans) for seg in b.segments]
        return f"par({{ {'; '.join(parts)} }})"
    if isinstance(b, ListBlock):
        items = ", ".join("{ " + blocks(item, doc).replace("\n", "; ") + " }" for item in b.items)
        if b.ordered:
            return f"enum(start: {b.start}, tight: false, {items})"
        return f"list(tight: false, {items})"
    if isinstance(b, Table):
        n = max([len(b.header)] + [len(r) for r in b.rows]) or 1
        align = ", ".join({"right": "right", "center": "center"}.get(a, "left") for a in
                          (b.align + [""] * n)[:n])  # fmt: skip
        cells = [f"table.header({', '.join(f'strong({content(c)})' for c in _pad(b.header, n))})"]
        cells += [content(c) for r in b.rows for c in _pad(r, n)]
        return f"table(columns: {n}, align: ({align},), {', '.join(cells)})"
    if isinstance(b, Quote):
        return f"quote(block: true, {{ {blocks(b.blocks, doc).replace(chr(10), '; ')} }})"
    if isinstance(b, Code):
        lang = f", lang: {s(b.lang)}" if re.fullmatch(r"[A-Za-z0-9_+-]{1,20}", b.lang or "") else ""
        return f"raw({s(b.text)}, block: true{lang})"
    if isinstance(b, Rule):
        return "line(length: 100%, stroke: 0.5pt + luma(180))"
    return "none"


def _pad(cells: list[list[Span]], n: int) -> list[list[Span]]:
    return (cells + [[] for _ in range(n)])[:n]


def content(spans: list[Span]) -> str:
    """Inline text as a Typst code block of strings and marks."""
    parts = []
    for sp in spans:
        if sp.cite:
            links = [f'link(label({s(label("ref-" + a))}), text(fill: rgb("{LINK}"), {s(lab)}))'
                     for a, lab in zip(sp.cite, sp.labels, strict=True)]  # fmt: skip
            comma = f"; {s(', ')}; "
            part = "{ " + "; ".join([s("["), comma.join(links), s("]")]) + " }"
        elif sp.text == "\n":
            part = "linebreak()"
        else:
            part = f"raw({s(sp.text)})" if sp.code else s(sp.text)
            if sp.href:
                part = f'link({s(sp.href)}, text(fill: rgb("{LINK}"), {part}))'
        if sp.italic:
            part = f"emph({part})"
        if sp.bold:
            part = f"strong({part})"
        parts.append(part)
    return "{ " + "; ".join(parts) + " }" if parts else "[]"


def claim(c: Claim, spans: list[Span]) -> str:
    """A cited sentence: underlined in its verdict's colour, with its mark, linked from the
    References (its label)."""
    v = verdict(c.verdict)
    under = f"underline(stroke: 0.6pt + {colour(v.colour)}, offset: 2pt, {content(spans)})"
    return f"[#metadata(none) <{label(c.anchor)}>]; {under}; super({mark(c.verdict)})"
