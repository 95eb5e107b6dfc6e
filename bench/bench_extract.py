"""Extraction you can measure: what the readers keep of real documents, against a reference
extractor, and how fast they are.

Corpus (Debian packages; installed with apt-get when missing and run as root, else skipped
with a note): Python's HTML docs (python3.11-doc, /usr/share/doc/python3.11/html), Node.js's
(nodejs-doc, /usr/share/doc/nodejs/api), one HTML file made of 20 of the Python pages' main
blocks as 20 <article> elements; PDF manuals (r-doc-pdf, gnuplot-doc, python-reportlab-doc,
asymptote-doc, camlidl-doc); DOCX made with pandoc from 10 Python pages with tables.

Per file, word recall = the share of the reference's words (a multiset of lower-cased \\w+
tokens, NFKC) that the extract holds (its segments' text and the headings of its heading
paths). References: HTML, the page's main block's text by lxml (Python: role=main; Node:
#apicontent; without script, style and noscript); PDF, `pdftotext` (its line-end hyphens
joined by the same rule as the reader's); DOCX, `pandoc -t plain`. Also: multi-line <pre>
blocks of the main block found verbatim in the extract (and inside one chunk), table cells
(HTML's and DOCX's) found in the extract, titles without "¶" and not the site's name.
Targets: median recall >= 0.99, no file below 0.95, code >= 0.95, cells >= 0.95, titles
100 %. Throughput: read + chunk per file, and `sources add` of the corpus folders end to end
into a fresh library.

    python bench/bench_extract.py [--quick] [--baseline]

--quick: 60 Python pages, 3 PDFs, 4 DOCX. --baseline: also the old reader's recall on HTML
(trafilatura's main text, as before this bench).
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import unicodedata
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from reflectcli.sources import library  # noqa: E402
from reflectcli.sources.chunking import chunk_document  # noqa: E402
from reflectcli.sources.document import PATH_SEP  # noqa: E402
from reflectcli.sources.pdf_text import join_hyphens  # noqa: E402
from reflectcli.sources.readers import read_path  # noqa: E402

PYDOCS = Path(os.environ.get("REFLECT_BENCH_PYDOCS", "/usr/share/doc/python3.11/html"))
NODEDOCS = Path(os.environ.get("REFLECT_BENCH_NODEDOCS", "/usr/share/doc/nodejs/api"))
PDFS = {
    "r-doc-pdf": [
        f"/usr/share/R/doc/manual/R-{n}.pdf"
        for n in ("intro", "admin", "data", "exts", "FAQ", "ints", "lang")
    ],  # fmt: skip
    "gnuplot-doc": ["/usr/share/doc/gnuplot/gnuplot.pdf"],
    "python-reportlab-doc": ["/usr/share/doc/python-reportlab-doc/reportlab-userguide.pdf"],
    "asymptote-doc": [
        f"/usr/share/doc/asymptote/{n}.pdf"
        for n in ("asymptote", "asy-latex", "CAD", "asyRefCard", "TeXShopAndAsymptote")
    ],  # fmt: skip
    "camlidl-doc": ["/usr/share/doc/camlidl/camlidl-1.04.doc.pdf"],
}
DOCX_PAGES = ["library/stdtypes.html", "library/datetime.html", "library/string.html", "library/re.html",
              "library/functions.html", "library/time.html", "library/csv.html",
              "reference/lexical_analysis.html", "library/codecs.html", "library/os.path.html"]  # fmt: skip
TOOLS = {"pandoc": "pandoc", "pdftotext": "poppler-utils"}
_WORD = re.compile(r"\w+")


def ensure_packages(packages: list[str]) -> list[str]:
    """Install the missing Debian packages (as root); the ones still missing after."""

    def missing() -> list[str]:
        return [p for p in packages if subprocess.run(["dpkg", "-s", p], capture_output=True).returncode]

    todo = missing()
    if todo and shutil.which("apt-get") and os.geteuid() == 0:
        print(f"installing {' '.join(todo)} ...")
        env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
        subprocess.run(["apt-get", "install", "-y", "-q", "--no-install-recommends", *todo],
                       capture_output=True, env=env)  # fmt: skip
        todo = missing()
    return todo


def version(package: str) -> str:
    out = subprocess.run(["dpkg-query", "-W", "-f=${Version}", package], capture_output=True, text=True)
    return out.stdout.strip() or "?"


def words(text: str) -> Counter[str]:
    return Counter(_WORD.findall(unicodedata.normalize("NFKC", text).casefold()))


def recall(reference: Counter[str], extract: Counter[str]) -> float:
    total = sum(reference.values())
    return sum((reference & extract).values()) / total if total else 1.0


def flat(text: str) -> str:
    return " ".join(unicodedata.normalize("NFKC", text).split())


def extract_text(document) -> str:
    """The extract as the library holds it: each segment's text, after the headings its
    heading path opens (the ones the previous segment's path did not have)."""
    out, previous = [], []
    for segment in document.segments:
        path = segment.heading.split(PATH_SEP) if segment.heading else []
        common = 0
        while common < min(len(path), len(previous)) and path[common] == previous[common]:
            common += 1
        out += path[common:]
        out.append(segment.text)
        previous = path
    return "\n\n".join(out)


def main_block(path: Path):
    import lxml.html

    root = lxml.html.parse(str(path)).getroot()
    found = root.xpath('//*[@role="main"]') or root.xpath('//*[@id="apicontent"]')
    if not found:
        return None
    block = found[0]
    for cell in block.iter("td", "th", "tr", "li", "dt", "dd", "p"):  # text_content() runs cells together
        cell.tail = " " + (cell.tail or "")
    for mark in block.xpath('.//a[contains(@class, "headerlink")] | .//script | .//style | .//noscript'):
        mark.drop_tree()
    return block


class Tally:
    """Per-file figures of one corpus."""

    def __init__(self, name: str):
        self.name, self.recalls, self.code, self.cells = name, [], [0, 0, 0], [0, 0]
        self.titles, self.bad_titles, self.seconds, self.files, self.pages = 0, [], 0.0, 0, 0
        self.baseline: list[float] = []
        self.old_seconds = 0.0  # the old reader on the same files, interleaved (PDF)

    def report(self) -> None:
        if not self.files:
            return
        r = sorted(self.recalls, key=lambda x: x[0])
        median = statistics.median(x for x, _ in r)
        low = [x for x in r if x[0] < 0.95]
        print(f"\n== {self.name}: {self.files} files" + (f", {self.pages} pages" if self.pages else ""))
        print(f"word recall: median {median:.4f}, min {r[0][0]:.4f} ({r[0][1]}), files below 0.95: "
              f"{len(low)} (target median >= 0.99: {'met' if median >= 0.99 else 'BELOW TARGET'}; "
              f"none below 0.95: {'met' if not low else 'BELOW TARGET'})")  # fmt: skip
        print("  lowest: " + ", ".join(f"{name} {x:.3f}" for x, name in r[:5]))
        if self.baseline:
            b = sorted(self.baseline)
            print(f"  old reader (trafilatura main text): median {statistics.median(b):.4f}, "
                  f"min {b[0]:.4f}, below 0.95: {sum(x < 0.95 for x in b)}")  # fmt: skip
        if self.code[0]:
            share = self.code[1] / self.code[0]
            print(f"code blocks (multi-line <pre>) verbatim: {self.code[1]}/{self.code[0]} = {share:.4f} "
                  f"(target >= 0.95: {'met' if share >= 0.95 else 'BELOW TARGET'}); inside one chunk: "
                  f"{self.code[2]}/{self.code[0]}")  # fmt: skip
        if self.cells[0]:
            share = self.cells[1] / self.cells[0]
            print(
                f"table cells kept: {self.cells[1]}/{self.cells[0]} = {share:.4f} "
                f"(target >= 0.95: {'met' if share >= 0.95 else 'BELOW TARGET'})"
            )
        good = self.titles - len(self.bad_titles)
        print(f"titles without '¶' and not the site's name: {good}/{self.titles} "
              f"({'met' if not self.bad_titles else 'BELOW TARGET'})" +
              (f"; e.g. {self.bad_titles[:3]}" if self.bad_titles else ""))  # fmt: skip
        rate = f"{self.files / self.seconds:.1f} files/s"
        if self.pages:
            rate += f", {self.pages / self.seconds:.1f} pages/s"
        print(f"read + chunk: {self.seconds:.1f} s = {rate}")
        if self.old_seconds:
            print(f"  old reader (pypdf's page text alone), same files: {self.old_seconds:.1f} s = "
                  f"{self.pages / self.old_seconds:.1f} pages/s")  # fmt: skip


def read_timed(tally: Tally, path: Path):
    started = time.perf_counter()
    document = read_path(path)
    chunks = chunk_document(document)
    tally.seconds += time.perf_counter() - started
    tally.files += 1
    return document, chunks


def check_title(tally: Tally, title: str, site: set[str]) -> None:
    tally.titles += 1
    if "¶" in title or title.casefold() in site or not title.strip():
        tally.bad_titles.append(title)


def html_file(tally: Tally, path: Path, name: str, site: set[str], baseline: bool) -> None:
    block = main_block(path)
    document, chunks = read_timed(tally, path)
    check_title(tally, document.title, site)
    if block is None:
        return
    reference = words(block.text_content())
    text = extract_text(document)
    tally.recalls.append((recall(reference, words(text)), name))
    if baseline:
        import trafilatura

        old = trafilatura.extract(path.read_text(errors="replace"), include_comments=False,
                                  include_tables=True) or ""  # fmt: skip
        tally.baseline.append(recall(reference, words(old)))
    lined = "\n".join(line.strip() for line in text.split("\n"))
    for pre in block.iter("pre"):
        code = "\n".join(line.strip() for line in pre.text_content().strip("\n").split("\n"))
        if "\n" not in code.strip():
            continue
        tally.code[0] += 1
        tally.code[1] += code in lined
        tally.code[2] += any(code in "\n".join(x.strip() for x in c["text"].split("\n")) for c in chunks)
    flat_text = flat(text)
    for cell in block.xpath(".//table//td | .//table//th"):
        content = flat(cell.text_content())
        if content:
            tally.cells[0] += 1
            tally.cells[1] += content in flat_text


def html_corpus(name: str, folder: Path, files: list[Path], site: set[str], baseline: bool) -> Tally:
    tally = Tally(name)
    for path in files:
        html_file(tally, path, str(path.relative_to(folder)), site, baseline)
    return tally


def multi_article(pages: list[Path], out: Path) -> Path:
    """One HTML file holding the main blocks of `pages`, each as an <article>."""
    import lxml.html

    bodies = []
    for page in pages:
        block = lxml.html.parse(str(page)).getroot().xpath('//*[@role="main"]')[0]
        block.tag = "article"
        for key in list(block.attrib):
            del block.attrib[key]
        bodies.append(lxml.html.tostring(block, encoding="unicode"))
    html = ("<html><head><title>Collected pages</title></head><body><nav>Home | Next</nav>"
            + "".join(bodies) + "</body></html>")  # fmt: skip
    out.write_text(html)
    return out


def multi_article_check(tally: Tally, pages: list[Path], path: Path) -> None:
    reference = Counter()
    for page in pages:
        reference += words(main_block(page).text_content())
    document, _ = read_timed(tally, path)
    tally.recalls.append((recall(reference, words(extract_text(document))), path.name))
    check_title(tally, document.title, set())


def pdf_corpus(files: list[Path]) -> Tally:
    from pypdf import PdfReader

    tally = Tally("PDF manuals")
    for path in files:
        reference = subprocess.run(["pdftotext", "-enc", "UTF-8", str(path), "-"], capture_output=True,
                                   text=True).stdout  # fmt: skip
        reference = unicodedata.normalize("NFKC", reference)
        reference = join_hyphens(reference, Counter(re.findall(r"[\w-]+", reference.casefold())))
        started = time.perf_counter()  # the old reader's work: pypdf's text of each page
        tally.pages += len([page.extract_text() for page in PdfReader(str(path)).pages])
        tally.old_seconds += time.perf_counter() - started
        document, _ = read_timed(tally, path)
        tally.recalls.append((recall(words(reference), words(extract_text(document))), path.name))
        check_title(tally, document.title, {"enscript output"})
        print(f"  {path.name}: title {document.title!r}, {len(document.segments)} segments, "
              f"{sum(1 for s in document.segments if s.heading)} with a heading path")  # fmt: skip
    return tally


def docx_corpus(pages: list[Path], out: Path) -> Tally:
    import docx

    tally = Tally("DOCX (pandoc from Python pages)")
    for page in pages:
        target = out / (page.stem + ".docx")
        subprocess.run(["pandoc", "-f", "html", "-o", str(target), str(page)], check=True,
                       capture_output=True)  # fmt: skip
        reference = subprocess.run(["pandoc", "-t", "plain", "--wrap=none", str(target)],
                                   capture_output=True, text=True, check=True).stdout  # fmt: skip
        document, _ = read_timed(tally, target)
        text = extract_text(document)
        tally.recalls.append((recall(words(reference), words(text)), target.name))
        check_title(tally, document.title, set())
        flat_text = flat(text)
        for table in docx.Document(str(target)).tables:
            for row in table.rows:
                for cell in row.cells:
                    content = flat(cell.text)
                    if content:
                        tally.cells[0] += 1
                        tally.cells[1] += content in flat_text
    return tally


def end_to_end(tmp: Path, name: str, folder: Path | list[Path], pages: int = 0) -> None:
    """`sources add` into a fresh library, as a user runs it."""
    targets = [str(p) for p in folder] if isinstance(folder, list) else [str(folder)]
    started = time.perf_counter()
    outcomes = library.add(tmp / f"runs-{name}", targets)
    took = time.perf_counter() - started
    added = [o for o in outcomes if o.status == "added"]
    notes = [o.error for o in outcomes if o.status in ("ignored", "skipped")]
    warned = [o for o in outcomes if o.warning]
    rate = f"{len(added) / took:.1f} files/s" + (f", {pages / took:.1f} pages/s" if pages else "")
    print(f"sources add {name}: {len(added)} files, {sum(o.chunks for o in added)} chunks in {took:.1f} s "
          f"= {rate}; {len(warned)} low-share warnings; notes: {notes[:3]}")  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="a small part of the corpus")
    parser.add_argument("--baseline", action="store_true", help="the old reader's HTML recall too")
    args = parser.parse_args()
    absent = ensure_packages(["python3.11-doc", "nodejs-doc", *PDFS, *TOOLS.values()])
    if absent:
        print(f"note: packages not installed (and not installable here): {', '.join(absent)}; "
              "their part of the corpus is skipped")  # fmt: skip
    print("versions: " + ", ".join(f"{p} {version(p)}" for p in
                                   ["python3.11-doc", "nodejs-doc", *PDFS, *TOOLS.values()]))  # fmt: skip
    tallies: list[Tally] = []
    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        if PYDOCS.is_dir():
            files = sorted(p for p in PYDOCS.rglob("*.html") if "_sources" not in p.parts)
            files = files[::9] if args.quick else files
            site = {"python 3.11.2 documentation", "python documentation"}
            tallies.append(html_corpus("Python docs HTML", PYDOCS, files, site, args.baseline))
            sample = sorted(PYDOCS.glob("library/*.html"))[:20]
            articles = Tally("one HTML file of 20 <article> bodies")
            multi_article_check(articles, sample, multi_article(sample, tmp / "articles.html"))
            tallies.append(articles)
            if shutil.which("pandoc"):
                tallies.append(docx_corpus([PYDOCS / p for p in DOCX_PAGES[: 4 if args.quick else 10]], tmp))
        if NODEDOCS.is_dir():
            files = sorted(p for p in NODEDOCS.glob("*.html") if p.name != "all.html")
            files = files[::6] if args.quick else files
            site = {"node.js v18.20.4 documentation"}
            tallies.append(html_corpus("Node.js docs HTML", NODEDOCS, files, site, args.baseline))
        pdfs = [Path(p) for group in PDFS.values() for p in group if Path(p).is_file()]
        pdfs = pdfs[:3] if args.quick else pdfs
        if pdfs and shutil.which("pdftotext"):
            tallies.append(pdf_corpus(pdfs))
        for tally in tallies:
            tally.report()
        print()
        if PYDOCS.is_dir() and not args.quick:
            end_to_end(tmp, "python-docs", PYDOCS)
        if pdfs and not args.quick:
            end_to_end(tmp, "pdfs", pdfs, pages=next(t.pages for t in tallies if t.name == "PDF manuals"))


if __name__ == "__main__":
    main()
