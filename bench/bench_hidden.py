"""Text the HTML reader drops as hidden, on real pages: how much of real documentation it would
lose (the false alarms of `sources.html_text.is_hidden`), per Debian package.

    python bench/bench_hidden.py [FOLDER ...]    # default: every .html under /usr/share/doc

Pages of python3.11-doc, git-doc, valgrind, libxslt1-dev, nodejs's docs (install them with
apt-get to widen the set; links are followed, each file read once). Prints, per package folder,
the pages read, the pages with any text hidden and the characters hidden, then up to 15 examples
(the element, its style or class, its text). Each page's own `<style>` rules are read as the
reader reads them (`hidden_names`).
"""

from __future__ import annotations

import argparse
import re
import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from reflectcli.sources import html_text  # noqa: E402


def hidden_text(markup: str) -> list[tuple[str, str, str]]:
    """(tag, style or class, text) of each outermost element of `markup` the reader hides (an
    empty one too: the caller counts text)."""
    import lxml.html

    try:
        root = lxml.html.document_fromstring(re.sub(r"^\s*<\?xml[^>]*\?>", "", markup))
    except Exception:  # a page lxml cannot parse goes to trafilatura, not to this rule
        return []
    names = html_text.hidden_names([el.text or "" for el in root.iter("style")])
    out = []
    for element in root.iter():
        if not isinstance(element.tag, str) or element.tag in html_text.SKIP:
            continue
        if any(html_text.is_hidden(a, names) for a in element.iterancestors()):
            continue  # counted with its hidden ancestor
        if html_text.is_hidden(element, names):
            text = " ".join(element.text_content().split())
            out.append((element.tag, element.get("style") or element.get("class") or "", text))
    return out


def _pages(folder: Path) -> list[Path]:
    """The .html files under `folder`, links followed (Debian links python3.11's html in)."""
    import os

    found = []
    for top, _, files in os.walk(folder, followlinks=True):
        found += [Path(top) / f for f in files if f.endswith(".html") and (Path(top) / f).is_file()]
    return sorted(found)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("folders", nargs="*", type=Path, default=[Path("/usr/share/doc")])
    args = parser.parse_args()
    pages: Counter[str] = Counter()
    with_hidden: Counter[str] = Counter()
    chars: Counter[str] = Counter()
    examples = []
    seen: set[Path] = set()
    for folder in args.folders:
        for path in _pages(folder):
            if path.resolve() in seen:
                continue
            seen.add(path.resolve())
            package = path.relative_to(folder).parts[0] if path.parent != folder else folder.name
            pages[package] += 1
            found = [f for f in hidden_text(path.read_text(encoding="utf-8", errors="replace")) if f[2]]
            if found:
                with_hidden[package] += 1
                chars[package] += sum(len(t) for _, _, t in found)
                examples += [(path.name, *f) for f in found[: 15 - len(examples)]]
    print(f"{'package':<24} {'pages':>6} {'with hidden text':>17} {'chars hidden':>13}")
    for package in sorted(pages):
        print(f"{package:<24} {pages[package]:>6} {with_hidden[package]:>17} {chars[package]:>13}")
    print(f"{'all':<24} {sum(pages.values()):>6} {sum(with_hidden.values()):>17} {sum(chars.values()):>13}")
    for name, tag, how, text in examples:
        print(f"  {name}: <{tag} {how[:60]}> {text[:80]}")


if __name__ == "__main__":
    main()
