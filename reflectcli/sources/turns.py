"""Transcripts: passages whose lines open with a speaker's name and a colon ("Blake: I don't
think so."), as interviews, meetings and chats are written down.

Two things follow for the claim check (ninth pass, from DialogSum dev's true summaries):

- the label is no word of what is said: "Blake: No!" says nothing of Blake (`unlabelled`);
- what a speaker denies in the first person is denied of the speaker, not of another:
  "Blake: I don't think so" does not deny "Avery thinks Blake is picky", nor "Blake: I never
  have seasonal allergies" deny "Avery has seasonal allergies" (`said_by_another`).

A passage is a transcript when at least three of its lines, or of its sentences where its lines
were joined ("… a shame . Ted: yeah …", as SummEdits gives its chats), open with a label, and
two speakers at least are named so; one "Note:" line makes no transcript."""

from __future__ import annotations

import re
from bisect import bisect_right
from functools import lru_cache

from reflectcli.writing.sentences import sentences

# a name of one to three capitalised words (AVERY, Dr. Lee, Mary Ann Smith) or Q / A, then a colon
LABEL = re.compile(r"^[ \t]*([A-Z][\w'.-]*(?:[ \t][A-Z][\w'.-]*){0,2})[ \t]*:[ \t]+(?=\S)", re.M)
_LABEL_ANYWHERE = re.compile(r"[A-Z][\w'.-]*[ \t]*:[ \t]")
# a denial whose subject is "I": "I don't", "I can't", "I'm not", "I have never", "I really don't"
_FIRST_PERSON_DENIAL = re.compile(
    r"\bI(?:'m|'ve|'d|'ll|\s+(?:am|was|have|had|do|did|does|can|could|will|would|should|must))?"
    r"(?:\s+(?:really|just|still|even|certainly|definitely|honestly|simply|actually))?"
    r"(?:\s+(?:not|never|no\s+longer)\b|n't\b)"
    r"|\bI\s+(?:don't|didn't|can't|cannot|won't|wouldn't|couldn't|haven't|hadn't|shouldn't|never)\b"
)
_LEADING = frozenset(
    ("Both", "And", "But", "So", "Then", "Also", "Later", "Finally", "Meanwhile", "The", "the")
)  # "The Project Manager thought …" opens with the speaker "Project Manager"


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
                found[at] = m.group(1)
            at += len(plain)
    at = 0
    for sentence in sentences(text):
        at = text.find(sentence, at)
        if at >= 0 and (m := LABEL.match(sentence)):
            found.setdefault(at, m.group(1))
        at = max(at, 0) + len(sentence)
    if len(found) < 3 or len(set(found.values())) < 2:
        return text, (), ()
    starts = sorted(found)
    return text, tuple(starts), tuple(found[k] for k in starts)


def utterances(passage: str) -> list[str]:
    """The sentences of `passage` as the claim check compares them: in a transcript, cut within
    each turn, so that no sentence runs from one speaker into the next (a turn without a full
    stop, "Project Manager: {vocalsound} Marketing: No , I don't think so ."); elsewhere
    `writing.sentences.sentences`."""
    text, starts, _ = _turns(passage)
    if not starts:
        return sentences(passage)
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
        name = next((n for n in names if re.match(re.escape(n) + r"\b", rest)), None)
        word = name or rest.split()[0].strip(",")
        if name:
            found.add(name)
        elif word not in _LEADING and word != "and":
            break
        rest = rest[len(word) :].lstrip(" ,")
    return found


def said_by_another(claim: str, carrier: str, passage: str) -> bool:
    """Whether `carrier` is a speaker's own denial ("I don't …") in turns only of speakers that
    `claim` is not about: the claim opens with other speakers of the transcript."""
    known = speakers(passage)
    if not known or not _FIRST_PERSON_DENIAL.search(carrier):
        return False
    by = speakers_of(carrier, passage)
    subjects = _subjects(claim, known)
    return bool(by) and bool(subjects) and not by & subjects
