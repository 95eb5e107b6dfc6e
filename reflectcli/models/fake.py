"""Test doubles shipped with the package: a fake model client with `enqueue()` and `history`,
and a scripted responder that plays plausible outlines, sections, reviews and revisions.
Used by the test suite and by the benchmarks (zero-latency model)."""

from __future__ import annotations

import json
import re
import time
from collections import deque
from collections.abc import Callable, Sequence
from typing import Any

from reflectcli.models.base import Completion
from reflectcli.models.factory import register_client, unregister_client

Answer = str | BaseException | Callable[[str, list[dict[str, str]]], str]


class FakeClient:
    """Answers from a queue (or a responder when the queue is empty) and records every call."""

    def __init__(self, model: str = "fake/writer", responder=None, price: float | None = None,
                 caches_prompts: bool = False, cache_share: float | None = None):  # fmt: skip
        self.model = model
        self.caches_prompts = caches_prompts  # as a provider with a prompt cache (prompt_cache)
        self.cache_share = cache_share  # a cached input token's price, as a share of an uncached one
        self.queue: deque[Answer] = deque()
        self.history: list[dict[str, Any]] = []
        self.responder = responder
        self.price = price  # USD a token (prompt and output alike); None: calls cost 0
        if price is not None:
            self.estimate_cost = self._estimate_cost

    def _estimate_cost(self, messages, *, max_tokens=None, **_) -> float:
        """As a priced model's client does: the prompt's tokens and the whole cap, priced."""
        return (sum(len(m["content"]) for m in messages) // 4 + (max_tokens or 1024)) * (self.price or 0.0)

    def enqueue(self, *answers: Answer) -> FakeClient:
        self.queue.extend(answers)
        return self

    def steps(self) -> list[str]:
        return [call["step"] for call in self.history]

    def complete(self, messages, *, step, json_schema=None, max_tokens=None, stop=None,
                 budget=None) -> Completion:  # fmt: skip
        self.history.append({"step": step, "messages": messages, "json_schema": json_schema,
                             "stop": stop})  # fmt: skip
        started = time.monotonic()
        if self.queue:
            answer = self.queue.popleft()
        elif self.responder is not None:
            answer = self.responder
        else:
            raise AssertionError(f"fake model: no answer queued for step {step!r}")
        if isinstance(answer, BaseException):
            raise answer
        if callable(answer):
            answer = answer(step, messages)
        for mark in stop or []:  # as a server does: the answer ends where a stop string starts
            answer = answer.split(mark, 1)[0]
        prompt = sum(len(m["content"]) for m in messages) // 4
        return Completion(
            text=answer,
            model=self.model,
            step=step,
            prompt_tokens=prompt,
            completion_tokens=max(1, len(answer) // 4),
            cost=0.0 if self.price is None else (prompt + max(1, len(answer) // 4)) * self.price,
            duration=time.monotonic() - started,  # as long as its responder took
        )


ISSUES = (
    "Add a concrete example of a writer revising a paragraph.",
    "Cite evidence: a study or survey on how professionals revise.",
    "Cut the repetition between the opening and the closing lines.",
    "Explain the difference between editing sentences and revising ideas.",
    "Name the reader this is for and what they should do next.",
    "Replace the vague claim about quality with a measurable one.",
)


TITLES = (
    "Why first drafts fall short",
    "What revision changes",
    "How professionals revise",
    "When to stop revising",
    "Tools that help",
    "Revising with feedback",
    "Common mistakes",
    "A revision checklist",
    "Revision in other fields",
    "Teaching revision",
    "Revision and voice",
    "The last pass",
)


def review_json(
    score: float,
    improvements: Sequence[dict[str, str]] | None = None,
    round_no: int = 1,
    section: str | None = None,
    **dims,
) -> str:
    improvements = (
        list(improvements)
        if improvements is not None
        else [
            {
                "section": section or TITLES[0],
                "issue": ISSUES[(round_no - 1) % len(ISSUES)],
                "severity": "major",
            }
        ]  # fmt: skip
    )
    return json.dumps(
        {
            "score": score,
            "dimensions": {d: dims.get(d, score) for d in
                           ("accuracy", "completeness", "readability", "structure")},
            "feedback": f"Scored {score}: the argument needs more support.",
            "improvements": improvements if score < 10 else [],
        }
    )  # fmt: skip


def _group(pattern: str, text: str, flags: int = 0) -> str:
    """The first group of `pattern` in a step name or a prompt; one the fake cannot read is a
    test's mistake."""
    if (found := re.search(pattern, text, flags)) is None:
        raise AssertionError(f"no {pattern!r} in {text[:80]!r}")
    return found.group(1)


def questions_json(prompt: str, n: int) -> str:
    """A tiny writer's plan (writing/questions.py): `n` questions about the task its prompt
    names, each naming the task's longest word."""
    topic = re.search(r"Topic: (.*)", prompt)
    word = max(re.findall(r"[^\W\d_]+", topic.group(1) if topic else "") or ["revision"], key=len).lower()
    asked = [f"What is known about {word}?", f"Why does {word} matter so much?", f"How has {word} changed?",
             f"Where is {word} going next?", f"Who studies {word} today?"]  # fmt: skip
    return json.dumps({"questions": asked[:n]})


def outline_json(n: int) -> str:
    return json.dumps(
        {"sections": [{"title": TITLES[i], "goal": f"Explain {TITLES[i].lower()}."}
                      for i in range(n)]}
    )  # fmt: skip


PARAGRAPH = (
    "Writers revise because a first draft records thinking rather than communicating it. "
    "Revision turns notes to self into an argument for a reader, cutting what wanders and "
    "adding the example that makes a claim land."
)
PARAGRAPHS = (
    PARAGRAPH,
    "A draft written in one sitting mixes the points that matter with the ones that only "
    "helped the writer get started; a second pass tells them apart and puts the best first.",
    "Editors see the same pattern in every newsroom: the second version of a story is "
    "shorter, clearer and easier to check than the first, because its author reread it.",
    "Revising also catches the claims a reader would doubt, so the writer can support them "
    "with a source, a number or an example before anyone else has to ask for one.",
)


SUBJECTS = ("A first draft", "The reader", "An editor", "The second pass", "A strong example",
            "The opening line", "Each paragraph", "The final version", "A vague claim",
            "The writer")  # fmt: skip
VERBS = ("records", "needs", "questions", "reshapes", "supports", "frames", "carries", "sharpens",
         "weakens", "rewards")  # fmt: skip
OBJECTS = ("the argument a stranger must follow", "evidence placed near the claim",
           "the point that matters most", "a number instead of an adjective",
           "the context the author forgot to write down", "sentences that only look finished",
           "the order in which ideas arrive", "a concrete case from a newsroom",
           "the doubt an unsupported claim invites", "rhythm, short after long")  # fmt: skip


def prose(n: int, sentences: int = 10) -> str:
    """About 10 words a sentence of distinct sentences, different for each `n`: the shape of real
    prose for benchmarks (a text repeating itself would be cut as a loop)."""
    return " ".join(
        f"{SUBJECTS[(i + n) % 10]} {VERBS[(3 * i + n) % 7]} {OBJECTS[(7 * i + 2 * n) % 9]}."
        for i in range(sentences)
    )


IMPROVED = "A concrete example now supports it."


class ScriptedResponder:
    """Plays a whole run: an outline of `sections`, bodies, reviews scoring `scores` in turn
    (the last score repeats), and revisions that keep every section and grow a little."""

    def __init__(self, scores: Sequence[float] = (8.0,), sections: int = 3):
        self.scores = list(scores)
        self.sections = sections

    def __call__(self, step: str, messages: list[dict[str, str]]) -> str:
        kind = step.split(":")[0]
        if kind == "plan" and "curious reader" in prompt_text(messages):  # a tiny writer's plan
            return questions_json(prompt_text(messages), self.sections)
        if kind == "plan":
            return outline_json(self.sections)
        if kind == "draft":
            n = int(_group(r"s(\d+)", step))
            return f"{PARAGRAPHS[(n - 1) % len(PARAGRAPHS)]} ({step})"
        if kind == "review":
            round_no = int(_group(r"r(\d+)", step))
            section = TITLES[(round_no - 1) % self.sections]
            score = self.scores[min(round_no, len(self.scores)) - 1]
            return review_json(score, round_no=round_no, section=section)
        if kind == "revise":
            prompt = prompt_text(messages)
            part = re.search(r"<section>\n(.*)\n</section>", prompt, re.S)
            if part:  # section-level revision: return the new body only
                return part.group(1) + " " + IMPROVED
            text = article_of(prompt, "")
            named = re.search(r"Rewrite only these sections:\n((?:## .*\n)+)", prompt)
            if named:  # several sections in one call: return those sections only
                titles = [line[3:] for line in named.group(1).splitlines()]
                parts = re.split(r"^## (.*)$", text, flags=re.M)
                bodies = {parts[i].strip(): parts[i + 1].strip() for i in range(1, len(parts), 2)}
                return "\n\n".join(f"## {t}\n\n{bodies.get(t, '')} {IMPROVED}" for t in titles)
            return re.sub(r"(\(draft:s\d+\))", r"\1 " + IMPROVED, text, count=1)
        if kind == "ask":  # `reflectcli ask`: a plain answer, citing nothing
            return "Writers revise to turn notes to self into an argument a reader can follow."
        if kind == "check":  # the critic's verdicts on an answer's cited claims
            return json.dumps({"claims": []})
        raise AssertionError(f"unscripted step {step!r}")


LESSON_FIX = "Add a concrete example to every section."
EXAMPLE = " For example, a reporter cut her opening paragraph in half and kept the reader."


def prompt_text(messages: list[dict[str, str]]) -> str:
    """Everything a prompt shows the model (its context in the system message, its step in the
    user's), as one text for scripted answers to read."""
    return "\n\n".join(str(m.get("content") or "") for m in messages if m.get("role") != "assistant")


def article_of(prompt: str, missing: str | None = None) -> str:
    """The article a review or revision prompt carries (`missing`, else the whole prompt, if
    none is marked)."""
    found = re.search(r"<article>\n(.*)\n</article>", prompt, re.S)
    return found.group(1) if found else (prompt if missing is None else missing)


class LessonScenario:
    """The memory's scripted scenario: a critic that asks for the same fix until the draft has an
    example, and a writer that gives one when a recalled lesson (or the improvement being
    revised) asks for it. Used by the memory tests and bench/bench_memory.py."""

    def __init__(self, fix: str = LESSON_FIX):
        self.fix = fix

    def __call__(self, step: str, messages: list[dict[str, str]]) -> str:
        prompt = prompt_text(messages)
        kind = step.split(":")[0]
        if kind == "plan":
            return outline_json(2)
        if kind == "draft":
            lesson = "Lessons from earlier articles" in prompt and "concrete example" in prompt
            return "Writers revise because a draft records thinking." + (EXAMPLE if lesson else "")
        if kind == "review":
            good = "for example" in article_of(prompt).lower()
            return json.dumps({
                "score": 9 if good else 6,
                "feedback": "The argument is clear but it stays abstract throughout.",
                "improvements": [] if good else [{"section": TITLES[0], "issue": self.fix,
                                                   "severity": "major"}],
            })  # fmt: skip
        if kind == "revise":
            body = _group(r"<section>\n(.*)\n</section>", prompt, re.S)
            return body + EXAMPLE
        raise AssertionError(f"unscripted step {step!r}")


def install_fake(prefix: str, client_for: Callable[[str], FakeClient]) -> Callable[[], None]:
    """Route `prefix/...` model strings to fakes; returns the undo function."""
    register_client(prefix, lambda model, settings: client_for(model))
    return lambda: unregister_client(prefix)
