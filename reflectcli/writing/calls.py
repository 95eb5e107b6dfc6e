"""What one model call said, read from its messages: the instruction sentences (our prompt's own
words and the critic's improvements), the labels and the values they label (task, titles,
goals), the data the prompt quotes (the text being revised, sources, sections already written,
quoted titles) and the markup that data held. The prompts' shapes it knows are prompts.py's:
`<section>`-style blocks on lines of their own, JSON-quoted sources, `Label: value` lines, the
outline's numbered lines and a revision's neighbours. The echo guard (writing/echo.py) compares
an answer with it."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import lru_cache

from reflectcli.writing.claims import sentences
from reflectcli.writing.lexicon import stem
from reflectcli.writing.textops import CJK, normalize
from reflectcli.writing.titles import STOP

# our prompts' labels for the task, the section and its neighbours (prompts.py): their values are
# the run's data (a good answer may repeat a title), not instructions; most run to the line's end
_VALUE_LABELS = {"task", "article", "section", "title", "its goal", "the current article"}
_LINE_VALUE = re.compile(r"(?:^|(?<=[.!?] ))(?P<label>Task|Article|Section|Title|(?:Before|After) it "
                         r"\(section \d+\)):[ \t]*(?P<value>.*)$")  # fmt: skip
# the prompt's quoted texts: "<section>\n...\n</section>" on lines of their own
_DATA_BLOCK = re.compile(r"^<(?P<tag>[a-zA-Z][\w-]*)>\n(?P<body>.*)\n?</(?P=tag)>$", re.S | re.M)  # one each
# a section revision's neighbours, quoted over several lines ("The previous section ends: "...")
_NEIGHBOUR = re.compile(
    r'^The previous section ends: "(?P<body>.*?)"\n(?=The next section begins: "|\nRewrite section )'
    r'|^The next section begins: "(?P<next>.*?)\.\.\."\n\n(?=Rewrite section )',
    re.S | re.M,
)
_QUOTED = re.compile(r'"(?:[^"\\\n]|\\.)*"|“[^”\n]*”')
LABEL = re.compile(r"^\W{0,3}(?P<label>[^\W\d][\w'’ ()-]{0,40}?)\s*(?:\(section \d+\))?\s*:(?!//)\s*")
_ITEM = re.compile(r"^- \[(?:major|minor)\] (?P<where>[^\n]*?): ")  # prompts._items
_OUTLINE_LINE = re.compile(r"^\s*\d+\.\s+\S")  # "1. Title: goal" in the run's outline
_GOAL = re.compile(r"\((?P<goal>[^()\n]{8,})\)\s*$")  # "Section: Title (its goal)"
# HTML's elements (WHATWG), and the names our prompts wrap data in: `<your-token>` in a README's
# prose is a placeholder, not a tag
_HTML = set(
    "a abbr address area article aside audio b base bdi bdo blockquote body br button canvas caption "
    "cite code col colgroup data datalist dd del details dfn dialog div dl dt em embed fieldset "
    "figcaption figure footer form h1 h2 h3 h4 h5 h6 head header hgroup hr html i iframe img input ins "
    "kbd label legend li link main map mark menu meta meter nav noscript object ol optgroup option "
    "output p param picture pre progress q rp rt ruby s samp script search section select slot small "
    "source span strong style sub summary sup table tbody td template textarea tfoot th thead time "
    "title tr track u ul var video wbr center font".split()
)
NOT_HTML = {"paragraph", "text", "answer", "response", "rewrite", "revision", "written"}  # ours
_NAMES = "|".join(sorted(_HTML | NOT_HTML, key=len, reverse=True))
TAG = re.compile(rf"(?<!\\)<(?P<close>/?)(?P<name>{_NAMES})\b(?:[^<>]*>|[^<>\n]*$)|<!--.*?-->", re.S | re.I)
VOID = {"br", "hr", "img", "wbr", "input", "meta", "link", "source", "col", "area", "base", "embed"}
_IRREGULAR = {"made": "make", "did": "do", "done": "do", "wrote": "write", "written": "write",
              "rewrote": "rewrit", "rewritten": "rewrit", "kept": "keep", "gave": "give", "given": "give",
              "brought": "bring", "chose": "choos", "chosen": "choos"}  # fmt: skip


@dataclass
class Call:
    """What one call sent, read from its messages."""

    said: list[str] = field(default_factory=list)  # each instruction sentence, as written
    instructions: list[set[str]] = field(default_factory=list)  # each instruction sentence's stems
    exact: set[str] = field(default_factory=set)  # each instruction sentence, normalised
    topic: set[str] = field(default_factory=set)  # stems of the data: task, titles, quoted text
    labels: set[str] = field(default_factory=set)  # the labels used, normalised ("section")
    heads: set[str] = field(default_factory=set)  # each instruction sentence's first word, stemmed
    goals: list[str] = field(default_factory=list)  # each goal given, normalised
    copies: list[str] = field(default_factory=list)  # a goal's line as sent: "Title (its goal)"
    values: set[str] = field(default_factory=set)  # stems of the labels' values (task, titles, goals)
    label_words: set[str] = field(default_factory=set)  # stems of the labels
    vocabulary: set[str] = field(default_factory=set)  # stems of every instruction, not the data's
    tags: set[str] = field(default_factory=set)  # HTML tag names the data held
    delimiters: set[str] = field(default_factory=set)  # the tags the data was wrapped in
    revising: bool = False  # the call carried a text to revise
    quoted: str = ""  # the data it quoted (the text to revise, titles, sources), normalised


@lru_cache(maxsize=65536)
def _stem(word: str) -> str:
    return _IRREGULAR.get(word) or stem(word)  # the one stemmer (writing/lexicon.py)


def stems(text: str) -> set[str]:
    """Content words as stems (titles.content_stems, with the prompts' irregular verbs: "made"
    is "make"), and each CJK character."""
    words = [w for w in re.findall(r"[^\W\d_]{3,}", text.lower()) if w not in STOP and not CJK.search(w)]
    return {_stem(w) for w in words} | set(CJK.findall(text))


@lru_cache(maxsize=64)
def _read(key: tuple[tuple[str, str], ...]) -> Call:
    call = Call()
    data: list[str] = []
    told: list[str] = []
    for role, content in key:
        if role == "assistant":  # a retry shows the model its own answer: not our words
            continue

        def block(match: re.Match[str]) -> str:
            body = match.group("body")
            data.append(body)
            call.tags |= {(m.group("name") or "!--").lower() for m in TAG.finditer(body)}
            call.revising = call.revising or match.group("tag") in ("section", "article")
            call.delimiters.add(match.group("tag").lower())
            return "\n"

        content = _DATA_BLOCK.sub(block, content)
        data.extend(m.group("body") or m.group("next") or "" for m in _NEIGHBOUR.finditer(content))
        content = _NEIGHBOUR.sub("\n", content)
        for quoted in _QUOTED.findall(content):
            data.append(quoted)
        content = _QUOTED.sub(" ", content)
        for line in content.splitlines():
            if _OUTLINE_LINE.match(line) and not line.lstrip().startswith("- "):
                data.append(line)  # an outline's title and goal: data (a title may hold a colon)
                continue
            if item := _ITEM.match(line):  # an improvement names its section: "- [major] <title>: ..."
                data.append(item.group("where"))
                line = line[item.end() :]
            if line.lstrip().startswith(("[S", "- [S")):  # a source line: data
                data.append(line)
                continue
            if found := _LINE_VALUE.search(line):  # "Section: <title> (<goal>)" runs to the line's end
                name, value = normalize(found.group("label")), found.group("value")
                call.labels.add(name)
                if (goal := _GOAL.search(value)) and _sentence_like(goal.group("goal")):
                    call.goals.append(normalize(goal.group("goal")))
                    call.copies += [value.strip(), goal.group(0).strip()]
                data.append(value)
                call.values |= stems(value)
                line = line[: found.start()]
            for sentence in sentences(line):
                label = LABEL.match(sentence)
                if label and normalize(label.group("label")):
                    name = normalize(label.group("label"))
                    call.labels.add(name)
                    value = sentence[label.end() :]
                    if name in _VALUE_LABELS:
                        if name == "its goal":
                            call.goals.append(normalize(value))
                            call.copies.append(sentence.strip())
                        data.append(value)
                        call.values |= stems(value)
                        continue
                told.append(sentence)
    call.topic = set().union(*(stems(d) for d in data)) if data else set()
    call.quoted = " ".join(normalize(d) for d in data)
    for sentence in told:
        said = normalize(sentence)
        if not said:
            continue
        call.said.append(sentence)
        call.exact.add(said)
        call.instructions.append(stems(sentence))
        first = re.findall(r"[^\W\d_]{3,}", sentence.lower())[:1]
        call.heads |= stems(first[0]) if first else set()
    call.goals = [g for g in dict.fromkeys(call.goals) if len(g.split()) >= 3]
    call.copies = sorted(dict.fromkeys(c for c in call.copies if len(c.split()) >= 3), key=len, reverse=True)
    call.label_words = set().union(*(stems(label) for label in call.labels)) if call.labels else set()
    call.vocabulary = set().union(*call.instructions) - call.topic if call.instructions else set()
    return call


def _sentence_like(text: str) -> bool:
    """A goal reads as words ("What a reader needs to know first."), not as a title's own
    parenthesis of code ("askopenfile(*mode='r'*)")."""
    return len(re.findall(r"[^\W\d_]{2,}", text)) >= 3 and not re.search(r"[*=_`\\<>{}\[\]]", text)


def read_call(messages: list[dict[str, str]] | None) -> Call:
    """The instructions, labels, goals and data of a call's `messages` (cached per call)."""
    return _read(tuple((str(m.get("role")), str(m.get("content") or "")) for m in messages or []))


def instruction_text(messages: list[dict[str, str]]) -> str:
    """The words a prompt tells the model, without the data it quotes (for tests and benches)."""
    return "\n".join(read_call(messages).said)
