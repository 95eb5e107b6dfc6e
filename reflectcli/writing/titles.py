"""What makes an outline title usable: a heading for one part of the task, not a sentence, a
fragment, an instruction or the task itself. The plan's validation asks `title_problem`; a title
with a problem is refused like a placeholder, and the model is asked again."""

from __future__ import annotations

import re
import threading
from difflib import SequenceMatcher

from reflectcli.writing.textops import CJK, normalize

MAX_TITLE_WORDS = 12
STOP = frozenset(
    "a an the and or but if of to in on at by for with from as is are was were be been being it "
    "its this that these those their there they them he she his her we our you your i my not no "
    "do does did doing can could should would will shall may might must have has had how why what "
    "when where who which whom whose than then so such very more most much many some any all each "
    "also just only into over under about after before between through during out up down off "
    "again further once here both few other own same too s t don now one two".split()
)
_INSTRUCTION = re.compile(
    r"^(to (answer|write|explain|describe|use|make)\b|(write|answer|rewrite|respond|reply) (the|a|an|this|"
    r"with|in)\b|here (is|are)\b|(section|paragraph|title|heading)\s*\d*\s*:)",
    re.I,
)


_LOCAL = threading.local()


def _stemmer():
    """This thread's Snowball stemmer: one keeps the word it works on in itself, so two runs at
    once in one worker process (threads) must not share one (it raised IndexError mid-word)."""
    stemmer = getattr(_LOCAL, "stemmer", None)
    if stemmer is None:
        import snowballstemmer

        stemmer = _LOCAL.stemmer = snowballstemmer.stemmer("english")
    return stemmer


def content_stems(text: str) -> set[str]:
    """Content words as Snowball stems ("revise", "revision", "revising" → "revis"), stop words
    out; and each CJK character (a Chinese title shares characters with its task)."""
    words = [w for w in re.findall(r"[^\W\d_]{3,}", text.lower()) if w not in STOP and not CJK.search(w)]
    return set(_stemmer().stemWords(words)) | set(CJK.findall(text))


def title_problem(title: str, task: str | None = None, goal: str = "", strict: bool = False) -> str | None:
    """Why `title` cannot head a section of `task` (None when it can). `strict` (a tiny writer,
    which drifts): the title or its goal must also share a word with the task; a capable
    writer's "The Vellmar psalter" for "The history of printing" is a good section."""
    words = title.split()
    if not re.search(r"[^\W\d_]", title):
        return "has no words"
    if not CJK.search(title) and len(words) > MAX_TITLE_WORDS:
        return f"is {len(words)} words long: a sentence, not a heading"
    if words[0] in STOP:  # "to answer with ...", "and the rest": a lower-case function word
        return "starts in lower case: a fragment, not a heading"
    if title.rstrip()[-1] in ",;:" or (title.rstrip().endswith(".") and len(words) >= 4):
        return f"ends with {title.rstrip()[-1]!r}: a sentence or a fragment, not a heading"
    if _INSTRUCTION.match(title):
        return "is an instruction or a label, not a heading"
    if task is not None:
        if SequenceMatcher(None, normalize(title), normalize(task)).ratio() >= 0.9:
            return "repeats the task: name the part of it this section covers"
        wanted = content_stems(task)
        if strict and wanted and not (content_stems(f"{title} {goal}") & wanted):
            return "shares no word with the task: a section must be about the task"
    return None
