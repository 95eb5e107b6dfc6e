"""The shared report: one model of a run's article, built once from its state and rendered by
the html, pdf and docx exports (and summarised in the json one), so that all of them carry the
same sections, citations, verdicts, References and known issues.

The article's blocks (output/article.py: headings, paragraphs, lists, tables, quotations, code,
their inline `Span`s) hold plain text with its marks; nothing of the article is markup any more,
so each renderer escapes for its own medium. A cited sentence the critic and the check judged is
a `Segment` of its paragraph carrying its `Claim`: the verdicts of each source it cites, with
the passage sentence quoted for it.

`VERDICTS` is the one table from a verdict to its label, colour, mark and weight; a verdict it does
not know is shown as it is, in a neutral colour."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from reflectcli.output import rows
from reflectcli.output.article import (  # noqa: F401  (the article's blocks, for the renderers)
    Code,
    Heading,
    ListBlock,
    Paragraph,
    Quote,
    Rule,
    Segment,
    Span,
    Table,
    is_web,
    lay_out,
    plain,
    sentence_text,
)  # fmt: skip
from reflectcli.output.artifacts import run_status
from reflectcli.output.summary import summarize
from reflectcli.writing.citations import run_labels
from reflectcli.writing.languages import language_code
from reflectcli.writing.rubric import score_words

# --- verdicts --------------------------------------------------------------------------------


@dataclass(frozen=True)
class Verdict:
    """How a verdict is shown: `label` in words, a quiet `colour`, a `mark` beside the sentence,
    and a `weight`: a sentence citing several sources shows its heaviest verdict."""

    name: str
    label: str
    colour: str
    mark: str
    weight: int


VERDICTS: dict[str, Verdict] = {
    v.name: v
    for v in (
        # the critic's verdicts, and code's (consistent / unverified / contradicted)
        Verdict("supported", "supported by the source", "#2e7d32", "✓", 0),
        Verdict("consistent", "consistent with the source", "#2e7d32", "✓", 0),
        Verdict("unsupported", "not supported by the source", "#a15c00", "?", 2),
        Verdict("unverified", "not verified in the source", "#a15c00", "?", 2),
        Verdict("unjudged", "not judged", "#666666", "·", 1),
        Verdict("contradicted", "contradicted by the source", "#b3261e", "✗", 3),
    )
}
NEUTRAL = "#666666"
_KANA = re.compile(r"[\u3040-\u30ff]")
_HANGUL = re.compile(r"[\uac00-\ud7af]")


def verdict(name: str) -> Verdict:
    """The way `name` is shown; a verdict the table does not know is shown as it is."""
    return VERDICTS.get(name) or Verdict(name, name or "no verdict", NEUTRAL, "•", 1)


# --- the model -------------------------------------------------------------------------------


@dataclass
class Check:
    """One source's verdict on a claim: the References entry, the verdict and the passage
    sentence quoted for it."""

    anchor: str
    label: str
    verdict: str
    quote: str
    reason: str
    by: str


@dataclass
class Claim:
    """A cited sentence of the article and the verdicts of the sources it cites."""

    id: str
    sentence: str
    checks: list[Check] = field(default_factory=list)

    @property
    def verdict(self) -> str:
        """The sentence's verdict: its heaviest source's."""
        return max((c.verdict for c in self.checks), key=lambda v: verdict(v).weight, default="")

    @property
    def anchor(self) -> str:
        return f"claim-{self.id}"


@dataclass
class Reference:
    """One References entry: the ids it is cited by, its title and where it is (a file by its
    name, never its folder), and the claims citing it."""

    anchor: str
    label: str
    title: str
    place: str
    href: str | None
    claims: list[tuple[Claim, Check]]
    ids: tuple[str, ...] = ()  # every id the source is cited by (one page cited as S1 and S3)


@dataclass
class Document:
    title: str
    status: str
    notice: str  # an unfinished run says so on the first page; "" when finished
    meta: list[tuple[str, str]]  # the first page's block: task, models, score, rounds, date ...
    text: str  # the version's Markdown as written
    version: dict[str, Any]
    blocks: list[Any]
    claims: list[Claim]
    references: list[Reference]
    known_issues: list[dict[str, Any]]
    contradicted: list[str]  # the note above References: the claims its sources contradict
    reviews: list[dict[str, Any]]
    decisions: list[dict[str, Any]]
    language: str = ""
    # each review's title and (name, score) rows as rows.review_title / dimension_rows say them
    # (the checklist's: form, an accuracy it did not check as None)
    review_rows: list[tuple[str, list[tuple[str, float | None]]]] = field(default_factory=list)

    @property
    def headings(self) -> list[Heading]:
        return [b for b in self.blocks if isinstance(b, Heading)]

    @property
    def top_level(self) -> int:
        """The article's highest heading level (its sections are usually `##`)."""
        return min((h.level for h in self.headings), default=1)

    @property
    def script(self) -> str | None:
        """`zh`, `ja` or `ko` when the article or its title holds CJK characters (kana: Japanese,
        Hangul: Korean, Han alone: Chinese), else None: what a font must cover."""
        from reflectcli.writing.textops import CJK

        text = self.title + self.text
        if not CJK.search(text):
            return None
        return "ja" if _KANA.search(text) else "ko" if _HANGUL.search(text) else "zh"

    @property
    def legend(self) -> list[Verdict]:
        """The verdicts the article's claims carry, heaviest last."""
        used = {c.verdict for c in self.claims if c.checks}
        return sorted((verdict(v) for v in used), key=lambda v: (v.weight, v.name))

    def summary(self) -> dict[str, Any]:
        """The model as data (the JSON export's `document`)."""
        return {
            "title": self.title,
            "status": self.status,
            "notice": self.notice,
            "meta": dict(self.meta),
            "sections": [plain(h.spans) for h in self.headings],
            "claims": [{"id": c.id, "sentence": c.sentence, "verdict": c.verdict,
                        "checks": [{"source": k.label, "verdict": k.verdict, "quote": k.quote,
                                    "reason": k.reason, "by": k.by} for k in c.checks]}
                       for c in self.claims],
            "references": [{"label": r.label, "title": r.title, "place": r.place,
                            "claims": [c.id for c, _ in r.claims]} for r in self.references],
            "known_issues": [rows.improvement(k, with_id=True) for k in self.known_issues],
        }  # fmt: skip


# --- building it -------------------------------------------------------------------------------


def shared_place(ref: dict[str, Any]) -> str:
    """Where a reference is, for a page others may read: a URL (a web result's snippet too) as
    it is, a file by its path relative to the folder it was added from (never where that folder
    is: the library keeps the shown path), with its page or heading."""
    if ref["kind"] in ("url", "web") or not ref["location"]:
        return ref["place"]
    if not Path(ref["location"]).is_absolute():
        return ref["place"]
    name = Path(ref["location"]).name  # a source added before shown paths were kept
    return ref["place"].replace(ref["location"], name, 1)


def _when(timestamp: float | None) -> str:
    if not timestamp:
        return "unknown"
    return datetime.fromtimestamp(timestamp, UTC).strftime("%Y-%m-%d %H:%M UTC")


def build(
    run: dict[str, Any], state: dict[str, Any], version: dict[str, Any], blocks: bool = True
) -> Document:
    """The report of `version` of a run, from its state; without `blocks`, its headings alone
    stand for the article (what `summary` shows: the JSON export need not lay out the text)."""
    text = version["text"]
    refs = rows.reference_rows(state, text)
    anchor_of = {i: r["id"] for r in refs for i in r.get("ids") or [r["id"]]}
    claims: dict[str, Claim] = {}
    for item in rows._claims_of(state, text):  # the verdicts of this version's latest review
        if item.get("source") not in anchor_of:
            continue
        ident = item.get("claim") or f"C{len(claims) + 1}"
        claim = claims.setdefault(
            item.get("claim") or item["sentence"], Claim(ident, sentence_text(item["sentence"]))
        )
        claim.checks.append(Check(anchor_of[item["source"]], item["source"], item.get("verdict") or "",
                                  item.get("quote") or "", item.get("reason") or "",
                                  item.get("by") or ""))  # fmt: skip
    references = []
    for r in refs:
        ids = set(r.get("ids") or [r["id"]])
        href = r["location"] if r["kind"] in ("url", "web") and is_web(r["location"]) else None
        references.append(Reference(
            r["id"], r.get("label") or r["id"], _one_line(r["title"]), _one_line(shared_place(r)), href,
            [(c, k) for c in claims.values() for k in c.checks if k.label in ids],
            tuple(r.get("ids") or [r["id"]])))  # fmt: skip
    if blocks:
        laid = lay_out(text, anchor_of, list(claims.values()), frozenset(run_labels(state)))
    else:
        from reflectcli.writing.markdown import headings

        laid = [
            Heading(h.level, [Span(sentence_text(h.title))], f"h-{n}")
            for n, h in enumerate(headings(text), 1)
        ]
    return Document(
        title=_one_line(state.get("task", "")),
        status=(status := run_status(state, run)),
        notice=_notice(status, run, version) or _warning(state, version),
        meta=_meta(run, state, version, status),
        text=text,
        version=version,
        blocks=laid,
        claims=list(claims.values()),
        references=references,
        known_issues=list(state.get("known_issues") or []),
        contradicted=[_one_line(line.replace("**", "")) for line in rows.contradiction_note(state, text)],
        reviews=list(state.get("reviews") or []),
        review_rows=[
            (rows.review_title(r, state), rows.dimension_rows(r, state)) for r in state.get("reviews") or []
        ],
        decisions=list(state.get("decisions") or []),
        language=language_code((state.get("params") or {}).get("language"), text),
    )


def _one_line(text: Any) -> str:
    return " ".join(str(text or "").split())


def _warning(state: dict[str, Any], version: dict[str, Any]) -> str:
    """A finished run's output that the run did not pass says so first (graph/rules.py
    `output_warning`); another version of it carries no such line."""
    if version["n"] != state.get("final_version"):
        return ""
    return summarize(state).get("warning") or ""


def _notice(status: str, run: dict[str, Any], version: dict[str, Any]) -> str:
    if status == "finished":
        return ""
    said = {"running": "is still running", "failed": "failed", "interrupted": "was interrupted",
            "waiting": "is waiting for a person's approval"}.get(status, f"is {status}")  # fmt: skip
    what = f"This run {said} and is not finished: this is version {version['n']}, not its final article."
    if status == "failed" and run.get("error"):
        what += f" The error: {_one_line(run['error'])}"
    return what


def _meta(run: dict[str, Any], state: dict[str, Any], version: dict[str, Any],
          status: str) -> list[tuple[str, str]]:  # fmt: skip
    s = summarize(state)
    params = state.get("params") or {}
    review = next((r for r in reversed(state.get("reviews") or []) if r["version"] == version["n"]), None)
    writer = run.get("model") or params.get("model") or "?"
    critic = rows.critic_name({**params, "model": writer}, run.get("critic_model"))
    return [
        ("task", _one_line(state.get("task", ""))),
        ("status", status + (f" (stop reason: {rows.stop_words(s)})" if s["stop_reason"] else "")),
        ("model", f"{writer}; critic {critic}"),
        ("version", f"{version['n']} ({version['kind']})"),
        ("score", score_words(review["score"], review["source"], state) if review else "not reviewed"),
        ("rounds", str(s["rounds"])),
        ("date", _when(run.get("updated_at") or run.get("created_at"))),
        ("thread", str(run.get("thread_id", ""))),
        ("calls / tokens", f"{s['calls']} / {rows.estimated(s['tokens'], s.get('estimated_tokens', 0))}"),
    ]
