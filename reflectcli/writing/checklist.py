"""The checklist critic: a rules-based editor for runs whose only model is too small to critique.

It measures what code can check and says it concretely: each finding names the section, quotes
the sentence where there is one, and asks for one change a small writer can make. Scores come
from the findings by one formula (`score_findings`):

- every dimension starts at 10; a major finding takes 2.5 points off its dimension, a minor one 1
  (at most 5 points per check, so one noisy check cannot sink a dimension alone); floor 0;
- accuracy is only checked against sources: without evidence it is not measured and takes the
  mean of the other three (as a missing dimension takes the overall score elsewhere);
- the overall score is 10 less every point taken (the same capped losses, summed over all
  dimensions), floor 0, and at most 6.9 while a major finding is open: two minor findings still
  pass the default threshold of 8, three do not.

It is a real critic (its reviews are `source: checklist`, never `fallback`), but it judges form,
not truth: a run it passes has passed the checklist, which the output says.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from reflectcli.writing import markdown
from reflectcli.writing.citations import cited_ids
from reflectcli.writing.rubric import DIMENSIONS
from reflectcli.writing.sentences import pieces
from reflectcli.writing.textops import CJK, normalize, section_bodies
from reflectcli.writing.titles import STOP, content_stems

MAJOR, MINOR = 2.5, 1.0  # points off a dimension per finding
CHECK_CAP = 5.0  # points one check may take off a dimension
MAJOR_CEILING = 6.9  # the overall score while a major finding is open
MAX_FINDINGS = 5  # improvements per review, majors first: a small writer cannot act on more
LONG_SENTENCE = 35  # words
REPEATED_PHRASE = 3  # times a 4-word phrase may appear before it is a tic

_EXAMPLE = re.compile(
    r"\b(for example|for instance|such as|e\.g\.|say,|imagine|consider|case of|in \d{4})\b|例如|比如|譬如",
    re.I,
)
_META = re.compile(
    r"\b(in this (section|article|essay|post|paragraph|piece)|this (article|essay|section) "
    r"(will|explores|discusses|covers)|as an ai|language model|here is|here's|here are|i hope|"
    r"let me know|feel free|word count|no title|no list|keep what is good|rewrite this|"
    r"write in the same language|the revised|revised version|i (have|made|added|rewrote)|"
    r"i'?d like to (explore|discuss|look|share)|let'?s (explore|dive|look|take a look)|"
    r"we will (explore|discuss|look))\b"
    r"|^\W*(section|paragraph|title|article|answer|task)\s*\d*\s*:|</?[a-z][a-z0-9]*(?:\s[^<>]*)?/?>",
    re.I,
)
_FILLER = re.compile(
    r"\b(in today'?s (fast-paced|modern|digital|ever-changing|busy) (world|society|age)|since the dawn "
    r"of time|it is (important|worth) (to note|noting)|plays? an? (crucial|vital|pivotal|key) role|"
    r"in conclusion|needless to say|last but not least)\b",
    re.I,
)
_PROSE_CHECKS = ("cliches", "redundancy", "uncomparables", "nonwords", "lexical_illusions",
                 "hedging", "misc.greylist", "industrial_language", "skunked_terms")  # fmt: skip


@dataclass(frozen=True)
class Finding:
    """One thing the checklist found: where, what kind, how bad, and the change to make."""

    section: str  # a title, or "" for the whole article
    check: str
    dimension: str
    severity: str  # major | minor
    issue: str


# --- sentences and words --------------------------------------------------------------------


def _cjk(text: str) -> bool:
    return len(CJK.findall(text)) > len(text) // 10


def sentences(text: str) -> list[str]:
    """The sentences of a Markdown body's prose (pysbd: abbreviations and decimals are not
    ends), paragraph by paragraph: code, tables, HTML, quotations and headings are not prose
    (writing/markdown.prose), and inline HTML tags are left out."""
    found = []
    for paragraph in markdown.prose(text):
        parts = pieces(paragraph, "zh" if _cjk(paragraph) else "en")
        found += [" ".join(p.split()) for p in parts if re.search(r"\w", p)]
    return found


def _masked(sentence: str) -> str:
    """A sentence with its code spans blanked: `pyenv activate <name>` is code, not markup or
    a phrase to judge."""
    return re.sub(r"(`+)(?:(?!\1).)+?\1", "code", sentence)


def prose_text(body: str) -> str:
    """A body's prose alone, code spans blanked (what proselint and the phrase counts read)."""
    return "\n\n".join(_masked(p) for p in markdown.prose(body))


def _words(text: str) -> list[str]:
    if _cjk(text):
        return CJK.findall(text) + re.findall(r"[A-Za-z0-9]+", text)
    return re.findall(r"[\w'’-]+", text)


def _quote(sentence: str, limit: int = 90) -> str:
    return sentence if len(sentence) <= limit else sentence[: limit - 3].rstrip() + "..."


@lru_cache(maxsize=1)
def _hyphenator():
    import pyphen

    return pyphen.Pyphen(lang="en_US")


def reading_ease(text: str) -> float | None:
    """Flesch reading ease (206.835 - 1.015 words/sentence - 84.6 syllables/word, syllables from
    pyphen's hyphenation dictionary); None for CJK text or fewer than three sentences."""
    found = sentences(text)
    if _cjk(text) or len(found) < 3:
        return None
    words = [w for w in re.findall(r"[A-Za-z]+", text)]
    if not words:
        return None
    syllables = sum(max(1, len(_hyphenator().positions(w)) + 1) for w in words)
    return round(206.835 - 1.015 * len(words) / len(found) - 84.6 * syllables / len(words), 1)


def _prose_issues(text: str) -> list[tuple[str, str]]:
    """(phrase, message) from proselint's checks that name a change a writer can make."""
    from proselint.checks import __register__
    from proselint.registry import CheckRegistry
    from proselint.tools import LintFile

    registry = CheckRegistry()
    if not registry.checks:
        registry.register_many(__register__)
    found = []
    for result in LintFile("<section>", text).lint():
        item = result.check_result
        if item.check_path.startswith(_PROSE_CHECKS):
            start, end = item.span
            found.append((f"\n{text}\n"[start:end].strip(), item.message.rstrip(".")))
    return found


# --- the checks -----------------------------------------------------------------------------


def review_article(
    task: str,
    text: str,
    outline: list[dict[str, Any]],
    target_words: int,
    evidence: list[list[dict[str, Any]]] | None = None,
) -> tuple[list[Finding], dict[str, Any]]:
    """Every finding on the article, and the measurements behind them. `evidence`: the passages
    each section was given (by outline position)."""
    titles = [s["title"] for s in outline]
    bodies = section_bodies(text, titles) if titles else [text]
    if len(titles) == 1 and bodies == [None]:  # a draft without headings is its one section
        bodies = [text.strip()]
    evidence = evidence or []
    findings: list[Finding] = []
    seen_sentences: dict[str, str] = {}
    phrases: Counter[str] = Counter()
    measured: dict[str, Any] = {"words": 0, "sections": [], "reading_ease": None}
    topic = content_stems(task)
    for index, (section, body) in enumerate(zip(outline, bodies, strict=False)):
        title = section["title"]
        passages = evidence[index] if index < len(evidence) else []
        if not body:
            findings.append(Finding(title, "missing", "structure", "major",
                                    f'Write the section "{title}" under its heading: it is '
                                    "missing or empty."))  # fmt: skip
            measured["sections"].append({"title": title, "words": 0})
            continue
        words = len(_words(body))
        measured["words"] += words
        measured["sections"].append({"title": title, "words": words})
        said = sentences(body)
        findings += _length(title, section.get("goal", ""), words, target_words)
        findings += _example(title, body)
        findings += _meta(title, said)
        findings += _filler(title, said)
        findings += _repeats(title, said, seen_sentences)
        findings += _long_sentences(title, said)
        findings += _off_topic(
            title, said, topic | content_stems(title) | content_stems(section.get("goal", ""))
        )
        findings += _uncited(title, said, passages)
        prose = prose_text(body)
        if not _cjk(body) and prose.strip():
            findings += [Finding(title, "prose", "readability", "minor",
                                 f'In "{title}", rewrite "{phrase}": {message}.')
                         for phrase, message in _prose_issues(prose)[:2]]  # fmt: skip
        tokens = [w.lower() for w in _words(prose)]
        for i in range(len(tokens) - 3):
            gram = tokens[i : i + 4]
            if sum(w not in STOP for w in gram) >= 2:
                phrases[" ".join(gram)] += 1
    for phrase, count in phrases.most_common(2):
        if count >= REPEATED_PHRASE:
            findings.append(Finding("", "repeat_phrase", "readability", "minor",
                                    f'Vary the phrase "{phrase}": it appears {count} times.'))  # fmt: skip
    ease = reading_ease(prose_text(text))
    measured["reading_ease"] = ease
    if ease is not None and ease < 30:
        findings.append(Finding("", "reading_ease", "readability", "minor",
                                f"Use shorter sentences and plainer words: the reading ease is "
                                f"{ease:g} (under 30 is hard for most readers)."))  # fmt: skip
    return findings, measured


def _length(title: str, goal: str, words: int, target: int) -> list[Finding]:
    aim = f" on its goal ({goal.rstrip('.')})" if goal else ""
    if words < 0.5 * target:
        return [Finding(title, "short", "completeness", "major",
                        f'Develop "{title}": it has {words} words of about {target} wanted; add '
                        f"two or three sentences{aim}.")]  # fmt: skip
    if words < 0.75 * target:
        return [
            Finding(
                title,
                "short",
                "completeness",
                "minor",
                f'Add a sentence or two to "{title}" ({words} words of about {target}){aim}.',
            )
        ]
    if words > 3 * target:
        return [
            Finding(
                title,
                "long",
                "readability",
                "minor",
                f'Shorten "{title}": {words} words where about {target} were planned.',
            )
        ]
    return []


def _example(title: str, body: str) -> list[Finding]:
    concrete = (_EXAMPLE.search(body) or re.search(r"\d", body)
                or re.search(r"(?<=[a-z,;] )[A-Z][a-z]+", body))  # fmt: skip
    if concrete:
        return []
    return [
        Finding(
            title,
            "example",
            "completeness",
            "major",
            f'Give "{title}" one concrete example: a named person, place, work or number.',
        )
    ]


def _meta(title: str, said: list[str]) -> list[Finding]:
    for sentence in said:
        if _META.search(_masked(sentence)):
            return [Finding(title, "meta", "structure", "major",
                            f'Delete "{_quote(sentence)}" from "{title}": it talks about the '
                            "writing, not the topic.")]  # fmt: skip
    return []


def _filler(title: str, said: list[str]) -> list[Finding]:
    for sentence in said:
        if match := _FILLER.search(_masked(sentence)):
            return [Finding(title, "filler", "readability", "minor",
                            f'In "{title}", replace the stock phrase "{match.group(0)}" with '
                            "what you mean, in plain words.")]  # fmt: skip
    return []


def _repeats(title: str, said: list[str], seen: dict[str, str]) -> list[Finding]:
    found: list[Finding] = []
    for sentence in said:
        key = normalize(sentence)
        if len(key.split()) < 5 and not _cjk(sentence):
            continue
        if key in seen and not found:
            where = "earlier in this section" if seen[key] == title else f'in "{seen[key]}"'
            found.append(Finding(title, "repeat_sentence", "readability", "major",
                                 f'Delete the repeated sentence "{_quote(sentence)}" from '
                                 f'"{title}": it already stands {where}.'))  # fmt: skip
        seen.setdefault(key, title)
    return found


def _long_sentences(title: str, said: list[str]) -> list[Finding]:
    longest = max(said, key=lambda s: len(s.split()), default="")
    count = len(longest.split())
    if count <= LONG_SENTENCE or _cjk(longest):
        return []
    opening = " ".join(longest.split()[:6])
    return [Finding(title, "long_sentence", "readability", "minor",
                    f'Split the {count}-word sentence in "{title}" that begins "{opening}..." '
                    "into two.")]  # fmt: skip


def _off_topic(title: str, said: list[str], topic: set[str]) -> list[Finding]:
    """A section most of whose sentences share no content word with the task, its title and its
    goal has drifted; the first such sentence is named."""
    if len(said) < 2 or not topic:
        return []
    away = [s for s in said if not (content_stems(s) & topic)]
    if len(away) * 2 <= len(said):
        return []
    return [Finding(title, "off_topic", "completeness", "major",
                    f'Bring "{title}" back to its topic: "{_quote(away[0])}" and '
                    f"{len(away) - 1} more sentence(s) say nothing about it.")]  # fmt: skip


def _uncited(title: str, said: list[str], evidence: list[dict[str, Any]]) -> list[Finding]:
    if not evidence:
        return []
    ids = ", ".join(f"[{e['id']}]" for e in evidence[:3])
    own = {e["id"][1:] for e in evidence}  # an outside article cites its evidence `[3]` (citations.py)
    for sentence in said:
        factual = re.search(r"\d", sentence) or re.search(r"(?<=[a-z,;] )[A-Z][a-z]+", sentence)
        if factual and not cited_ids(sentence, own):
            return [Finding(title, "uncited", "accuracy", "major",
                            f'Cite the passage that supports "{_quote(sentence)}" in "{title}" '
                            f"({ids}), or cut the claim.")]  # fmt: skip
    return []


def contradicted_findings(claims: list[dict[str, Any]]) -> list[Finding]:
    """A major accuracy finding for each claim its source contradicts (one per sentence), the
    passage's sentence quoted: what the writer must correct or remove."""
    out, seen = [], set()
    for claim in claims:
        if claim.get("verdict") != "contradicted" or claim["sentence"] in seen:
            continue
        seen.add(claim["sentence"])
        said = f"; the source says: “{_quote(claim['quote'], 200)}”" if claim.get("quote") else ""
        out.append(Finding(claim.get("section") or "", "contradicted", "accuracy", "major",
                           f'Correct or remove "{_quote(claim["sentence"], 140)}": [{claim["source"]}] '
                           f"contradicts it ({claim['reason']}{said})."))  # fmt: skip
    return out


# --- the score ------------------------------------------------------------------------------


def score_findings(findings: list[Finding], accuracy_checked: bool) -> tuple[float, dict[str, float]]:
    """The overall score and the dimensions, from the findings (the formula in the docstring)."""
    lost: dict[tuple[str, str], float] = {}
    for f in findings:
        key = (f.dimension, f.check)
        lost[key] = min(CHECK_CAP, lost.get(key, 0.0) + (MAJOR if f.severity == "major" else MINOR))
    dims = {d: max(0.0, 10.0 - sum(v for (dim, _), v in lost.items() if dim == d)) for d in DIMENSIONS}
    if not accuracy_checked:
        others = [dims[d] for d in DIMENSIONS if d != "accuracy"]
        dims["accuracy"] = sum(others) / len(others)
    dims = {d: round(v, 1) for d, v in dims.items()}
    overall = round(max(0.0, 10.0 - sum(lost.values())), 1)
    if any(f.severity == "major" for f in findings):
        overall = min(overall, MAJOR_CEILING)
    return overall, dims


def checklist_review(
    task: str,
    text: str,
    outline: list[dict[str, Any]],
    target_words: int,
    evidence: list[list[dict[str, Any]]] | None = None,
    open_items: list[dict[str, Any]] | None = None,
    claims: list[dict[str, Any]] | None = None,
) -> dict[str, Any]:
    """A review in the critic's shape (score, dimensions, feedback, improvements, addressed),
    each improvement carrying the `check` that found it; earlier checklist improvements whose
    (section, check) is no longer found are `addressed`. `claims`: code's verdicts on the
    cited claims (`sources.verify.judge`); each contradicted one is a major finding, its quote
    beside it, and the review carries them all."""
    findings, measured = review_article(task, text, outline, target_words, evidence)
    findings = contradicted_findings(claims or []) + findings
    sourced = any(evidence or [])
    score, dims = score_findings(findings, accuracy_checked=sourced)
    ranked = sorted(findings, key=lambda f: f.severity != "major")
    shown = ranked[:MAX_FINDINGS]
    majors = sum(f.severity == "major" for f in findings)
    parts = [f"Checklist review (rules that measure the text, not a reader's judgement): "
             f"{measured['words']} words in {len(outline)} sections, about {target_words} wanted "
             f"per section; {majors} major and {len(findings) - majors} minor findings."]  # fmt: skip
    if shown:
        parts.append(f"First to fix: {shown[0].issue}")
    else:
        parts.append("Every check passes: the sections have their length, an example each, no "
                     "repetition and no text about the writing itself.")  # fmt: skip
    parts.append("Uncited facts were checked against the run's sources." if sourced else
                 "Accuracy is not checked: the run has no sources.")  # fmt: skip
    still = {(f.section, f.check) for f in findings}
    addressed = [c["id"] for c in open_items or []
                 if c.get("check") and (c.get("section", ""), c["check"]) not in still]  # fmt: skip
    return {
        "score": score,
        "dimensions": dims,
        "feedback": " ".join(parts),
        "improvements": [
            {
                "section": f.section,
                "issue": f.issue,
                "severity": f.severity,
                "dimension": f.dimension,
                "check": f.check,
            }
            for f in shown
        ],  # fmt: skip
        "addressed": addressed,
        "claims": list(claims or []),
        "search_queries": [],
        "measured": measured,
    }
