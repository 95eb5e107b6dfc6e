"""The writer's revision prompts: the whole article rewritten (`revise_messages`), one section
(`section_revise_messages`) or several at once (`sections_revise_messages`). They share the
rules and quoting of writing/prompts.py, and the review's system message as their cached prefix
(see prompts.py on the order for providers' prompt caches)."""

from __future__ import annotations

from typing import Any

from reflectcli.writing.prompts import (
    Messages,
    cite_rule,
    language_rule,
    lessons_rule,
    run_context,
    source_rule,
    tagged,
)

REVISER = "You are a writer revising your own article after an editor's review."


def revise_messages(
    task: str, draft: str, review: dict[str, Any], round_no: int, language: str | None,
    evidence: list[dict[str, Any]] | None = None, lessons: list[dict[str, Any]] | None = None,
    compact: bool = False, outline: list[dict[str, Any]] | None = None,
) -> Messages:  # fmt: skip
    """The whole article rewritten: the article, sources and lessons in the run's context (a
    tiny model keeps its one plain message)."""
    items = _items(review.get("improvements", []))
    if compact:
        return [
            {"role": "system", "content": REVISER},
            {
                "role": "user",
                "content": (
                    f"Task: {task}\n\nRevision for round {round_no}. The current article:\n\n"
                    f"{tagged(draft, 'article')}\n\n"
                    f"The editor scored it {review['score']}/10. Feedback: {review['feedback']}\n"
                    f"Improvements to make:\n{items}\n\n"
                    "Rewrite the whole article so that every improvement is addressed and what was "
                    "good is kept. Keep the same sections in the same order, each starting with a "
                    "'## ' heading line. Keep the length similar unless an improvement asks for "
                    f"more. {language_rule(language)} Return only the article in Markdown, nothing "
                    f"before or after it.{cite_rule(evidence, compact=True)}{lessons_rule(lessons)}"
                ),
            },
        ]
    return [
        {
            "role": "system",
            "content": run_context(task, outline, article=draft, evidence=evidence, lessons=lessons),
        },
        {
            "role": "user",
            "content": (
                f"Revision for round {round_no}. You are the writer now. The editor scored the "
                f"current article above {review['score']}/10. Feedback: {review['feedback']}\n"
                f"Improvements to make:\n{items}\n\n"
                "Rewrite the whole article so that every improvement is addressed and what was "
                "good is kept. Keep the same sections in the same order, each starting with a "
                "'## ' heading line. Keep the length similar unless an improvement asks for more. "
                f"{language_rule(language)} Return only the article in Markdown, nothing before "
                f"or after it.{source_rule(evidence)}"
            ),
        },
    ]


def _items(improvements: list[dict[str, Any]]) -> str:
    return (
        "\n".join(
            f"- [{imp['severity']}] {imp.get('section') or 'whole article'}: {imp['issue']}"
            for imp in improvements
        )
        or "- (no specific items; address the feedback)"
    )


def section_revise_messages(
    task: str,
    outline: list[dict[str, Any]],
    bodies: list[str | None],
    index: int,
    improvements: list[dict[str, Any]],
    round_no: int,
    language: str | None,
    *,
    compact: bool = False,
    evidence: list[dict[str, Any]] | None = None,
    lessons: list[dict[str, Any]] | None = None,
    sources: list[dict[str, Any]] | None = None,
    article: str | None = None,
) -> Messages:
    """One section's rewrite: the section, the outline and a short context, not the article.
    The full prompt's system message is the drafts' (the run's context with its `sources`, the
    same for every section), so every call after the first reads it from the provider's cache;
    the section, its neighbours' edges, its improvements and `evidence` (the passages for it)
    come after. With `article` (the reviewed article, for a provider that caches prompts) the
    system message is the review's instead, byte for byte, so the rewrites after a review read
    its whole prefix from the cache and see the whole article; the lessons then follow in the
    user message. A tiny model gets the section alone."""
    title = outline[index]["title"]
    if compact:
        cite = cite_rule(evidence, compact=compact) + lessons_rule(lessons)
        changes = " ".join(imp["issue"] for imp in improvements) or "Make it clearer."
        words = max(40, len((bodies[index] or "").split()))
        return [
            {"role": "system", "content": "You are a clear, concrete writer."},
            {
                "role": "user",
                "content": (
                    f"Revision for round {round_no}. Article: {task}\nSection: {title}\n"
                    f"Current text:\n{tagged(bodies[index] or '', 'section')}\n\nRewrite this "
                    f"section as one paragraph of about {words} words. Make these changes: "
                    f"{changes} Keep what is good. No title, no list. {language_rule(language)}"
                    f"{cite}"
                ),
            },
        ]
    shown = sources or evidence
    if article is None:
        context = run_context(task, outline, evidence=shown, lessons=lessons)
        where, learned = _neighbours(bodies, index), ""
    else:  # the review's system message (review_messages), then what this rewrite adds
        context = run_context(task, outline, article=article, evidence=sources)
        where, learned = "", lessons_rule(lessons)
    return [
        {"role": "system", "content": context},
        {
            "role": "user",
            "content": (
                f"Revision for round {round_no}. You are the writer now.\n\n{where}"
                f'Rewrite section {index + 1} of {len(outline)}, "{title}". Its current text:\n\n'
                f"{tagged(bodies[index] or '', 'section')}\n\nImprovements to make in it:\n"
                f"{_items(improvements)}\n\n"
                "Address every improvement and keep what was good. Keep the length similar "
                "unless an improvement asks for more. Return only the new text of this "
                f"section: no heading, no preamble, no notes. {language_rule(language)}"
                f"{source_rule(shown, evidence if sources else None)}{learned}"
            ),
        },
    ]


def _neighbours(bodies: list[str | None], index: int) -> str:
    """A short context for one section: how the previous one ends, how the next one starts."""
    parts = []
    before = bodies[index - 1] if index > 0 else None
    after = bodies[index + 1] if index + 1 < len(bodies) else None
    if before:
        parts.append(f'The previous section ends: "...{before.strip()[-200:]}"')
    if after:
        parts.append(f'The next section begins: "{after.strip()[:200]}..."')
    return "\n".join(parts) + ("\n\n" if parts else "")


def sections_revise_messages(
    task: str,
    article: str,
    titles: list[str],
    improvements: list[dict[str, Any]],
    round_no: int,
    language: str | None,
    evidence: list[dict[str, Any]] | None = None,
    lessons: list[dict[str, Any]] | None = None,
    outline: list[dict[str, Any]] | None = None,
) -> Messages:
    """Several sections rewritten in one call: the article goes in once (in the run's context),
    and only the named sections come back, each under its own heading."""
    named = "\n".join(f"## {t}" for t in titles)
    return [
        {
            "role": "system",
            "content": run_context(task, outline, article=article, evidence=evidence, lessons=lessons),
        },
        {
            "role": "user",
            "content": (
                f"Revision for round {round_no}. You are the writer now. Improvements to make:\n"
                f"{_items(improvements)}\n\n"
                f"Rewrite only these sections of the current article above:\n{named}\n\n"
                "Address every improvement and keep what was good; keep each section's length "
                "similar unless an improvement asks for more. Return only the rewritten "
                "sections, each starting with its '## ' heading line exactly as above, nothing "
                f"before or after them. {language_rule(language)}{source_rule(evidence)}"
            ),
        },
    ]
