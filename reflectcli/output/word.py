"""The Word report: the document model written with python-docx (a dependency already, for
reading DOCX sources). Headings in Word's heading styles, lists, tables in `Table Grid`, block
quotes in `Quote`, code in a monospace `Code` style with its line breaks; each citation an
internal hyperlink to a bookmark on its References entry, each cited sentence underlined in its
verdict's colour with its mark, and linked back from References. CJK text gets an East Asian
font and language, so that Word and LibreOffice pick a CJK face instead of boxes.

python-docx writes text as text (XML-escaped); characters XML cannot hold are dropped."""

from __future__ import annotations

import io
import re
from typing import Any

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

MONO = "Courier New"  # in every Word install; LibreOffice maps it to Liberation Mono
EAST_ASIAN = {"zh": ("Noto Serif CJK SC", "zh-CN"), "ja": ("Noto Serif CJK JP", "ja-JP"),
              "ko": ("Noto Serif CJK KR", "ko-KR")}  # fmt: skip
LINK = "1A4F8B"
_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]")


def render(doc: Document) -> bytes:
    """The .docx file's bytes."""
    import docx

    out = docx.Document()
    _Writer(out, doc).write()
    buf = io.BytesIO()
    out.save(buf)
    return buf.getvalue()


def _clean(text: str) -> str:
    return _NOT_XML.sub("", text)


def bookmark_name(anchor: str) -> str:
    """A Word bookmark name (a letter first, letters, digits and `_`, at most 40)."""
    return ("b_" + re.sub(r"[^A-Za-z0-9_]", "_", anchor))[:40]


class _Writer:
    def __init__(self, out: Any, doc: Document) -> None:
        self.out, self.doc = out, doc
        self.bookmarks = 0
        self.script = doc.script
        self._styles()

    # --- styles ------------------------------------------------------------------------------

    def _styles(self) -> None:
        from docx.enum.style import WD_STYLE_TYPE
        from docx.oxml.ns import qn
        from docx.shared import Pt, RGBColor

        styles = self.out.styles
        normal = styles["Normal"]
        normal.font.size = Pt(11)
        if self.script:
            font, lang = EAST_ASIAN[self.script]
            rpr = normal.element.get_or_add_rPr()
            fonts = rpr.get_or_add_rFonts()
            fonts.set(qn("w:eastAsia"), font)
            language = rpr.find(qn("w:lang"))
            if language is None:
                language = rpr.makeelement(qn("w:lang"), {})
                rpr.append(language)
            language.set(qn("w:eastAsia"), lang)
        code = styles.add_style("Code", WD_STYLE_TYPE.PARAGRAPH)
        code.base_style = normal
        code.font.name = MONO
        code.font.size = Pt(9)
        code.paragraph_format.space_after = Pt(6)
        code.paragraph_format.left_indent = Pt(12)
        notice = styles.add_style("Notice", WD_STYLE_TYPE.PARAGRAPH)
        notice.base_style = normal
        notice.font.bold = True
        notice.font.color.rgb = RGBColor(0x7A, 0x1B, 0x15)

    # --- the document ----------------------------------------------------------------------

    def write(self) -> None:
        d, out = self.doc, self.out
        out.core_properties.title = _clean(d.title)[:250]
        if d.notice:  # first: an unfinished run, or an output the run did not pass
            out.add_paragraph(_clean(d.notice), style="Notice")
        out.add_paragraph(_clean(d.title), style="Title")
        meta = out.add_table(rows=0, cols=2)
        meta.style = "Table Grid"
        for key, value in d.meta:
            cells = meta.add_row().cells
            cells[0].paragraphs[0].add_run(_clean(key)).bold = True
            cells[1].paragraphs[0].add_run(_clean(value))
        if d.known_issues:
            out.add_paragraph().add_run("Known issues").bold = True
            for issue in d.known_issues:
                out.add_paragraph(_clean(rows.improvement(issue, with_id=True)), style="List Bullet")
        if d.legend:
            p = out.add_paragraph("Cited sentences carry their verdict: ")
            for v in d.legend:
                self._mark(p, v.name, superscript=False)
                p.add_run(f" {v.label}    ")
        for block in d.blocks:
            self.block(block, level=0)
        for line in d.contradicted:  # the claims its sources contradict, above References
            out.add_paragraph().add_run(_clean(line)).bold = True
        if d.references:
            out.add_heading("References", level=1)
            for r in d.references:
                p = out.add_paragraph()
                self._bookmark(p, "ref-" + r.anchor)
                p.add_run(_clean(f"[{r.label}]")).bold = True
                p.add_run(_clean(f" {r.title} — "))
                if r.href:
                    self._link(p, [Span(r.place)], url=r.href)
                else:
                    p.add_run(_clean(r.place))
                for c, k in r.claims:
                    item = out.add_paragraph(style="List Bullet")
                    self._mark(item, k.verdict, superscript=False)
                    item.add_run(" ")
                    self._link(item, [Span(c.id)], anchor=c.anchor)
                    quoted = f"the source: “{k.quote}”" if k.quote else "no sentence of the source quoted"
                    item.add_run(_clean(f" {k.verdict}: “{c.sentence}” — {quoted}"))

    def block(self, b: Any, level: int, style: str | None = None) -> None:
        out = self.out
        if isinstance(b, Heading):
            p = out.add_heading(level=min(9, max(1, b.level - self.doc.top_level + 1)))
            self.spans(p, b.spans)
        elif isinstance(b, Paragraph):
            p = out.add_paragraph(style=style)
            for seg in b.segments:
                self.claim(p, seg.claim, seg.spans) if seg.claim else self.spans(p, seg.spans)
        elif isinstance(b, ListBlock):
            for n, item in enumerate(b.items):
                for i, inner in enumerate(item):
                    if isinstance(inner, ListBlock):
                        self.block(inner, level + 1)
                        continue
                    depth = f" {min(level + 1, 3)}" if level else ""
                    # numbers written as they are in the article (Word's own numbering would run
                    # on from the previous list); bullets in Word's list style
                    style = ("List Continue" if i else "List" if b.ordered else "List Bullet") + depth
                    if isinstance(inner, Paragraph):
                        p = out.add_paragraph(style=style)
                        if b.ordered and not i:
                            p.add_run(f"{b.start + n}. ")
                        for seg in inner.segments:
                            self.claim(p, seg.claim, seg.spans) if seg.claim else self.spans(p, seg.spans)
                    else:
                        self.block(inner, level + 1)
        elif isinstance(b, Table):
            n = max([len(b.header)] + [len(r) for r in b.rows]) or 1
            table = out.add_table(rows=1 + len(b.rows), cols=n)
            table.style = "Table Grid"
            for r, cells in enumerate([b.header, *b.rows]):
                for c, content in enumerate(cells[:n]):
                    p = table.cell(r, c).paragraphs[0]
                    self.spans(p, content, bold=r == 0)
                    if c < len(b.align) and b.align[c] in ("right", "center"):
                        from docx.enum.text import WD_ALIGN_PARAGRAPH as ALIGN

                        p.alignment = ALIGN.RIGHT if b.align[c] == "right" else ALIGN.CENTER
            out.add_paragraph()
        elif isinstance(b, Quote):
            for inner in b.blocks:
                self.block(inner, level, style="Quote" if isinstance(inner, Paragraph) else None)
        elif isinstance(b, Code):
            p = out.add_paragraph(style="Code")
            for i, line in enumerate(b.text.split("\n")):
                run = p.add_run(_clean(line))
                run.font.name = MONO
                if i < b.text.count("\n"):
                    run.add_break()
        elif isinstance(b, Rule):
            out.add_paragraph("—" * 8)

    # --- inline ---------------------------------------------------------------------------------

    def spans(self, p: Any, spans: list[Span], bold: bool = False, underline: str | None = None) -> None:
        for sp in spans:
            if sp.cite:
                p.add_run("[")
                for i, (a, lab) in enumerate(zip(sp.cite, sp.labels, strict=True)):
                    if i:
                        p.add_run(", ")
                    self._link(p, [Span(lab)], anchor="ref-" + a)
                p.add_run("]")
            elif sp.href:
                self._link(p, [sp], url=sp.href)
            elif sp.text == "\n":
                p.add_run().add_break()
            else:
                self._run(p, sp, bold=bold, underline=underline)

    def _run(self, p: Any, sp: Span, bold: bool = False, underline: str | None = None) -> Any:
        run = p.add_run(_clean(sp.text))
        run.bold = sp.bold or bold or None
        run.italic = sp.italic or None
        if sp.code:
            run.font.name = MONO
        if underline:
            self._underline(run, underline)
        return run

    def claim(self, p: Any, c: Claim, spans: list[Span]) -> None:
        """A cited sentence: a bookmark (References link back to it), underlined in its verdict's
        colour, then its mark."""
        self._bookmark(p, c.anchor)
        colour = verdict(c.verdict).colour.lstrip("#")
        for sp in spans:
            if sp.cite or sp.href or sp.text == "\n":
                self.spans(p, [sp])
            else:
                self._run(p, sp, underline=colour)
        self._mark(p, c.verdict)

    def _mark(self, p: Any, name: str, superscript: bool = True) -> None:
        from docx.shared import RGBColor

        v = verdict(name)
        run = p.add_run(v.mark)
        run.font.color.rgb = RGBColor.from_string(_hex(v.colour))
        run.font.superscript = superscript or None

    def _underline(self, run: Any, colour: str) -> None:
        from docx.oxml.ns import qn

        rpr = run._r.get_or_add_rPr()
        u = rpr.makeelement(qn("w:u"), {qn("w:val"): "single", qn("w:color"): _hex(colour)})
        rpr.append(u)

    def _bookmark(self, p: Any, anchor: str) -> None:
        from docx.oxml.ns import qn

        self.bookmarks += 1
        n = str(self.bookmarks)
        start = p._p.makeelement(qn("w:bookmarkStart"), {qn("w:id"): n, qn("w:name"): bookmark_name(anchor)})
        end = p._p.makeelement(qn("w:bookmarkEnd"), {qn("w:id"): n})
        p._p.append(start)
        p._p.append(end)

    def _link(self, p: Any, spans: list[Span], anchor: str | None = None, url: str | None = None) -> None:
        """An internal hyperlink to a bookmark, or an outside one (http, https, mailto)."""
        from docx.opc.constants import RELATIONSHIP_TYPE as RT
        from docx.oxml.ns import qn
        from docx.shared import RGBColor

        attrs = {qn("w:history"): "1"}
        if anchor is not None:
            attrs[qn("w:anchor")] = bookmark_name(anchor)
        else:
            attrs[qn("r:id")] = p.part.relate_to(url, RT.HYPERLINK, is_external=True)
        link = p._p.makeelement(qn("w:hyperlink"), attrs)
        for sp in spans:
            run = p.add_run(_clean(sp.text))
            run.font.color.rgb = RGBColor.from_string(LINK)
            run.bold = sp.bold or None
            run.italic = sp.italic or None
            if sp.code:
                run.font.name = MONO
            link.append(run._r)  # moved from the paragraph into the hyperlink
        p._p.append(link)


def _hex(colour: str) -> str:
    value = colour.lstrip("#").upper()
    return value if re.fullmatch(r"[0-9A-F]{6}", value) else "666666"
