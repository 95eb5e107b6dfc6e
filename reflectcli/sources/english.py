"""English readings of a denial that `polarity` asks about before it calls two sides opposed
(fifth pass of issue 32, from SummEdits news + podcast: true summary sentences called
contradicted). Each takes the words `polarity` compares (content-word stems, `words.terms`) and
answers whether a denial found on one side is no denial of the other's statement:

- `same_denial`: the claim denies, with its own "no", what the passage's "not" denies after the
  verb ("have found no evidence of poison", "found no proof of poison" / "have not found any
  evidence of poison");
- `both_deny`: the claim's negation and the carrier's deny a word in common, each with its own
  verb ("was not considered to be a risk to humans until 1997" / "was not deemed to be a threat
  to humans until a 1997 outbreak");
- `changed_since`: the passage denies what is no longer so ("we don't eat certain foods
  anymore") and the claim says what once was ("pigeons were once ... eaten as food"), or both
  tell a change "from … to …" and the claim says the word of the "from" (seventh pass);
- `unsaid_compound`: the claim's "no-" compound says what the carrier does not say at all ("a
  no-fee podcast creation tool" / "creation tools that allow you to record");
- `adjective_only`: the claim holds the passage's denied noun only as its adjective in "-al"
  ("their personal philosophies" / "the clients, not the person providing");
- `unsaid_denial` (sixth pass, FEVER-Symmetric dev): the claim denies with a copula words the
  carrier does not say ("is not an American series" / "is a French animated television series"):
  the carrier says something else of the subject, which the denial does not contradict;
- `then_not_now` (sixth pass): the claim denies what is so now ("are not currently part of") and
  the carrier says it only in the past tense ("between 1035 and 1814 … were part of");
- `unchanged` (seventh pass, FEVER-Symmetric dev): the claim denies a change ("has not grown in
  size") and the carrier says the thing stayed as it was ("has always maintained its size");
- `only_other` (seventh pass): the passage's "not … by any other name" says what the claim's
  "only" says ("is only known as Simón Bolívar");
- `unasserted` / `unwished` (eleventh pass, DialogSum dev): what a claim names but does not say
  is so (a topic people talk or ask about, a request to another) is contradicted only by what
  the passage wishes, asks for or says should be, not by what it says is ("tells Blake to clean
  the bathtub" / "people who lived here before didn't clean the bathtub").
"""

from __future__ import annotations

import re

from reflectcli.writing.lexicon import english_verbs, irregular, stem
from reflectcli.writing.textops import CJK, fold

_LATIN = re.compile(r"[A-Za-z]+")


def _english(words: list[str] | set[str]) -> set[str]:
    return {w for w in words if not CJK.search(w)}


_VERB_NO = re.compile(r"\b([A-Za-z]+)\s+(?:no|none|nothing|zero)\b", re.I)


def same_denial(group: list[str], denied_by_claim: set[str], sentence: str = "") -> bool:
    """Whether the claim's own negations deny a word a passage's negation (`group`: the words
    it denies, its verb first) denies after its verb, or the claim says "no" right after that verb:
    "not found any evidence" / "found no evidence", "found no proof" say one thing."""
    if not group or CJK.search(group[0]):
        return False
    return bool(_english(group[1:]) & denied_by_claim) or any(
        stem(fold(m.group(1))) == group[0] for m in _VERB_NO.finditer(sentence)
    )


def both_deny(whole: list[str], carrier_denied: set[str]) -> bool:
    """Whether a claim's negation (`whole`: all the words of its clause it denies) and the
    carrier clause's negations (`carrier_denied`: theirs, clause-wide) deny a word in common:
    the two say one denial with two verbs ("not considered a risk to humans" / "not deemed a
    threat to humans")."""
    return bool(whole) and not CJK.search(whole[0]) and bool(_english(whole) & _english(carrier_denied))


_CHANGED = re.compile(r"\b(?:any\s?more|no longer)\b", re.I)
_ONCE = re.compile(r"\b(?:once|used to|formerly|previously|in the past|at one time|historically)\b", re.I)
_NOW = re.compile(r"\b(?:still|now|today|nowadays|currently|any\s?more|no longer)\b", re.I)


_FROM_TO = re.compile(r"\bfrom\s+(?:being\s+)?(.{3,200}?)\bto\b", re.I)


def changed_since(part: str, sentence: str, word: str = "") -> bool:
    """Whether the passage's statement `part` denies what is no longer so ("don't eat certain
    foods anymore", "no longer") and `sentence` speaks of the past ("were once ... eaten"), not
    of today ("still", "now"); or both tell a change "from … to …" and the sentence says `word`
    (a stem) of the "from" ("from being revered and even eaten to being considered pests" / "go
    from being a dish … to something Americans pretty much never eat")."""
    if _CHANGED.search(part) and _ONCE.search(sentence) and not _NOW.search(sentence):
        return True
    then = _FROM_TO.search(sentence)
    if not word or then is None or not _FROM_TO.search(part):
        return False
    return word in {stem(fold(w)) for w in _LATIN.findall(then.group(1))}


_PAST = re.compile(r"\b(?:was|were|had|used to)\b", re.I)
_PRESENT = re.compile(r"\b(?:is|are|am|has|have|remains?|still)\b", re.I)


def then_not_now(clause: str, where: str) -> bool:
    """Whether the claim's clause denies what holds today ("not currently", "no longer", "now")
    and the carrier's statement `where` says it only in the past tense ("were part of"), never in
    the present: what was so is not what the claim denies."""
    return bool(_NOW.search(clause) and _PAST.search(where) and not _PRESENT.search(where))


_COMPOUND = re.compile(r"\bno-([A-Za-z]+)|\b([A-Za-z]+)-free\b", re.I)  # no-fee; hassle-free (tenth pass)


def unsaid_compound(clause: str, group: list[str], where: set[str]) -> bool:
    """Whether the claim's denial is a compound adjective of "no-" ("a no-fee tool": a free
    one) whose word the carrier does not say at all: the carrier says the rest of the clause,
    not it without the denial."""
    return (
        bool(group)
        and not CJK.search(group[0])
        and group[0] not in where
        and any(stem(fold(m.group(1) or m.group(2))) == group[0] for m in _COMPOUND.finditer(clause))
    )


def adjective_only(head: str, sentence: str, part: str) -> bool:
    """Whether the claim says the passage's denied word `head` (a stem) only in an adjective of
    "-al" that the passage's word is not ("personal" / "person"): another word, not the noun."""
    if CJK.search(head):
        return False
    mine = {w for w in map(fold, _LATIN.findall(sentence)) if stem(w) == head}
    theirs = {w for w in map(fold, _LATIN.findall(part)) if stem(w) == head}
    return bool(mine and theirs) and all(
        w.endswith(("al", "ally")) and not any(t.endswith(("al", "ally")) for t in theirs) for w in mine
    )


# "is not an American series", "was not the first woman", "are not currently part": a copula denied
# before what is said of the subject (an article, an adverb, a noun or adjective), not before a
# verb ("has not been detained", "is not planning", "are not required": those a paraphrase carries)
_COPULA_DENIED = re.compile(
    r"\b(?:(?:is|are|was|were|am)\s+(?:not|never|no longer)|(?:is|are|was|were)n't)\s+"
    r"(?:\w+ly\s+)?+(?!\w+(?:ed|en|ing)\b)\w+",
    re.I,
)


def unsaid_denial(clause: str, group: list[str], said: set[str]) -> bool:
    """Whether a claim's clause denies with a copula what it says of its subject (`group`: the
    first content words the negation denies) and the carrying sentence (`said`: its words) does
    not say them: "is not a rock album" / "is the second studio album by the blues guitarist",
    "is not an American series" / "is a French … series". The carrier says something else of the
    subject, which the denial does not contradict. Not a denied verb ("has not been detained" /
    "has been arrested": a paraphrase says that one)."""
    adverbs = {stem(fold(w)) for w in re.findall(r"\b\w+ly\b", clause)}  # "are not currently part"
    if not group or CJK.search(group[0]) or all(w in said or w in adverbs for w in group):
        return False
    match = _COPULA_DENIED.search(clause)  # its last word an irregular verb's form: "was not born"
    return match is not None and fold(match.group(0).split()[-1]) not in irregular()


# a change denied ("has not grown", "did not change") is what a carrier says that stayed the same
# (stems: "grew", "shrank", "rose" are stemmed as their base)
_CHANGE = frozenset(("chang", "grow", "increas", "decreas", "shrink", "vari", "alter", "rise", "fall",
                     "evolv", "differ"))  # fmt: skip
_STAYED = re.compile(r"\b(?:maintain\w*|remain\w*|retain\w*|kept|keeps?|same|similar|unchanged|constant|"
                     r"stable|steady|consistent)\b", re.I)  # fmt: skip


def unchanged(group: list[str], where: str) -> bool:
    """Whether the claim denies a change (`group`, its verb first: "has not grown in size") and
    the carrier's statement `where` says the thing stayed as it was ("has always maintained its
    size", "into the similar size"): one statement, said twice."""
    return bool(group) and group[0] in _CHANGE and bool(_STAYED.search(where))


_ONLY = re.compile(r"\b(?:only|solely|exclusively|sole)\b", re.I)
_NO_OTHER = re.compile(r"\b(?:not|never|n't)\b[^,;.]{0,40}?\b(?:any|no)\s+other\b", re.I)


def only_other(part: str, sentence: str) -> bool:
    """Whether the passage's statement `part` denies anything other ("not known by any other
    name") and `sentence` says "only" of it ("is only known as Simón Bolívar"): one statement."""
    return bool(_NO_OTHER.search(part) and _ONLY.search(sentence))


# words before "cost", "charge" or "fee" that say how much of it, or whose, not which one
_AMOUNT = frozenset(("a", "an", "the", "any", "no", "some", "its", "their", "his", "her", "our", "your", "my",
                     "this", "that", "extra", "additional", "added", "hidden", "further", "high", "higher",
                     "low", "lower", "small", "large", "big", "huge", "total", "full", "real", "monthly",
                     "annual", "yearly", "upfront", "initial", "one-time", "recurring", "overall", "great",
                     "significant", "much", "little", "every", "each", "what", "whatever"))  # fmt: skip
_PRICED = re.compile(r"\s*(?:[$€£¥\d]|(?:a|an|the|nothing|money|us|you|them)\b)", re.I)  # "costs $5": a verb


def other_cost(sentence: str, head: str) -> bool:
    """Whether the claim says the cost, charge or fee (`head`, a stem) that a passage's "at no
    cost" denies only as another one, named by a word of its own before it ("reduce energy
    costs", "administrative fees"), never bare ("has a cost", "costs $5", "charges a fee")."""
    if head not in ("cost", "charg", "fee"):
        return False
    words = r"\b(?:cost|costs|costing|charge|charges|charged|fee|fees)\b"
    said = [m for m in re.finditer(words, sentence, re.I)
            if stem(fold(m.group())) == head]  # fmt: skip
    for m in said:
        before = re.search(r"([A-Za-z'-]+)\s*$", sentence[: m.start()])
        if not before or before.group(1).lower() in _AMOUNT or _PRICED.match(sentence, m.end()):
            return False
    return bool(said)


# What a claim names without saying it is so (eleventh pass, DialogSum dev: 10 of its 32 true
# summary sentences called contradicted): a topic people talk or ask about ("Avery and Blake talk
# about the differences between American football and soccer", "tells Avery how to use the
# phone") and what one asks another to do ("tells Blake to clean the bathtub", "requests Blake
# to advance the time of delivery"): a speaker's denial in the dialogue ("Americans aren't so
# into football", "we cannot advance the time of delivery") does not contradict it. A question
# that says what it asks of ("asks why Ted missed the trip", "asks how Karen spent the weekend")
# is no topic: it says Ted did.
_OBJECT = r"(?:[A-Z][\w'.-]*(?:\s+[A-Z][\w'.-]*)?|him|her|them|us|me|you|everyone|people)"
_TOPIC_VERB = (
    r"(?:(?:talk|chat|argu|complain|inquir|enquir|ask|wonder|hear|learn)\w*(?:\s+(?:to|with)\s+[A-Z][\w'.-]*)?"
    rf"|(?:tell|tells|telling|told|explain\w*|ask\w*|show\w*|teach\w*|taught|remind\w*)\s+{_OBJECT})"
)
# a question named: "asked if the team was happy", "talk about whether to go", "how to use it";
# "wanted to know if …", "was not sure whether …" (the verb with it: "know" there is not known)
_ASKED_TAIL = r"(?:whether\b|if\b|(?:how|what|where|when|which)\s+to\b)"
_ASKED_ONLY = r"\b(?=(?:know|sure|unsure|certain|curious|question\w*|check\w*|see)\s+(?:whether|if)\b)"
_ASKED = re.compile(rf"\b{_TOPIC_VERB}\s+(?:about\s+)?{_ASKED_TAIL}|{_ASKED_ONLY}")
_TOPIC = re.compile(
    rf"\b{_TOPIC_VERB}\s+(?:about\b|{_ASKED_TAIL})|\b(?:discuss|debat)\w*\s+(?=\w)|{_ASKED_ONLY}"
)
_DIRECTIVE = re.compile(
    r"\b(?:ask|tell|tells|telling|told|request|urg|encourag|advis|invit|persuad|remind|beg|order|instruct|"
    rf"recommend|want|need)\w*\s+{_OBJECT}\s+(?:not\s+)?to\s+(?=\w)",
)
# What a passage wishes, asks for or says should be rather than says is: the claim's topic or
# request is contradicted only by what the passage says of the same kind ("wants him to work in
# IT" / "says I should never work in IT"): the above, one's own wish, plan or promise, what
# should or must be, a request put as a question ("will you keep our bags?")
_WISH = re.compile(
    r"(?<!\bthe )(?<!\ba )(?<!\ban )(?<!\bin )(?<!\bits )(?<!\bhis )(?<!\bher )(?<!\btheir )(?<!\bour )"
    r"(?<!\bmy )(?<!\byour )"  # a noun: "the plan to build a bridge was approved" says it was
    r"\b(?:want|wish|hop|plan|intend|expect|encourag|ask|tell|told|request|requir|urg|advis|invit|"
    r"persuad|remind|order|beg|decid|agree|offer|promis|propos|suggest|tr(?:y|ies|ied)|need|lik|lov|"
    r"prefer|going|gonna|allow|help|let)\w*(?:\s+(?!to\b)[A-Za-z'.-]+){0,3}?\s+to\s+(?=\w)"
    r"|\b(?:(?:I|we)\s+(?:will|shall)|I'll|we'll|I'd|we'd|let's|let\s+us|please|(?:will|would|can|could)\s+you|"
    r"you\s+(?:can|could|may|might)|"
    # a suggestion or a request put as a question: "why not ask her?", "how about trying it?",
    # "shall we go?", "may I work in sales?", "maybe we could eat out", "it'd be better if you stay"
    r"why\s+(?:not|don['’]t\s+(?:you|we|I))|(?:how|what)\s+about|shall\s+(?:I|we)|(?:may|can|could)\s+I|"
    r"we\s+(?:could|might)(?!\s+(?:not|never)\b)|(?:you|we)(?:['’]d|\s+had)\s+better|"
    r"(?:it['’]d|it\s+would)\s+be\s+(?:better|best|good|great|nice|wise)(?:\s+(?:if|for)\s+\w+)?)\s+(?=\w)",
    re.I,
)
# what should or must be: a wish too where a claim's request is compared ("wants him to work in IT"
# / "says I should never work in IT")
_MODAL = re.compile(r"\b(?:should|must|ought\s+to|ha(?:ve|s|d)\s+to)\s+(?=\w)", re.I)
# what an imperative says is so: the "-free" of its thing ("Try our Risk-Free Trial today")
_FREE_OF = re.compile(r"\b[A-Za-z]{3,}-free\b", re.I)
# an imperative: a statement that opens with a verb's plain form ("Keep working hard", "Come some
# time next week"), "please", "do" or "don't" before it at most, and no subject's verb after it
_IMPERATIVE = re.compile(r"^\W*(?:(?:please|just|now|so|well|oh|ok|okay|then|and)\W+)*"
                         r"((?:don['’]t|do\s+not|never)\s+)?([a-z]+)\b(?!\s+(?:is|are|was|were|has|have|had|will|would|can|could|should|may|might|must|"
                         r"does|do|did)\b)(?!['’]s|,)", re.I)  # fmt: skip
# the span ends where the clause does, where "and" begins another statement with a verb, or where
# a clause with its own subject begins: "tells Mary about the day that a dog did not bark",
# "talks about Ann failed to call" say what happened
_TOPIC_END = re.compile(r"[,;:.!?]|\s(?:but|while|whereas|although|though|because|so|then|which|who|whom|"
                        r"whose|when|after|before|since|until|that)\s|"
                        r"(?<!\bif)(?<!\bwhether)\s(?=(?:[A-Z][a-z]+|he|she|they|it|we|I)\s+(?:did|does|do|was|were|is|are|has|have|had|"
                        r"failed|never|\w+ed)\b)|"
                        r"\s+and\s+(?:then\s+)?(?=(?:[A-Za-z']+\s+){0,3}(?:is|was|are|were|has|have|had|will|"
                        r"would|can|could|might|may|did|does|do|\w+ed|\w+s)\b)")  # fmt: skip


def unasserted(sentence: str) -> str:
    """`sentence` (a claim) without what it names but does not say is so: the topics people talk
    or ask about (`_TOPIC`) and what one asks another to do (`_DIRECTIVE`)."""
    return _unsaid(_unsaid(sentence, _TOPIC), _DIRECTIVE)


def unquestioned(sentence: str) -> str:
    """`sentence` (a claim) without the questions it names (`_ASKED`): a denial there ("talk about
    whether not to go", "asked if the team was not happy") is no statement, contradicted by
    nothing. A topic ("discussed the lack of …") reports what was said; a request (`_DIRECTIVE`)
    is compared with what the passage wishes (`unwished`)."""
    return _unsaid(sentence, _ASKED)


def unwished(text: str) -> str:
    """`text` (a passage's statement) without what it wishes, asks for or says should be: the
    claim's kinds (`unasserted`), a wish, plan or request (`_WISH`), what should or must be
    (`_MODAL`), an imperative (all of it but its "-free" words). A claim's topic or request is
    contradicted only by what a passage says of the same kind: in a dialogue's summary, what a
    speaker wishes is said as done ("Monica will send the resume" / "I will never send my
    resume": a contradiction), so no wish of the passage excuses a claim's fact."""
    if (m := _IMPERATIVE.match(text)) and (m.group(1) or m.group(2).lower() in english_verbs()):
        return " ".join(f.group() for f in _FREE_OF.finditer(text))
    return _unsaid(_unsaid(unasserted(text), _WISH), _MODAL)


# an order that denies, at a sentence's start (after a label, a colon, a bullet, a quote mark
# too): "Do not read files.", "Note: never share keys.", "- You must not read files." A passage
# that tells its reader not to do a thing says nothing of whether a thing does it: its denial
# excuses no claim's (a hostile passage hid "The tool reads your files" behind "Do not read
# files."; twelfth pass), behind a label without a colon too ("IMPORTANT do not …", "Note do not …":
# thirteenth pass). To the clause's end; no run of blanks read twice (linear).
_ORDER = re.compile(
    r"(?:^|(?<=[.!?:\n\-•>\"“'‘(\[*|]))([^\S\n]*(?:(?-i:[A-Z]{2,})[^\w\n]*|"
    r"(?:note|important|warning|caution|attention|reminder|remember|rule|tip|nb)\b[^\w\n]*)?"
    r"(?:(?:please|kindly|just|so|and|oh|ok|okay),?[^\S\n]+)*[*_]*"
    r"(?:(?:don['’]t|do\s+not|you\s+(?:must|should)\s+(?:not|never)|you\s+are\s+not\s+to)[*_]*\s+[*_]*[a-z]+|"
    r"never[*_]*\s+(?:ever\s+)?[*_]*([a-z]+))"
    r"\b[^,;.!?\n]*)",
    re.I,
)
# what must not be, whoever must not do it ("Users should not read files.", "The tool must not
# …"): a rule, not what a thing does or did; to the clause's end (thirteenth pass)
_MUST_NOT = re.compile(
    r"\b(?:should|must|shall|ought[^\S\n]+to)(?:[^\S\n]+(?:not|never)|n['’]t)\b[^,;.!?\n]*", re.I
)


def unordered(text: str) -> str:
    """`text` without the orders that deny (`_ORDER`: "never" before a verb of the shipped list,
    "Never read files", not "Never has it …") and the rules that do (`_MUST_NOT`)."""
    text = _ORDER.sub(
        lambda m: "" if not m.group(2) or m.group(2).lower() in english_verbs() else m.group(0), text
    )
    return _MUST_NOT.sub("", text)


# "like" as a preposition ("It's like drinking saltwater!") says nothing is liked: a claim's
# "doesn't like Blake's soup" is not denied by it (DialogSum dev, twelfth pass)
_LIKE = re.compile(r"\blik(?:e|es|ed|ing)\b", re.I)
_LIKE_AS = re.compile(
    r"(?:\b(?:is|was|are|were|be|been|being|am|look\w*|sound\w*|feel\w*|seem\w*|tast\w*|smell\w*|"
    r"nothing|something|anything)|['’](?:s|re|m))\s+(?:just\s+|exactly\s+|more\s+|a\s+bit\s+)?$",
    re.I,
)
# a greeting, a wish for another, which says nothing is so: "Have a nice weekend!", "Enjoy your
# meal" ("Avery and Blake have no weekend plans yet": DialogSum dev). Not "Happy 50th birthday!"
_GREETING = re.compile(
    r"^\W*(?:[A-Z][\w.-]*\s*:\s*)?(?:(?:well|ok|okay|oh|and|so)\W+)?(?:have|enjoy)\s+(?:a|an|your|the)\s+(?:\w+\s+)?"
    r"(?:nice|good|great|wonderful|lovely|happy|safe|pleasant|fun|fine)\b",
    re.I,
)


def greeting(text: str) -> bool:
    """Whether `text` is a greeting, a plain speaker's label before it or not (`verify` asks it of
    an utterance with its label taken off where `turns.unlabelled` reads one: bold labels too)."""
    return bool(_GREETING.search(text))


def unliked(text: str, said: set[str]) -> set[str]:
    """`said` (the words `text` says) without "like" where `text` says it only as a preposition
    ("It's like drinking saltwater!"). (A greeting carries no claim at all: `verify` ranks none.)"""
    if "like" in said and all(_LIKE_AS.search(text[: m.start()]) for m in _LIKE.finditer(text)):
        return said - {"like"}
    return said


def _unsaid(sentence: str, pattern: re.Pattern[str]) -> str:
    """`sentence` without the span each match of `pattern` opens, to the clause's end."""
    if not pattern.search(sentence):
        return sentence
    out, at = [], 0
    for m in pattern.finditer(sentence):
        if m.start() < at:
            continue
        end = _TOPIC_END.search(sentence, m.end())
        out.append(sentence[at : m.end()])
        at = end.start() if end else len(sentence)
    return "".join(out) + sentence[at:]
