"""Export fidelity and time on real articles (issue 37).

Three runs through the real runner, the writer and critic played by a script over real public
text: the writer drafts each `##` section of the article as written, citing the passages the
run's research found for it; the critic judges every claim supported (or contradicted, for the
sentences the third run's writer changed). Each run is exported as md, html, pdf and docx, and:

- every heading, citation, table cell and code line of the Markdown export's article must be
  found in the PDF's text (pdftotext) and the DOCX's (python-docx), in order;
- CJK: the CJK characters pdftotext reads back against the article's (a missing glyph drops or
  changes one), and the fonts pdffonts lists as embedded; as a control, the same Typst source
  compiled with Typst's own fonts only (no CJK face) must lose characters;
- time: each format's export of the largest article, median of --reps, with the load average.

The corpus (not in git; see bench/README.md for how it was made): en.md (the Logging HOWTO of
Debian's python3.11-doc 3.11.2-6+deb12u9, first 5,031 words, through pandoc rst→gfm), zh.md
(ruanyf/weekly docs/issue-340.md at cf5e367d, images dropped), contra.md (the Sorting HOWTO of
the same package).

    python bench/bench_export.py [--corpus /work/corpus/h37] [--reps 5] [--candidates DIR]
"""

from __future__ import annotations

import argparse
import io
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from reflectcli.models.fake import prompt_text  # noqa: E402
from tests.readback import _squash, docx_text, in_order, missing_glyphs, pdf_fonts, pdf_text  # noqa: E402

CITE = re.compile(r"\[S\d+(?:, S\d+)*\]")


def sections_of(article: str) -> tuple[str, list[tuple[str, str]]]:
    """The article's title and its `##` sections (title, body), at most 12."""
    from reflectcli.writing.markdown import headings

    marks = [h for h in headings(article) if h.level == 2]
    title = next((h.title for h in headings(article) if h.level == 1), "An article")
    out = []
    for i, h in enumerate(marks[:12]):
        end = marks[i + 1].start if i + 1 < len(marks) else len(article)
        out.append((h.title, article[h.end : end].strip()))
    return title, out


def cited(body: str, ident: str, contradict: bool, changed: list[str]) -> str:
    """`body` with `[ident]` at the end of the first sentence of its first four prose
    paragraphs; with `contradict`, the first such sentence made wrong (its first number changed,
    or its first is/are/can/will negated)."""
    from reflectcli.writing.markdown import blocks

    out, last, n = [], 0, 0
    for b in blocks(body):
        if b.kind != "paragraph" or n >= 4:
            continue
        text = body[b.start : b.end]
        stop = re.search(r"[.。](?=\s|$)", text)
        if not stop:
            continue
        sentence = text[: stop.start() + 1]
        if contradict and n == 0 and re.search(r"\d+|\b(?:is|are|can|will)\b", sentence):
            if re.search(r"\d+", sentence):
                sentence = re.sub(r"\d+", lambda m: str(int(m.group()) + 7), sentence, count=1)
            else:
                sentence = re.sub(r"\b(is|are|can|will)\b", r"\1 not", sentence, count=1)
            changed.append(" ".join(sentence.split())[:30])
        out += [body[last : b.start], sentence[:-1], f" [{ident}]", sentence[-1], text[stop.start() + 1 :]]
        last = b.end
        n += 1
    return "".join(out) + body[last:]


class Script:
    def __init__(self, article: str, contradict: bool = False) -> None:
        self.title, self.sections = sections_of(article)
        self.contradict = contradict
        self.changed: list[str] = []

    def __call__(self, step: str, messages: list[dict[str, str]]) -> str:
        prompt = prompt_text(messages)
        kind = step.split(":")[0]
        if kind == "plan":
            words = [re.sub(r"[#*`>|\[\]()-]", " ", body).split()[:12] for _, body in self.sections]
            outline = [
                {"title": t, "goal": " ".join(w)} for (t, _), w in zip(self.sections, words, strict=True)
            ]
            return json.dumps({"sections": outline})
        if kind == "draft":
            n = int(step.rsplit("s", 1)[-1]) if step[-1].isdigit() else 1
            named = re.search(r"found for this section: ((?:\[S\d+\](?:, )?)+)", prompt)
            ids = re.findall(r"S\d+", named.group(1)) if named else re.findall(r"^\[(S\d+)\] ", prompt, re.M)
            body = self.sections[n - 1][1]
            return cited(body, ids[0], self.contradict and n % 2 == 1, self.changed) if ids else body
        if kind == "review":
            claims = []
            for claim, sources, sentence in re.findall(r"^(C\d+) \[([^\]]+)\]: (.*)$", prompt, re.M):
                wrong = any(_squash(sentence).startswith(_squash(c)[:20]) for c in self.changed)
                for source in sources.split(", "):
                    verdict, why = ("contradicted", "the source says otherwise") if wrong else (
                        "supported", "the source says so")  # fmt: skip
                    claims.append({"claim": claim, "source": source, "verdict": verdict, "quote": "",
                                   "reason": why})  # fmt: skip
            dims = dict.fromkeys(("accuracy", "completeness", "readability", "structure"), 9)
            said = (
                "The article follows its source closely and reads clearly. Each section keeps its examples."
            )
            return json.dumps({"score": 9, "dimensions": dims, "feedback": said, "improvements": [],
                               "claims": claims})  # fmt: skip
        if kind == "revise":
            body = re.search(r"<section>\n(.*)\n</section>", prompt, re.S)
            return body.group(1) if body else prompt
        raise AssertionError(step)


def make_run(runs_dir: Path, name: str, article: str, contradict: bool = False) -> tuple[dict, dict]:
    from rich.console import Console

    from reflectcli.config import load_settings
    from reflectcli.models.fake import FakeClient, install_fake
    from reflectcli.output.render import Renderer
    from reflectcli.runner import Runner
    from reflectcli.sources import library
    from reflectcli.store.db import Store

    notes = runs_dir.parent / f"notes-{name}"
    notes.mkdir(parents=True, exist_ok=True)
    (notes / f"{name}.md").write_text(article)
    library.add(runs_dir, [str(notes)])
    script = Script(article, contradict)
    client = FakeClient(responder=script)
    undo = install_fake("fake", lambda model: client)
    try:
        settings = load_settings(flags={"model": "fake/w", "runs_dir": str(runs_dir), "max_rounds": 1,
                                        "max_sections": len(script.sections), "threshold": 8,
                                        "research": {"sources": "local"}})  # fmt: skip
        ui = Renderer(console=Console(file=io.StringIO()), quiet=True)
        result = Runner(ui).write(script.title, settings, name)
    finally:
        undo()
    store = Store(runs_dir)
    run, state = store.get_run(result.thread_id), store.load_state(result.thread_id)
    store.close()
    return run, state


def expected_items(md: str) -> list[str]:
    """Headings, citations, table cells and code lines of a Markdown article, in order."""
    from markdown_it import MarkdownIt

    article = md.split("\n## References", 1)[0]
    items: list[str] = []
    tokens = MarkdownIt("commonmark").enable("table").parse(article)
    inside: str | None = None
    for i, t in enumerate(tokens):
        if t.type in ("heading_open", "th_open", "td_open"):
            inside = t.type
        elif t.type == "inline" and inside:
            text = "".join(c.content for c in t.children or [] if c.type in ("text", "code_inline"))
            items += [text] if text.strip() and not CITE.fullmatch(text.strip()) else []
            items += CITE.findall(t.content) if inside != "heading_open" else []
            inside = None
        elif t.type == "inline" and tokens[i - 1].type == "paragraph_open":
            items += CITE.findall(t.content)
        elif t.type in ("fence", "code_block"):
            items += [line for line in t.content.splitlines() if line.strip()]
    return items


def cjk_count(text: str) -> int:
    from reflectcli.writing.textops import CJK

    return len(CJK.findall(text))


def timed(fn, reps: int) -> float:
    times = []
    for _ in range(reps):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return statistics.median(times)


def du(path: Path) -> float:
    """MB on disk under `path`."""
    return sum(f.stat().st_size for f in path.rglob("*") if f.is_file()) / 1e6


def child(cmd: list[str], env: dict[str, str] | None = None) -> tuple[float, float]:
    """Wall and CPU seconds (user + system, its threads and children) of one command."""
    import resource

    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    subprocess.run(cmd, check=True, capture_output=True, env={**os.environ, **(env or {})})
    wall = time.perf_counter() - t
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def startup(baseline: Path, runs_dir: Path, reps: int) -> None:
    """CPU time of `reflectcli export en -f FMT` (to stdout) on the baseline tree and on this one,
    interleaved, both trees compiled to bytecode as an install is."""
    import compileall

    import reflectcli

    here = Path(reflectcli.__file__).parent.parent
    for tree in (baseline, here):
        compileall.compile_dir(str(tree / "reflectcli"), quiet=1)
    print(
        f"start-up of `export en -f FMT` (CPU, median of {reps} interleaved), load {os.getloadavg()[0]:.2f}:"
    )
    for fmt in ("md", "json", "html"):
        cmd = [sys.executable, "-m", "reflectcli", "export", "en", "-f", fmt, "--runs-dir", str(runs_dir)]
        times: dict[Path, list[float]] = {baseline: [], here: []}
        for _ in range(reps):
            for tree in (baseline, here):
                times[tree].append(child(cmd, {"PYTHONPATH": str(tree)})[1])
        before, after = (statistics.median(times[t]) for t in (baseline, here))
        ratio = after / before
        print(f"  {fmt:<5} before {before * 1000:4.0f} ms, this tree {after * 1000:4.0f} ms (×{ratio:.2f})")


def candidates(where: Path, runs: dict, runs_dir: Path, tmp: Path, reps: int) -> bool:
    """The libraries the issue names, on the same articles, each as a new process: WeasyPrint
    from our HTML export, pandoc (pypandoc-binary) from our Markdown export to DOCX, against
    ours (Typst and python-docx, through `reflectcli export`)."""
    import fontTools
    import typst as typst_module

    from reflectcli.output.exporters import export

    pandoc = where / "pypandoc-binary" / "pypandoc" / "files" / "pandoc"
    sizes = {"typst": du(Path(typst_module.__file__).parent),
             "fonttools": du(Path(fontTools.__file__).parent),
             "weasyprint (+ its 13 packages)": du(where / "weasyprint"),
             "pypandoc-binary": du(where / "pypandoc-binary")}  # fmt: skip
    print("installed size: " + ", ".join(f"{k} {v:.0f} MB" for k, v in sizes.items()))
    for name in ("en", "zh"):
        run, state = runs[name]
        html, md = tmp / f"{name}.html", tmp / f"{name}.md"
        html.write_text(export(run, state, "html", "final"))
        md.write_text(export(run, state, "md", "final"))
        jobs = {
            "pdf  ours (typst)": [sys.executable, "-m", "reflectcli", "export", name, "-o",
                                  str(tmp / f"{name}.pdf"), "--runs-dir", str(runs_dir)],
            "pdf  weasyprint(html)": [sys.executable, "-c", "import sys, weasyprint; weasyprint.HTML("
                                      "filename=sys.argv[1]).write_pdf(sys.argv[2])", str(html),
                                      str(tmp / f"{name}-weasy.pdf")],
            "docx ours (python-docx)": [sys.executable, "-m", "reflectcli", "export", name, "-o",
                                        str(tmp / f"{name}.docx"), "--runs-dir", str(runs_dir)],
            "docx pandoc(md)": [str(pandoc), str(md), "-f", "gfm", "-o", str(tmp / f"{name}-pandoc.docx")],
        }  # fmt: skip
        print(
            f"{name} ({len(md.read_text().split())} words), median of {reps}, load {os.getloadavg()[0]:.2f}:"
        )
        for label, cmd in jobs.items():
            env = {"PYTHONPATH": str(where / "weasyprint")} if "weasyprint" in label else None
            runs_ = [child(cmd, env) for _ in range(reps)]
            wall = statistics.median(r[0] for r in runs_)
            cpu = statistics.median(r[1] for r in runs_)
            print(f"  {label:<24} {wall:6.2f} s wall {cpu:6.2f} s CPU")
        if name == "zh":
            for label, path in (("ours", tmp / "zh.pdf"), ("weasyprint", tmp / "zh-weasy.pdf")):
                data = path.read_bytes()
                fonts = sorted({f.split("+")[-1] for f in pdf_fonts(data) if "CJK" in f})
                print(f"  CJK in {label}'s PDF: fonts {fonts}, missing glyphs {missing_glyphs(data)}")
    return True


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--corpus", default="/work/corpus/h37")
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--baseline", help="a copy of the tree before this change (git archive main "
                    "reflectcli | tar -x -C DIR): export start-up CPU against it")  # fmt: skip
    ap.add_argument("--candidates", help="a folder with `pip install --target` copies of the other "
                    "candidates (weasyprint/, pypandoc-binary/): measured against ours")  # fmt: skip
    args = ap.parse_args()
    corpus = Path(args.corpus)
    from reflectcli.output import document, pdf
    from reflectcli.output.exporters import choose_version, export

    print(f"load before: {os.getloadavg()[0]:.2f} {os.getloadavg()[1]:.2f} {os.getloadavg()[2]:.2f}")
    ok = True
    with tempfile.TemporaryDirectory() as tmp:
        runs_dir = Path(tmp) / "runs"
        runs = {}
        for name, contradict in (("en", False), ("zh", False), ("contra", True)):
            runs[name] = make_run(runs_dir, name, (corpus / f"{name}.md").read_text(), contradict)
        for name, (run, state) in runs.items():
            md = export(run, state, "md", "final")
            items = expected_items(md)
            pdf_bytes, docx_bytes = export(run, state, "pdf", "final"), export(run, state, "docx", "final")
            html = export(run, state, "html", "final")
            claims = [c for r in (state.get("reviews") or [])[-1:] for c in r.get("claims") or []]
            verdicts: dict[str, int] = {}
            for c in claims:
                verdicts[c["verdict"]] = verdicts.get(c["verdict"], 0) + 1
            cites = sum(1 for i in items if CITE.fullmatch(i))
            words = len(md.split())
            line = [f"{name}: {words} words, {len(items)} items ({cites} citations); verdicts {verdicts}"]
            for fmt, text in (("pdf", pdf_text(pdf_bytes)), ("docx", docx_text(docx_bytes))):
                found, missing = in_order(items, text)
                ok &= not missing
                gone = f"; missing {missing[:3]}" if missing else ""
                line.append(f"  {fmt}: {found}/{len(items)} in order{gone}")
            marked = html.count('class="claim"')
            line.append(f"  html: {marked} cited sentences marked, {len(claims)} verdicts in the review")
            want = cjk_count(md.split("\n## References", 1)[0])
            boxes = missing_glyphs(pdf_bytes)
            ok &= boxes == 0
            line.append(f"  missing glyphs (.notdef) in the PDF: {boxes}")
            if want:
                fonts = [f.split("+")[-1] for f in pdf_fonts(pdf_bytes) if "CJK" in f]
                doc = document.build(run, state, choose_version(state, "final"))
                import typst

                bare = typst.compile(pdf.typst_source(doc, None, "zh").encode(), ignore_system_fonts=True)
                line.append(f"  CJK: {want} characters in the article; embedded {sorted(set(fonts))}; "
                            f"control (Typst's own fonts only): {missing_glyphs(bare)} "
                            "missing glyphs")  # fmt: skip
            print("\n".join(line))
        run, state = runs["en"]
        words = len(export(run, state, "md", "final").split())
        print(f"time for the {words}-word article (median of {args.reps}), load "
              f"{os.getloadavg()[0]:.2f}:")  # fmt: skip
        for fmt in ("md", "json", "html", "docx", "pdf"):
            seconds = timed(lambda fmt=fmt: export(run, state, fmt, "final"), args.reps)
            cpu = time.process_time()
            export(run, state, fmt, "final")
            cpu = time.process_time() - cpu
            target = " (target <= 5 s: " + ("met" if seconds <= 5 else "MISSED") + ")" if fmt == "pdf" else ""
            ok &= fmt != "pdf" or seconds <= 5
            print(f"  {fmt:<5} {seconds:6.3f} s wall, {cpu:6.3f} s CPU (one more run){target}")
        zh_run, zh_state = runs["zh"]

        def cold_zh() -> None:  # the font search included (its caches cleared)
            pdf._installed.cache_clear()
            pdf._covered.cache_clear()
            export(zh_run, zh_state, "pdf", "final")

        zh_seconds = timed(cold_zh, args.reps)
        print(f"  pdf of the Chinese article, the CJK font search included: {zh_seconds:6.3f} s wall")
        print(f"the command, `reflectcli export en -f FMT -o FILE` in a new process (median of {args.reps}; "
              f"ratio to md's in the same run), load {os.getloadavg()[0]:.2f}:")  # fmt: skip
        base = None
        for fmt in ("md", "html", "docx", "pdf"):
            out = Path(tmp) / f"en.{fmt}"
            cmd = [sys.executable, "-m", "reflectcli", "export", "en", "-f", fmt, "-o", str(out),
                   "--runs-dir", str(runs_dir)]  # fmt: skip
            seconds = timed(lambda cmd=cmd: subprocess.run(cmd, check=True, capture_output=True), args.reps)
            base = base or seconds
            mode = oct(out.stat().st_mode & 0o777)
            print(f"  {fmt:<5} {seconds:6.3f} s  ×{seconds / base:4.2f}  file mode {mode}")
            ok &= mode == "0o600"
        if args.baseline:
            startup(Path(args.baseline), runs_dir, args.reps * 4)
        if args.candidates:
            ok &= candidates(Path(args.candidates), runs, runs_dir, Path(tmp), args.reps)
    print(f"load after: {os.getloadavg()[0]:.2f} {os.getloadavg()[1]:.2f} {os.getloadavg()[2]:.2f}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
