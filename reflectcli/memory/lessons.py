"""What a run teaches, and the arithmetic of lessons. Pure functions of a run's state and of
numbers: no database here (bank.py stores and recalls).

- **Learning** (rules in code, from the critique history; fallback reviews teach nothing):
  an improvement that was addressed (the critic says so, or the next review no longer asks for
  it) and the score rose → `worked`; an improvement asked for
  in two or more rounds → `recurring` (what the writer keeps getting wrong, worth more); an
  improvement whose revision was rolled back because the score fell → `worse` (evidence against
  a lesson that says the same, which it supersedes); a critique asking for the opposite of a
  lesson on the same thing ("Expand the introduction" against "Shorten the introduction")
  supersedes it too.
- **Similarity**: two lessons say the same thing when their content-word stems (Snowball's,
  `writing.lexicon.stem`; stop words out) overlap by at least 60 % of the smaller set (and share 2 stems).
- **Strength**: a new lesson starts at 1 (`recurring`: 1.5); reinforcing adds 1 to its decayed
  strength (at most 10). It halves every `half_life_days` since it was last seen, unless pinned;
  below 0.25 it is archived.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any

from reflectcli.writing.citations import CITATION
from reflectcli.writing.lexicon import stem
from reflectcli.writing.textops import CJK, match_section, section_bodies

SAME = 0.6  # overlap coefficient of stems: two lessons this alike are one
FLOOR = 0.25  # below this (decayed) strength a lesson is archived
CAP = 10.0
START = {"worked": 1.0, "recurring": 1.5, "user": 2.0, "human": 3.0}
HUMAN_BONUS = 2.0  # a person's critique reinforces a lesson twice as much as the critic's
MAX_TEXT = 160
MIN_DROP = (
    0.5  # a fall that marks a lesson `worse`, when the run's policy sets no min_gain (config's default)
)
STOP = frozenset(
    "the and for that with this from into onto than then there these those such also but not "
    "its their them they been being which what when where while each more most some any very "
    "section article paragraph text make sure".split()
)
_WORD = re.compile(r"[^\W\d_]+", re.UNICODE)


def _stem(word: str) -> str:
    """A word's stem: the project's one stemmer (`writing.lexicon.stem`: Snowball)."""
    return stem(word)


def stems(text: str) -> frozenset[str]:
    """Content-word stems (and single CJK characters) of a lesson or a critique."""
    out: set[str] = set()
    for word in _WORD.findall(text.lower()):
        if CJK.search(word):
            out.update(ch for ch in word if CJK.match(ch))
        elif len(word) >= 3 and word not in STOP and word not in NEGATORS:
            out.add(_stem(word))
    return frozenset(out)


def similarity(a: str, b: str) -> float:
    """Overlap coefficient of the two texts' stems (0 when either has fewer than 2)."""
    x, y = stems(a), stems(b)
    if len(x) < 2 or len(y) < 2:
        return 1.0 if x and x == y else 0.0
    return len(x & y) / min(len(x), len(y))


def same(a: str, b: str) -> bool:
    """Two lessons say the same thing: their stems overlap by SAME of the smaller set and by
    half of the larger (a two-stem "Add examples." does not absorb every longer lesson that
    holds both stems), and neither asks for the opposite of the other."""
    x, y = stems(a), stems(b)
    if similarity(a, b) < SAME or len(x & y) * 2 < max(len(x), len(y)):
        return False
    return not opposes(a, b)


# a rule that forbids what it names: "Do not add ...", "Avoid adding ...", "... should not ..."
NEGATORS = frozenset({"not", "never", "avoid", "don", "dont", "refrain", "stop"})
# (’: a critic writes a curly apostrophe as often as a straight one)
_NEGATED = re.compile(r"^\W*(?:please\s+)?(?:do not|don['’]t|dont|never|avoid|refrain from|stop|no)\b|"
                      r"\b(?:should|must|need)(?: not|n['’]t)\b", re.I)  # fmt: skip
# antonyms (as words) that share no prefix; "informal"/"formal", "unclear"/"clear" are found by
# the prefix
_ANTONYM_WORDS = [("active", "passive"), ("simple", "complex"), ("short", "long"), ("shorter", "longer"),
                  ("fewer", "more"), ("less", "more"), ("include", "exclude"), ("include", "omit"),
                  ("increase", "decrease"), ("increase", "reduce"), ("early", "late"), ("before", "after"),
                  ("first", "last"), ("concrete", "abstract"), ("broad", "narrow"), ("add", "remove"),
                  ("add", "delete"), ("add", "drop"), ("add", "omit"), ("add", "cut"), ("expand", "shorten"),
                  ("expand", "trim"), ("expand", "condense"), ("expand", "cut"), ("lengthen", "shorten"),
                  ("length", "short"), ("explicit", "implicit")]  # fmt: skip
_NEGATING_PREFIX = ("in", "im", "il", "ir", "un", "non", "non-")


@lru_cache(maxsize=1)
def _antonyms() -> set[tuple[str, str]]:
    return {(stem(a), stem(b)) for a, b in _ANTONYM_WORDS}


def negated(text: str) -> bool:
    """The rule forbids what it names ("Do not add ...", "Avoid ...", "should not ...")."""
    return bool(_NEGATED.search(text))


def _antonym(x: str, y: str, u: str = "", v: str = "") -> bool:
    """Two stems (of the words `u`, `v`) of opposite meaning: a listed pair, or one word is the
    other negated by a prefix ("informal" / "formal")."""
    pairs = _antonyms()
    if (x, y) in pairs or (y, x) in pairs:
        return True
    if min(len(u or x), len(v or y)) < 4:
        return False
    return any(u == p + v or v == p + u or x == stem(p + (v or y)) or y == stem(p + (u or x))
               for p in _NEGATING_PREFIX)  # fmt: skip


def _swapped(a: str, b: str) -> bool:
    """`b` says `a` with one word turned to its antonym ("formal tone" / "informal tone",
    "Expand related work" / "Shorten related work"), the rest alike."""
    words = [{w: _stem(w) for w in _WORD.findall(t.lower()) if len(w) >= 3} for t in (a, b)]
    x, y = stems(a), stems(b)
    for u in set(words[0]) - set(words[1]):
        for v in set(words[1]) - set(words[0]):
            if _antonym(words[0][u], words[1][v], u, v):
                rest_x, rest_y = x - {words[0][u]}, y - {words[1][v]}
                shared = rest_x & rest_y
                return bool(shared) and len(shared) >= SAME * min(len(rest_x), len(rest_y))
    return False


# the direction a rule pushes a text in (English): a critique asking for the opposite of a
# lesson on the same thing contradicts it
_MORE = re.compile(r"\b(add|adds|added|adding|expand|expands|expanded|expanding|lengthen|elaborate|"
                   r"elaborating|extend|extending|develop|developing|include|including|increase|"
                   r"more|longer|deepen|enlarge)\b", re.I)  # fmt: skip
_LESS = re.compile(r"\b(shorten|shortening|cut|cuts|cutting|trim|trimming|condense|reduce|reducing|"
                   r"remove|removing|delete|drop|dropping|fewer|less|shorter|omit|simplify|"
                   r"tighten)\b", re.I)  # fmt: skip


def direction(text: str) -> int:
    """+1 for a rule asking for more (add, expand), -1 for less (cut, shorten), 0 for neither
    or both. Whole words only ("address" and "lessons" are neither)."""
    more, less = bool(_MORE.search(text)), bool(_LESS.search(text))
    return 0 if more == less else (1 if more else -1)


def _object(text: str) -> str | None:
    """The first content-word stem after the text's first direction word: what it asks more or
    less of ("Shorten the long introduction" → `long`, "Add more examples" → `examp`)."""
    found = _MORE.search(text) or _LESS.search(text)
    if found is None:
        return None
    rest = _LESS.sub(" ", _MORE.sub(" ", text[found.end() :]))
    words = [w for w in _WORD.findall(rest.lower()) if len(w) >= 3 and w not in STOP]
    return _stem(words[0]) if words else None


def opposes(a: str, b: str) -> bool:
    """`b` asks for the opposite of `a` about the same thing: one forbids what the other asks
    ("Add statistics to the introduction." / "Do not add statistics to the introduction."),
    one word is the other's antonym ("formal tone" / "informal tone"), or opposite directions
    with the same object right after the direction word ("Shorten the introduction" against
    "Expand the introduction with a case"; not "Expand the conclusion" against "Remove the
    repeated sentence from the conclusion")."""
    if negated(a) != negated(b) and similarity(a, b) >= SAME:
        return True
    if _swapped(a, b):
        return True
    if direction(a) * direction(b) != -1:
        return False
    x = _object(a)
    return x is not None and x == _object(b)


def decayed(strength: float, last_seen: float, now: float, half_life_days: float,
            pinned: bool = False) -> float:  # fmt: skip
    """Strength now: halved for every `half_life_days` since the lesson was last seen."""
    if pinned or half_life_days <= 0:
        return strength
    days = max(0.0, now - last_seen) / 86400
    return strength * 0.5 ** (days / half_life_days)


def reinforced(strength: float, bonus: float = 1.0) -> float:
    return min(CAP, strength + bonus)


# what means something in one run only: source ids ([S2, S3]), improvement ids (r1.2), claim
# ids (C3), section and paragraph numbers; taken with the words that lead to them
_RUN_IDS = re.compile(
    r"\s*(?:\b(?:in|to|of|from|for|at|with|after|before|under|see)\s+)?(?:the\s+)?(?:"
    + CITATION.pattern
    + r"|\[?\b[rR]\d+\.\d+\b\]?|\[?\b[Cc]\d+\b\]?|\b(?:section|paragraph|para|§)\s*\d+(?:\.\d+)*"
    r"(?!\s+(?:words?|sentences?|lines?|items?|examples?|points?|pages?)\b)"
    r"|\b\d+(?:st|nd|rd|th) (?:section|paragraph))",
    re.I,
)
# a correction of one sentence of one article: the claim check's item, or a quoted passage
_CLAIM = re.compile(r"^\W*correct or remove the claim\b|[\"“][^\"”]*?(?:\S+\s+){4,}\S+[\"”]", re.I)


def learnable(item: dict[str, Any]) -> bool:
    """An improvement may become a general lesson: not a claim check's correction, nor an
    answer to a reader's question worked in (`ask --apply`), and not about one quoted sentence
    of one article (those are run-specific)."""
    return item.get("origin") not in ("claim", "question") and not _CLAIM.search(item.get("issue") or "")


def lesson_text(issue: str) -> str:
    """A critique's improvement as a short rule: run-specific counts in brackets and run-local
    ids (sources, improvements, claims, section numbers) dropped, a capital first letter, a
    full stop, at most MAX_TEXT characters (cut at a word)."""
    text = re.sub(r"\s*\([^)]*\d[^)]*\)", "", issue)  # "(85 words)", "(r1.2)"
    text = _RUN_IDS.sub("", text)
    text = " ".join(text.split()).strip(" -:;,")
    text = re.sub(r"\s+([,.;:!?])", r"\1", text)
    if len(text) > MAX_TEXT:
        text = text[:MAX_TEXT].rsplit(" ", 1)[0].rstrip(",;:")
    if not text:
        return ""
    text = text[0].upper() + text[1:]
    return text if text[-1] in ".!?。！？" else text + "."


def in_scope(scope: str, task: str) -> bool:
    """A lesson applies to a task when its scope is `general` or the scope's words stand in the
    task in that order, whatever their length (`how-to` in "A how-to on revising", `AI`)."""
    if scope == "general":
        return True
    want, words = re.findall(r"\w+", scope.lower()), re.findall(r"\w+", task.lower())
    return bool(want) and any(words[i : i + len(want)] == want for i in range(len(words)))


def tags(task: str, limit: int = 5) -> str:
    """The task's longest content words, as the tags a lesson learned from it carries."""
    words = [w for w in dict.fromkeys(_WORD.findall(task.lower())) if len(w) >= 4 and w not in STOP]
    return " ".join(sorted(words, key=len, reverse=True)[:limit])


def _judged(state: dict[str, Any]) -> dict[int, dict[str, Any]]:
    """Round → review, for a critic's own reviews (fallback reviews teach nothing; the
    checklist's findings quote this run's sentences and titles, and its rules need no memory)."""
    return {
        r["round"]: r for r in state.get("reviews") or [] if r.get("source") not in ("fallback", "checklist")
    }


def learn(state: dict[str, Any]) -> list[dict[str, Any]]:
    """The lessons a run's critique history supports, each with its evidence:
    {text, kind, round, score_change, detail}. Empty when no review was the critic's own."""
    reviews = _judged(state)
    if not reviews:
        return []
    found: list[dict[str, Any]] = []

    def add(issue: str, kind: str, round_no: int, change: float | None, detail: str) -> None:
        text = lesson_text(issue)
        if len(stems(text)) < 2:
            return
        for item in found:
            if same(item["text"], text):
                if kind == "recurring" and item["kind"] != "worse":
                    item["kind"] = "recurring"
                return
        found.append({"text": text, "kind": kind, "round": round_no, "score_change": change,
                      "detail": detail})  # fmt: skip

    critiques = state.get("critiques") or {}
    refused = {k for k, c in critiques.items() if c.get("status") in ("rejected", "struck")}  # --pick
    for item in critiques.values():  # the critic said it was addressed, and the score rose
        closed = item.get("closed_in")
        if not learnable(item):
            continue
        if item["status"] == "addressed" and closed in reviews and item["round"] in reviews:
            change = round(reviews[closed]["score"] - reviews[item["round"]]["score"], 2)
            if change > 0:
                add(item["issue"], "worked", closed, change,
                    f"addressed in round {closed}; score {change:+g}")  # fmt: skip
    for round_no, review in sorted(reviews.items()):  # revised for, gone from the next review,
        after = reviews.get(round_no + 1)  # and the score rose
        if after is None or after["score"] <= review["score"]:
            continue
        change = round(after["score"] - review["score"], 2)
        for imp in filter(learnable, review["improvements"]):
            if imp.get("id") in refused:  # the writer turned it down: it was never applied
                continue
            if not any(same(imp["issue"], other["issue"]) for other in after["improvements"]):
                add(imp["issue"], "worked", round_no + 1, change,
                    f"revised for in round {round_no + 1}; score {change:+g}")  # fmt: skip
    asked = [(r, imp["issue"]) for r, review in sorted(reviews.items())
             for imp in filter(learnable, review["improvements"])]  # fmt: skip
    for i, (round_no, issue) in enumerate(asked):  # asked again in a later round
        again = [r for r, other in asked[i + 1 :] if r > round_no and same(issue, other)]
        if again:
            add(issue, "recurring", again[0], None, f"asked in rounds {round_no} and {again[0]}")
    found += _worse(state, reviews)
    return [f for f in found if f["text"] and not _RUN_IDS.search(f["text"])]


def _worse(state: dict[str, Any], reviews: dict[int, dict[str, Any]]) -> list[dict[str, Any]]:
    """Evidence against the improvements a revision applied: its score fell by `min_gain` (the
    run's policy) or more, and only those for the sections the revision changed."""
    least = max(((state.get("params") or {}).get("policy") or {}).get("min_gain", MIN_DROP), 0.01)
    by_version = {r["version"]: r for r in reviews.values()}
    texts = {v["n"]: v.get("text") for v in state.get("versions") or []}
    titles = [s["title"] for s in (state.get("outline") or {}).get("sections") or []]
    found = []
    for version in state.get("versions") or []:
        base = by_version.get(version.get("base"))
        after = by_version.get(version["n"])
        if version.get("kind") != "revision" or not base or not after:
            continue
        change = round(after["score"] - base["score"], 2)
        if -change < least - 1e-9:
            continue
        changed = _changed(titles, texts.get(version["base"]), texts.get(version["n"]))
        for imp in filter(learnable, base["improvements"]):
            where = match_section(imp.get("section") or "", titles)
            if changed is None or (where in changed if where is not None else bool(changed)):
                found.append({"text": lesson_text(imp["issue"]), "kind": "worse",
                              "round": after["round"], "score_change": change,
                              "detail": f"applied in version {version['n']}; score {change:+g}"})  # fmt: skip
    return found


def _changed(titles: list[str], before: str | None, after: str | None) -> set[int] | None:
    """The outline sections whose text differs between two versions (None: not known)."""
    if not titles or before is None or after is None:
        return None
    pairs = zip(section_bodies(before, titles), section_bodies(after, titles), strict=True)
    return {i for i, (x, y) in enumerate(pairs) if x != y}
