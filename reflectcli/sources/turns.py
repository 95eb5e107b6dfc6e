"""Transcripts: passages whose lines open with a speaker's name and a colon ("Blake: I don't
think so."), as interviews, meetings and chats are written down.

Two things follow for the claim check (ninth pass, from DialogSum dev's true summaries):

- the label is no word of what is said: "Blake: No!" says nothing of Blake (`unlabelled`);
- what a speaker denies in the first person is denied of the speaker, not of another:
  "Blake: I don't think so" does not deny "Avery thinks Blake is picky", nor "Blake: I never
  have seasonal allergies" deny "Avery has seasonal allergies" (`said_by_another`).

A passage is a transcript when at least three of its lines, or of its sentences where its lines
were joined ("… a shame . Ted: yeah …", as SummEdits gives its chats), open with a label, and
two speakers at least are named so; one "Note:" line makes no transcript. A label is a name of
capitalised words, or of one to six Chinese characters, before a colon (：), bold in Markdown or
not. Chinese headings are labels too ("方法一：… 方法二：… 方法三：…": 24 of CiteCheck's 1,000
documents, tenth pass); the verdicts on their claims did not change, and a meeting's excerpt
may give three speakers one turn each, so a speaker need not speak twice."""

from __future__ import annotations

import re
from bisect import bisect_right
from functools import lru_cache

from reflectcli.sources.polarity import negated
from reflectcli.writing.sentences import sentences

# a name of one to three capitalised words (AVERY, Dr. Lee, Mary Ann Smith) or Q / A, then a
# colon and a space; or one of one to six Chinese characters (张三, 主持人, 记者), then a colon (：
# or :); either bold in Markdown, the colon inside or outside ("**Blake:**", "**张三**：")
_BOLD = r"(?:\*\*|__)?"
LABEL = re.compile(
    rf"^[ \t]*{_BOLD}(?:([A-Z][\w'.-]*(?:[ \t][A-Z][\w'.-]*){{0,2}}){_BOLD}[ \t]*"
    rf"(?::{_BOLD}[ \t]+|：{_BOLD}[ \t]*)"
    rf"|([\u4e00-\u9fff]{{1,6}}){_BOLD}[ \t]*[:：]{_BOLD}[ \t]*)(?=\S)",
    re.M,
)
_LABEL_ANYWHERE = re.compile(
    r"(?:(?<![\w'.-])[A-Z][\w'.-]*|[\u4e00-\u9fff])(?:\*\*|__)?[ \t]*(?::(?:\*\*|__)?[ \t]|：)"
)
# a denial whose subject is "I": "I don't", "I can't", "I'm not", "I have never", "I really don't"
_FIRST_PERSON_DENIAL = re.compile(
    r"\bI(?:'m|'ve|'d|'ll|\s+(?:am|was|have|had|do|did|does|can|could|will|would|should|must))?"
    r"(?:\s+(?:really|just|still|even|certainly|definitely|honestly|simply|actually))?"
    r"(?:\s+(?:not|never|no\s+longer)\b|n't\b)"
    r"|\bI\s+(?:don't|didn't|can't|cannot|won't|wouldn't|couldn't|haven't|hadn't|shouldn't|never)\b"
    r"|我(?!们)(?:也|都|真的|并|从来|根本|还|就|可|倒)?(?:不|没|未|从没|从未)"  # 我不觉得, 我从没
)
_ANSWER = re.compile(r"^\W*(?:no|nope|nah|oh no|不|没有)\s*[,.!，。！]", re.I)  # "No, I don't recall"
_LEADING = frozenset(
    ("Both", "And", "But", "So", "Then", "Also", "Later", "Finally", "Meanwhile", "The", "the")
)  # "The Project Manager thought …" opens with the speaker "Project Manager"


def _name(label: re.Match[str]) -> str:
    """The speaker a `LABEL` match names."""
    return label.group(1) or label.group(2)


@lru_cache(maxsize=64)
def _turns(passage: str) -> tuple[str, tuple[int, ...], tuple[str, ...]]:
    """`passage` as the segmenter reads it (its white space runs made one space), where each
    turn starts in that text and who speaks it: a label opening a line, or a sentence where the
    lines were joined; no turns when `passage` is no transcript."""
    text = " ".join(passage.split())
    if len(_LABEL_ANYWHERE.findall(text)) < 3:  # no transcript: nothing to segment here
        return text, (), ()
    found: dict[int, str] = {}
    at = 0
    for line in passage.splitlines():
        if plain := " ".join(line.split()):
            at = text.find(plain, at)
            if m := LABEL.match(plain):
                found[at] = _name(m)
            at += len(plain)
    at = 0
    for sentence in sentences(text):
        at = text.find(sentence, at)
        if at >= 0 and (m := LABEL.match(sentence)):
            found.setdefault(at, _name(m))
        at = max(at, 0) + len(sentence)
    if len(found) < 3 or len(set(found.values())) < 2:
        return text, (), ()
    starts = sorted(found)
    return text, tuple(starts), tuple(found[k] for k in starts)


# a line of its own in Markdown: a table row or an ATX heading (thirteenth pass: "| Rule | Do
# not read files |" ran into the statement on the next line, one sentence saying both)
_OWN_LINE = re.compile(r"^[^\S\n]{0,3}(?:\||#{1,6}(?:[^\S\n]|$))")


def _blocks(passage: str) -> list[str]:
    """`passage` cut where no sentence runs on: around a table row or a heading. Not at a blank
    line: a scraped page breaks its text there mid-statement ("… first staged" / "1990— …": a
    timeline of WiCE test, where cutting there made one true claim contradicted)."""
    if "\n" not in passage:
        return [passage]
    out: list[str] = []
    current: list[str] = []
    for line in passage.split("\n"):
        if _OWN_LINE.match(line):
            if current:
                out.append("\n".join(current))
            current = []
            out.append(line)
        else:
            current.append(line)
    if current:
        out.append("\n".join(current))
    return out


def utterances(passage: str) -> list[str]:
    """The sentences of `passage` as the claim check compares them: in a transcript, cut within
    each turn, so that no sentence runs from one speaker into the next (a turn without a full
    stop, "Project Manager: {vocalsound} Marketing: No , I don't think so ."); elsewhere
    `writing.sentences.sentences` of each block (`_blocks`: a table row or a heading ends one)."""
    text, starts, _ = _turns(passage)
    if not starts:
        return [s for block in _blocks(passage) for s in sentences(block)]
    bounds = [*starts[1:], len(text)]
    head = sentences(text[: starts[0]]) if starts[0] else []
    return head + [s for a, b in zip(starts, bounds, strict=True) for s in sentences(text[a:b])]


def speakers(passage: str) -> set[str]:
    """The speakers a transcript names (none when `passage` is no transcript)."""
    return set(_turns(passage)[2])


def speakers_of(sentence: str, passage: str) -> set[str]:
    """Who says `sentence` (a sentence of `passage` as `writing.sentences` cuts it) in the
    transcript `passage`: the label of each turn it stands in (the same words may be said twice)."""
    text, starts, names = _turns(passage)
    said, wanted = set(), sentence.strip()
    at = text.find(wanted) if starts and wanted else -1
    while at >= 0:
        if (turn := bisect_right(starts, at) - 1) >= 0:
            said.add(names[turn])
        at = text.find(wanted, at + 1)
    return said


def unlabelled(sentence: str, passage: str) -> str:
    """`sentence` without the speaker's label it opens with, when `passage` is a transcript."""
    return LABEL.sub("", sentence, count=1) if _turns(passage)[1] else sentence


def _subjects(claim: str, known: set[str]) -> set[str]:
    """The speakers `claim` opens with ("Avery and Blake had planned …" → both; "Both Avery and
    Blake …" too; a name of two words when the claim says both); none when it opens with anyone
    or anything else."""
    names = sorted(known, key=len, reverse=True)  # "Mary Ann" before "Mary"
    found: set[str] = set()
    rest = claim.strip()
    while rest:
        # a Chinese name runs into the next word (张三认为): no word boundary after it
        name = next((n for n in names if re.match(re.escape(n) + _after(n), rest)), None)
        word = name or (m.group() if (m := _JOINED_ZH.match(rest)) else rest.split()[0].strip(","))
        if name:
            found.add(name)
        elif word not in _LEADING and word != "and" and not _JOINED_ZH.fullmatch(word):
            break
        rest = rest[len(word) :].lstrip(" ,、")
    return found


def _after(name: str) -> str:
    """What must follow a speaker's name where a claim opens with it: a word's end; a Chinese
    name runs into the next word (张三认为), but one of one character is a word's first as often
    (问 / 问题, 答 / 答案): a verb of saying, a joining word or no Chinese character after it."""
    if name.isascii():
        return r"\b"
    if len(name) > 1:
        return ""
    return r"(?:说|认为|表示|觉得|提到|指出|称|问|答|和|与|跟|都|也|还|又|[^\u4e00-\u9fff]|$)"


_JOINED_ZH = re.compile(r"和|与|跟|及|以及|还有|最后|后来|然后|两人都|都")  # 张三和李四都认为


def said_by_another(claim: str, carrier: str, passage: str) -> bool:
    """Whether `carrier` is a speaker's own denial ("I don't …"), and denies nothing else, in
    turns only of speakers that `claim` is not about: the claim opens with other speakers of the
    transcript."""
    known = speakers(passage)
    if not known or not _FIRST_PERSON_DENIAL.search(carrier):
        return False
    if negated(_ANSWER.sub("", _FIRST_PERSON_DENIAL.sub(" ", carrier))):
        return False  # another denial beside it ("Blake never built it, I don't lie"): not only the speaker's
    by = speakers_of(carrier, passage)
    subjects = _subjects(claim, known)
    return bool(by) and bool(subjects) and not by & subjects
