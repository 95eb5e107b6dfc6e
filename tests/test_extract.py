"""Extraction keeps what a document says (issue 22's "Extraction loses text silently"): each
test is one symptom, on a small document made in code."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from reflectcli.sources import library
from reflectcli.sources.chunking import chunk_document
from reflectcli.sources.readers import parse, read_path
from tests.corpus import text_pdf

SPHINX = """<html><head><title>8. Errors and Exceptions — Python 3.11 documentation</title></head>
<body><div class="related" role="navigation"><a href="index.html">index</a></div>
<div class="body" role="main"><section id="errors">
<h1>8. Errors and Exceptions<a class="headerlink" href="#errors" title="Permalink">¶</a></h1>
<p>Until now error messages have not been more than mentioned.</p>
<section id="raising"><h2>8.4. Raising Exceptions<a class="headerlink" href="#raising">¶</a></h2>
<p>The raise statement allows the programmer to force an exception.</p>
<dl class="py function"><dt>csv.reader(csvfile)<a class="headerlink" href="#csv.reader">¶</a></dt>
<dd><p>A short usage example:</p>
<div class="highlight"><pre><span class="gp">&gt;&gt;&gt; </span>import csv
<span class="gp">&gt;&gt;&gt; </span>with open('eggs.csv', newline='') as f:
<span class="gp">... </span>    rows = list(csv.reader(f))
</pre></div></dd></dl>
<section id="groups"><h3>8.4.1. Raising and Handling Multiple Unrelated Exceptions</h3>
<p>The builtin ExceptionGroup wraps a list of exception instances.</p>
</section></section></section></div>
<div class="sphinxsidebar" role="navigation"><h3>Table of Contents</h3><ul><li>Errors</li></ul></div>
</body></html>"""


def html_doc(markup: str):
    return parse(markup.encode(), "html", "/page.html", "page")


def test_pre_inside_an_api_entry_keeps_its_lines():
    text = "\n\n".join(s.text for s in html_doc(SPHINX).segments)
    assert (">>> import csv\n>>> with open('eggs.csv', newline='') as f:\n"
            "...     rows = list(csv.reader(f))") in text  # fmt: skip


def test_permalink_marks_are_dropped_from_title_text_and_headings():
    document = html_doc(SPHINX)
    chunks = chunk_document(document)
    assert document.title == "8. Errors and Exceptions"
    assert not any("¶" in c["text"] or "¶" in (c["heading"] or "") for c in chunks)


def test_html_chunks_carry_their_heading_path():
    chunks = chunk_document(html_doc(SPHINX))
    by_text = {c["text"].split("\n")[0]: c["heading"] for c in chunks}
    assert by_text["The builtin ExceptionGroup wraps a list of exception instances."] == (
        "8. Errors and Exceptions › 8.4. Raising Exceptions › "
        "8.4.1. Raising and Handling Multiple Unrelated Exceptions"
    )
    assert "Table of Contents" not in "".join(c["text"] for c in chunks)  # the sidebar is not text


def test_a_page_of_several_articles_keeps_every_one():
    main = SPHINX.split('role="main">', 1)[1].split('<div class="sphinxsidebar"', 1)[0].rsplit("</div>", 1)[0]
    articles = "".join(f"<article>{main.replace('ExceptionGroup', f'Group{n}')}</article>" for n in range(4))
    document = html_doc(f"<html><head><title>Digest</title></head><body>{articles}</body></html>")
    text = " ".join(s.text for s in document.segments)
    assert all(f"The builtin Group{n} wraps" in text for n in range(4))


def test_a_page_takes_its_own_heading_not_the_sites_name():
    markup = """<html><head><title>File system | Node.js v20 documentation</title></head><body>
    <div id="content"><div id="column2"><ul><li><a href="a.html">Assertion testing</a></li>
    <li><a href="b.html">Buffer</a></li></ul></div><div id="column1">
    <header><h1>Node.js v20 documentation</h1></header>
    <div id="apicontent"><h2>File system<span><a class="mark" href="#fs">#</a></span></h2>
    <p>The node:fs module enables interacting with the file system in a way modeled on
    standard POSIX functions, and every operation has a synchronous form.</p>
    <pre>import { readFile } from 'node:fs';\nreadFile('/etc/passwd', (err, data) =&gt; {});</pre>
    </div></div></div></body></html>"""
    document = html_doc(markup)
    assert document.title == "File system"
    one_name = "<title>The Mainz press</title><article><h1>Type founding</h1><p>Cast in 1457.</p></article>"
    assert html_doc(one_name).title == "The Mainz press"  # a <title> of one name is the page's
    assert document.segments[0].heading == "File system"
    assert "Buffer" not in document.segments[0].text  # the navigation column is left out


def test_an_extract_that_keeps_little_of_the_page_says_so():
    story = " ".join(f"Paragraph {n} of the story is outside the main element." for n in range(40))
    markup = f"<html><body><main><p>Only a caption here.</p></main><div><p>{story}</p></div></body></html>"
    document = html_doc(markup)
    assert document.warning and "visible words" in document.warning
    assert html_doc(SPHINX).warning is None


def test_a_pdf_with_pages_without_text_says_so(tmp_path):
    path = tmp_path / "scanned.pdf"
    path.write_bytes(text_pdf(["A typed cover page.", "", "", "The last typed page."]))
    assert read_path(path).warning == "2 of its 4 pages have no text (scanned images?)"


def test_docx_tables_are_read_as_rows_in_their_place(tmp_path):
    import docx

    document = docx.Document()
    document.add_heading("Fonts", level=1)
    document.add_paragraph("Before the table.")
    table = document.add_table(rows=2, cols=2)
    for r, row in enumerate([("family", "weight"), ("DejaVu Sans", "bold")]):
        for c, value in enumerate(row):
            table.cell(r, c).text = value
    document.add_heading("Matching", level=2)
    document.add_paragraph("After the table.")
    path = tmp_path / "fonts.docx"
    document.save(path)
    segments = read_path(path).segments
    assert segments[0].text == "Before the table.\n\nfamily | weight\nDejaVu Sans | bold"
    assert (segments[1].heading, segments[1].text) == ("Fonts › Matching", "After the table.")


def test_a_long_western_text_with_two_latin_1_bytes_is_not_read_as_big5(tmp_path):
    words = "make target rule recipe variable prerequisite shell file directory option command build "
    words = (words + "install pattern implicit explicit archive library").split()
    lines = [f"* Version 3.{i}: the {words[i % 17]} {words[i * 7 % 17]} now handles {words[i * 3 % 17]}s "
             f"in {words[i * 5 % 17]} mode." for i in range(300)]  # fmt: skip
    lines[100] = "* Thanks to Klaus K\xe4mpf for the port to OS/390."
    lines[200] = "* Klaus K\xe4mpf also fixed the archive member rule."
    path = tmp_path / "NEWS.txt"
    path.write_bytes("\n".join(lines).encode("latin-1"))  # charset-normalizer ranks Big5 first
    text = read_path(path).segments[0].text
    assert text.count("Klaus Kämpf") == 2


def test_a_utf8_file_with_stray_latin_1_bytes_keeps_its_utf8(tmp_path):
    path = tmp_path / "changelog.txt"
    utf8 = "Rogério Brito fixed the frontend; thanks to Rogério for the new tests.\n".encode()
    path.write_bytes(utf8 * 5 + "* Reimar Döffinger: faster MMX code.\n".encode("latin-1") + utf8)
    text = read_path(path).segments[0].text
    assert text.count("Rogério") == 12 and "Reimar Döffinger" in text and "Ã" not in text


def test_polish_text_in_latin_2_and_japanese_in_euc_jp_are_read_in_their_code_pages(tmp_path):
    polish = ("Pomoc edytora: przejdź do następnego słowa, początku linii i końca pliku; powtórz ostatnie "
              "polecenie, a potem zapisz zmiany. Ta linia jest już w języku polskim.\n")  # fmt: skip
    (tmp_path / "pomoc.txt").write_bytes(polish.encode("iso8859_2") * 3)
    assert read_path(tmp_path / "pomoc.txt").segments[0].text == polish * 3
    japanese = "この文書では日本語で御利用の方のための補足事項が記述されています。\n" * 3
    (tmp_path / "README.jp.txt").write_bytes(japanese.encode("euc_jp"))
    assert read_path(tmp_path / "README.jp.txt").segments[0].text == japanese


def test_an_encoding_a_file_declares_is_used():
    """(charset-normalizer honoured a declaration too; the lines judged on their own do not.)"""
    markup = ('<html><head><meta http-equiv="Content-Type" content="text/html; charset=iso-8859-2">'
              "</head><body><main><p>ěščř</p></main></body></html>")  # fmt: skip
    document = parse(markup.encode("iso8859_2"), "html", "/enc.html", "enc")  # libxml's enc_latin2.html
    assert document.segments[0].text == "ěščř"
    xml = '<?xml version="1.0" encoding="iso-8859-2"?>\n<article>Zlatković wrote it.</article>\n'
    assert "Zlatković" in parse(xml.encode("iso8859_2"), "txt", "/a.txt", "a").segments[0].text


def test_windows_1252_text_is_not_read_as_latin_1(tmp_path):
    path = tmp_path / "prices.txt"
    path.write_bytes("The fee is 20 € – “paid” in advance, it’s said.\n".encode("cp1252"))
    assert read_path(path).segments[0].text.strip() == "The fee is 20 € – “paid” in advance, it’s said."


def encrypted(data: bytes) -> bytes:
    from pypdf import PdfReader, PdfWriter

    writer = PdfWriter(clone_from=PdfReader(io.BytesIO(data)))
    writer.encrypt(user_password="", owner_password="owner-secret", algorithm="AES-128")
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()


def test_an_owner_password_only_pdf_is_read(tmp_path):
    path = tmp_path / "locked.pdf"
    path.write_bytes(encrypted(text_pdf(["The Kestrel light was relit in spring."])))
    assert "Kestrel light" in read_path(path).segments[0].text


def test_pdf_line_end_hyphens_are_joined(tmp_path):
    path = tmp_path / "hyphens.pdf"
    path.write_bytes(text_pdf([["Install the pack-", "ages you need, then the well-known one,",
                                "and a well-", "known tool."]]))  # fmt: skip
    text = read_path(path).segments[0].text
    assert "packages you need" in text and "well-known tool" in text


def test_running_headers_and_footers_are_dropped(tmp_path):
    keepers = ["Ada", "Bram", "Cato", "Dirk", "Edda", "Finn"]
    pages = [["ACME Lighthouse Manual", f"Keeper {name} tended the lamp.", "Her log is kept.", f"{n}"]
             for n, name in enumerate(keepers, 1)]  # fmt: skip
    path = tmp_path / "manual.pdf"
    path.write_bytes(text_pdf(pages))
    segments = read_path(path).segments
    assert all("ACME Lighthouse Manual" not in s.text for s in segments)
    assert " ".join(segments[2].text.split()) == "Keeper Cato tended the lamp. Her log is kept."


def test_pdf_title_is_its_first_heading_not_a_tools_metadata(tmp_path):
    from pypdf import PdfReader, PdfWriter

    writer = PdfWriter(clone_from=PdfReader(io.BytesIO(text_pdf(["Body text of the log."],
                                                                heading="Harbour Log 1857"))))  # fmt: skip
    writer.add_metadata({"/Title": "Enscript Output"})
    path = tmp_path / "log.pdf"
    with path.open("wb") as out:
        writer.write(out)
    assert read_path(path).title == "Harbour Log 1857"


def test_pdf_outline_gives_chunks_their_heading_path(tmp_path):
    from pypdf import PdfReader, PdfWriter

    writer = PdfWriter(clone_from=PdfReader(io.BytesIO(text_pdf(
        [["Preface", "Why this log exists."], ["Storms", "The winter gale sank two ships."]]))))  # fmt: skip
    part = writer.add_outline_item(title="Log", page_number=0)
    writer.add_outline_item(title="Preface", page_number=0, parent=part)
    writer.add_outline_item(title="Storms", page_number=1, parent=part)
    path = tmp_path / "outlined.pdf"
    with path.open("wb") as out:
        writer.write(out)
    chunks = chunk_document(read_path(path))
    gale = next(c for c in chunks if "winter gale" in c["text"])
    assert (gale["page"], gale["heading"]) == (2, "Log › Storms")


def test_the_chunker_never_cuts_code_at_a_continuation_prompt():
    session = "".join(f">>> for row in table_{n}:\n...     total += row.count('spam')\n" for n in range(40))
    text = f"Some notes first.\n\n{session}"
    document = parse(text.encode(), "txt", "/notes.txt", "notes")
    for chunk in chunk_document(document):
        start, end = chunk["start"], chunk["end"]
        assert start == 0 or text[start - 1] == "\n", text[start : start + 30]
        assert not text[start:end].lstrip().startswith("...")
        assert end == len(text) or text[end - 1] == "\n"


def test_sphinx_source_copies_are_skipped_with_a_note(tmp_path):
    folder = tmp_path / "html"
    (folder / "_sources" / "tutorial").mkdir(parents=True)
    (folder / "tutorial").mkdir()
    (folder / "tutorial" / "errors.html").write_text(SPHINX)
    (folder / "_sources" / "tutorial" / "errors.rst.txt").write_text(".. highlight:: c\n\nErrors\n")
    (folder / "tutorial" / "intro.rst.txt").write_text("Intro\n=====\n")
    (folder / "tutorial" / "intro.html").write_text(SPHINX.replace("Errors and", "Intro and"))
    (folder / "notes.txt").write_text("My own notes.\n")
    outcomes = library.add(tmp_path / "runs", [str(folder)])
    added = sorted(Path(o.location).name for o in outcomes if o.status == "added")
    assert added == ["errors.html", "intro.html", "notes.txt"]
    notes = [o.error for o in outcomes if o.status == "ignored"]
    assert any("2 generated copies" in n for n in notes), notes


@pytest.mark.parametrize("markup", ["", "<html></html>", "<p>" * 300 + "deep"])
def test_odd_markup_is_an_empty_source_or_text_never_a_crash(markup):
    try:
        document = html_doc(markup)
    except Exception as exc:  # noqa: BLE001 - the one error a reader may raise
        assert type(exc).__name__ == "SourceError"
    else:
        assert "deep" in document.segments[0].text


# Issue 34: PDFs that keep their symbols and their headings


def fonts_pdf(lines: list[tuple[str, bytes]]) -> bytes:
    """A one-page PDF of lines, each in a named Type 1 font that is not embedded and has no
    ToUnicode map (as TeX's Computer Modern fonts are read when their glyph names are lost):
    the reader sees each byte as the font's own code."""
    fonts = sorted({font for font, _ in lines})
    ops = b"BT 12 TL 40 760 Td " + b" ".join(b"/F%d 10 Tf (%s) '" % (fonts.index(f), text)
                                              for f, text in lines) + b" ET"  # fmt: skip
    resources = " ".join(f"/F{i} {5 + i} 0 R" for i in range(len(fonts)))
    objects = [b"<< /Type /Catalog /Pages 2 0 R >>", b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
               f"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R "
               f"/Resources << /Font << {resources} >> >> >>".encode(),
               b"<< /Length %d >>\nstream\n" % len(ops) + ops + b"\nendstream"]  # fmt: skip
    objects += [f"<< /Type /Font /Subtype /Type1 /BaseFont /{font} >>".encode() for font in fonts]
    out, offsets = bytearray(b"%PDF-1.4\n"), []
    for n, body in enumerate(objects, 1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % n + body + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % o for o in offsets)
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(objects) + 1, xref)
    return bytes(out)


def control_characters(text: str) -> list[str]:
    import unicodedata

    return [ch for ch in text if unicodedata.category(ch) == "Cc" and ch not in "\n\t"]


def test_tex_font_codes_are_stored_as_their_symbols_not_control_characters(tmp_path):
    path = tmp_path / "glpk.pdf"
    path.write_bytes(fonts_pdf([
        ("ABCDEF+CMR10", b"The speci\\014ed problem object is \\013xed."),
        ("CMSY10", b"0 \\024 len \\024 n and \\000x \\002 y \\025 0"),
        ("CMMI10", b"\\013 \\014"),
        ("CMSY10", b"\\015c 2000-2020 Free Software Foundation"),
    ]))  # fmt: skip
    document = read_path(path)
    text = "\n".join(c["text"] for c in chunk_document(document))
    assert "The specified problem object is ffxed." in text  # OT1's ligatures (0x0C fi, 0x0B ff)
    assert "0 ≤ len ≤ n and −x × y ≥ 0" in text and "α β" in text  # OMS and OML
    assert "© 2000-2020" in text  # TeX's © is a circle with a c in it
    assert control_characters(text) == [] and document.warning is None


def test_a_control_character_no_font_explains_is_dropped_with_one_warning(tmp_path):
    path = tmp_path / "bullets.pdf"
    lines = [("Helvetica", b"\\210 All evaluation uses integers."), ("Helvetica", b"Fine.")]
    path.write_bytes(fonts_pdf(lines))
    outcomes = library.add(tmp_path / "runs", [str(path)])
    assert [o.status for o in outcomes] == ["added"]  # no second line: nothing else warned
    assert outcomes[0].warning.endswith("1 character its fonts do not map to text was dropped, "
                                        "on 1 of its 1 pages (2.70% of its text)")  # fmt: skip
    stored = library.show(tmp_path / "runs", outcomes[0].source_id)[1]
    text = stored[0]["text"]
    assert control_characters(text) == [] and "All evaluation uses integers." in text


def outlined(pages: list[list[str]], entries: list[tuple[str, int, str | None]]) -> bytes:
    """text_pdf's pages with an outline: (title, page index, parent title or None)."""
    from pypdf import PdfReader, PdfWriter

    writer = PdfWriter(clone_from=PdfReader(io.BytesIO(text_pdf(pages))))
    made = {}
    for title, page, parent in entries:
        made[title] = writer.add_outline_item(title=title, page_number=page, parent=made.get(parent))
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()


def test_outline_titles_are_found_after_their_printed_numbers(tmp_path):
    path = tmp_path / "faq.pdf"
    path.write_bytes(outlined(
        [["1 Introduction", "This document answers questions.", "1.1 Legalese", "Copyright by the authors.",
          "1.2 Notation", "Everything is standard."],
         ["Chapter 2", "R Basics", "R is a system for statistics.", "2.1 What is R?", "R is a language."]],
        [("1 Introduction", 0, None), ("Legalese", 0, "1 Introduction"), ("Notation", 0, "1 Introduction"),
         ("R Basics", 1, None), ("What is R?", 1, "R Basics")],
    ))  # fmt: skip
    by_text = {c["text"].split("\n")[-1]: c["heading"] for c in chunk_document(read_path(path))}
    assert by_text == {"This document answers questions.": "1 Introduction",
                       "Copyright by the authors.": "1 Introduction › Legalese",
                       "Everything is standard.": "1 Introduction › Notation",
                       "R is a system for statistics.": "R Basics",
                       "R is a language.": "R Basics › What is R?"}, by_text  # fmt: skip


def test_an_entry_pointing_at_the_page_before_its_heading_is_found_on_the_next(tmp_path):
    path = tmp_path / "lang.pdf"
    path.write_bytes(outlined(
        [["2.1.2 Lists", "Lists hold objects."], ["2.1.3 Language objects", "There are three types."]],
        [("Lists", 0, None), ("Language objects", 0, None)],  # an anchor set before the page break
    ))  # fmt: skip
    chunks = chunk_document(read_path(path))
    assert [(c["page"], c["heading"]) for c in chunks] == [(1, "Lists"), (2, "Language objects")]


def test_running_headers_that_change_per_chapter_and_page_numbers_are_dropped(tmp_path):
    chapters = ["Chapter 1: Introduction and preliminaries", "Chapter 2: Simple manipulations"]
    pages = [[f"{chapters[n // 4]} {n + 1}", f"Paragraph {n} says something of its own.",
              f"It goes on for {'ab' * (n + 1)}."] for n in range(8)]  # fmt: skip
    pages[0] = ["1 Introduction", "The first chapter begins on page one.", "1"]  # a heading, not a header
    pages[4] = ["2 Simple manipulations", "The second chapter begins here.", "5"]
    path = tmp_path / "intro.pdf"
    path.write_bytes(text_pdf(pages))
    chunks = chunk_document(read_path(path))
    text = "\n".join(c["text"] for c in chunks)
    assert "Chapter 1:" not in text and "Chapter 2:" not in text
    assert "1 Introduction" in text and "2 Simple manipulations" in text
    assert not any(c["text"].strip().isdigit() for c in chunks)  # no chunk is only a page number
    assert "Paragraph 5 says something of its own.\nIt goes on for abababababab." in text


def test_contents_pages_are_found_only_when_nothing_else_matches(tmp_path):
    contents = ["Table of Contents"] + [f"{n} Installing add-on packages part {n} . . . . . . . {n + 1}"
                                        for n in range(1, 7)]  # fmt: skip
    path = tmp_path / "admin.pdf"
    path.write_bytes(text_pdf([contents, ["Add-on packages are installed with install.packages()."]]))
    runs = tmp_path / "runs"
    library.add(runs, [str(path)])
    hits = library.search(runs, "how can add-on packages be installed")
    assert [h["page"] for h in hits] == [2]  # not the contents page, which holds every word too
    assert [h["page"] for h in library.search(runs, "table of contents")] == [1]  # nothing else has it


# Issue 34: HTML and DOCX keep their structure; issue 33: hidden text is never stored


def test_ordered_lists_keep_their_numbers():
    markup = """<html><body><main><p>Notes:</p><ol><li>Measured at noon.</li><li>Estimated.</li></ol>
    <ol start="3"><li>Third.</li><li value="7">Seventh.</li><li>Eighth.</li></ol>
    <ol type="a"><li>Letter a.</li><li>Letter b.</li></ol><ol reversed><li>Two.</li><li>One.</li></ol>
    <ul><li>A bullet.</li></ul></main></body></html>"""
    text = html_doc(markup).segments[0].text
    assert "1. Measured at noon.\n\n2. Estimated." in text
    assert "3. Third.\n\n7. Seventh.\n\n8. Eighth." in text
    assert "a. Letter a.\n\nb. Letter b." in text and "2. Two.\n\n1. One." in text
    assert "\n\nA bullet." in text


def test_each_code_block_in_a_pre_keeps_its_own_lines():
    markup = """<html><body><main><p>An example in both module systems:</p>
    <pre><input class="js-flavor-selector" type="checkbox" aria-label="Show modern ES modules syntax"><code
    class="language-js mjs">import { EventEmitter } from 'node:events';
myEmitter.emit('event');</code><code class="language-js cjs">const EventEmitter = require('node:events');
myEmitter.emit('event');</code></pre></main></body></html>"""
    document = html_doc(markup)
    segment = document.segments[0]
    assert "emit('event');const" not in segment.text
    blocks = [segment.text[a:b] for a, b in segment.code]
    assert blocks == ["import { EventEmitter } from 'node:events';\nmyEmitter.emit('event');",
                      "const EventEmitter = require('node:events');\nmyEmitter.emit('event');"]  # fmt: skip


def test_table_cells_keep_their_line_breaks_and_a_nested_table_is_read_once():
    markup = """<html><body><main><table>
    <tr><th>Option</th><th>Meaning</th></tr>
    <tr><td>--leak-check</td><td>Search for leaks<br>at exit.<p>Default: summary (1)</p></td></tr>
    <tr><td>--tool</td><td><table><tr><td>memcheck</td><td>errors</td></tr><tr><td>cachegrind</td>
    <td>caches</td></tr></table></td></tr></table></main></body></html>"""
    text = html_doc(markup).segments[0].text
    assert text == ("Option | Meaning\n--leak-check | Search for leaks\nat exit.\nDefault: summary (1)\n"
                    "--tool | memcheck | errors\ncachegrind | caches")  # fmt: skip
    assert text.count("memcheck") == 1


def test_a_heading_in_a_table_cell_starts_a_heading_path():
    markup = """<html><head><title>Valgrind FAQ</title></head><body><div class="qandaset">
    <table summary="Q and A Div"><tr class="qandadiv"><td colspan="2"><h3>1. Background</h3></td></tr>
    <tr class="question"><td><b>1.1.</b></td><td><b>How do you pronounce "Valgrind"?</b></td></tr>
    <tr class="answer"><td></td><td><p>The "Val" as in the word "value".</p><pre>% valgrind ls
% valgrind -v ls</pre></td></tr></table>
    <table summary="Q and A Div"><tr><td><h3>2. Compiling</h3></td></tr>
    <tr><td><p>When building Valgrind, make dies.</p></td></tr></table></div></body></html>"""
    chunks = chunk_document(html_doc(markup))
    by_heading = {c["heading"]: c["text"] for c in chunks}
    assert 'The "Val" as in the word "value".' in by_heading["1. Background"]
    assert "% valgrind ls\n% valgrind -v ls" in by_heading["1. Background"]
    assert by_heading["2. Compiling"] == "When building Valgrind, make dies."


@pytest.mark.parametrize("hiding", [
    '<p hidden>SECRET</p>', '<p aria-hidden="true">SECRET</p>', '<p style="display: none">SECRET</p>',
    '<p style="visibility:hidden">SECRET</p>', '<span style="font-size:0px">SECRET</span>',
    '<span style="FONT-SIZE: 0 !important">SECRET</span>',
    '<div style="background:#ffffff"><p style="color: white">SECRET</p></div>',
    '<p style="color:#fff;background-color:white">SECRET</p>',
    # ninth pass: the ways a stylesheet hides text that injection pages use
    '<p style="opacity:0">SECRET</p>',
    '<p style="opacity: 0.0">SECRET</p>',
    '<p style="color:transparent">SECRET</p>',
    '<p style="position:absolute;left:-9999px">SECRET</p>',
    '<p style="position: fixed; top: -1000px">SECRET</p>',
    '<p style="text-indent:-9999px">SECRET</p>',
    '<span style="clip: rect(0, 0, 0, 0); position:absolute">SECRET</span>',
    '<span style="clip-path: inset(50%)">SECRET</span>',
    '<p style="transform: scale(0)">SECRET</p>',
    '<div style="height:0;overflow:hidden"><p>SECRET</p></div>',
    '<p style="width:1px;height:1px;overflow:hidden">SECRET</p>',
    '<style>.x1 {display:none}</style><p class="note x1">SECRET</p>',
    '<style>/* note */ p.ghost, #far { position: absolute; left: -10000px }</style><p id="far">SECRET</p>',
])  # fmt: skip
def test_text_a_page_hides_from_readers_is_never_stored(hiding):
    markup = f"<html><body><main><p>Shown before.</p>{hiding}<p>Shown after.</p></main></body></html>"
    text = " ".join(s.text for s in html_doc(markup).segments)
    assert "SECRET" not in text and "Shown before." in text and "Shown after." in text


def test_white_text_on_a_dark_background_is_kept():
    markup = ('<html><body><main><div style="background-color: #222"><p style="color:white">Night mode.'
              '</p></div><p style="font-size: 0.9em">Small print.</p></main></body></html>')  # fmt: skip
    text = " ".join(s.text for s in html_doc(markup).segments)
    assert "Night mode." in text and "Small print." in text


def test_styles_that_only_look_like_hiding_keep_their_text():
    """Half opacity, a small negative margin or indent, a clip of a real box, a rule for print,
    a narrow screen or a hover: the reader still sees the text."""
    markup = """<html><head><style>@media print { .screen { display: none } }
    @media (max-width: 600px) { #wide { display:none } } .c:hover { opacity: 0 }
    </style></head><body><main><p style="opacity:0.5">Faded.</p><p style="text-indent:-2em">Hanging.</p>
    <p style="position:relative;left:-10px">Nudged.</p><p style="clip: rect(0, 200px, 50px, 0)">Clipped.</p>
    <p class="screen">On screen.</p><p id="wide">Wide.</p><p class="c">Hovered.</p>
    <div style="height:0">Overflowing.</div></main></body></html>"""
    text = " ".join(s.text for s in html_doc(markup).segments)
    for kept in ("Faded.", "Hanging.", "Nudged.", "Clipped.", "On screen.", "Wide.", "Hovered.",
                 "Overflowing."):  # fmt: skip
        assert kept in text, kept


def test_docx_title_merged_cells_and_code_paragraphs(tmp_path):
    import docx

    document = docx.Document()
    document.add_paragraph("Kestrel Lighthouse Handbook", style="Title")
    document.add_heading("Lamps", level=1)
    document.add_paragraph("Trim the wick daily.")
    code = document.styles.add_style("Source Code", 1)  # WD_STYLE_TYPE.PARAGRAPH
    document.add_paragraph("lamp = Lamp()", style=code)
    document.add_paragraph("lamp.trim()", style=code)
    document.add_paragraph("Then log it.")
    table = document.add_table(rows=3, cols=3)
    for r, row in enumerate([("lamp", "oil", "hours"), ("x", "y", "z"), ("Argand", "colza", "9")]):
        for c, value in enumerate(row):
            table.cell(r, c).text = value
    table.cell(1, 0).merge(table.cell(1, 1)).text = "both lamps"
    table.cell(1, 2).text = "12"
    path = tmp_path / "handbook.docx"
    document.save(path)
    read = read_path(path)
    assert read.title == "Kestrel Lighthouse Handbook"
    chunks = chunk_document(read)
    assert chunks[0]["text"] == "Kestrel Lighthouse Handbook"  # the title is text: searchable
    lamps = read.segments[1]
    assert lamps.text == ("Trim the wick daily.\n\nlamp = Lamp()\nlamp.trim()\n\nThen log it.\n\n"
                          "lamp | oil | hours\nboth lamps |  | 12\nArgand | colza | 9")  # fmt: skip
    assert [lamps.text[a:b] for a, b in lamps.code] == ["lamp = Lamp()\nlamp.trim()"]
    hits = library.search(library_with(tmp_path, path), "Kestrel handbook")
    assert hits and hits[0]["text"] == "Kestrel Lighthouse Handbook"


def library_with(tmp_path, path):
    runs = tmp_path / "runs"
    library.add(runs, [str(path)])
    return runs


def test_a_chapters_running_header_without_a_page_number_is_dropped(tmp_path):
    chapters = [
        "Using and understanding the Valgrind core",
        "Memcheck: a memory error detector",
        "Cachegrind: a cache profiler",
    ]  # each on a third of the pages: none on most of them
    pages = [[chapters[n // 5], f"Option {'x' * (n + 1)} does what it says.",
              f"See also note {'y' * (n + 1)}.", str(n + 1)] for n in range(15)]  # fmt: skip
    path = tmp_path / "valgrind.pdf"
    path.write_bytes(text_pdf(pages))
    text = "\n".join(c["text"] for c in chunk_document(read_path(path)))
    assert not any(chapter in text for chapter in chapters), text
    assert "Option xxxxxx does what it says." in text
