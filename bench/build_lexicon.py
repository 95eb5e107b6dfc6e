"""Build the compact word lists shipped in `reflectcli/writing/data/` (run once; the output is
committed, the sources never are):

- `antonyms_en.txt`: WordNet 3.0's antonym relation (Debian `wordnet-base`, /usr/share/wordnet):
  every lexical antonym pair (`!` pointers) of single words, "be born" read as "born", plus the
  members of the opposite synset that are the word with a negating prefix ("safe" / "unsafe":
  WordNet points "safe" at "dangerous", whose synset holds "unsafe"); pairs of function words
  that deny nothing by themselves (`SKIP`) left out.
- `irregular_en.txt`: WordNet's exception lists (verb.exc, adj.exc, noun.exc): irregular forms
  and their base ("sank sink", "won win", "children child"), for the words WordNet's sense
  counts show in use (cntlist.rev).
- `verbs_en.txt` (eleventh pass): single words WordNet's sense counts (cntlist.rev) show used as
  verbs more than as anything else ("come", "keep", "call"; not "water"), to tell an imperative
  ("Keep working hard") from a statement.
- `adjectives_en.txt` (twenty-second pass): single words WordNet holds as adjectives, never
  capitalised, used mostly as adjectives (or, uncounted, with no noun sense): a sentence that
  opens with one ("Simple probiotics …") opens with no name.
- `places_en.txt` (issue 32, thirteenth pass): WordNet's places named by a proper name, each with
  the places it is part of (part holonyms followed to the end), so a claim's "born in England" is
  not contradicted by a passage's "born in London".
- `antonyms_zh.txt`: the Chinese antonym list as GEM-benchmark/NL-Augmenter redistributes it
  under the MIT licence (commit b64a8efe,
  `nlaugmenter/transformations/chinese_antonym_synonym_substitution/反义词库.txt`; it is
  guotong1988/chinese_dictionary's `dict_antonym.txt` with "-" for "——"), pairs of two or three
  characters (one character is part of too many words to be matched in running text; four are
  idioms a claim rarely repeats). In 272 of its 18,797 rows that copy lost a 一 opening the
  second word with the separator ("腰缠万贯-无长物" for "腰缠万贯——一无长物"); a pair is
  dropped when one of its words, with 一 before it, is a word of the list and opens no row
  itself ("元论" beside "一元论-多元论"): 7 pairs of 2-3 characters, the damaged ones.

    python bench/build_lexicon.py [--wordnet /usr/share/wordnet] [--zh 反义词库.txt]
"""

from __future__ import annotations

import argparse
import collections
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "reflectcli" / "writing" / "data"
POS = {"adj": "a", "adv": "r", "noun": "n", "verb": "v"}
PREFIXES = ("un", "in", "im", "il", "ir", "non", "dis")
# function words and readings that deny nothing on their own ("all" / "no", "have" / "lack":
# "have" is an auxiliary; "first" / "second": ordinals, compared as numbers)
SKIP = {"all", "no", "have", "lack", "let", "first", "second", "last", "middle", "early", "late", "more",
        "less", "most", "least", "in", "out", "on", "off", "up", "down", "here", "there", "this", "that",
        "some", "any", "do", "be", "get", "go", "come", "give", "take", "make", "keep", "put", "set",
        "same", "other", "live", "recorded", "well", "ill", "yes", "one"}  # fmt: skip


def _synsets(wordnet: Path) -> dict[tuple[str, str], tuple[list[str], list[tuple[str, str, str, str]]]]:
    found = {}
    for name, pos in POS.items():
        for line in (wordnet / f"data.{name}").read_text(encoding="latin-1").splitlines():
            if line.startswith("  "):
                continue
            fields = line.split("|")[0].split()
            count = int(fields[3], 16)
            words = [re.sub(r"\(.*\)$", "", fields[4 + 2 * i]).lower() for i in range(count)]
            at = 4 + 2 * count
            pointers = [tuple(fields[at + 1 + 4 * k : at + 5 + 4 * k]) for k in range(int(fields[at]))]
            found[(pos, fields[0])] = (words, pointers)
    return found


def _word(w: str) -> str | None:
    w = re.sub(r"^be_", "", w)
    return None if re.search(r"[^a-z]", w) else w


def english_antonyms(wordnet: Path, kinds: str = "") -> list[tuple[str, str]]:
    """WordNet's antonym pairs (see above); of the parts of speech in `kinds` only when given
    ("a": adjectives, satellites included)."""
    synsets = _synsets(wordnet)
    pairs = set()
    for (kind, _), (words, pointers) in synsets.items():
        if kinds and kind not in kinds:
            continue
        for symbol, offset, pos, numbers in pointers:
            if symbol != "!":
                continue
            other = synsets[("a" if pos == "s" else pos, offset)][0]
            a, b = words[int(numbers[:2], 16) - 1], other[int(numbers[2:], 16) - 1]
            candidates = [(a, b)] + [(a, w) for w in other if w in {p + a for p in PREFIXES}]
            for x, y in candidates:
                x, y = _word(x), _word(y)
                if x and y and x != y and not {x, y} & SKIP:
                    pairs.add(tuple(sorted((x, y))))
    return sorted(pairs)


def irregular(wordnet: Path) -> list[tuple[str, str]]:
    """Irregular forms and their bases. An adjective's form that WordNet's sense counts show used
    as a word of its own and never as an adjective or adverb is not one: "offer" is no "more off"
    (seventeenth pass: "did not offer a discount" against "offered a discount" was consistent,
    "offer" read as "off"), nor "flatter" "more flat"."""
    used: dict[str, collections.Counter] = collections.defaultdict(collections.Counter)
    for line in (wordnet / "cntlist.rev").read_text(encoding="latin-1").splitlines():
        key, _, n = line.split()
        lemma, _, sense = key.partition("%")
        used[lemma][sense.split(":")[0]] += int(n)
    out = {}
    for name in ("verb", "adj", "noun"):
        for line in (wordnet / f"{name}.exc").read_text(encoding="latin-1").splitlines():
            form, *bases = line.split()
            base = next((b for b in bases if used[b].total()), None)
            own = used[form]
            if name == "adj" and own.total() and not own["3"] + own["4"] + own["5"]:
                continue  # a noun or verb of its own ("offer", "flatter")
            if base and re.fullmatch(r"[a-z]+", form + base) and form != base:
                out.setdefault(form, base)
    return sorted(out.items())


def verbs(wordnet: Path) -> list[str]:
    """Single words whose senses WordNet's sense counts (cntlist.rev) show used as verbs more than
    as nouns, adjectives and adverbs together ("come", "keep", "call"; not "water", "book")."""
    used: dict[str, collections.Counter] = collections.defaultdict(collections.Counter)
    for line in (wordnet / "cntlist.rev").read_text(encoding="latin-1").splitlines():
        key, _, n = line.split()
        lemma, _, sense = key.partition("%")
        used[lemma][sense.split(":")[0]] += int(n)
    return sorted(w for w, n in used.items() if re.fullmatch(r"[a-z]+", w) and 2 * n["2"] > sum(n.values()))


def adjectives(wordnet: Path) -> list[str]:
    """Single words (a hyphen may join two: "long-term") that WordNet holds as adjectives and
    never writes with a capital in any synset ("simple", "recurrent"; not "french"), used as
    adjectives at least as often as otherwise by its sense counts, or, uncounted, with no noun
    sense ("functional"; not "novel"): a sentence opening with one opens with no name
    (twenty-second pass, COVID-Fact's post titles: "Simple probiotics might help …")."""
    capital, lower, nouns = set(), set(), set()
    for name, pos in POS.items():
        for line in (wordnet / f"data.{name}").read_text(encoding="latin-1").splitlines():
            if line.startswith("  "):
                continue
            fields = line.split("|")[0].split()
            words = [re.sub(r"\(.*\)$", "", fields[4 + 2 * i]) for i in range(int(fields[3], 16))]
            for w in words:
                (capital if w != w.lower() else lower if pos in "as" or name == "adj" else set()).add(
                    w.lower()
                )
                if name == "noun":
                    nouns.add(w.lower())
    adjective = set()
    for line in (wordnet / "data.adj").read_text(encoding="latin-1").splitlines():
        if not line.startswith("  "):
            fields = line.split("|")[0].split()
            adjective |= {re.sub(r"\(.*\)$", "", fields[4 + 2 * i]) for i in range(int(fields[3], 16))}
    used: dict[str, collections.Counter] = collections.defaultdict(collections.Counter)
    for line in (wordnet / "cntlist.rev").read_text(encoding="latin-1").splitlines():
        key, _, n = line.split()
        lemma, _, sense = key.partition("%")
        used[lemma][sense.split(":")[0]] += int(n)
    out = []
    for w in adjective:
        if not re.fullmatch(r"[a-z]+(?:-[a-z]+)?", w) or w in capital or len(w) < 3:
            continue
        n = used.get(w)
        if (n and 2 * (n["3"] + n["5"]) >= sum(n.values())) or (not n and w not in nouns):
            out.append(w)
    return sorted(out)


def chinese_antonyms(path: Path, longest: int = 3) -> list[tuple[str, str]]:
    """The list's pairs of 2 to `longest` characters, the damaged ones left out (see above)."""
    rows = [[p for p in re.split(r"[—─―\-]+", line.strip()) if p] for line in
            path.read_text(encoding="utf-8").splitlines()]  # fmt: skip
    words = {w for row in rows for w in row}
    opening = {row[0] for row in rows if row}
    pairs = set()
    for parts in rows:
        if (
            len(parts) == 2
            and all(re.fullmatch(rf"[\u4e00-\u9fff]{{2,{longest}}}", p) for p in parts)
            and parts[0] != parts[1]
            and not any("一" + p in words and p not in opening for p in parts)  # a 一 lost: damaged
        ):
            pairs.add(tuple(sorted(parts)))
    return sorted(pairs)


def places(wordnet: Path) -> dict[str, set[str]]:
    """WordNet's places (noun.location, lexicographer file 15) named by a proper name, each with
    every place it is part of (part holonyms, `#p`, followed to the end: London → England →
    United Kingdom → Europe, …), names folded, "_" read as a space."""
    names: dict[str, list[str]] = {}
    parts: dict[str, list[str]] = {}
    for line in (wordnet / "data.noun").read_text(encoding="latin-1").splitlines():
        if line.startswith("  "):
            continue
        fields = line.split("|")[0].split()
        if fields[1] != "15":
            continue
        count = int(fields[3], 16)
        words = [re.sub(r"\(.*\)$", "", fields[4 + 2 * i]) for i in range(count)]
        names[fields[0]] = [w.replace("_", " ").lower() for w in words if w[:1].isupper()]
        at = 4 + 2 * count
        pointers = [fields[at + 1 + 4 * k : at + 5 + 4 * k] for k in range(int(fields[at]))]
        parts[fields[0]] = [offset for symbol, offset, pos, _ in pointers if symbol == "#p" and pos == "n"]
    out: dict[str, set[str]] = collections.defaultdict(set)
    for offset, own in names.items():
        seen, todo = set(), list(parts.get(offset, []))
        while todo:
            if (up := todo.pop()) not in seen:
                seen.add(up)
                todo.extend(parts.get(up, []))
        inside = {n for up in seen for n in names.get(up, [])}
        for name in own:
            if inside - {name}:
                out[name] |= inside - {name}
    return out


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--wordnet", type=Path, default=Path("/usr/share/wordnet"))
    parser.add_argument("--zh", type=Path, default=Path("/work/corpus/antonyms-zh-nlaug/反义词库.txt"))
    args = parser.parse_args()
    for name, rows in (("antonyms_en.txt", english_antonyms(args.wordnet)),
                       ("irregular_en.txt", irregular(args.wordnet)),
                       ("antonyms_zh.txt", chinese_antonyms(args.zh))):  # fmt: skip
        (OUT / name).write_text("".join(f"{a} {b}\n" for a, b in rows), encoding="utf-8")
        print(f"{name}: {len(rows)} lines, {(OUT / name).stat().st_size:,} bytes")
    found = places(args.wordnet)
    (OUT / "places_en.txt").write_text(
        "".join(f"{name}\t{'|'.join(sorted(found[name]))}\n" for name in sorted(found)), encoding="utf-8"
    )
    print(f"places_en.txt: {len(found)} lines, {(OUT / 'places_en.txt').stat().st_size:,} bytes")
    for name, words in (
        ("verbs_en.txt", verbs(args.wordnet)),
        ("adjectives_en.txt", adjectives(args.wordnet)),
    ):
        (OUT / name).write_text("".join(f"{w}\n" for w in words), encoding="utf-8")
        print(f"{name}: {len(words)} lines, {(OUT / name).stat().st_size:,} bytes")


if __name__ == "__main__":
    main()
