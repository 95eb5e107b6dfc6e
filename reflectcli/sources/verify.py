"""Checking cited claims against the passages they cite (CRITIC: a critique grounded in the tool's
evidence, not in the critic's belief).

Every sentence that cites `[Sn]` is a claim. Its verdict comes from the critic when the critic
judged it, but a check in code has the last word on `supported`: the cited passage must hold
the sentence's numbers and names and 90 % of its content words (compared by their
first five letters, so "printed" meets "printing"), and a sentence that denies something
cannot rest on a passage that denies nothing. A claim the critic did not judge (a tiny
model judges none) gets the check's verdict. The check never says `contradicted`: only a critic
that read the passage can."""

from __future__ import annotations

import re
from difflib import SequenceMatcher
from typing import Any

from reflectcli.writing.citations import CITATION, ids_in
from reflectcli.writing.textops import CJK, fold, normalize, section_bodies

VERDICTS = ("supported", "unsupported", "contradicted")
SUPPORT = 0.9  # share of the sentence's content words the passage must hold (0.8 let one
# changed detail through: precision 0.89 on bench_verifier, 1.00 at 0.9 with recall 1.00 → 0.88)
STEM = 5
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+|(?<=[。！？])\s*")
_LIST_ITEM = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s+")
_WORD = re.compile(r"\w+", re.UNICODE)
STOP = frozenset(
    "the and for that with this from were was are has have had its his her their they them "
    "been being which who whom whose what when where while into onto than then there these "
    "those such also but not nor can could would should will may might must very more most "
    "some any each other about after before over under between through during against among "
    "one two many much only just even still yet both either neither our your you she him "
    "how why all out off per via upon within without because however although though".split()
)


def _terms(text: str) -> list[str]:
    """Content words (folded, cut to their stem) and single CJK characters."""
    out = []
    for word in _WORD.findall(text):
        if CJK.search(word):
            out += [ch for ch in word if CJK.match(ch)]
            continue
        folded = fold(word)
        if folded.isdigit() or (len(folded) >= 3 and folded not in STOP):
            out.append(folded[:STEM] if not folded.isdigit() else folded)
    return out


NUMBER_WORDS = frozenset(
    "one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen "
    "sixteen seventeen eighteen nineteen twenty thirty forty fifty sixty seventy eighty ninety "
    "hundred hundreds thousand thousands million millions billion billions first second third "
    "fourth fifth sixth seventh eighth ninth tenth".split()
)


def _keys(sentence: str) -> list[str]:
    """Numbers (in digits or words) and names (capitalised words) the passage must contain."""
    keys = []
    for i, word in enumerate(_WORD.findall(sentence)):
        folded = fold(word)
        if CJK.search(word):  # a run of CJK text: only its numbers are keys
            keys += re.findall(r"\d+", word)
        elif any(ch.isdigit() for ch in word) or folded in NUMBER_WORDS:
            keys.append(folded)
        elif word[:1].isupper() and not word.isupper() and folded not in STOP:
            if i == 0 and folded.endswith(("ing", "ed", "ly")):
                continue  # "Spinning at forty turns...": capitalised because it comes first
            keys.append(folded)
    return keys


NEGATION = re.compile(r"\b(not|never|no|none|nor|neither|nobody|nothing|without)\b|n't\b", re.I)


def _negated(text: str) -> bool:
    return bool(NEGATION.search(text))


def check(sentence: str, passage: str) -> tuple[str, str]:
    """The code's verdict on `sentence` citing `passage`: supported or unsupported, and why."""
    if _negated(sentence) and not _negated(passage):
        return "unsupported", "the sentence denies something; the passage denies nothing"
    terms = list(dict.fromkeys(_terms(sentence)))
    have = set(_terms(passage))
    folded_passage = {fold(w) for w in _WORD.findall(passage)} | set(re.findall(r"\d+", passage))
    missing_keys = [k for k in dict.fromkeys(_keys(sentence)) if k not in folded_passage]
    if missing_keys:
        shown = ", ".join(missing_keys[:3])
        return "unsupported", f"the passage does not mention {shown}"
    if not terms:
        return "unsupported", "the sentence states nothing the passage could hold"
    share = sum(1 for t in terms if t in have) / len(terms)
    if share < SUPPORT:
        return "unsupported", f"the passage holds {share:.0%} of the sentence's content words"
    return "supported", f"the passage holds {share:.0%} of the sentence's content words"


def _units(body: str) -> list[str]:
    """A section's text as units that sentences do not cross: paragraphs (their wrapped lines
    joined), each list item on its own, headings left out. A citation written right after a
    sentence's full stop ("Mainz.[S1] The ...") is moved before it."""
    units: list[str] = []
    for paragraph in re.split(r"\n\s*\n", body):
        lines: list[str] = []
        for line in paragraph.splitlines():
            if line.lstrip().startswith("#"):
                continue
            if _LIST_ITEM.match(line) or not lines:
                lines.append(_LIST_ITEM.sub("", line))
            else:
                lines[-1] += " " + line.strip()
        units += [u.strip() for u in lines if u.strip()]
    moved = re.compile(r"([.!?。！？])((?:\s*" + CITATION.pattern + r")+)")
    return [moved.sub(lambda m: m.group(2).strip() + m.group(1), u) for u in units]


def claims_in(text: str, titles: list[str]) -> list[dict[str, Any]]:
    """Every sentence of `text` that cites, with the section it is in and the ids it cites."""
    found = []
    bodies = section_bodies(text, titles) if titles else [None]
    parts = [(t, b) for t, b in zip(titles, bodies, strict=False) if b] or [("", text)]
    for title, body in parts:
        for unit in _units(body):
            sentences: list[list[Any]] = []  # [plain text, ids]
            for raw in _SENTENCE_END.split(unit):
                lead = re.match(r"(?:\s*" + CITATION.pattern + r")+", raw)
                if lead and sentences:  # "... in 1455. [S1]": it closes the previous sentence
                    sentences[-1][1] += ids_in(lead.group())
                    raw = raw[lead.end() :]
                ids = [x for m in CITATION.finditer(raw) for x in ids_in(m.group())]
                plain = re.sub(r"\s+", " ", CITATION.sub("", raw)).strip()
                sentences.append([re.sub(r"\s+([.,;:!?])", r"\1", plain), ids])
            found += [{"sentence": plain, "ids": list(dict.fromkeys(ids)), "section": title}
                      for plain, ids in sentences if plain and ids]  # fmt: skip
    return found


def _same(a: str, b: str) -> bool:
    x, y = normalize(a), normalize(b)
    return bool(x and y) and (x in y or y in x or SequenceMatcher(None, x, y).ratio() >= 0.6)


def judge(
    text: str, titles: list[str], evidence: list[dict[str, Any]], critic: list[dict[str, Any]]
) -> list[dict[str, Any]]:
    """One verdict per (cited sentence, cited id) of `text`: the critic's when it judged that
    pair, checked in code; the code's own otherwise. Ids the run does not hold are skipped
    (they were removed from the text before it was kept)."""
    passages = {e["id"]: e for e in evidence}
    verdicts = []
    for claim in claims_in(text, titles):
        for ident in claim["ids"]:
            item = passages.get(ident)
            if item is None:
                continue
            code, why = check(claim["sentence"], item["text"])
            said = next((c for c in critic if c.get("source") == ident
                         and _same(c.get("sentence", ""), claim["sentence"])), None)  # fmt: skip
            if said is None:
                verdict, reason, by = code, why, "check"
            elif said["verdict"] == "supported" and code != "supported":
                verdict, reason, by = "unsupported", f"the critic said supported, but {why}", "check"
            else:
                verdict, reason, by = said["verdict"], said.get("reason") or "", "critic"
            verdicts.append({"sentence": claim["sentence"], "source": ident, "verdict": verdict,
                             "reason": reason, "by": by, "section": claim["section"]})  # fmt: skip
    return verdicts


def attribute(text: str, evidence: list[dict[str, Any]]) -> tuple[str, list[str]]:
    """Cite, in code, what a writer used without citing: a sentence with no citation gets
    `[Sn]` for the first passage that the check finds supports it. For writers too small to
    cite (the embedded model); every id added is one the check would call supported."""
    added: list[str] = []
    pieces = re.split(r"((?<=[.!?])\s+|(?<=[。！？])\s*)", text)
    for i in range(0, len(pieces), 2):
        sentence = pieces[i]
        if not sentence.strip() or CITATION.search(sentence) or sentence.lstrip().startswith("#"):
            continue
        for item in evidence:
            if check(sentence, item["text"])[0] == "supported":
                end = re.search(r"[.!?。！？]*\s*$", sentence).start()
                pieces[i] = f"{sentence[:end]} [{item['id']}]{sentence[end:]}"
                added.append(item["id"])
                break
    return "".join(pieces), added
