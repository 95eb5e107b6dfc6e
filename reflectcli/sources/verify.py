"""Checking cited claims against the passages they cite (CRITIC: a critique grounded in the tool's
evidence, not in the critic's belief).

Who decides what. The critic judges entailment: for each claim (`C1 … Cn`, see
`writing.claims`) and each source it cites, supported, unsupported or contradicted, quoting the
passage's sentence that decides it. Code keeps a veto on hard facts only (`check`): a claim the
critic calls supported is unsupported when the passage does not hold its numbers (as values:
"3.5 %" is not "5.3 %", "$30" is not "30 florins"), holds its names in no form, or says the
opposite (a negation, or an opposite word, in the passage sentences that carry the claim's
terms: a claim that denies is judged on the clause carrying its words, and a negation the
passage says too is no clash). A share of content words is reported, never used to veto:
real writers paraphrase.
Verdicts are paired to claims by id; a claim the critic skipped is `unjudged` unless a passage
sentence says nearly the same thing verbatim (then code calls it supported, quoting it)."""

from __future__ import annotations

import re
from difflib import SequenceMatcher
from typing import Any

from reflectcli.sources.facts import missing_names, missing_numbers, opposite, polarity_clash, terms
from reflectcli.writing.citations import CITATION
from reflectcli.writing.claims import claims_in, pieces, sentences, states_something
from reflectcli.writing.textops import CJK, normalize

VERDICTS = ("supported", "unsupported", "contradicted", "unjudged")
VERBATIM_TERMS = 0.9  # share of the claim's content words a near-verbatim passage sentence holds
VERBATIM_ORDER = 0.7  # and the word-order likeness (difflib ratio over words) it must reach


def _share(sentence_terms: list[str], passage: str) -> float:
    have = set(terms(passage))
    return sum(1 for t in sentence_terms if t in have) / len(sentence_terms) if sentence_terms else 0.0


def carrying(sentence: str, passage: str) -> list[str]:
    """The passage sentences that hold the most of `sentence`'s content words (ties all kept);
    none when no passage sentence holds any. A question in the passage asserts nothing."""
    wanted = set(terms(sentence))
    scored = [(len(wanted & set(terms(s))), s) for s in sentences(passage) if states_something(s)]
    best = max((n for n, _ in scored), default=0)
    return [s for n, s in scored if n == best] if best else []


_CLAUSE = re.compile(r"[,;:，；：]|\s(?:but|while|whereas|although)\s", re.I)


def _clause(sentence: str, carrier: str) -> str:
    """The clause of `carrier` that holds the most of `sentence`'s words (CJK: pairs of
    characters): the one a negation elsewhere in `carrier` does not reach."""
    wanted = set(terms(sentence)) | _pairs(sentence)
    parts = [p for p in _CLAUSE.split(carrier) if p and p.strip()]
    return max(parts, key=lambda p: len(wanted & (set(terms(p)) | _pairs(p))), default=carrier)


def _pairs(text: str) -> set[str]:
    chars = [ch for ch in text if CJK.match(ch)]
    return {a + b for a, b in zip(chars, chars[1:], strict=False)}


def _polarity(sentence: str, carriers: list[str], passage: str = "") -> str | None:
    """Why the claim's polarity differs from the passage sentences that carry it, or None: a
    negation on one side denying what the other asserts (in every carrying sentence, judged on
    its clause that carries the claim), or an opposite word ("decreased" where the claim says
    "increased")."""
    if not carriers:
        return None
    clashes = [polarity_clash(sentence, c, _clause(sentence, c), passage) for c in carriers]
    if all(clashes):
        if clashes[0] == "sentence":
            return f"the sentence denies what the passage asserts: “{carriers[0]}”"
        return f"the passage denies it: “{carriers[0]}”"
    flips = [opposite(sentence, c) for c in carriers]
    if all(flips):
        mine, theirs = flips[0]
        return f"the sentence says “{mine}” where the passage says “{theirs}”: “{carriers[0]}”"
    return None


def check(sentence: str, passage: str) -> tuple[str, str]:
    """The veto on hard facts: `unsupported` and why when the passage lacks the sentence's
    numbers or names or says the opposite; else `supported` (no hard fact disagrees)."""
    if numbers := missing_numbers(sentence, passage):
        return "unsupported", f"the passage does not hold {', '.join(numbers[:3])}"
    if names := missing_names(sentence, passage):
        return "unsupported", f"the passage does not mention {', '.join(names[:3])}"
    if flipped := _polarity(sentence, carrying(sentence, passage), passage):
        return "unsupported", flipped
    share = _share(list(dict.fromkeys(terms(sentence))), passage)
    return "supported", f"no number, name or polarity disagrees; the passage holds {share:.0%} of its words"


def verbatim(sentence: str, passage: str) -> str | None:
    """The passage sentence that says nearly the same as `sentence` (its words, nearly in its
    order, with the same numbers, names and polarity), or None."""
    wanted = list(dict.fromkeys(terms(sentence)))
    words = normalize(sentence).split()
    for candidate in sentences(passage):
        if _share(wanted, candidate) < VERBATIM_TERMS:
            continue
        if SequenceMatcher(None, words, normalize(candidate).split()).ratio() < VERBATIM_ORDER:
            continue
        if check(sentence, candidate)[0] == "supported":
            return candidate
    return None


def _quoted(quote: str, passage: str) -> bool:
    return bool(normalize(quote)) and normalize(quote) in normalize(passage)


def _by_id(critic: list[dict[str, Any]], claims: list[dict[str, Any]]) -> dict[tuple[str, str], dict]:
    """The critic's verdicts keyed by (claim id, source id); a verdict without a source applies
    to a claim that cites one source. Verdicts on ids the article lacks are dropped."""
    cites = {c["id"]: c["ids"] for c in claims}
    said: dict[tuple[str, str], dict] = {}
    for item in critic:
        ident = item.get("claim") or ""
        if ident not in cites:
            continue
        source = item.get("source") or (cites[ident][0] if len(cites[ident]) == 1 else "")
        if source in cites[ident]:
            said.setdefault((ident, source), item)
    return said


def judge(
    text: str, titles: list[str], evidence: list[dict[str, Any]], critic: list[dict[str, Any]]
) -> list[dict[str, Any]]:
    """One verdict per (claim, cited id) of `text`, with the passage sentence that decides it:
    the critic's (by claim id), vetoed in code on hard facts; unjudged when the critic skipped
    it. Ids the run does not hold are skipped (they were removed before the text was kept)."""
    passages = {e["id"]: e["text"] for e in evidence}
    if not passages:  # nothing a claim could cite: no sentence needs segmenting
        return []
    said = _by_id(critic, claims := claims_in(text, titles))
    verdicts = []
    for claim in claims:
        for ident in claim["ids"]:
            if (passage := passages.get(ident)) is None:
                continue
            code, why = check(claim["sentence"], passage)
            carriers = carrying(claim["sentence"], passage)
            quote = carriers[0] if carriers else ""
            given = said.get((claim["id"], ident))
            if code != "supported":
                verdict, reason, by = "unsupported", why, "check"
                if given and given["verdict"] == "contradicted":
                    verdict, reason, by = "contradicted", given.get("reason") or why, "critic"
                elif given and given["verdict"] == "supported":
                    reason = f"the critic said supported, but {why}"
            elif given is not None:
                verdict, reason, by = given["verdict"], given.get("reason") or "", "critic"
                if _quoted(given.get("quote") or "", passage):
                    quote = given["quote"]
            elif same := verbatim(claim["sentence"], passage):
                verdict, reason, by, quote = (
                    "supported",
                    "a passage sentence says nearly the same",
                    "check",
                    same,
                )
            else:
                verdict, reason, by = "unjudged", "the critic did not judge this claim", "none"
            verdicts.append({"claim": claim["id"], "sentence": claim["sentence"], "source": ident,
                             "verdict": verdict, "reason": reason, "by": by, "quote": quote,
                             "section": claim["section"]})  # fmt: skip
    return verdicts


_HEADING_OR_CODE = re.compile(r"^\s*(#|```|~~~|    |\t|\|)")


def attribute(text: str, evidence: list[dict[str, Any]]) -> tuple[str, list[str]]:
    """Cite, in code, what a writer copied without citing: a sentence with no citation gets
    `[Sn]` only when a sentence of passage Sn says nearly the same thing verbatim (`verbatim`),
    never for word overlap alone. For writers too small to cite (the embedded model)."""
    added: list[str] = []
    lines = text.split("\n")
    for n, line in enumerate(lines):
        if not line.strip() or _HEADING_OR_CODE.match(line):
            continue
        parts = pieces(line)
        for i, sentence in enumerate(parts):
            if not sentence.strip() or CITATION.search(sentence):
                continue
            bare = re.sub(r"^\s*(?:[-*+]|\d+[.)])\s+", "", sentence)
            for item in evidence:
                if verbatim(bare, item["text"]):
                    end = re.search(r"[.!?。！？]*\s*$", sentence).start()
                    parts[i] = f"{sentence[:end]} [{item['id']}]{sentence[end:]}"
                    added.append(item["id"])
                    break
        lines[n] = "".join(parts)
    return "\n".join(lines), added
