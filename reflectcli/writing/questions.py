"""An outline a tiny model can give. Asked for sections with titles and goals, the embedded
model (135M parameters) repeats the task as a title or writes a sentence, and the outline
collapses to one section or to the generic fallback. Asked for the questions a curious reader
would ask about the topic, it gives usable ones for most English tasks; each usable question
heads a section (an article may be headed by the questions it answers).

The answer is held by a JSON schema (each question starts with a question word and ends with a
question mark, so no "1." numbering, no chatter after it), and each question is checked here:
cut off, addressed to the writer, only a pronoun where the topic should be ("How does it
work?" as the first section; after one that names the topic it is a follow-up and kept), the
task itself, about something else (or a task without words to check it by: an emoji-only
task), or a repeat of one already kept: such a question is dropped, with the reason."""

from __future__ import annotations

import re
from collections.abc import Sequence
from difflib import SequenceMatcher
from typing import Any

from reflectcli.writing.textops import normalize
from reflectcli.writing.titles import content_stems, title_problem

QUESTION_WORDS = (
    "What", "Why", "How", "When", "Where", "Who", "Which", "Is", "Are", "Was", "Were", "Do", "Does",
    "Did", "Can", "Could", "Should", "Would", "Will", "Has", "Have",
)  # fmt: skip
MAX_CHARS = 80
# within a JSON string: no question mark before the last, no quote, backslash or line break
PATTERN = rf"^({'|'.join(QUESTION_WORDS)}) [^?\"\\\n]{{4,{MAX_CHARS - 12}}}[?]$"
_NUMBERING = re.compile(r"^\s*(\(?\d+[.):\]]|[-*•]|q(uestion)?\s*\d*\s*[:.)-])\s*", re.I)
_TO_THE_WRITER = re.compile(
    r"\b(can|could|would|will|do|did|have|are|were) you\b|\byou'(d|ve|re)\b|\byour\b", re.I
)  # ("What is your favorite ...?" asks a person, not about the topic)
_MARKUP = re.compile(r"[\[\]{}<>/\\|*#_=+~^`@$%]")  # no question a reader asks holds these
_ASKING = frozenset(w.lower() for w in ("What", "Why", "How", "When", "Where", "Who", "Which"))
_PRONOUNS = frozenset("it its they them their this".split())  # ("that", "these": relative, determiners)
_CUT = frozenset("the a an and or but both than its their your my our his her".split())  # no question ends so
SIMILAR = 0.85  # two questions this alike (difflib's ratio, normalized) are one question


def questions_schema(count: int) -> dict[str, Any]:
    """JSON schema for `count` questions, each held to the question form (`PATTERN`)."""
    return {
        "type": "object",
        "properties": {
            "questions": {
                "type": "array",
                "minItems": count,
                "maxItems": count,
                "items": {"type": "string", "pattern": PATTERN},
            }
        },
        "required": ["questions"],
    }


def clean_question(text: str) -> str:
    """One question as a heading: numbering ("1.", "Q2:"), quotes, Markdown marks and spaces
    taken off, and anything after its first question mark."""
    text = " ".join(str(text).split())
    text = _NUMBERING.sub("", text).strip().strip("\"'`*#").strip()
    if "?" in text:
        text = text[: text.index("?") + 1]
    return text[:1].upper() + text[1:]


def question_problem(question: str, task: str, kept: Sequence[str] = ()) -> str | None:
    """Why `question` cannot head a section of `task`, given the questions `kept` so far
    (None when it can)."""
    words = re.findall(r"[^\W\d_]+(?:'[^\W\d_]+)?", question.lower())
    if not question.endswith("?"):
        return "is not a whole question"
    if not words or words[-1] in _CUT or question.endswith(" ?"):
        return "is cut off"
    if _TO_THE_WRITER.search(question):
        return "asks the writer, not about the topic"
    if len(words) > 1 and words[1] in _ASKING:  # "Are how do we know ...?": two questions run together
        return "is garbled"
    if _MARKUP.search(question):  # "... including emotional)[/?"
        return "is garbled"
    if not content_stems(task):
        return "cannot be checked against a task without words"
    why = title_problem(question, task, strict=True)
    pronoun = not content_stems(question) & content_stems(task) and bool(_PRONOUNS & set(words))
    if pronoun and not kept:
        return "names only a pronoun where the topic should be"
    if why and not (pronoun and why.startswith("shares no word")):
        # (a pronoun after a heading that names the topic: "How does it work?" after "What is
        # compost?" is a follow-up, and kept)
        return why
    for other in kept:
        if SequenceMatcher(None, normalize(question), normalize(other)).ratio() >= SIMILAR:
            return f"repeats the question {other!r}"
        if _same_ask(question, other, task):
            return f"asks what {other!r} asks"
    return None


def _same_ask(question: str, other: str, task: str) -> bool:
    """Two questions that ask the same thing: besides the task's own words, the content words
    of one are all among the other's, which has at most one more ("How to be an effective
    writer?" after "How does one become an effective writer?"; "What are some ways that sleep
    affects our memories?" after "How does sleep affect our memories?"). Synonyms are not
    caught ("begin" and "start")."""
    topic = content_stems(task)
    mine, theirs = content_stems(question) - topic, content_stems(other) - topic
    if not mine or not theirs:  # one names only the task's words: the same ask if both do
        return mine == theirs
    small, large = sorted((mine, theirs), key=len)
    return small <= large and len(large - small) <= 1  # one word more asks the same (not three)


def usable_questions(
    answers: list[Any], task: str, kept: list[str], limit: int
) -> tuple[list[str], list[str]]:
    """The questions of one answer that can head a section, after `kept` (up to `limit` in all),
    and a note for each one dropped ("“How does it work?” names only a pronoun ...")."""
    new: list[str] = []
    dropped: list[str] = []
    for answer in answers:
        question = clean_question(answer)
        if not question:
            continue
        if len(kept) + len(new) >= limit:  # enough: the rest are spare, not dropped sections
            break
        if normalize(question) in {normalize(q) for q in [*kept, *new]}:
            continue  # asked again: its section is kept, so nothing is dropped
        why = question_problem(question, task, [*kept, *new])
        if why is None:
            new.append(question)
        else:
            dropped.append(f"{question!r} {why}")
    return new, dropped
