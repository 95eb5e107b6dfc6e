"""Reports to share (issue 37): one document model rendered as md, json, html, pdf and docx, each
read back as a reader's tools see it (pdftotext, pdffonts, pypdf, pdftoppm; python-docx;
headless Chromium)."""

from __future__ import annotations

import io
import json
import os
import re
import shutil
import subprocess
import sys

import pytest
from lxml import html as lxml_html
from typer.testing import CliRunner

from reflectcli.cli.app import app
from reflectcli.errors import ModelError, UserError
from reflectcli.models.fake import ScriptedResponder, prompt_text
from reflectcli.output import document, pdf
from reflectcli.output.exporters import export
from reflectcli.runner import Runner
from reflectcli.sources import library
from reflectcli.store.db import Store
from reflectcli.writing.rubric import DIMENSIONS
from tests.corpus import FACTS, make_corpus
from tests.helpers import FailOnce, quiet_ui, settings
from tests.readback import docx_text, in_order, missing_glyphs, pdf_fonts, pdf_text

cli = CliRunner()
MOON = "The psalter was printed on the Moon by robots"
CODE = ["for page in pages:", "    print(page) # keep the indent"]
TITLES = ["The Vellmar psalter", "活字印刷"]
POPPLER = shutil.which("pdftotext") and shutil.which("pdftoppm") and shutil.which("pdffonts")
needs_poppler = pytest.mark.skipif(not POPPLER, reason="poppler-utils (pdftotext, pdftoppm, pdffonts) absent")


def invoke(*args):
    return cli.invoke(app, [str(a) for a in args], catch_exceptions=False)


class Article:
    """A grounded run whose article holds every block a report must carry: a cited sentence the
    critic calls supported and one it calls contradicted, a table, code, a list, a quotation,
    and a Chinese section."""

    def __call__(self, step: str, messages: list[dict[str, str]]) -> str:
        prompt = prompt_text(messages)
        kind = step.split(":")[0]
        if kind == "plan":
            return json.dumps({"sections": [
                {"title": TITLES[0], "goal": "Printing: Mainz workshop typeface psalter 1457"},
                {"title": TITLES[1], "goal": "毕昇 宋朝 胶泥活字印刷术"},
            ]})  # fmt: skip
        if kind == "draft":
            named = re.search(r"found for this section: ((?:\[S\d+\](?:, )?)+)", prompt)
            ids = re.findall(r"S\d+", named.group(1)) if named else re.findall(r"^\[(S\d+)\] ", prompt, re.M)
            cite = ids[0] if ids else "S1"
            if step.endswith("1"):
                code = "\n".join(CODE)
                return (f"{FACTS['html'][:-1]} [{cite}]. {MOON} [{cite}].\n\n"
                        "| Year | Event |\n|---|--:|\n| 1457 | *Psalter* printed |\n\n"
                        f"```python\n{code}\n```\n\n> A printer's proverb, quoted.\n\n"
                        "- first item\n- second item\n")  # fmt: skip
            return f"{FACTS['zh'][:-1]} [{cite}]。这是关于印刷的第二段。"
        if kind == "review":
            claims = []
            for claim, sources, sentence in re.findall(r"^(C\d+) \[([^\]]+)\]: (.*)$", prompt, re.M):
                wrong = sentence.lstrip('"').startswith(MOON[:20])  # (the opening is quoted as data)
                for source in sources.split(", "):
                    claims.append({"claim": claim, "source": source,
                                   "verdict": "contradicted" if wrong else "supported",
                                   "quote": "The Mainz workshop cast a ninth typeface" if not wrong else "",
                                   "reason": "the source says Mainz" if wrong else "the source says "
                                             "so"})  # fmt: skip
            dims = dict.fromkeys(("accuracy", "completeness", "readability", "structure"), 8)
            return json.dumps({"score": 8, "dimensions": dims, "improvements": [], "claims": claims,
                               "feedback": "The article is clear and cites its sources, but one "
                                           "claim about the Moon is not what the source says."})  # fmt: skip
        raise AssertionError(step)


@pytest.fixture
def shared(fake, runs_dir, tmp_path):
    library.add(runs_dir, [str(make_corpus(tmp_path / "notes")["md"].parent)])
    fake.responder = Article()
    flags = {"max_sections": 2, "max_rounds": 1, "threshold": 8, "research": {"sources": "local"}}
    Runner(quiet_ui()).write("The history of printing", settings(runs_dir, **flags), "print")
    store = Store(runs_dir)
    run, state = store.get_run("print"), store.load_state("print")
    store.close()
    return run, state


def outputs(run, state) -> dict[str, str]:
    """Each format as the text a reader sees."""
    page = lxml_html.fromstring(export(run, state, "html", "final"))
    return {
        "md": export(run, state, "md", "final"),
        "json": json.dumps(json.loads(export(run, state, "json", "final"))["document"], ensure_ascii=False),
        "html": page.text_content(),
        "pdf": pdf_text(export(run, state, "pdf", "final")),
        "docx": docx_text(export(run, state, "docx", "final")),
    }


@needs_poppler
def test_every_format_carries_the_same_sections_citations_and_verdicts(shared):
    run, state = shared
    doc = json.loads(export(run, state, "json", "final"))["document"]
    assert doc["sections"] == TITLES
    laid_out = document.build(run, state, state["versions"][-1]).summary()  # what html, pdf, docx draw
    assert laid_out == doc  # the JSON's (built without laying the text out) is the same
    verdicts = {c["id"]: c["verdict"] for c in doc["claims"]}
    assert "contradicted" in verdicts.values() and "supported" in verdicts.values()
    labels = [r["label"] for r in doc["references"]]
    assert labels
    for fmt, text in outputs(run, state).items():
        found, missing = in_order(TITLES + ['"references"' if fmt == "json" else "References"], text)
        assert not missing, (fmt, missing)
        for label in labels:
            assert (f'"{label}"' if fmt == "json" else f"[{label}]") in text, (fmt, label)
        if fmt == "json":
            continue  # its claims are where the verdicts above come from
        for claim, verdict in verdicts.items():  # each claim with its verdict, under its source
            assert re.search(rf"{claim}\W+{verdict}", text), (fmt, claim, verdict)


@needs_poppler
def test_the_pdf_reads_back_with_its_blocks_links_fonts_and_pages(shared, tmp_path):
    run, state = shared
    data = export(run, state, "pdf", "final")
    text = pdf_text(data)
    wanted = [TITLES[0], "Year", "Event", "1457", "Psalter printed", *CODE, "A printer's proverb, quoted.",
              "first item", "second item", TITLES[1], "References"]  # fmt: skip
    assert not in_order(wanted, text)[1]
    assert all(line in text for line in CODE)  # the code's line breaks and indent kept (pdftotext -layout)
    first = text.split("\f")[0]
    for key in ("task", "model", "score", "rounds", "date", "Known issues"):
        assert key in first, key
    assert "The history of printing" in first and "fake/w" in first
    import pypdf

    reader = pypdf.PdfReader(io.BytesIO(data))
    pages = [p.indirect_reference.idnum for p in reader.pages]
    refs_page = next(n for n, page in enumerate(text.split("\f")) if "References" in page)
    targets = []  # the page each internal link goes to
    for page in reader.pages:
        for annot in page.get("/Annots") or []:
            dest = annot.get_object().get("/Dest")
            if dest is not None and not isinstance(dest, str):
                targets.append(pages.index(dest.get_object()[0].idnum))
    cites = len(re.findall(r"\[S\d+\]", state["versions"][-1]["text"]))  # the article's own
    assert len([t for t in targets if t >= refs_page]) >= cites  # each citation goes to References
    claims = len(json.loads(export(run, state, "json", "final"))["document"]["claims"])
    assert len(targets) >= cites + claims  # and each claim under References back to its sentence
    pdf_path = tmp_path / "r.pdf"
    pdf_path.write_bytes(data)
    subprocess.run(["pdftoppm", "-r", "30", "-gray", str(pdf_path), str(tmp_path / "p")], check=True)
    pages = sorted(tmp_path.glob("p*.pgm"))
    assert len(pages) == len(reader.pages)
    for n, page in enumerate(pages, 1):  # a PGM: header, then one byte a pixel
        raw = page.read_bytes()
        pixels = raw.split(b"\n", 3)[3]
        dark = sum(1 for b in pixels if b < 128)
        # ink on every page (the last may hold only the tail of References)
        assert dark > (len(pixels) * 0.003 if n < len(pages) else 0), page.name
    assert missing_glyphs(data) == 0


@needs_poppler
def test_chinese_is_set_in_a_cjk_font_and_a_missing_one_is_named(shared, runs_dir, monkeypatch):
    run, state = shared
    data = export(run, state, "pdf", "final")
    if not any(f for f, *_ in pdf._installed() if "CJK" in f or "Han" in f):
        pytest.skip("no CJK font installed (CI installs fonts-noto-cjk)")
    assert any("CJK" in f or "Han" in f for f in pdf_fonts(data))
    assert FACTS["zh"][:-1] in pdf_text(data).replace("\n", "") and missing_glyphs(data) == 0
    monkeypatch.setattr(pdf, "_installed", lambda: [])  # a machine without any CJK font
    out = runs_dir / "print.pdf"
    result = cli.invoke(app, ["export", "print", "-o", str(out), "--runs-dir", str(runs_dir)])
    assert result.exit_code == 1 and "no installed font covers" in result.output
    assert "fonts-noto-cjk" in result.output and not out.exists()


def test_the_docx_has_word_styles_tables_monospace_code_and_working_links(shared):
    import docx

    run, state = shared
    d = docx.Document(io.BytesIO(export(run, state, "docx", "final")))
    styles = [(p.style.name, p.text) for p in d.paragraphs]
    assert styles[0][0] == "Notice" and styles[0][1].startswith("Not passed")  # it did not pass: first
    assert styles[1] == ("Title", "The history of printing")
    assert ("Heading 1", TITLES[0]) in styles and ("Heading 1", TITLES[1]) in styles
    assert ("Heading 1", "References") in styles
    assert ("Quote", "A printer's proverb, quoted.") in styles
    assert ("List Bullet", "first item") in styles
    code = next(p for p in d.paragraphs if p.style.name == "Code")
    assert code.text == "\n".join(CODE)  # a line break between the lines, the indent kept
    assert all(r.font.name == "Courier New" for r in code.runs)
    cells = [[c.text for c in row.cells] for t in d.tables for row in t.rows]
    assert ["Year", "Event"] in cells and ["1457", "Psalter printed"] in cells
    assert ["rounds", "1"] in cells  # the first page's block
    bookmarks = {
        b.get(docx.oxml.ns.qn("w:name")) for b in d.element.body.iter(docx.oxml.ns.qn("w:bookmarkStart"))
    }
    anchors = [h.fragment for p in d.paragraphs for h in p.hyperlinks if h.fragment]
    assert any(a.startswith("b_ref_") for a in anchors) and any(a.startswith("b_claim_") for a in anchors)
    assert set(anchors) <= bookmarks  # every internal link lands on a bookmark
    east = d.styles["Normal"].element.rPr.rFonts.get(docx.oxml.ns.qn("w:eastAsia"))
    assert east and "CJK" in east


def test_the_html_marks_each_cited_sentence_with_its_verdict_and_runs_no_script(shared):
    run, state = shared
    page = export(run, state, "html", "final")
    assert "<script" not in page.lower() and "@media print" in page
    tree = lxml_html.fromstring(page)
    claims = tree.xpath("//*[@class='claim']")
    verdicts = {
        c["id"]: c["verdict"] for c in json.loads(export(run, state, "json", "final"))["document"]["claims"]
    }
    assert {c.get("id") for c in claims} == {f"claim-{i}" for i in verdicts}
    moon = next(c for c in claims if MOON in c.text_content())
    assert document.VERDICTS["contradicted"].colour in moon.get("style")
    assert "the source says Mainz" in moon.text_content()  # its evidence, hidden until focused
    legend = tree.xpath("//p[@class='legend']")[0].text_content()
    assert "contradicted by the source" in legend and "supported by the source" in legend
    assert not re.search(r"https?://(?!example)", page.split("</style>")[0])  # nothing fetched


@pytest.mark.slow
@pytest.mark.skipif(not shutil.which("chromium"), reason="Debian's chromium absent (CI installs it)")
def test_clicking_a_claim_in_chromium_shows_its_quoted_passage_and_source(shared, tmp_path):
    from tests.browser import Browser

    run, state = shared
    path = tmp_path / "report.html"
    path.write_text(export(run, state, "html", "final"))
    verdicts = json.loads(export(run, state, "json", "final"))["document"]["claims"]
    supported = next(c["id"] for c in verdicts if c["verdict"] == "supported")
    evidence = f"document.querySelector('#claim-{supported} .evidence')"
    with Browser() as browser:
        browser.open(path.as_uri())
        assert browser.js(f"getComputedStyle({evidence}).display") == "none"
        browser.click(f"#claim-{supported}")
        assert browser.js(f"getComputedStyle({evidence}).display") == "block"
        shown = browser.js(f"{evidence}.innerText")
        assert "The Mainz workshop cast a ninth typeface" in shown and "supported by the source" in shown
        assert browser.js(f"{evidence}.getBoundingClientRect().height") > 10
        png = browser.screenshot()
    assert png.startswith(b"\x89PNG") and len(png) > 20_000
    (tmp_path / "report.png").write_bytes(png)


@needs_poppler
def test_outside_text_is_text_in_the_pdf_never_typst(fake, runs_dir):
    evil = 'Q #panic("x") ] } " \\ <x> @y $z$ *b* = h'
    fake.responder = ScriptedResponder(scores=[9], sections=1)
    fake.enqueue(json.dumps({"sections": [{"title": "Tricks", "goal": "g"}]}),
                 f"### T {evil}\n\nBody {evil}.\n\n| {evil.replace(' ] ', ' ')} |\n|---|\n| x |")  # fmt: skip
    Runner(quiet_ui()).write(f"Task {evil}", settings(runs_dir, max_sections=1), "evil")
    store = Store(runs_dir)
    run, state = store.get_run("evil"), store.load_state("evil")
    store.close()
    shown = evil.replace("*b*", "b")  # in the article, Markdown's emphasis is emphasis
    heading = f"T {shown}"
    text = pdf_text(export(run, state, "pdf", "final"))
    squashed = " ".join(text.split())
    assert f"Task {evil}" in squashed and heading in squashed and f"Body {shown}." in squashed
    d = docx_text(export(run, state, "docx", "final"))
    assert f"Task {evil}" in d and f"Body {shown}." in d


@needs_poppler
def test_an_unfinished_run_says_so_on_its_first_page(scripted, runs_dir):
    scripted.responder = FailOnce(ScriptedResponder(scores=[7], sections=2), "review:r1",
                                  ModelError("provider down"))  # fmt: skip
    with pytest.raises(ModelError):
        Runner(quiet_ui()).write("Gamma: unfinished", settings(runs_dir), "gamma")
    store = Store(runs_dir)
    run, state = store.get_run("gamma"), store.load_state("gamma")
    store.close()
    first = pdf_text(export(run, state, "pdf", "final")).split("\f")[0]
    assert "This run failed and is not finished" in " ".join(first.split())
    assert "provider down" in first
    assert "This run failed" in docx_text(export(run, state, "docx", "final")).split("\n")[0]  # first
    assert 'class="notice">This run failed' in export(run, state, "html", "final")


def test_the_output_files_suffix_chooses_the_format_and_files_are_private(shared, runs_dir, tmp_path):
    # the shared run holds Chinese: without a CJK font (a bare machine) the PDF is refused by name
    cjk = any(f for f, *_ in pdf._installed() if "CJK" in f or "Han" in f)
    for name, magic in (("r.pdf", b"%PDF-"), ("r.docx", b"PK"), ("r.html", b"<!DOCTYPE html>")):
        out = tmp_path / name
        if name == "r.pdf" and not cjk:
            result = invoke("export", "print", "-o", out, "--runs-dir", runs_dir)
            assert result.exit_code != 0 and "fonts-noto-cjk" in result.output and not out.exists()
            continue
        result = invoke("export", "print", "-o", out, "--runs-dir", runs_dir)
        assert result.exit_code == 0 and out.read_bytes().startswith(magic), name
        assert oct(out.stat().st_mode & 0o777) == "0o600"
    explicit = tmp_path / "r2.pdf"
    invoke("export", "print", "-f", "md", "-o", explicit, "--runs-dir", runs_dir)  # --format wins
    written = explicit.read_text()  # Markdown: the run's warning first (it did not pass), then the article
    assert written.startswith("> **Not passed") and f"\n## {TITLES[0]}\n" in written
    piped = subprocess.run([sys.executable, "-m", "reflectcli", "export", "print", "-f", "pdf", "--runs-dir",
                            str(runs_dir)], capture_output=True)  # fmt: skip
    if cjk:
        assert piped.returncode == 0 and piped.stdout.startswith(b"%PDF-")  # a pipe takes the bytes
    else:  # a bare machine: the same one-line refusal on a pipe, no bytes, no traceback
        assert piped.returncode != 0 and not piped.stdout and b"fonts-noto-cjk" in piped.stderr
        assert b"Traceback" not in piped.stderr


def test_md_and_json_exports_import_no_pdf_or_word_library(shared, runs_dir):
    for fmt in ("md", "json", "html"):
        args = ["export", "print", "-f", fmt, "--runs-dir", str(runs_dir)]
        proc = subprocess.run([sys.executable, "-X", "importtime", "-m", "reflectcli", *args],
                              capture_output=True, text=True, check=True)  # fmt: skip
        imported = {line.split("|")[-1].strip() for line in proc.stderr.splitlines()}
        heavy = {
            m for m in imported if m.split(".")[0] in ("typst", "fontTools", "docx", "litellm", "langgraph")
        }
        assert not heavy, (fmt, heavy)


def test_a_verdict_the_table_does_not_know_is_shown_as_it_is_in_a_neutral_colour():
    shown = document.verdict("half-true")
    assert shown.label == "half-true" and shown.colour == document.NEUTRAL
    source = {"id": "S1", "source_id": 1, "title": "Notes", "location": "/home/me/notes.md", "kind": "md",
              "page": None, "heading": None, "text": "He printed in Mainz."}  # fmt: skip
    version = {"n": 1, "round": 0, "kind": "draft", "text": "## Mainz\n\nHe printed there [S1]. More."}
    claim = {"claim": "C1", "sentence": "He printed there.", "source": "S1", "verdict": "half-true",
             "quote": "He printed in Mainz.", "reason": "", "by": "critic"}  # fmt: skip
    state = {"task": "Printing", "evidence": [source], "versions": [version], "known_issues": [],
             "reviews": [{"version": 1, "round": 1, "score": 7, "claims": [claim], "feedback": "",
                          "improvements": [], "source": "llm",
                          "dimensions": dict.fromkeys(DIMENSIONS, 7)}],
             "decisions": []}  # fmt: skip
    doc = document.build({"thread_id": "t", "status": "finished"}, state, version)
    assert [c.verdict for c in doc.claims] == ["half-true"]
    paragraph = doc.blocks[1]
    assert [(document.plain(s.spans), s.claim and s.claim.id) for s in paragraph.segments] == [
        ("He printed there [S1].", "C1"), (" More.", None)]  # fmt: skip
    page = export({"thread_id": "t", "status": "finished"}, state, "html", "final")
    assert f"--c:{document.NEUTRAL}" in page and "C1</a> half-true" in page
    assert "/home/me" not in page and "notes.md" in page


def test_pdf_export_without_the_reports_extra_says_how_to_install_it(monkeypatch):
    monkeypatch.setitem(sys.modules, "typst", None)  # as if not installed
    with pytest.raises(UserError) as info:
        pdf._typst()
    assert "reflectcli[reports]" in (info.value.hint or "")


@pytest.mark.skipif(not os.path.exists("/usr/share/fonts"), reason="no system fonts folder")
def test_a_font_that_covers_the_text_is_found_by_its_character_map():
    chosen = [f for f in pdf._installed() if "CJK" in f[0]]
    if not chosen:
        pytest.skip("no CJK font installed (CI installs fonts-noto-cjk)")
    family, path, index = chosen[0]
    assert pdf._covered(path, index, frozenset("中文字")) == set("中文字")
    latin = next((f for f in pdf._installed() if f[0] == "DejaVu Sans"), None)
    if latin:
        assert pdf._covered(latin[1], latin[2], frozenset("中文")) == set()
