"""Every guard that can cut or reject model text, run over real, human-written text: how much of
it would be lost. Target: 0 cuts and 0 rejections per guard, beside the loops still caught.

Each document is read as a capable model would write it, and each guard is asked about it:

- `loop`: `trim_generation(doc, "stop")` and, per section, on the section's body (a loop cut);
- `strip_chatter`, `clean_section` (the section answered with and without its own heading),
  `clean_article`: the text they return differs from what they were given (text lost or changed);
- `rewrite_guard`: a section replaced by itself is rejected; `lost_sections`: a heading of the
  document is not found again (the full-mode revision guard);
- `replace`: a section replaced by itself does not give back the document byte for byte;
- `echo`: `strip_echo` removes anything from a section's body taken as the answer to our own
  drafting prompt (compact and full): prompt text, labels, stray tags or chatter found in it;
- `citations`: the citation clean-up (`strip_invented`, writing/citations.py) changes characters
  outside the document's real citations, the document read as a model's answer (the run holding
  no id, then S1-S99) and as a `--from` file (its own reference list's labels, none resolved,
  then all). Real citations are known only in FreshWiki (`freshwiki/`: Wikipedia articles with
  `[n]` citations and their `# References` list); elsewhere any change counts.

The sections are the document's own top-level headings (the highest level it uses), split by
markdown-it-py's tokens here, not by the code under test, so that the same bench runs on an older
tree (`PYTHONPATH=<tree> python bench/bench_guards.py`) for a before/after.

Beside it, the loops of the embedded model that the tests hold (tests/test_graph.py,
tests/test_revision.py, tests/test_streaming.py, tests/test_textops.py) must all still be caught.

The corpus (outside git) is built once from public sources by `prepare` (see bench/README.md):

    python bench/bench_guards.py prepare [/work/corpus/guards]
    python bench/bench_guards.py [/work/corpus/guards]      # or REFLECTCLI_GUARD_CORPUS
"""

from __future__ import annotations

import argparse
import importlib.metadata
import os
import re
import subprocess
import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if not os.environ.get("PYTHONPATH"):  # a tree given by PYTHONPATH is measured instead of this one
    sys.path.insert(0, str(ROOT))

from markdown_it import MarkdownIt  # noqa: E402

from reflectcli.writing import prompts  # noqa: E402
from reflectcli.writing.echo import strip_echo  # noqa: E402
from reflectcli.writing.textops import (  # noqa: E402
    clean_article,
    clean_section,
    locate_sections,
    replace_bodies,
    rewrite_guard,
    section_bodies,
    strip_chatter,
    trim_generation,
)

DEFAULT = Path(os.environ.get("REFLECTCLI_GUARD_CORPUS", "/work/corpus/guards"))
MIRROR = Path("/work/.mirror")
WIKITEXT = ("pytorch+examples", "word_language_model/data/wikitext-2", ("test.txt", "valid.txt"))
WEEKLY = ("ruanyf+weekly", "docs")
PYDOC = Path("/usr/share/doc/python3.11-doc/html")
GUARDS = ("loop", "strip_chatter", "clean_section", "clean_article", "rewrite_guard", "lost_sections",
          "replace", "echo", "citations")  # fmt: skip
# FreshWiki's last commit (removed from the repository after it)
STORM = ("stanford-oval+storm", "3328c979e2c3928724dc0bfca3b9f87f64988cda", "FreshWiki")

# the embedded model's loops as the tests hold them (each must be caught)
LOOPS = {
    "test_graph: a looping draft": "Revision matters. "
    + "The draft is a record of what the writer thought. " * 40,
    "test_revision: the same sentence": "Start. "
    + "we keep writing the same sentence again and again here. " * 4,
    "test_streaming: cut while streaming (first 600 chars)": (
        "The draft is a record of what the writer thought at the time. " * 60
    )[:600],
    "test_textops: partial last copy": "Start. "
    + "we keep writing the same sentence again and again here. " * 3
    + "we keep wri",
    "test_textops: chinese": "修改很重要。" + "初稿只是记录了作者当时的想法而已。" * 6,
    "test_textops: varied sentences": "Revision matters. "
    + " ".join(f"Revision is important to every writer. It helps writer {i}." for i in range(5)),
    "test_textops: inside a markdown fence": "```markdown\nRevision matters. "
    + "The draft is a record of what the writer thought. " * 8,
    "test_textops: a list": "- Revision matters.\n"
    + "- The draft is a record of what the writer thought at the time.\n" * 5,
}


# --- the corpus ---------------------------------------------------------------------------


def _git_show(repo: str, path: str, commit: str = "HEAD") -> str:
    git = MIRROR / repo / "repo"
    return subprocess.run(["git", "--git-dir", str(git), "show", f"{commit}:{path}"], check=True,
                          capture_output=True, text=True).stdout  # fmt: skip


def _detokenize(line: str) -> str:
    """WikiText's tokenised text back to prose: ` @-@ ` joins, spaces before punctuation gone."""
    line = re.sub(r" @(.)@ ", r"\1", line)
    line = re.sub(r" ([.,;:!?)\]'])", r"\1", line)
    line = re.sub(r"([(\[]) ", r"\1", line)
    return line.replace(" 's", "'s").replace(" n't", "n't").replace("<unk>", "unk").strip()


def _wikitext_articles(text: str) -> list[tuple[str, str]]:
    articles: list[tuple[str, list[str]]] = []
    for raw in text.splitlines():
        heading = re.fullmatch(r" (=(?: =)*) (.*?) \1 ", raw)
        if heading and heading.group(1) == "=":
            articles.append((heading.group(2), []))
        elif heading and articles and "<unk>" not in heading.group(2):  # (a heading unk is no title)
            level = heading.group(1).count("=")
            articles[-1][1].append(f"{'#' * level} {_detokenize(heading.group(2))}")
        elif raw.strip() and articles:
            articles[-1][1].append(_detokenize(raw))
    return [(t, "\n\n".join(lines)) for t, lines in articles]


def prepare(corpus: Path) -> None:
    """Build the corpus from the fetched mirrors and the Debian package python3.11-doc."""
    import trafilatura

    wiki, weekly, pydoc = corpus / "wiki", corpus / "weekly", corpus / "pydoc"
    for folder in (wiki, weekly, pydoc):
        folder.mkdir(parents=True, exist_ok=True)
    repo, folder, files = WIKITEXT
    n = 0
    for name in files:
        for _, body in _wikitext_articles(_git_show(repo, f"{folder}/{name}")):
            n += 1
            (wiki / f"{n:03d}.md").write_text(body + "\n")
    git = MIRROR / WEEKLY[0] / "repo"
    listed = subprocess.run(["git", "--git-dir", str(git), "ls-tree", "--name-only", f"HEAD:{WEEKLY[1]}/"],
                            check=True, capture_output=True, text=True).stdout.split()  # fmt: skip
    for name in sorted(p for p in listed if p.startswith("issue-"))[-120:]:
        (weekly / name).write_text(_git_show(WEEKLY[0], f"{WEEKLY[1]}/{name}"))
    for page in sorted(
        [*PYDOC.glob("tutorial/*.html"), *PYDOC.glob("howto/*.html"), *PYDOC.glob("library/*.html")]
    ):
        text = trafilatura.extract(page.read_text(), output_format="markdown", include_formatting=True,
                                   include_tables=True) or ""  # fmt: skip
        if len(text) > 1000:
            (pydoc / f"{page.parent.name}-{page.stem}.md").write_text(text.replace("¶", "") + "\n")
    prepare_freshwiki(corpus / "freshwiki")
    print(f"wrote {corpus}: {len(list(wiki.iterdir()))} wiki, {len(list(weekly.iterdir()))} weekly, "
          f"{len(list(pydoc.iterdir()))} pydoc")  # fmt: skip


def prepare_freshwiki(folder: Path) -> None:
    """FreshWiki's 100 Wikipedia articles (CC BY-SA; stanford-oval/storm at STORM's commit) as
    the dataset gives them: Markdown headings, `[n]` citations, and their `# References` list of
    `[n] URL` lines."""
    repo, commit, where = STORM
    git = MIRROR / repo / "repo"
    folder.mkdir(parents=True, exist_ok=True)
    names = subprocess.run(["git", "--git-dir", str(git), "ls-tree", "--name-only", f"{commit}:{where}/txt"],
                           check=True, capture_output=True, text=True).stdout.split()  # fmt: skip
    for name in names:
        (folder / f"{name[:-4]}.md").write_text(_git_show(repo, f"{where}/txt/{name}", commit))


def documents(corpus: Path) -> dict[str, list[tuple[str, str]]]:
    """Each part of the corpus (a folder), plus the installed packages' READMEs."""
    parts = {p.name: [(f.name, f.read_text()) for f in sorted(p.iterdir())] for p in sorted(corpus.iterdir())
             if p.is_dir()}  # fmt: skip
    seen, readmes = set(), []
    for dist in importlib.metadata.distributions():
        name, body = (
            dist.metadata["Name"],
            dist.metadata.get_payload() or dist.metadata.get("Description") or "",
        )
        if (
            name not in seen
            and name != "reflectcli"  # our own README is not text no one here wrote
            and len(body) > 1000
            and "markdown" in (dist.metadata["Description-Content-Type"] or "")
        ):
            seen.add(name)
            readmes.append((name, body))
    parts["readmes"] = sorted(readmes)
    return parts


# --- the guards ---------------------------------------------------------------------------

_MD = MarkdownIt("commonmark").enable("table")


def leveled(text: str) -> str:
    """`text` with its headings shifted so that its sections (the highest level used twice or
    more) are `##`, as a writer's answer under our outline's headings has them; ATX throughout."""
    lines = text.split("\n")
    tokens = _MD.parse(text)
    found = [(int(t.tag[1:]), tokens[i + 1].content, *t.map) for i, t in enumerate(tokens)
             if t.type == "heading_open" and t.level == 0]  # fmt: skip
    if not found:
        return text
    counts = Counter(level for level, *_ in found)
    top = min((level for level, n in counts.items() if n >= 2), default=min(counts))
    for level, title, first, last in reversed(found):
        lines[first:last] = [f"{'#' * max(1, min(6, level + 2 - top))} {title}"]
    return "\n".join(lines)


def sections(text: str) -> list[tuple[str, str]]:
    """A leveled document's `##` sections (title, body), by markdown-it."""
    lines = text.split("\n")
    tokens = _MD.parse(text)
    found = [(int(t.tag[1:]), tokens[i + 1].content, *t.map) for i, t in enumerate(tokens)
             if t.type == "heading_open" and t.level == 0]  # fmt: skip
    out = []
    for i, (level, title, _, first) in enumerate(found):
        last = next((g[2] for g in found[i + 1 :] if g[0] <= 2), len(lines))
        if level == 2:
            out.append((title, re.sub(r"\A(?:[ \t]*\n)+", "", "\n".join(lines[first:last])).rstrip()))
    return out


def check(text: str) -> tuple[Counter, list[str]]:
    """How many times each guard cut or rejected this document's text, and examples."""
    hits, why = Counter(), []

    def hit(guard: str, what: str) -> None:
        hits[guard] += 1
        why.append(f"{guard}: {what[:160]!r}")

    for mode, (changed, example) in citation_changes(text.replace("\r\n", "\n")).items():
        CITATION_CHARS[mode] += changed
        if changed:
            hit("citations", f"{mode}: {changed} chars, {example}")
    text = leveled(text.replace("\r\n", "\n").strip())
    if trim_generation(text, "stop")[1]:
        hit("loop", "the whole document")
    parts = [(t, b) for t, b in sections(text) if b]
    titles = [t for t, _ in parts]
    if len({t for t in titles}) != len(titles):  # a document repeating a title has no outline
        parts, titles = [], []
    for title, body in parts:
        cut, why_cut = trim_generation(body, "stop")
        if why_cut:
            hit("loop", body[len(cut) : len(cut) + 160])
        if strip_chatter(body) != body:
            hit("strip_chatter", _first_change(body, strip_chatter(body)))
        for answer in (body, f"## {title}\n\n{body}"):
            if clean_section(answer, title, titles) != body:
                hit("clean_section", _first_change(body, clean_section(answer, title, titles)))
                break
        if rewrite_guard(body, body):
            hit("rewrite_guard", title)
        for compact in (True, False):  # the body as a draft answering our own drafting prompt
            asked = prompts.section_messages(
                title, [{"title": title, "goal": ""}], [], 0, None, compact=compact
            )
            if removed := strip_echo(body, asked).removed:
                hit("echo", removed[0])
                break
    if parts:
        article = text[text.index(_heading_line(text)) :] if _heading_line(text) else text
        if clean_article(article) != article:
            hit("clean_article", _first_change(article, clean_article(article)))
        spans = locate_sections(article, titles)
        if None in spans:
            hit("lost_sections", titles[spans.index(None)])
        else:
            bodies = section_bodies(article, titles)
            mine = {i: b for i, b in enumerate(bodies) if b}
            if replace_bodies(article, titles, mine) != article:
                hit("replace", "self-replacement changed bytes")
            if bodies != [b for _, b in parts]:
                hit("lost_sections", "a body differs from the document's")
    return hits, why


def _heading_line(text: str) -> str:
    """The document from its first top-level heading on (a full-mode answer starts there)."""
    tokens = _MD.parse(text)
    first = next((t for t in tokens if t.type == "heading_open" and t.level == 0 and t.tag == "h2"), None)
    return text.split("\n")[first.map[0]] if first else ""


def _first_change(before: str, after: str) -> str:
    at = next(
        (i for i, (a, b) in enumerate(zip(before, after, strict=False)) if a != b),
        min(len(before), len(after)),
    )
    return f"at {at}: {before[max(0, at - 40) : at + 80]} -> {after[max(0, at - 40) : at + 80]}"


# --- citations ----------------------------------------------------------------------------

CITATION_CHARS: Counter = Counter()  # characters changed outside real citations, per mode
_TRUE = re.compile(r"\[\s*\^?S?(\d+)\s*\]")  # a real citation, when its number is in the list


def _real_labels(text: str) -> set[str]:
    """The labels of a FreshWiki document's reference list (its `[n] URL` lines after its last
    `# References`), read here without the code under test; empty for any other document."""
    head = text.rfind("\n# References\n")
    return set(re.findall(r"^\[(\d+)\] \S", text[head:], re.M)) if head >= 0 else set()


def _outside(text: str, real: set[str]) -> str:
    """`text` without its real citations (and whitespace): what must not change."""
    if real:
        text = _TRUE.sub(lambda m: "" if m.group(1) in real else m.group(), text)
    return re.sub(r"\s+", "", text)


def citation_changes(text: str) -> dict[str, tuple[int, str]]:
    """Per mode, the characters the citation clean-up changes outside real citations, and the
    first change. On an older tree (no labels) a `--from` file is cleaned as a model's answer."""
    import difflib

    from reflectcli.writing import citations
    from reflectcli.writing.reflist import find_references

    real = _real_labels(text)
    labels = {e.label for e in find_references(text).entries}
    every = {f"S{n}" for n in range(1, 100)}
    runs = {"answer": [(set(), None), (every, None)], "from_file": [(set(), labels), (every, labels)]}
    out = {}
    for mode, calls in runs.items():
        changed, example = 0, ""
        for known, own in calls:
            try:
                after = citations.strip_invented(text, known, own)[0] if own is not None else None
            except TypeError:  # an older tree: one grammar for every text
                after = None
            if after is None:
                after = citations.strip_invented(text, known)[0]
            a, b = _outside(text, real), _outside(after, real)
            if a != b:
                ops = difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes()
                changed += sum(max(i2 - i1, j2 - j1) for op, i1, i2, j1, j2 in ops if op != "equal")
                example = example or _first_change(text, after)
        out[mode] = (changed, example)
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("what", nargs="?", default=str(DEFAULT), help="'prepare', or the corpus folder")
    parser.add_argument("corpus", nargs="?", default=str(DEFAULT))
    parser.add_argument("--examples", type=int, default=3, help="examples shown per part")
    args = parser.parse_args()
    if args.what == "prepare":
        prepare(Path(args.corpus))
        return 0
    corpus = Path(args.what)
    if not corpus.is_dir():
        print(f"skipped: no corpus at {corpus} (build it: python bench/bench_guards.py prepare {corpus})")
        return 0
    total, failed = Counter(), 0
    print(f"{'part':10} {'docs':>5} {'sections':>8} " + " ".join(f"{g:>13}" for g in GUARDS) + "  docs hit")
    for part, docs in documents(corpus).items():
        counts, hit_docs, n_sections, shown = Counter(), 0, 0, []
        for name, text in docs:
            hits, why = check(text)
            n_sections += len(sections(leveled(text.replace("\r\n", "\n").strip())))
            counts += hits
            hit_docs += bool(hits)
            shown += [f"  {part}/{name}: {w}" for w in why[:1]]
        total += counts
        print(f"{part:10} {len(docs):5} {n_sections:8} " + " ".join(f"{counts[g]:13}" for g in GUARDS)
              + f"  {hit_docs}")  # fmt: skip
        for line in shown[: args.examples]:
            print(line)
    caught = sum(bool(trim_generation(text, "length")[1] == "loop") for text in LOOPS.values())
    print(f"embedded-model loops from the tests caught: {caught}/{len(LOOPS)}")
    for name, text in LOOPS.items():
        if trim_generation(text, "length")[1] != "loop":
            print(f"  missed: {name}")
            failed += 1
    print("per guard over all parts:", ", ".join(f"{g} {total[g]}" for g in GUARDS))
    print("citations: characters changed outside real citations:",
          ", ".join(f"as {mode} {CITATION_CHARS[mode]}" for mode in ("answer", "from_file")))  # fmt: skip
    return 1 if failed or sum(total.values()) else 0


if __name__ == "__main__":
    sys.exit(main())
