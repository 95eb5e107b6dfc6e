"""A small corpus for the source-library tests, made in code: each file holds a fact that
exists nowhere else (so a search that finds it found that file)."""

from __future__ import annotations

from pathlib import Path

FACTS = {
    "md": "The zoetrope in the Lindqvist collection spun at forty turns a minute.",
    "txt": "Quipu knots in the Arvelo archive record grain tallies by decade.",
    "html": "The Mainz workshop cast a ninth typeface for the Vellmar psalter in 1457.",
    "docx": "Orrery gears at the Tessaly museum were cut from bell bronze.",
    "pdf": "The Kestrel lighthouse log notes forty-one ships in the winter gale.",
    "zh": "毕昇在宋朝发明了胶泥活字印刷术。",
}


def text_pdf(pages: list[str] | list[list[str]], heading: str | None = None) -> bytes:
    """A minimal valid PDF in Helvetica: each page a line of text, or a list of lines; with
    `heading`, the first page opens with it in 20-point type. (bench/bench_sources.py builds
    its PDFs with it too.)"""
    lines_per_page = [[page] if isinstance(page, str) else page for page in pages]
    objects: list[bytes] = [b"<< /Type /Catalog /Pages 2 0 R >>"]
    count = len(lines_per_page)
    kids = " ".join(f"{3 + 2 * i} 0 R" for i in range(count))
    objects.append(f"<< /Type /Pages /Kids [{kids}] /Count {count} >>".encode())
    font = 3 + 2 * count
    for i, lines in enumerate(lines_per_page):
        ops = "BT /F1 10 Tf 40 760 Td 12 TL " + " ".join(f"({line}) '" for line in lines) + " ET"
        if heading and i == 0:
            ops = f"BT /F1 20 Tf 40 775 Td ({heading}) Tj ET " + ops
        content = ops.encode("latin-1")
        resources = f"/Resources << /Font << /F1 {font} 0 R >> >>"
        objects.append(f"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents "
                       f"{4 + 2 * i} 0 R {resources} >>".encode())  # fmt: skip
        objects.append(b"<< /Length %d >>\nstream\n" % len(content) + content + b"\nendstream")
    objects.append(b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>")
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for n, body in enumerate(objects, 1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % n + body + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % o for o in offsets)
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(objects) + 1, xref)
    return bytes(out)


def docx_file(path: Path, heading: str, body: str) -> None:
    import docx

    document = docx.Document()
    document.core_properties.title = "Museum notes"
    document.add_heading(heading, level=1)
    document.add_paragraph(body)
    document.save(path)


def make_corpus(folder: Path) -> dict[str, Path]:
    """md, txt, html, docx, pdf (two pages) and a Chinese md file; returns kind → path."""
    folder.mkdir(parents=True, exist_ok=True)
    paths = {
        "md": folder / "devices.md",
        "txt": folder / "archive.txt",
        "html": folder / "press.html",
        "docx": folder / "museum.docx",
        "pdf": folder / "log.pdf",
        "zh": folder / "zh" / "printing.md",
    }
    paths["md"].write_text(f"# Early animation\n\nSome context first.\n\n## Devices\n\n{FACTS['md']}\n")
    paths["txt"].write_text(f"Archive notes\n\n{FACTS['txt']}\n")
    paths["html"].write_text(
        "<html><head><title>The Mainz press</title></head><body><nav>Home | About</nav>"
        f"<article><h1>Type founding</h1><p>{FACTS['html']}</p><p>The psalter sold well in "
        "the towns along the Rhine, and its printers trained the next generation.</p></article>"
        "<footer>Contact</footer></body></html>"
    )
    docx_file(paths["docx"], "Orreries", FACTS["docx"])
    paths["pdf"].write_bytes(text_pdf(["Harbour records, volume two.", FACTS["pdf"]]))
    paths["zh"].parent.mkdir()
    paths["zh"].write_text(f"# 活字印刷\n\n{FACTS['zh']}\n", encoding="utf-8")
    return paths
