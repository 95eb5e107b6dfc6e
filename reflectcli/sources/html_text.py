"""The main text of an HTML page, read with lxml: the page's main element (role=main, <main>,
Sphinx's div.body, every <article>), or else the body without its navigation, narrowed to the
element that holds nearly all of the body's own (non-link) text. It is walked in document
order into segments split at headings, each carrying its heading path; <pre> blocks keep their
line breaks (and are marked as code for the chunker), tables become rows of cells joined by
" | ", permalink marks ("¶" anchors) are dropped. trafilatura is only the fallback for markup
lxml cannot parse into a body."""

from __future__ import annotations

import re

from reflectcli.sources.document import HeadingTrail, Segment

BLOCKS = frozenset(
    "address article aside blockquote body caption center dd details dialog div dl dt fieldset "
    "figcaption figure footer form h1 h2 h3 h4 h5 h6 header hr li main nav ol p pre section "
    "summary table tbody td tfoot th thead tr ul".split()
)
HEADINGS = {f"h{n}": n for n in range(1, 7)}
CONTENT = frozenset([*HEADINGS, *"p pre table ul ol dl blockquote".split()])  # text of its own, not a wrapper
SKIP = frozenset(
    "script style noscript template title meta link base svg math button select input textarea".split()
)
BOILERPLATE_TAGS = frozenset("nav header footer aside form".split())
BOILERPLATE_ROLES = frozenset("navigation banner contentinfo search complementary".split())
SPHINX_BODY = './/div[contains(@class, "documentwrapper")]//div[contains(concat(" ", @class, " "), " body ")]'
PERMALINK_MARKS = frozenset("¶ # § 🔗 ⚓".split())
NARROW = 0.9  # descend into a child that holds at least this share of its parent's own text
OUTSIDE = 200  # ... and leaves fewer than this many characters of it outside (an intro, say)
LOW_SHARE = 0.5  # an extract with less than this share of the visible words gets a warning,
MISSING = 200  # ... when at least this many of them are left out (not a short page's footer)
_SPACE = re.compile(r"\s+")


def read_html(text: str) -> tuple[str, list[Segment], str | None]:
    """(title, segments, warning) of a page; the warning when the extract keeps less than
    LOW_SHARE of the page's visible words (outside its navigation, header and footer)."""
    root = _parse(text)
    if root is None:
        return _trafilatura(text)
    page_title = _flat(root.findtext(".//title") or "")
    names = hidden_names([el.text or "" for el in root.iter("style")])
    _drop(root, lambda el: el.tag in SKIP or _is_permalink(el) or is_hidden(el, names))
    body = root.find("body") if root.tag == "html" else root
    body = root if body is None else body
    mains = _main_elements(body)
    keep = {el for m in mains for el in (*m.iter(), *m.iterancestors())}  # main, in it, around it
    _drop(body, lambda el: _is_boilerplate(el) and el not in keep)
    visible = _words(" ".join(body.itertext()))
    mains = mains or [_narrow(body)]
    walker = _Walker()
    for element in mains:
        walker.walk(element)
    segments = walker.finish()
    title = _title(page_title, walker.first_headings)
    kept = sum(_words(s.text) for s in segments) + len(walker.headings_words)
    warning = None
    if kept < LOW_SHARE * visible and visible - kept >= MISSING:
        warning = f"the extract keeps {kept:,} of the page's {visible:,} visible words ({kept / visible:.0%})"
    return title, segments, warning


def _parse(text: str):
    import lxml.etree
    import lxml.html

    text = re.sub(r"^\s*<\?xml[^>]*\?>", "", text)  # lxml refuses a str with an encoding declaration
    try:
        root = lxml.html.document_fromstring(text)
    except (lxml.etree.ParserError, ValueError):
        return None
    return root


def _trafilatura(text: str) -> tuple[str, list[Segment], str | None]:
    try:
        import trafilatura

        extract = trafilatura.extract(text, include_comments=False, include_tables=True) or ""
        meta = trafilatura.extract_metadata(text)
    except Exception:  # markup trafilatura cannot parse either: nothing to read
        return "", [], None
    return (meta.title if meta else "") or "", [Segment(extract)], None


def _drop(root, condition) -> None:
    """Remove the matching elements (their tail text stays in the document)."""
    for element in [el for el in root.iter() if isinstance(el.tag, str) and condition(el)]:
        if element.getparent() is not None:
            element.drop_tree()


def _is_permalink(element) -> bool:
    """Sphinx's `¶` headerlink, Node's `#` mark: a link to the page itself shown as one sign."""
    if element.tag != "a":
        return False
    if "headerlink" in (element.get("class") or "").split():
        return True
    return (element.get("href") or "").startswith("#") and element.text_content().strip() in PERMALINK_MARKS


def _style(element) -> dict[str, str]:
    """An element's inline style as {property: value}, lower-cased."""
    return _declarations(element.get("style") or "")


WHITE = frozenset(["white", "#fff", "#ffffff", "rgb(255,255,255)", "rgb(255, 255, 255)"])
_ZERO = re.compile(r"^0(?:\.0*)?(?:px|pt|em|rem|%)?$")
_TINY = re.compile(r"^(?:0|1px)(?:\.0*)?(?:px|pt|em|rem|%)?$")  # a box of 0 or 1 px (…with overflow hidden)
_FAR = re.compile(r"^-\d{3,}(?:\.\d*)?(?:px|pt|em|rem)$|^-\d{2,}(?:\.\d*)?(?:em|rem)$")  # -999px, -100em
_CLIPPED = re.compile(r"^(?:rect\(\s*0[^,)]*(?:[,\s]+0[^,)]*){3}\)|inset\(\s*50%|circle\(\s*0)")
_SCALED_AWAY = re.compile(r"scale[xy]?\(\s*0(?:\.0*)?\s*[,)]")


def hides(style: dict[str, str]) -> bool:
    """Whether declarations ({property: value}, lower-cased) hide an element's text from a
    sighted reader: display:none, visibility:hidden, font-size or opacity 0, transparent text,
    a clip to nothing, a scale to 0, a box of 0-1 px with its overflow hidden, or a place far
    off the screen (left/top/text-indent of -999px)."""
    if style.get("display") == "none" or style.get("visibility") in ("hidden", "collapse"):
        return True
    if _ZERO.match(style.get("font-size", "1")) or _ZERO.match(style.get("opacity", "1")):
        return True
    if style.get("color") in ("transparent", "rgba(0,0,0,0)", "rgba(0, 0, 0, 0)"):
        return True
    clip = style.get("clip-path") or style.get("clip") or ""
    if _CLIPPED.match(clip) or _SCALED_AWAY.search(style.get("transform", "")):
        return True
    boxed = style.get("overflow") == "hidden" or style.get("overflow-y") == "hidden"
    if boxed and any(_TINY.match(style.get(side, "auto")) for side in ("height", "width", "max-height")):
        return True
    if _FAR.match(style.get("text-indent", "0")):
        return True
    placed = style.get("position") in ("absolute", "fixed")
    return placed and any(_FAR.match(style.get(side, "0")) for side in ("left", "top", "right"))


# a rule of a page's own stylesheet that names one class or id ("div.note", ".sr-only", "#x");
# rules inside @media (print, narrow screens) are not read
_RULE = re.compile(r"([^{}@]+)\{([^{}]*)\}")
_MEDIA = re.compile(r"@[^{]*\{(?:[^{}]*\{[^{}]*\})*[^{}]*\}")
_SIMPLE = re.compile(r"^[a-z0-9]*([.#])([-\w]+)$", re.I)


def hidden_names(stylesheets: list[str]) -> tuple[set[str], set[str]]:
    """(classes, ids) that the page's <style> elements hide (`hides`)."""
    classes: set[str] = set()
    ids: set[str] = set()
    for sheet in stylesheets:
        sheet = _MEDIA.sub("", re.sub(r"/\*.*?\*/", "", sheet, flags=re.S))
        for selectors, body in _RULE.findall(sheet):
            if not hides(_declarations(body)):
                continue
            for selector in selectors.split(","):
                if m := _SIMPLE.match(selector.strip()):
                    (classes if m.group(1) == "." else ids).add(m.group(2))
    return classes, ids


def _declarations(text: str) -> dict[str, str]:
    found = {}
    for declaration in text.split(";"):
        name, colon, value = declaration.partition(":")
        if colon:
            found[name.strip().lower()] = " ".join(value.lower().replace("!important", "").split())
    return found


def is_hidden(element, names: tuple[set[str], set[str]] = (set(), set())) -> bool:
    """Text a page hides from its readers, which is never stored nor sent to a prompt: the
    `hidden` attribute, aria-hidden="true", inline styles that hide it (`hides`), a class or id
    the page's own stylesheet hides (`names`, from `hidden_names`), and white text on a white
    background (the element's or an ancestor's)."""
    if element.get("hidden") is not None or (element.get("aria-hidden") or "").strip().lower() == "true":
        return True
    style = _style(element)
    if hides(style):
        return True
    classes, ids = names
    if classes & set((element.get("class") or "").split()) or (ids and element.get("id") in ids):
        return True
    if style.get("color") in WHITE:
        for el in (element, *element.iterancestors()):
            background = _style(el)
            shade = background.get("background-color") or background.get("background")
            if shade:
                return shade in WHITE
    return False


def _is_boilerplate(element) -> bool:
    return element.tag in BOILERPLATE_TAGS or (element.get("role") or "") in BOILERPLATE_ROLES


def _main_elements(body) -> list:
    """The page's declared main content: role=main, <main>, Sphinx's div.body, else every
    outermost <article> (a page of several articles keeps them all)."""
    for path in ('.//*[@role="main"]', ".//main", SPHINX_BODY):
        found = body.xpath(path)
        if found:
            return [found[0]]
    articles = body.xpath(".//article")
    return [a for a in articles if not any(p.tag == "article" for p in a.iterancestors())]


def _narrow(body):
    """The element holding nearly all of the body's own text: descend while one child holds
    NARROW of its parent's text outside links (navigation is mostly links) and leaves less
    than OUTSIDE characters of it, and no heading or paragraph of the parent's own is left."""
    sizes: dict = {}

    def own(element) -> int:
        if element not in sizes:
            n = 0 if element.tag == "a" else len((element.text or "").strip())
            for child in element:
                if isinstance(child.tag, str) and element.tag != "a":
                    n += own(child) + len((child.tail or "").strip())
            sizes[element] = n
        return sizes[element]

    current = body
    while True:
        total = own(current)
        children = [c for c in current if isinstance(c.tag, str)]
        best = max(children, key=own, default=None)
        if best is None or own(best) < NARROW * total or total - own(best) >= OUTSIDE:
            return current
        if any(c.tag in CONTENT and own(c) for c in children):  # the text is here, not deeper
            return current
        current = best


def _title(title: str, first_headings: list[str]) -> str:
    """The page's own title: <title> when it is one name; when it is "page | site", the main
    content's first heading that is not the site's name (a part after the first), else the
    first part."""
    parts = [p.strip() for p in re.split(r"\s+[|—–·-]\s+", title) if p.strip()]
    if len(parts) == 1:
        return parts[0]
    site = {p.casefold() for p in parts[1:]}
    return next((h for h in first_headings if h.casefold() not in site), parts[0] if parts else "")


def _flat(text: str) -> str:
    return _SPACE.sub(" ", text).strip()


def _words(text: str) -> int:
    return len(re.findall(r"\w+", text))


def list_labels(ol) -> dict:
    """The number each item of an <ol> shows: its `start`, `reversed` and `type` (1, a, A,
    i, I), and an item's own `value`."""
    items = [li for li in ol if li.tag == "li"]
    step = -1 if ol.get("reversed") is not None else 1
    n = _int(ol.get("start"), len(items) if step < 0 else 1)
    kind = ol.get("type") or "1"
    labels = {}
    for li in items:
        n = _int(li.get("value"), n)
        labels[li] = _label(n, kind) + "."
        n += step
    return labels


def _int(text: str | None, default: int) -> int:
    try:
        return int((text or "").strip())
    except ValueError:
        return default


def _label(n: int, kind: str) -> str:
    if kind in "aA" and n > 0:
        letters = ""
        while n > 0:
            n, rest = divmod(n - 1, 26)
            letters = chr(ord("a") + rest) + letters
        return letters.upper() if kind == "A" else letters
    if kind in "iI" and 0 < n < 4000:
        numerals = [(1000, "m"), (900, "cm"), (500, "d"), (400, "cd"), (100, "c"), (90, "xc"), (50, "l"),
                    (40, "xl"), (10, "x"), (9, "ix"), (5, "v"), (4, "iv"), (1, "i")]  # fmt: skip
        out = ""
        for value, numeral in numerals:
            while n >= value:
                out, n = out + numeral, n - value
        return out.upper() if kind == "I" else out
    return str(n)


def _rows(table) -> list[list]:
    """A table's own rows (not a nested table's), each a list of its td/th cells."""
    rows = []
    for child in table:
        if child.tag == "tr":
            rows.append(child)
        elif child.tag in ("thead", "tbody", "tfoot"):
            rows += [tr for tr in child if tr.tag == "tr"]
    return [[cell for cell in row if cell.tag in ("td", "th")] for row in rows]


def _without_tail(element):
    """The element to walk without its tail (whitespace between table cells)."""
    element.tail = None
    return element


def _cell_text(cell) -> str:
    """A data cell's text: its lines (<br>, paragraphs, a <pre>'s lines, a nested table's
    rows) kept, each line's spacing collapsed."""
    walker = _Walker()
    if cell.text:
        walker.inline.append(_SPACE.sub(" ", cell.text))
    for child in cell:
        walker.walk(child)
    lines = "\n".join(s.text for s in walker.finish()).split("\n")
    return "\n".join(" ".join(line.split()) for line in lines if line.strip())


class _Walker:
    """Builds segments from elements in document order: inline text gathers into paragraphs,
    a block ends one, a heading ends the segment and moves the heading trail."""

    def __init__(self) -> None:
        self.trail = HeadingTrail()
        self.segments: list[Segment] = []
        self.parts: list[str] = []  # paragraphs of the current segment
        self.code: list[tuple[int, int]] = []
        self.size = 0  # characters of the current segment so far
        self.inline: list[str] = []
        self.first_headings: list[str] = []
        self.headings_words: list[str] = []
        self.labels: dict = {}  # an ordered list's items: "3." (its start, type and values)
        self.label = ""  # the number of the item whose first paragraph is next

    def walk(self, element) -> None:
        tag = element.tag if isinstance(element.tag, str) else None
        if tag is None:  # a comment or a processing instruction: only its tail is text
            pass
        elif tag in HEADINGS:
            self._heading(HEADINGS[tag], _flat(element.text_content()))
        elif tag == "pre":
            self._pre(element)
        elif tag == "table":
            self._table(element)
        elif tag == "br":
            self.inline.append("\n")
        else:
            block = tag in BLOCKS
            if block:
                self._paragraph()
            if tag == "ol":
                self.labels.update(list_labels(element))
            if tag == "li" and element in self.labels:
                self.label = self.labels.pop(element)  # before the item's first paragraph
            if element.text:
                self.inline.append(_SPACE.sub(" ", element.text))
            for child in element:
                self.walk(child)
            if block:
                self._paragraph()
        if element.tail:
            self.inline.append(_SPACE.sub(" ", element.tail))

    def finish(self) -> list[Segment]:
        self._segment()
        return self.segments

    def _add(self, text: str, code: bool = False) -> None:
        if self.parts:
            self.size += 2
        if code:
            self.code.append((self.size, self.size + len(text)))
        self.parts.append(text)
        self.size += len(text)

    def _paragraph(self) -> None:
        lines = [line.strip() for line in "".join(self.inline).split("\n")]  # "\n": a <br>
        self.inline = []
        text = "\n".join(line for line in lines if line)
        if text:
            self._add(f"{self.label} {text}" if self.label else text)
            self.label = ""

    def _pre(self, pre) -> None:
        """A <pre>'s lines as one code block; each <code> block in it its own (Node's docs
        hold the ES-module and the CommonJS version of an example in one <pre>)."""
        self._paragraph()
        if self.label:  # an item that begins with code: its number on a line of its own
            self._add(self.label)
            self.label = ""
        blocks = [c for c in pre if c.tag == "code"]
        if len(blocks) < 2 or (pre.text or "").strip() or any(c.tail and c.tail.strip() for c in pre):
            blocks = [pre]
        for block in blocks:
            lines = [line.rstrip() for line in block.text_content().strip("\n").split("\n")]
            text = "\n".join(lines)
            if text.strip():
                self._add(text, code=True)

    def _table(self, table) -> None:
        """A table of data as rows of cells joined by " | " (a cell keeps its line breaks; a
        table in a cell is one of its lines, read once); a table that lays out a page (its
        cells hold headings) is read as the blocks it holds, its headings moving the trail."""
        self._paragraph()
        rows = _rows(table)
        if any(el.tag in HEADINGS for el in table.iter()):
            for row in rows:
                for cell in row:
                    self.walk(_without_tail(cell))
            self._paragraph()
            return
        lines = []
        for row in rows:
            cells = [_cell_text(cell) for cell in row]
            if any(cells):
                lines.append(" | ".join(cells))
        if lines:
            self._add("\n".join(lines))

    def _heading(self, level: int, text: str) -> None:
        self._segment()
        if not text:
            return
        self.trail.enter(level, text)
        self.headings_words.extend(re.findall(r"\w+", text))
        if len(self.first_headings) < 3:
            self.first_headings.append(text)

    def _segment(self) -> None:
        self._paragraph()
        if self.parts:
            self.segments.append(Segment("\n\n".join(self.parts), heading=self.trail.path,
                                         code=self.code))  # fmt: skip
        self.parts, self.code, self.size = [], [], 0
