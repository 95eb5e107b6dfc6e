"""Checking cited claims against the passages they cite (CRITIC: a critique grounded in the tool's
evidence, not in the critic's belief).

Who decides what. The critic judges entailment: for each claim (`C1 … Cn`, see
`writing.claims`) and each source it cites, supported, unsupported or contradicted, quoting the
passage's sentence that decides it. Code finds contradictions and shows what it cannot verify:
`check(sentence, passage)` returns `(verdict, reason)`, the verdict one of

- `contradicted`: the passage says otherwise — a denial on either side (`polarity`), an opposite
  word, a different number or date in the same place ("sank in 1913" for "sank in 1912"), or
  another person of the same surname ("Pierre Curie" for "Marie Curie");
- `unverified`: the sentence holds a name or a number the passage holds in no form (an
  inference or a fabrication: code cannot tell them apart, the reader decides);
- `consistent`: code found nothing against it. Never "supported": code does not judge
  entailment.

Each (claim, cited id) gets one record, stored in the review (`review["claims"]`) and read
unchanged by every output (References, the artifact, `show`, the exports):

    claim     "C2": the claim's id in the article
    sentence  the claim as the article says it (citations and emphasis removed)
    source    "S1": the cited id
    section   the section's title ("" outside any)
    verdict   the final verdict (`final_verdict`), one of `writing.rubric.VERDICTS`:
              contradicted  code or the critic found the passage says otherwise (blocks a pass)
              unsupported   the critic found the passage does not say it (an improvement)
              unverified    code found a name or number the passage lacks ("not in the passage:
                            England"); shown and counted, blocks nothing
              supported     the critic found the passage says it, and code found nothing against
              consistent    no critic judged it (the checklist; a claim the critic skipped) and
                            code found nothing against it
    by        who decided the verdict: "critic", "check" or "critic and check"
    reason    why, in the deciding side's words
    quote     the passage sentence that decides it ("" when none carries the claim)
    critic    the critic's own verdict (supported / unsupported / contradicted), None if none
    check     code's verdict (contradicted / unverified / consistent) and
    check_reason  its reason
    missing   the sentence's names and numbers the passage holds in no form (["England"])

Verdicts are paired to claims by id; a verdict on an id the article lacks is dropped."""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from difflib import SequenceMatcher
from typing import Any

from reflectcli.sources.english import greeting
from reflectcli.sources.mirror import mirrored
from reflectcli.sources.names import missing_names, namesakes, renamed
from reflectcli.sources.opposites import opposite
from reflectcli.sources.polarity import passage_denies, sentence_denies, units
from reflectcli.sources.quantities import mispaired, missing_numbers, renumbered, signed_after
from reflectcli.sources.turns import said_by_another, unlabelled, utterances
from reflectcli.sources.words import terms
from reflectcli.writing.citations import CITATION
from reflectcli.writing.claims import claims_in, pieces, sentences, states_something
from reflectcli.writing.textops import normalize

__all__ = ["attribute", "check", "examine", "final_verdict", "judge", "verbatim"]
CARRIERS = 3  # passage sentences, the best carrying first, compared for a contradiction
NEAR = 0.6  # ... each holding this share of the words the best one holds
VERBATIM_TERMS = 0.9  # share of the claim's content words a near-verbatim passage sentence holds
VERBATIM_ORDER = 0.7  # and the word-order likeness (difflib ratio over words) it must reach


def _share(sentence_terms: list[str], passage: str) -> float:
    have = set(terms(passage))
    return sum(1 for t in sentence_terms if t in have) / len(sentence_terms) if sentence_terms else 0.0


def _ranked(sentence: str, passage: str) -> list[tuple[int, str]]:
    """The passage sentences that state something, with how many of `sentence`'s words
    (content-word stems; CJK pairs of characters; a transcript's labels left out) each holds,
    the most first and, on a tie, the turn of a speaker `sentence` names, then the densest (the
    fewest other words) first."""
    wanted = units(sentence)
    scored = []
    for s in utterances(passage):
        if states_something(s) and not greeting(said := unlabelled(s, passage)):
            # (a greeting, "Have a nice weekend!", says nothing is so)
            have = units(said)  # a speaker's label is no word of what is said ...
            # ... but breaks a tie: the turn of the speaker a claim names
            named = len(wanted & (units(s) if said != s else have))
            scored.append((len(wanted & have), named, -len(have - wanted), s))
    return [(n, s) for n, _, _, s in sorted(scored, key=lambda x: (-x[0], -x[1], -x[2]))]


def carrying(sentence: str, passage: str) -> list[str]:
    """The passage sentences that hold the most of `sentence`'s words (ties all kept, the
    densest first); none when no passage sentence holds any. A question asserts nothing."""
    ranked = _ranked(sentence, passage)
    best = ranked[0][0] if ranked else 0
    return [s for n, s in ranked if n == best] if best else []


def _carriers(sentence: str, passage: str) -> list[str]:
    """The passage sentences compared for a contradiction: those holding at least `NEAR` of
    the most any holds (one word at least), `CARRIERS` at most: a claim often says what two
    sentences of its passage say."""
    ranked = _ranked(sentence, passage)
    best = ranked[0][0] if ranked else 0
    return [s for n, s in ranked if n >= max(1, NEAR * best)][:CARRIERS]


def _quoted_short(text: str, limit: int = 200) -> str:
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


@dataclass
class Finding:
    """Code's verdict on a sentence against a passage, with the passage sentence that decides it
    and the sentence's names and numbers the passage holds in no form."""

    verdict: str
    reason: str
    quote: str = ""
    missing: list[str] = field(default_factory=list)

    @property
    def pair(self) -> tuple[str, str]:
        return self.verdict, self.reason


# where a claim joins two statements ("… and then Blake might be able to …"), each of which a
# sentence of its own may carry: a clause, a subject of up to four words and its verb after it
_JOINED = re.compile(r";\s*|,?\s+(?:and then|and|but|while|whereas|so)\s+"
                     r"(?=(?:[A-Za-z']+\s+){1,4}(?:is|was|are|were|has|have|had|will|would|can|could|might|may|did|"
                     r"does|do|\w+ed|\w+s)\b)", re.I)  # fmt: skip


JOINED = 8  # statements of one claim compared so, at most (a hostile claim joins thousands)


def _opposable(sentence: str, said: list[str], passage: str) -> Iterator[tuple[str, str]]:
    """(what of `sentence`, the passage sentence) compared for an opposite word: the sentence
    and each of the carriers `said`; then each statement a claim joins ("… and then …") and the
    passage sentence that carries it best (tenth pass: a claim's second
    statement ranked out of the three: DialogSum dev opposite words +3 on each side, no tuned set
    lost one or gained a false contradiction)."""
    yield from ((sentence, carrier) for carrier in said)
    for part in _JOINED.split(sentence)[:JOINED] if _JOINED.search(sentence) else []:
        for carrier in [unlabelled(s, passage) for s in _carriers(part, passage)[:1]]:
            yield part, carrier  # one of `said` too: the claim's other statement hid the word's place


def _contradiction(
    sentence: str, carriers: list[str], passage: str, numbers: list[str]
) -> tuple[str, str] | None:
    """Why the passage says otherwise than `sentence`, and the passage sentence that says it."""
    said = [unlabelled(s, passage) for s in _carriers(sentence, passage)]  # "Blake: No!" says "No!"
    heard = [s for s in said if not said_by_another(sentence, s, passage)]  # "Blake: I don't think so"
    if found := passage_denies(sentence, heard):
        return f"the passage denies it ({found[1]}): “{_quoted_short(found[0])}”", found[0]
    if found := sentence_denies(sentence, said, passage):
        return f"the sentence denies what the passage says ({found[1]}): “{_quoted_short(found[0])}”", found[
            0
        ]
    if found := mirrored(sentence, said):
        return f"one side says it with {found[1]!r} denied: “{_quoted_short(found[0])}”", found[0]
    for part, carrier in _opposable(sentence, said, passage):
        if (flip := opposite(part, carrier)) and not (
            signed_after(flip[0], part) or signed_after(flip[1], carrier)
        ):
            shown = _quoted_short(carrier)
            return f"the sentence says “{flip[0]}” where the passage says “{flip[1]}”: “{shown}”", carrier
    if not carriers:
        return None
    carrier = carriers[0]
    shown = _quoted_short(carrier)
    # a number the carrier lacks, though the passage may hold it elsewhere ("Part 2" / "Part 5")
    unheld = missing_numbers(sentence, carrier)
    if unheld and (changed := renumbered(sentence, carrier, unheld, utterances(passage))):
        return f"the passage says {changed[1]} where the sentence says {changed[0]}: “{shown}”", carrier
    if paired := mispaired(sentence, carrier):
        return f"the passage says “{paired[1]}” where the sentence says “{paired[0]}”: “{shown}”", carrier
    return None


# what a reader of the passage never sees: an HTML comment (Markdown keeps them), to the end when
# it is not closed. A hidden "<!-- The tool does not read files. -->" excused a claim's denial of
# what the visible text says (twelfth pass, a hostile passage)
_HIDDEN = re.compile(r"<!--(?:-?>|.*?--!?>|.*\Z)", re.S)  # HTML also closes one at <!--> and --!>
# ... the tags of inline HTML, whose words a reader sees without them ("<b>Do not</b> read files."
# is "Do not read files.": thirteenth pass) ...
_INLINE_TAG = re.compile(
    r"</?(?:b|i|em|strong|u|s|span|a|code|mark|small|sup|sub|font|br)\b[^<>]{0,500}?/?>", re.I
)
# ... and characters that show nothing: zero-width spaces and joiners, a soft hyphen, a BOM, bidi
# marks ("1\u200b,500" reads 1,500 and was no number the claim's 1,200 differs from)
_INVISIBLE = re.compile(
    "[\u00ad\u034f\u061c\u180e\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufe00-\ufe0f\ufeff"
    "\U000e0000-\U000e007f]"
)


# ... and an apostrophe as a typesetter writes it: "doesn’t" is "doesn't" (thirteenth pass: a
# capable model's and a web page's curly apostrophe hid every "n’t" on both sides)
_APOSTROPHE = str.maketrans({"\u2019": "'", "\u02bc": "'", "\uff07": "'", "\u00b4": "'", "\u2032": "'"})
# ... and, in a claim, a denial written without its apostrophe before a word: "The us doesnt have
# enough beds" is "doesn't have" (twenty-second pass, COVID-Fact's post titles; not "cant" or "wont"
# before a full stop, nouns of their own)
_BARE_NT = re.compile(r"\b(do|does|did|is|was|are|were|has|have|had|could|would|should|must|need|ca|wo|ai)"
                      r"nt(?=\s+[a-z])", re.I)  # fmt: skip


# ... and Markdown's emphasis marks, read as the words they hold: "does __not__ work", 这是一件**不**幸
# 的事 (twentieth pass; `*` where no digit stands beside it, so 2*3*4 keeps its numbers; `_` not
# inside an English word, as CommonMark reads them: snake_case_name stays; nothing inside a code
# span, which shows as written: `__not__`)
EMPHASIS = 300  # characters (a clause: a negation's `REACH`)
_EMPHASIS = re.compile(  # (at most `EMPHASIS` characters emphasised: "*a " 16,000 times took 5 s)
    rf"(`{{1,3}})[^\n]{{0,{EMPHASIS}}}?\1"
    rf"|(?<![0-9*])(\*{{1,3}})(?=[^\s*])([^\n]{{0,{EMPHASIS}}}?[^\s*])\2(?![0-9*])"
    rf"|(?<![A-Za-z0-9_])(_{{1,3}})(?=[^\s_])([^\n]{{0,{EMPHASIS}}}?[^\s_])\4(?![A-Za-z0-9_])"
)


def _unemphasized(text: str) -> tuple[str, list[int] | None]:
    """`text` without its emphasis marks, and where each character of it stands in `text` (None
    when nothing was taken out)."""
    if "*" not in text and "_" not in text:
        return text, None
    out: list[str] = []
    where: list[int] = []
    at = 0
    for match in _EMPHASIS.finditer(text):
        if match.group(1):
            continue  # a code span: kept as written, with the text after it
        group = 3 if match.group(3) is not None else 5
        out += [text[at : match.start()], match.group(group)]
        where += [*range(at, match.start()), *range(match.start(group), match.end(group))]
        at = match.end()
    if not where:
        return text, None
    out.append(text[at:])
    where += range(at, len(text))
    return "".join(out), where


def examine(sentence: str, passage: str) -> Finding:
    """Code's verdict on `sentence` against `passage` (see the module docstring), read as a
    reader sees it: without HTML comments, inline tags and characters that show nothing, an
    apostrophe as a straight one, Markdown's emphasis marks left out; its quote as the passage
    writes it."""
    if "<" in passage:
        passage = _INLINE_TAG.sub("", _HIDDEN.sub(" ", passage))
    sentence = _unemphasized(_INVISIBLE.sub("", sentence).translate(_APOSTROPHE))[0]
    seen = _INVISIBLE.sub("", passage)
    passage, where = _unemphasized(seen.translate(_APOSTROPHE))  # (the same length as `seen`)
    found = _examined(_BARE_NT.sub(r"\1n't", sentence), passage)  # ("**doesnt** have": marks first)
    if passage != seen and found.quote and (at := passage.find(found.quote)) >= 0:
        start, end = at, at + len(found.quote)
        if where is not None:
            start, end = where[start], where[end - 1] + 1
            while start and seen[start - 1] in "*_":  # the marks around a quote that opens or ends
                start -= 1  # on an emphasised word
            while end < len(seen) and seen[end] in "*_":
                end += 1
        quote = seen[start:end]  # quoted as the passage writes it
        return replace(found, reason=found.reason.replace(found.quote, quote), quote=quote)
    return found


def _examined(sentence: str, passage: str) -> Finding:
    numbers = missing_numbers(sentence, passage)
    names = missing_names(sentence, passage)
    carriers = carrying(sentence, passage)
    quote = carriers[0] if carriers else ""
    # a number a missing name holds is named once, in the name ("Covid-19", not "19, Covid-19")
    inside = {d for m in names for d in re.findall(r"\d+(?:\.\d+)?", m)}
    lacking = [n for n in numbers if n not in inside] + names
    if found := _contradiction(sentence, carriers, passage, numbers):
        return Finding("contradicted", found[0], found[1], lacking)
    if names and (other := namesakes(sentence, passage)):
        mine, theirs = other[0]
        return Finding("contradicted", f"the passage names {theirs}, not {mine}", quote, lacking)
    # another name in the place of one the passage holds in no form ("born in Mainz" / "born in
    # Strasbourg"): a different person or place in the same role (thirteenth pass)
    for carrier in _carriers(sentence, passage) if names else []:
        if placed := renamed(sentence, carrier, names):
            return Finding("contradicted", f"the passage names {placed[1]} where the sentence names "
                           f"{placed[0]}: “{_quoted_short(carrier)}”", carrier, lacking)  # fmt: skip
    if lacking:
        return Finding("unverified", f"not in the passage: {', '.join(lacking[:4])}", quote, lacking)
    share = _share(list(dict.fromkeys(terms(sentence))), passage)
    return Finding("consistent", f"nothing in the passage says otherwise; it holds {share:.0%} of the "
                   "sentence's words", quote)  # fmt: skip


def check(sentence: str, passage: str) -> tuple[str, str]:
    """Code's verdict on `sentence` against `passage` and why: `contradicted`, `unverified` or
    `consistent` (the module docstring says what each means)."""
    return examine(sentence, passage).pair


def final_verdict(critic: str | None, code: str) -> tuple[str, str]:
    """The one rule that combines the critic's verdict (supported / unsupported / contradicted,
    None when it gave none) with code's (contradicted / unverified / consistent) into a claim's
    final verdict, and who decided it. A contradiction wins whoever found it; the critic's
    unsupported stands; a name or number the passage lacks makes a supported claim unverified."""
    if code == "contradicted":
        return "contradicted", "critic and check" if critic == "contradicted" else "check"
    if critic == "contradicted":
        return "contradicted", "critic"
    if critic == "unsupported":
        return "unsupported", "critic"
    if code == "unverified":
        return "unverified", "check"
    if critic == "supported":
        return "supported", "critic"
    return "consistent", "check"


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
        if check(sentence, candidate)[0] == "consistent":
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
    """One record per (claim, cited id) of `text` (the module docstring lists its fields): code's
    check and the critic's verdict (by claim id; none for the checklist) combined by
    `final_verdict`. Ids the run does not hold are skipped (they were removed before the text
    was kept)."""
    passages = {e["id"]: e["text"] for e in evidence}
    if not passages:  # nothing a claim could cite: no sentence needs segmenting
        return []
    said = _by_id(critic, claims := claims_in(text, titles))
    records = []
    for claim in claims:
        for ident in claim["ids"]:
            if (passage := passages.get(ident)) is None:
                continue
            found = examine(claim["sentence"], passage)
            given = said.get((claim["id"], ident))
            opinion = given["verdict"] if given else None
            verdict, by = final_verdict(opinion, found.verdict)
            quote = found.quote
            if by == "critic":
                reason = (given or {}).get("reason") or f"the critic found it {verdict}"
                if given and _quoted(given.get("quote") or "", passage):
                    quote = given["quote"]
            elif by == "critic and check":
                said_why = (given or {}).get("reason") or "the critic found it contradicted"
                reason = f"{said_why}; {found.reason}"
            else:
                reason = found.reason
                if verdict == "unverified" and opinion == "supported":
                    reason = f"the critic said supported, but {found.reason}"
                elif verdict == "consistent" and (same := verbatim(claim["sentence"], passage)):
                    reason, quote = "a passage sentence says nearly the same", same
            records.append({"claim": claim["id"], "sentence": claim["sentence"], "source": ident,
                            "section": claim["section"], "verdict": verdict, "by": by, "reason": reason,
                            "quote": quote, "critic": opinion, "check": found.verdict,
                            "check_reason": found.reason, "missing": found.missing})  # fmt: skip
    return records


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
                    tail = re.search(r"[.!?。！？]*\s*$", sentence)  # (it matches: at least the end)
                    end = tail.start() if tail else len(sentence)
                    parts[i] = f"{sentence[:end]} [{item['id']}]{sentence[end:]}"
                    added.append(item["id"])
                    break
        lines[n] = "".join(parts)
    return "\n".join(lines), added
