"""Reading exported reports back as a reader's tools see them: a PDF's text (pdftotext), fonts
(pdffonts) and missing glyphs, a DOCX's text in document order (python-docx). Shared by
tests/test_export.py and bench/bench_export.py."""

from __future__ import annotations

import io
import re
import subprocess
import tempfile


def _squash(text: str) -> str:
    return re.sub(r"\s+", "", text).replace("\u00ad", "")


def in_order(items: list[str], text: str) -> tuple[int, list[str]]:
    """How many of `items` are found in `text` in order (whitespace aside), and the missing."""
    flat, at, found, missing = _squash(text), 0, 0, []
    for item in items:
        k = flat.find(_squash(item), at)
        if k < 0:
            missing.append(item)
            continue
        found += 1
        at = k + len(_squash(item))
    return found, missing


def pdf_text(data: bytes) -> str:
    with tempfile.NamedTemporaryFile(suffix=".pdf") as fh:
        fh.write(data)
        fh.flush()
        return subprocess.run(["pdftotext", "-layout", fh.name, "-"], capture_output=True, text=True,
                              check=True).stdout  # fmt: skip


def pdf_fonts(data: bytes) -> list[str]:
    with tempfile.NamedTemporaryFile(suffix=".pdf") as fh:
        fh.write(data)
        fh.flush()
        out = subprocess.run(["pdffonts", fh.name], capture_output=True, text=True, check=True).stdout
    return [line.split()[0] for line in out.splitlines()[2:] if line.strip()]


def missing_glyphs(data: bytes) -> int:
    """Glyphs drawn as .notdef (CID 0 of a two-byte font: what Typst draws where no font holds
    a character, a box), counted in every page's text operators."""
    import pypdf
    from pypdf.generic import ContentStream

    reader, count = pypdf.PdfReader(io.BytesIO(data)), 0
    for page in reader.pages:
        for operands, op in ContentStream(page.get_contents(), reader).operations:
            if op not in (b"Tj", b"TJ"):
                continue
            strings = operands[0] if op == b"TJ" else operands
            for piece in strings:
                raw = getattr(piece, "original_bytes", piece) if not isinstance(piece, (int, float)) else b""
                if isinstance(raw, bytes):
                    count += sum(1 for i in range(0, len(raw) - 1, 2) if raw[i : i + 2] == b"\0\0")
    return count


def docx_text(data: bytes) -> str:
    import docx

    d = docx.Document(io.BytesIO(data))
    parts = []
    for block in d.element.body.iterchildren():  # paragraphs and tables in document order
        tag = block.tag.rsplit("}", 1)[-1]
        if tag == "p":
            parts.append("".join(t.text or "" for t in block.iter() if t.tag.endswith("}t")))
        elif tag == "tbl":
            parts.append(" ".join(t.text or "" for t in block.iter() if t.tag.endswith("}t")))
    return "\n".join(parts)
