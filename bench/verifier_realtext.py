"""The real-text section of bench_verifier.py: code's check (`sources.verify.check`: contradicted /
unverified / consistent) alone on claims that people labelled true in public data, and on those
claims and their passages mutated by script, on both sides (fetched, never in git: see
bench/README.md, section "issue 32").

Data: English WiCE (ryokamoi/wice ddeb6c18, `claim_{dev,test}.jsonl`); Chinese CiteCheck
(xzy-xzy/CiteCheck a76b3ec0, `dataset/{dev,test}.jsonl`: statements of a Chinese RAG system's
answers and the documents they cite, labelled faithful or not) and OCNLI (CLUEbenchmark/OCNLI
b53efdee; NLI, reported beside: its hypotheses are written, not cited). Tuned on WiCE dev,
CiteCheck dev and OCNLI train.3k; the targets are read on WiCE test and CiteCheck test. Later
passes' sets each name their commit in their loader (`--splits`: SummEdits, FEVER-Symmetric,
DialogSum, QMSum, QAGS, FRANK; COVID-Fact, HealthVer and UHGEval in the twenty-second).

Mutations, made from the true claims code calls `consistent` (the mutation is then the only
thing that changed), each at most once per claim:

- claim side: **negation** (English: `not`, `never` or `no longer` after the first auxiliary,
  else the first verb said as `did not` / `failed to` + its base (WordNet's verb index and
  exception list, read here); Chinese, on words cut by jieba (`pip install jieba`): 不/没
  before the first word 是/有/会/能/在/可以 (not 在 as a preposition, nor 是的 answering yes),
  else the verb before 了 as 没有/没/并未/未 + verb), **number** (the first number changed to one the passage
  lacks), **name** (English: the first name inside the sentence replaced by a place the passage
  lacks), **antonym** (a word the claim shares with its carrying sentence replaced by its
  opposite wherever the sentence says it (eighth pass): WordNet's antonym pairs of adjectives;
  Chinese: the antonym list of NL-Augmenter (b64a8efe, MIT;
  guotong1988/chinese_dictionary's) in pairs of 2-4 characters, the shipped list holds those of 2-3);
- passage side: its **carrying sentence denied** (the passage sentence that shares the most
  words with the claim, chosen here by plain word or character-pair overlap, denied as above),
  its **number changed** (a number of the claim that the carrying sentence holds, changed
  everywhere in the passage), an **antonym** put in the carrying sentence; a denial or an
  antonym only where no other sentence carries the claim nearly as well (`sole_carrier`, twenty-
  second pass).

Targets (held-out splits): true claims contradicted <= 0.03 and consistent >= 0.85; negations
(either side) and antonyms contradicted >= 0.95; changed numbers and names contradicted or
unverified >= 0.95."""

from __future__ import annotations

import ast
import json
import os
import re
import sys
from collections import Counter
from functools import partial
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from reflectcli.sources.chunking import TARGET  # noqa: E402
from reflectcli.sources.verify import check  # noqa: E402

CORPUS = Path(os.environ.get("REFLECT_CORPUS", "/work/corpus"))
WORDNET = Path("/usr/share/wordnet")
OTHER_NAMES = ("Ostrava", "Quimper", "Tromsø")  # replace a name; the first the passage lacks
CJK = re.compile(r"[\u4e00-\u9fff]")


# --- data ------------------------------------------------------------------------------------


def wice(folder: Path, split: str, shape: str = "cited") -> list[tuple[str, str]]:
    """WiCE (ryokamoi/wice, data/entailment_retrieval/claim/<split>.jsonl): Wikipedia sentences
    and the web pages they cite, labelled `supported` by annotators. The passage (`shape`):
    "cited", the page's sentences that the annotators marked as supporting (every set of them,
    in page order); "chunks", the page as the product holds it (`windows`)."""
    path = folder / f"claim_{split}.jsonl"
    pairs = []
    for line in path.read_text(encoding="utf-8").splitlines() if path.exists() else []:
        row = json.loads(line)
        if row["label"] == "supported":
            keep = sorted({i for group in row["supporting_sentences"] for i in group})
            if shape == "chunks":
                pairs.append((row["claim"], windows(row["evidence"], keep)))
            else:
                pairs.append((row["claim"], " ".join(row["evidence"][i] for i in keep)))
    return pairs


def windows(page: list[str], keep: list[int], size: int = TARGET) -> str:
    """The page as a claim check in the product sees it (chunks of about `size` characters,
    `sources.chunking.TARGET`): the supporting sentences `keep` grouped (those that fit in one
    window together), each group widened by the page sentences after and before it, one at a
    time, while the window stays within `size` characters; windows joined in page order."""

    def length(a: int, b: int) -> int:
        return sum(len(x) + 1 for x in page[a : b + 1])

    groups: list[list[int]] = []
    for i in keep:
        if groups and length(groups[-1][0], i) <= size:
            groups[-1][1] = i
        else:
            groups.append([i, i])
    spans: list[list[int]] = []
    for a, b in groups:
        grew = True
        while grew:
            grew = False
            if b + 1 < len(page) and length(a, b + 1) <= size:
                b, grew = b + 1, True
            if a > 0 and length(a - 1, b) <= size:
                a, grew = a - 1, True
        if spans and a <= spans[-1][1] + 1:  # overlapping windows are one
            spans[-1][1] = max(spans[-1][1], b)
        else:
            spans.append([a, b])
    return "\n\n".join(" ".join(page[a : b + 1]) for a, b in spans)


def citecheck(folder: Path, split: str, shape: str = "quote", label: int = 1) -> list[tuple[str, str]]:
    """CiteCheck (xzy-xzy/CiteCheck, dataset/<split>.jsonl): statements of a Chinese RAG
    system's answers with the documents they cite (`quote`, "[1] ... [2] ..."), labelled by
    people; the faithful ones (label 1; `label=0`: the unfaithful ones), the documents as
    passages a blank line apart."""
    path = folder / f"{split}.jsonl"
    pairs = []
    for line in path.read_text(encoding="utf-8").splitlines() if path.exists() else []:
        row = json.loads(line)
        if row["label"] == label and row["method"] == "none":
            docs = [d.strip() for d in re.split(r"\[\d+\]", row["quote"]) if d.strip()]
            pairs.append((row["statement"], "\n\n".join(docs)))
    return pairs


def ocnli(folder: Path, split: str, shape: str = "premise") -> list[tuple[str, str]]:
    """OCNLI (CLUEbenchmark/OCNLI, data/ocnli/<split>.json): Chinese premises from real text and
    hypotheses written by annotators; the pairs labelled entailment (hypothesis = claim)."""
    path = folder / f"{split}.json"
    rows = (
        [json.loads(x) for x in path.read_text(encoding="utf-8").splitlines() if x.strip()]
        if path.exists()
        else []
    )
    return [(r["sentence2"], r["sentence1"]) for r in rows if r["label"] == "entailment"]


def ocnli_fresh(folder: Path, split: str, shape: str = "premise") -> list[tuple[str, str]]:
    """OCNLI's train.10k pairs whose premise neither train.3k nor dev holds (third pass: a
    held-out split nobody tuned on or looked at; WiCE's and CiteCheck's train splits are in
    their repositories but their files were not in the fetched snapshots)."""
    seen = {p for _, p in ocnli(folder, "train.3k") + ocnli(folder, "dev")}
    rows = [json.loads(x) for x in (folder / "train.3k.json").read_text(encoding="utf-8").splitlines()
            + (folder / "dev.json").read_text(encoding="utf-8").splitlines() if x.strip()] if (
        folder / "dev.json").exists() else []  # fmt: skip
    seen |= {r["sentence1"] for r in rows}
    return [(c, p) for c, p in ocnli(folder, split, shape) if p not in seen]


SUMMEDITS_DOMAINS = ("news", "scitldr", "ectsum", "podcast", "qmsumm", "samsum")


def summedits(folder: Path, split: str, shape: str = "document") -> list[tuple[str, str]]:
    """SummEdits (salesforce/factualNLG 0da1dfa6, data/summedits/summedits_<domain>.json; fourth
    pass: a held-out set nobody tuned on or looked at): summaries of real documents (news,
    science abstracts, earnings calls, podcasts, meetings, chats) and people's edits of them,
    each labelled consistent with its document (1) or not (0) by annotators. The true claims:
    each distinct sentence (the product's segmenter) of a summary labelled 1, per document; the
    passage the whole document. `split`: the domains joined by "+", or "all" (the six of real
    text; the sales domains are model-written, billsum and shakespeare absent from the
    snapshot)."""
    from reflectcli.writing.sentences import sentences

    def kept(row: dict) -> list[str]:
        return [s for s in sentences(row["summary"]) if len(s) >= 20]

    return _summedits_pairs(folder, split, 1, kept)


def summedits_edits(folder: Path, split: str, shape: str = "document") -> list[tuple[str, str]]:
    """SummEdits' label-0 edits (fifth pass, a recall row, not a target): summaries that people
    edited from the original (consistent) summary of the same document (`original_summary`) and
    annotators labelled inconsistent with it. The claims: each sentence of such a summary that
    no sentence of its original summary is (the sentences the edit touched), per document."""
    from reflectcli.writing.sentences import sentences

    def touched(row: dict) -> list[str]:
        original = set(sentences(row["original_summary"]))
        return [s for s in sentences(row["summary"]) if s not in original]

    return _summedits_pairs(folder, split, 0, touched)


def _summedits_pairs(folder: Path, split: str, label: int, claims) -> list[tuple[str, str]]:
    """(claim, document) pairs of SummEdits' rows labelled `label` in the domains of `split`,
    the claims of a row `claims(row)`, each pair once."""
    domains = SUMMEDITS_DOMAINS if split == "all" else tuple(split.split("+"))
    pairs: list[tuple[str, str]] = []
    seen: set[tuple[str, str]] = set()
    for domain in domains:
        path = folder / f"summedits_{domain}.json"
        for row in json.loads(path.read_text(encoding="utf-8")) if path.exists() else []:
            if row["label"] != label:
                continue
            for sentence in claims(row):
                if (sentence, row["doc"]) not in seen:
                    seen.add((sentence, row["doc"]))
                    pairs.append((sentence, row["doc"]))
    return pairs


_SPEAKERS = ("Avery", "Blake", "Casey", "Devon", "Emery", "Finley", "Gray", "Harper")


def _speakers(text: str) -> str:
    """DialogSum's anonymised speakers (`#Person1#`) as names, the same in a dialogue and its
    summaries: a transcript names its speakers, and the digit of `#Person2#` is no quantity."""
    return re.sub(r"#Person(\d)#", lambda m: _SPEAKERS[int(m.group(1)) - 1], text)


def dialogsum(folder: Path, split: str, shape: str = "dialogue") -> list[tuple[str, str]]:
    """DialogSum (cylnlp/dialogsum 848cc8c0, DialogSum_Data/dialogsum.<split>.jsonl; ninth pass:
    a set of speech nobody on the project had read, CC BY-NC-SA 4.0): everyday dialogues and the
    summaries people wrote of them (dev: one each; test: three). The true claims: each sentence
    of 20 characters or more of a summary (the product's segmenter), the passage the dialogue,
    its anonymised speakers given names (`_speakers`) in both; `shape="inline"`: the dialogue's
    lines joined by spaces, as SummEdits gives its chats and meetings ("Larry: … . Ted: …");
    `shape="bold"`: each label bold, as a model writes a transcript in Markdown ("**Avery:** …")."""
    from reflectcli.writing.sentences import sentences

    path = folder / f"{split}.jsonl"
    pairs: list[tuple[str, str]] = []
    for line in path.read_text(encoding="utf-8").splitlines() if path.exists() else []:
        row = json.loads(_speakers(line))
        summaries = [row[k] for k in ("summary", "summary1", "summary2", "summary3") if row.get(k)]
        seen = set()
        for summary in summaries:
            for sentence in sentences(summary):
                if len(sentence) >= 20 and sentence not in seen:
                    seen.add(sentence)
                    dialogue = row["dialogue"]
                    if shape == "bold":  # tenth pass: labels bold, as a model writes them in Markdown
                        dialogue = re.sub(r"^([A-Z][\w ]*):", r"**\1:**", dialogue, flags=re.M)
                    pairs.append((sentence, " ".join(dialogue.split()) if shape == "inline" else dialogue))
    return pairs


def qmsum(folder: Path, split: str, shape: str = "meeting") -> list[tuple[str, str]]:
    """QMSum (Yale-LILY/QMSum 83d7768c, data/ALL/jsonl/<split>.jsonl, MIT; ninth pass: meetings,
    tuned on): transcripts of meetings and the answers people wrote to questions about them,
    each with the spans of turns it rests on. The true claims: each sentence of 20 characters or
    more of an answer (the product's segmenter); the passage its spans' turns, one a line as
    "Speaker: words" (tokenised as QMSum gives them, as SummEdits' meetings are). Val shares no
    meeting with SummEdits' qmsumm domain (held2); test shares 4, so it is not read."""
    from reflectcli.writing.sentences import sentences

    path = folder / f"{split}.jsonl"
    pairs: list[tuple[str, str]] = []
    for line in path.read_text(encoding="utf-8").splitlines() if path.exists() else []:
        meeting = json.loads(line)
        turns = meeting["meeting_transcripts"]
        for query in meeting["specific_query_list"]:
            shown = [f"{t['speaker']}: {t['content']}" for a, b in query["relevant_text_span"]
                     for t in turns[int(a) : int(b) + 1]]  # fmt: skip
            for sentence in sentences(query["answer"]):
                if len(sentence) >= 20:
                    pairs.append((sentence, "\n".join(shown)))
    return pairs


_FEVER_TOKENS = {
    "-LRB-": "(",
    "-RRB-": ")",
    "-LSB-": "[",
    "-RSB-": "]",
    "-LCB-": "{",
    "-RCB-": "}",
    "-COLON-": ":",
    "``": '"',
    "''": '"',
}


def _fever_text(text: str) -> str:
    """FEVER's tokenized text read as written ("Cruz has modelled for Mango , Ralph Lauren ." ->
    "Cruz has modelled for Mango, Ralph Lauren.")."""
    for token, char in _FEVER_TOKENS.items():
        text = text.replace(token, char)
    text = re.sub(r"\s+([.,;:!?)\]}%]|'s\b|n't\b|'re\b|'ve\b|'d\b|'ll\b|'m\b)", r"\1", text)
    text = re.sub(r"([(\[{$])\s+", r"\1", text)
    text = re.sub(r'"\s+(.*?)\s+"', r'"\1"', text)
    return re.sub(r"\s+--\s+", " – ", text).strip()


def fever(
    folder: Path, split: str, shape: str = "sentence", label: str = "SUPPORTS"
) -> list[tuple[str, str]]:
    """FEVER-Symmetric v0.2 (TalSchuster/FeverSymmetric fa25d17e, symmetric_v0.2/
    fever_symmetric_<split>.jsonl; sixth pass: an English set nobody on the project had read):
    FEVER's claims, written by annotators from Wikipedia, each with the one Wikipedia sentence
    that decides it, and the pairs the paper's authors wrote beside each (the claim or the
    sentence edited so that the label flips), labelled SUPPORTS or REFUTES. The true claims: the
    SUPPORTS pairs (`label="REFUTES"`: the refuted ones), text untokenized. `shape="wikipedia"`
    (seventh pass): only the pairs whose sentence is Wikipedia's own, FEVER's pair and the
    authors' claim against it (an id of FEVER's, or one ending "0000003"; "…2" and "…4" hold
    the authors' edited sentence, which nobody wrote as prose: "It produced failed to produce
    any films.")."""
    path = folder / f"{split}.jsonl"
    lines = path.read_text(encoding="utf-8").splitlines() if path.exists() else []
    rows = [json.loads(x) for x in lines if x.strip()]
    if shape == "wikipedia":
        rows = [r for r in rows if len(r["id"]) <= 9 or r["id"].endswith("0000003")]
    return [(_fever_text(r["claim"]), _fever_text(r["evidence"])) for r in rows if r["label"] == label]


def qags(folder: Path, split: str, shape: str = "article", label: str = "yes") -> list[tuple[str, str]]:
    """QAGS (W4ngatang/qags 47798e9b, data/mturk_<split>.jsonl, split "cnndm" or "xsum"; no
    licence file in the repository, the articles CNN/DailyMail's and the BBC's; fourteenth pass:
    an English set nobody on the project had read, held out): news articles and model-written
    summaries of them (CNN/DM: Bottom-Up Summarization, three sentences or so; XSum: BART, one),
    each summary sentence judged by three crowd workers as factually supported by the article
    ("yes") or not. The true claims: the sentences all three judged supported (`label="no"`:
    those all three judged unsupported); the passage the article. Text as the file gives it:
    lower case but for a sentence's first letter, CNN/DM's tokenised ("( cnn )", "$ 6", "`")."""
    path = folder / f"mturk_{split}.jsonl"
    pairs = []
    for line in path.read_text(encoding="utf-8").splitlines() if path.exists() else []:
        row = json.loads(line)
        for said in row["summary_sentences"]:
            if all(r["response"] == label for r in said["responses"]):
                pairs.append((said["sentence"], row["article"]))
    return pairs


_FRANK_SPACES = [
    (re.compile(r"\\'"), "'"),  # BBC's lines hold escaped quotes ("world\\'s")
    (re.compile(r"``\s*|\s*''"), '"'),
    (re.compile(r"\s+(n't|'s|'re|'ve|'ll|'d|'m)\b", re.I), r"\1"),
    (re.compile(r"\s+([.,;:!?%)\]])"), r"\1"),
    (re.compile(r"([(\[$£])\s+"), r"\1"),
]


def frank(folder: Path, split: str, shape: str = "article", label: str = "yes") -> list[tuple[str, str]]:
    """FRANK (artidoro/frank: human_annotations.json at 80a88fb1, the articles and summaries at
    5860706b, data/articles-wbertscore-json/<hash>.json; MIT licence, the articles CNN/DailyMail's
    and the BBC's; fifteenth pass: an English set nobody on the project had read, held out, read
    once): `split` "cnndm.test", "cnndm.valid", "bbc.test" or "bbc.valid" (FRANK's own validation
    and test splits). Summaries by nine models (CNN/DM: BART, BERTSum, Bottom-Up, PGN, seq2seq;
    XSum: BERTS2S, PtGen, TConvS2S, TranS2S); people judged each sentence, and `Factuality` is the
    share of a summary's sentences judged to hold no error. The true claims: every sentence of a
    summary judged wholly factual (1.0; `label="no"`: of one judged wrong in every sentence, 0.0),
    the passage the article. The sentences are tokenised ("Kilmarnock 's manager on Friday .");
    they are read with the spaces a tokeniser put before punctuation and after "(" or "$" taken
    out (decided before measuring), the numbers as the file gives them."""
    dataset, part = split.split(".")
    path = folder / "human_annotations.json"
    rows = json.loads(path.read_text(encoding="utf-8")) if path.exists() else []
    want = 1.0 if label == "yes" else 0.0
    pairs = []
    for row in rows:
        if row["dataset"] != dataset or row["split"] != part or float(row["Factuality"]) != want:
            continue
        article = folder / "articles" / f"{row['hash']}.json"
        if not article.exists():
            continue
        doc = json.loads(article.read_text(encoding="utf-8"))
        lines = doc.get(f"{row['model_name']}_lines", [])
        if isinstance(lines, str):  # CNN/DM's files hold a Python list's repr
            lines = ast.literal_eval(lines)
        for line in lines:
            for pattern, put in _FRANK_SPACES:
                line = pattern.sub(put, line)
            if line.strip():
                pairs.append((line.strip(), doc["article"]))
    return pairs


def covidfact(
    folder: Path, split: str, shape: str = "evidence", label: str = "SUPPORTED"
) -> list[tuple[str, str]]:
    """COVID-Fact (asaakyan/covidfact ceeb613c, COVIDFACT_dataset.jsonl; twenty-second pass: an
    English set nobody on the project had read): claims taken from r/COVID19 post titles, each with
    the sentences of the cited article that its annotators chose as evidence; SUPPORTED claims are
    the posts' own, REFUTED ones the authors' counter-claims (a word of a true claim swapped by
    a language model, then kept by people). The true claims: SUPPORTED (`label="REFUTED"`: the
    counter-claims), the passage the evidence sentences joined. `split` "a" / "b": the claims of
    the first / second half of the cited articles, in the file's order (decided before reading)."""
    path = folder / "COVIDFACT_dataset.jsonl"
    rows = [json.loads(x) for x in path.read_text(encoding="utf-8").splitlines() if x.strip()] if (
        path.exists()) else []  # fmt: skip
    sources = list(dict.fromkeys(r["gold_source"] for r in rows))
    half = set(sources[: len(sources) // 2]) if split == "a" else set(sources[len(sources) // 2 :])
    return [(r["claim"].strip(), " ".join(e.strip() for e in r["evidence"]))
            for r in rows if r["label"] == label and r["gold_source"] in half]  # fmt: skip


def healthver(
    folder: Path, split: str, shape: str = "evidence", label: str = "Supports"
) -> list[tuple[str, str]]:
    """HealthVer (sarrouti/HealthVer b20ac99c, data/healthver_<split>.csv; twenty-second pass: an
    English set nobody on the project had read): health claims found on the web, each with an
    abstract's passage from CORD-19, labelled by people Supports / Refutes / Neutral. The true
    claims: Supports (`label="Refutes"`: the refuted ones); the passage the evidence."""
    import csv

    path = folder / f"{split}.csv"
    if not path.exists():
        return []
    with path.open(encoding="utf-8", newline="") as f:
        return [(r["claim"].strip(), r["evidence"].strip()) for r in csv.DictReader(f) if r["label"] == label]


def uhgeval(folder: Path, split: str, shape: str = "headline", label: str = "yes") -> list[tuple[str, str]]:
    """UHGEval (IAAR-Shanghai/UHGEval affd38ea, src/eval_suite/benchs/uhgeval/
    dataset_uhgeval_concise.jsonl; Apache-2.0; twenty-second pass: a Chinese set nobody on the project
    had read): 1,000 Xinhua news articles. The true claims: each article's headline (its leading
    tag in brackets, "（国际）", taken off; the last line of a two-line one; headlines of fewer than
    6 Chinese characters left out), the passage the article (its beginning and remainder).
    `label="no"`: the sentences a Chinese model wrote to continue the article in which people
    marked a keyword "不合理，与事实冲突" (against the facts), against the whole article.
    `split` "a" / "b": the first / second 500 rows (decided before reading)."""
    path = folder / "concise.jsonl"
    rows = [json.loads(x) for x in path.read_text(encoding="utf-8").splitlines() if x.strip()] if (
        path.exists()) else []  # fmt: skip
    rows = rows[:500] if split == "a" else rows[500:]
    pairs = []
    for r in rows:
        article = (r["newsBeginning"].strip() + "\n\n" + r["newsRemainder"].strip()).strip()
        if label == "no":
            if any("与事实冲突" in a.split("<sep>")[-1] for a in r["annotations"]):
                pairs.append((r["hallucinatedContinuation"].strip(), article))
            continue
        head = re.sub(r"^[（(][^）)]*[）)]\s*", "", r["headLine"].strip().splitlines()[-1].strip())
        if len(CJK.findall(head)) >= 6:
            pairs.append((head, article))
    return pairs


# (language, data set, split, loader, role: "tuned" on it, "held" out, "fresh" held out (third
# pass), "fresh2" (fourth pass), "tune2" / "held2" (fifth pass: SummEdits news + podcast tuned on,
# the other four domains held out), "fresh3" (fourteenth pass: held out, read once at the end),
# "fresh4" (fifteenth pass: FRANK, held out, read once), "tune7" / "fresh5" (twenty-second pass:
# COVID-Fact, HealthVer and UHGEval, one half tuned on, the other held out),
# passage shape, judged against the targets)
REAL = [
    ("English", "WiCE", "dev", wice, True, "cited", False), ("English", "WiCE", "dev", wice, True, "chunks", False),  # noqa: E501
    ("English", "WiCE", "test", wice, False, "cited", True), ("English", "WiCE", "test", wice, False, "chunks", True),  # noqa: E501
    ("Chinese", "CiteCheck", "dev", citecheck, True, "quote", False),
    ("Chinese", "CiteCheck", "test", citecheck, False, "quote", True),
    ("Chinese", "OCNLI", "train.3k", ocnli, True, "premise", False),
    ("Chinese", "OCNLI", "dev", ocnli, False, "premise", False),
    ("English", "WiCE", "train", wice, "fresh", "cited", True),
    ("Chinese", "CiteCheck", "train", citecheck, "fresh", "quote", True),
    ("Chinese", "OCNLI", "train.10k", ocnli_fresh, "fresh", "premise", False),
    ("English", "SummEdits", "news+scitldr+ectsum", summedits, "fresh2", "document", True),
    ("English", "SummEdits", "podcast+qmsumm+samsum", summedits, "fresh2", "document", True),
    ("English", "SummEdits", "news+podcast", summedits, "tune2", "document", False),
    ("English", "SummEdits", "scitldr+ectsum+qmsumm+samsum", summedits, "held2", "document", True),
    ("English", "FeverSym", "dev", fever, "tune3", "sentence", False),
    ("English", "FeverSym", "dev", fever, "tune3", "wikipedia", False),
    ("English", "FeverSym", "test", fever, "held3", "sentence", True),
    ("English", "FeverSym", "test", fever, "held3", "wikipedia", True),
    ("English", "DialogSum", "dev", dialogsum, "tune4", "dialogue", False),
    ("English", "DialogSum", "dev", dialogsum, "tune4", "inline", False),
    ("English", "DialogSum", "dev", dialogsum, "tune4", "bold", False),
    ("English", "DialogSum", "test", dialogsum, "held4", "dialogue", True),
    ("English", "DialogSum", "test", dialogsum, "held4", "inline", True),
    ("English", "QMSum", "val", qmsum, "tune5", "meeting", False),
    ("English", "SummEdits", "sales_call+sales_email", summedits, "tune6", "document", False),
    ("English", "QAGS", "cnndm", qags, "fresh3", "article", True),
    ("English", "QAGS", "xsum", qags, "fresh3", "article", True),
    ("English", "FRANK", "cnndm.test", frank, "fresh4", "article", True),
    ("English", "FRANK", "cnndm.valid", frank, "fresh4", "article", True),
    ("English", "FRANK", "bbc.test", frank, "fresh4", "article", True),
    ("English", "FRANK", "bbc.valid", frank, "fresh4", "article", True),
    ("English", "COVID-Fact", "a", covidfact, "tune7", "evidence", False),
    ("English", "HealthVer", "dev", healthver, "tune7", "evidence", False),
    ("Chinese", "UHGEval", "a", uhgeval, "tune7", "headline", False),
    ("English", "COVID-Fact", "b", covidfact, "fresh5", "evidence", True),
    ("English", "HealthVer", "test", healthver, "fresh5", "evidence", True),
    ("Chinese", "UHGEval", "b", uhgeval, "fresh5", "headline", True),
]  # fmt: skip


def split_role(tuned: bool | str) -> str:
    """A row's role, as `--splits` names it: "tuned", "held", or a later pass's own ("tune2" …)."""
    return tuned if isinstance(tuned, str) else ("tuned" if tuned else "held")


# the statements people labelled unfaithful, per data set: what code's check calls them (fifth pass;
# code judges no entailment, so most unfaithful statements are beyond it: a row to read, no target)
UNFAITHFUL = {
    "CiteCheck": ("statements people labelled unfaithful", partial(citecheck, label=0)),
    "FeverSym": ("claims people labelled refuted by the sentence", partial(fever, label="REFUTES")),
    "QAGS": ("summary sentences all three workers judged unsupported by the article",
             partial(qags, label="no")),
    "FRANK": ("sentences of summaries people judged wrong in every sentence", partial(frank, label="no")),
    "COVID-Fact": ("counter-claims (a word swapped by a model, kept by people) refuted by the evidence",
                   partial(covidfact, label="REFUTED")),
    "HealthVer": ("claims people labelled refuted by the passage", partial(healthver, label="Refutes")),
    "UHGEval": ("model-written continuations with a keyword people marked against the facts",
                partial(uhgeval, label="no")),
}  # fmt: skip
SHAPES = {"cited": "the cited sentences", "chunks": f"windows of <= {TARGET} chars around them",
          "quote": "the cited documents", "premise": "the premise",
          "document": "the summarised document", "sentence": "Wikipedia's sentence or the authors' edit",
          "wikipedia": "Wikipedia's own sentence, no edit", "dialogue": "the dialogue",
          "inline": "the dialogue, its lines joined", "bold": "the dialogue, its labels bold (**Avery:**)",
          "meeting": "the meeting's turns the answer rests on",
          "article": "the news article the summary was made from",
          "evidence": "the evidence people chose for the claim", "headline": "the news article"}  # fmt: skip


# --- the bench's own reading of text (independent of the product's) ------------------------


def _sentences(passage: str) -> list[str]:
    import pysbd

    out = []
    for paragraph in passage.split("\n\n"):
        language = "zh" if len(CJK.findall(paragraph)) * 3 > len(paragraph) else "en"
        out += [s for s in pysbd.Segmenter(language=language, clean=False).segment(paragraph) if s.strip()]
    return out


def _units(text: str) -> set[str]:
    chars = CJK.findall(text)
    return {w.lower() for w in re.findall(r"[A-Za-z]{3,}|\d+", text)} | {
        a + b for a, b in zip(chars, chars[1:], strict=False)
    }


def carrier(claim: str, passage: str) -> str | None:
    """The passage sentence sharing the most words (CJK: character pairs) with the claim."""
    wanted = _units(claim)
    scored = [(len(wanted & _units(s)), s) for s in _sentences(passage)]
    best = max(scored, default=(0, None))
    return best[1] if best[0] else None


# --- WordNet, read here ----------------------------------------------------------------------


_VERBS: set[str] | None = None
_VERB_EXC: dict[str, str] = {}


def _verbs() -> set[str]:
    global _VERBS
    if _VERBS is None:
        _VERBS = set()
        if (WORDNET / "index.verb").exists():
            for line in (WORDNET / "index.verb").read_text(encoding="latin-1").splitlines():
                if not line.startswith(" "):
                    _VERBS.add(line.split()[0])
            for line in (WORDNET / "verb.exc").read_text(encoding="latin-1").splitlines():
                form, base, *_ = line.split()
                _VERB_EXC.setdefault(form, base)
    return _VERBS


def _verb_base(word: str) -> str | None:
    """The base of a past-tense or third-person verb form ("printed" → "print"), or None."""
    verbs = _verbs()
    if word in _VERB_EXC:
        return _VERB_EXC[word]
    candidates = []
    if word.endswith("ied"):
        candidates.append(word[:-3] + "y")
    if word.endswith("ed"):
        candidates += [word[:-2], word[:-1], word[:-3] if len(word) > 4 and word[-3] == word[-4] else ""]
    if word.endswith("es"):
        candidates += [word[:-2]]
    if word.endswith("s") and not word.endswith("ss"):
        candidates += [word[:-1]]
    return next((c for c in candidates if c and c in verbs), None)


_ANTONYMS: dict[str, list[str]] | None = None


def antonyms(language: str) -> dict[str, list[str]]:
    """Each word and its opposites, from the public source (not the shipped list): WordNet's
    antonym relation; NL-Augmenter's Chinese list in pairs of 2-4 characters."""
    global _ANTONYMS
    if _ANTONYMS is None:
        from build_lexicon import chinese_antonyms, english_antonyms

        table: dict[str, list[str]] = {}
        # adjectives only: of 15 mutations made with every pair, 13 were nonsense (home/away,
        # head/foot, host/parasite, show/hide: another sense or part of speech)
        pairs = english_antonyms(WORDNET, kinds="a") if (WORDNET / "data.adj").exists() else []
        path = CORPUS / "antonyms-zh-nlaug" / "反义词库.txt"
        pairs += chinese_antonyms(path, longest=4) if path.exists() else []
        for a, b in pairs:
            table.setdefault(a, []).append(b)
            table.setdefault(b, []).append(a)
        _ANTONYMS = table
    return _ANTONYMS


# --- mutations -------------------------------------------------------------------------------

_AUX = re.compile(
    r"\b(is|was|are|were|has|have|had|can|could|will|would|did|does|do|should|may|might|must)\b"
)
_NEGATED = re.compile(r"\b(not|never|no|none|nor|neither|without|cannot)\b|n't\b|[不没未无非]", re.I)
_ZH_AUX = [("是", "不是"), ("有", "没有"), ("会", "不会"), ("能", "不能"), ("在", "不在"), ("可以", "不可以")]
_ZH_DENY = ("没有", "没", "并未", "未")


def _zh_tokens(text: str) -> list[tuple[str, str, int]]:
    """`text`'s words by jieba (word, part of speech, offset): a negation goes before a whole
    word (是, 有, 会, 能, 可以, a verb before 了), never inside one (潜在, 设有, 佳能)."""
    import jieba
    import jieba.posseg

    jieba.setLogLevel(60)
    out, at = [], 0
    for word, flag in jieba.posseg.cut(text):
        out.append((word, flag, at))
        at += len(word)
    return out


_LIGHT_AUX = (
    "is",
    "was",
    "are",
    "were",
    "has",
    "have",
    "had",
    "can",
    "could",
    "will",
    "would",
    "did",
    "does",
    "do",
    "should",
    "may",
    "might",
    "must",
)


_SUBJECTS = frozenset(("he", "she", "it", "that", "which", "who", "this", "also", "now", "still", "then"))


def _bases(text: str) -> set[str]:
    """The words of `text` and their verb bases, lower case."""
    words = {w.lower() for w in re.findall(r"[A-Za-z]+", text)}
    return words | {b for w in words if (b := _verb_base(w))}


def negate(text: str, n: int = 0, other: str | None = None) -> str | None:
    """`text` denied where it says what `other` says (the n-th form of a rotation, so that every
    form is used). English: the first verb of `text` that `other` also holds (as a form of the
    same verb) gets `not`, `never` or `no longer` after its auxiliary ("was formed" → "was not
    formed"), or is said `did not` / `failed to` + its base ("printed" → "did not print"); with
    no `other`, the first auxiliary or verb. Chinese (words by jieba): 不/没 before the word
    是/有/会/能/在/可以 (not 在 as a preposition, nor 是的 answering yes), or 没有/没/并未/未
    before the verb that 了 follows, whose next characters `other` also holds.
    None when `text` denies something already or no such place is found."""
    if _NEGATED.search(text):
        return None
    if CJK.search(text):
        shared = _units(other) if other else None
        tokens = _zh_tokens(text)
        for word, denied in _ZH_AUX:
            for i, (token, flag, start) in enumerate(tokens):
                if token != word or flag == "p":  # 在 as a preposition ("在1930年") is no verb
                    continue
                after = "".join(t for t, _, _ in tokens[i + 1 : i + 3])
                if word == "是" and re.match(r"的[，,。！!]|的$", after):
                    continue  # 是的，…: an answer's "yes", no statement
                end = start + len(token)
                if shared is None or _units(text[end : end + 4]) & shared:
                    return text[:start] + denied + text[end:]
        for i, (token, flag, start) in enumerate(tokens[:-1]):
            if tokens[i + 1][0] == "了" and flag.startswith("v") and len(token) >= 2 and CJK.match(token):
                if shared is None or token[-2:] in shared:
                    return text[:start] + _ZH_DENY[n % len(_ZH_DENY)] + token + text[start + len(token) + 1 :]
        return None
    wanted = _bases(other) if other else None
    for m in re.finditer(r"(?<=\s)[a-z]+\b", text):
        word = m.group()
        base = _verb_base(word) or (word if word in _verbs() and len(word) > 3 else None)
        if not base or word in _LIGHT_AUX or (wanted is not None and not ({word, base} & wanted)):
            continue
        before = text[: m.start()].split()
        prev = before[-1].lower() if before else ""
        if prev in ("the", "a", "an", "of", "his", "her", "its", "their", "this", "that"):
            continue
        if prev in _LIGHT_AUX:
            said = ("not", "never", "no longer")[n % 3] if prev in ("is", "was", "are", "were") else (
                ("not", "never")[n % 2])  # fmt: skip
            return text[: m.start()] + f"{said} " + text[m.start() :]
        if prev == "to":
            return text[: m.start()] + "not " + text[m.start() :]
        named = bool(before) and before[-1][:1].isupper()
        if word != base and word.endswith("s") and prev not in _SUBJECTS and not named:
            continue  # third pass: a plural noun read as a verb ("elects failed to board")
        if word != base and _VERB_EXC.get(word) and word.endswith("n"):
            continue  # a participle with no auxiliary ("Paris, known as" → "failed to know as")
        if word != base:
            said = ("did not", "failed to")[n % 2]
            return text[: m.start()] + f"{said} {base}" + text[m.end() :]
    if wanted is None and (match := _AUX.search(text)):
        return text[: match.end()] + " not" + text[match.end() :]
    return None


def renumber(claim: str, passage: str) -> str | None:
    """The claim with its first number changed to one the passage lacks: a decimal's digits
    reversed (3.5 → 5.3), a year plus 20, another integer plus a quarter (at least 3)."""
    for match in re.finditer(r"(?<![\d.,])\d+(?:\.\d+)?(?![\d.,]\d)", claim):
        new = _changed(match.group())
        if not re.search(r"(?<![\d.])" + re.escape(new) + r"(?![\d])", passage):
            return claim[: match.start()] + new + claim[match.end() :]
    return None


def _changed(number: str) -> str:
    if "." in number:
        return number[::-1] if number[::-1] != number else str(float(number) * 2)
    value = int(number)
    return str(value + 20 if 1000 <= value <= 2100 else value + max(3, value // 4))


def renumber_passage(claim: str, passage: str) -> str | None:
    """The passage with a number of the claim that its carrying sentence holds changed,
    everywhere in the passage."""
    said = carrier(claim, passage) or ""
    for match in re.finditer(r"(?<![\d.,])\d+(?:\.\d+)?(?![\d.,]\d)", claim):
        number = match.group()
        pattern = r"(?<![\d.,])" + re.escape(number) + r"(?![\d]|[.,]\d)"
        if re.search(pattern, said):
            new = _changed(number)
            if not re.search(r"(?<![\d.])" + re.escape(new) + r"(?![\d])", passage + claim):
                return re.sub(pattern, new, passage)
    return None


def rename(claim: str, passage: str) -> str | None:
    """The claim with its first name inside the sentence (a run of capitalised words after the
    first word, each in the passage) replaced by a place name the passage lacks."""
    other = next(n for n in OTHER_NAMES if n.lower() not in passage.lower())
    for match in re.finditer(r"(?<=\s)[A-Z][a-zà-ÿ]+(?:\s+[A-Z][a-zà-ÿ]+)*", claim):
        if all(w.lower() in passage.lower() for w in match.group().split()):
            return claim[: match.start()] + other + claim[match.end() :]
    return None


# an adjective in predicate position: after a copula, an adverb or two between ("was very
# successful"); third pass: of the attributive ones most were another sense (local/express train,
# round/square, national/international)
_COPULA = re.compile(
    r"\b(?:is|was|are|were|be|been|being|become|becomes|became|remain|remains|remained|seem|seems|seemed|"
    r"proved|considered|deemed)\s+(?:(?:very|so|too|more|most|less|least|quite|largely|highly|relatively|"
    r"extremely|generally|particularly|commercially|critically|initially|also|still|now|then|often|"
    r"always|mostly)\s+){0,2}$",
    re.I,
)


def _swap(text: str, shared: str, n: int) -> tuple[str, str] | None:
    """(the word of `text` that `shared` also holds, `text` with it replaced by an opposite).
    Chinese: a whole word as jieba cuts it ("时间" in "到账时间", never "高" in "最高人民法院"
    nor "boo" in "Facebook")."""
    table = antonyms("")
    if CJK.search(text):  # a whole word by jieba, of 2-4 characters, no preposition, name or number
        for word, flag, i in _zh_tokens(text):
            if (
                re.fullmatch(r"[\u4e00-\u9fff]{2,4}", word)
                and word in table
                and word in shared
                and (flag not in ("p", "m", "nr", "ns", "nt", "nz"))
            ):
                others = [o for o in table[word] if o not in text and o not in shared]
                for k in range(len(others)):
                    other = others[(n + k) % len(others)]
                    swapped = text[:i] + other + text[i + len(word) :]
                    # the opposite cut as one word of the same part of speech there (共有 "in
                    # all" is no 国有 "state-owned", 无需 no 供给): third pass
                    if any(t == other and at == i and f[:1] == flag[:1] for t, f, at in _zh_tokens(swapped)):
                        return word, _every_copy(text, word, other)
        return None
    for m in re.finditer(r"\b[a-z]{3,}\b", text):
        word = m.group()
        if word == "home":  # "is home to": a noun
            continue
        said = re.search(r"\b" + word + r"\b", shared, re.I)
        if word in table and said and _COPULA.search(text[: m.start()]):
            others = [o for o in table[word] if o not in shared.lower()]
            if others:
                return word, re.sub(r"\b" + word + r"\b", others[n % len(others)], text)
    return None


def _every_copy(text: str, word: str, other: str) -> str:
    """`text` with `other` for each copy of `word` that jieba cuts as that word: a sentence that
    says 强壮值 in its title and again in its body, with only the first swapped, still says
    what the claim says (eighth pass; before it, 52 of CiteCheck dev's 76 passage antonyms
    missed were such)."""
    out, last = [], 0
    for token, _, at in _zh_tokens(text):
        if token == word:
            out += [text[last:at], other]
            last = at + len(word)
    return "".join(out) + text[last:]


def antonym(claim: str, passage: str, n: int = 0) -> str | None:
    """The claim with a word it shares with its carrying sentence replaced by an opposite."""
    said = carrier(claim, passage)
    swapped = _swap(claim, said, n) if said else None
    return swapped[1] if swapped else None


def antonym_passage(claim: str, passage: str, n: int = 0) -> str | None:
    """The passage with a word its carrying sentence shares with the claim replaced by an
    opposite (in that sentence only)."""
    if not sole_carrier(claim, passage):
        return None
    said = carrier(claim, passage)
    swapped = _swap(said, claim, n) if said else None
    return passage.replace(said, swapped[1]) if swapped else None  # every copy (a title, a repeat)


# Twenty-second pass: a passage-side denial or antonym is made only where the carrying sentence is
# the passage's one sentence that carries the claim: no other holds `SECOND` as many of the words
# the carrier shares with it. Otherwise the mutated passage still says what the claim says (a
# page that gives its title twice, "Gilead pledged to donate … 1.5 million doses" beside "Gilead's
# donation of 1.5 million doses"), and it does not say otherwise: no contradiction to catch. Set
# REFLECT_BENCH_ANY_CARRIER=1 for the rule before it (every carrier mutated).
SECOND = 0.8
ANY_CARRIER = os.environ.get("REFLECT_BENCH_ANY_CARRIER") == "1"


def sole_carrier(claim: str, passage: str) -> bool:
    """Whether one sentence of `passage` carries `claim` and none other nearly as well."""
    wanted = _units(claim)
    scores = sorted((len(wanted & _units(s)) for s in set(map(str.strip, _sentences(passage)))), reverse=True)
    return ANY_CARRIER or len(scores) < 2 or scores[1] < SECOND * scores[0]


def deny_passage(claim: str, passage: str, n: int = 0) -> str | None:
    """The passage with its carrying sentence denied where it says what the claim says."""
    if not sole_carrier(claim, passage):
        return None
    said = carrier(claim, passage)
    denied = negate(said.strip(), n, claim) if said else None
    return passage.replace(said.strip(), denied) if denied else None  # every copy of the sentence


# kind, side, mutation (claim, passage, n) -> (claim, passage) or None, what counts as caught
MUTATIONS = [
    ("negation", "claim", lambda c, p, n: (m, p) if (m := negate(c, n, carrier(c, p))) else None,
     ("contradicted",)),
    ("number", "claim", lambda c, p, n: (m, p) if (m := renumber(c, p)) else None, ("contradicted", "unverified")),  # noqa: E501
    ("name", "claim", lambda c, p, n: (m, p) if (m := rename(c, p)) else None, ("contradicted", "unverified")),  # noqa: E501
    ("antonym", "claim", lambda c, p, n: (m, p) if (m := antonym(c, p, n)) else None, ("contradicted",)),
    ("denial", "passage", lambda c, p, n: (c, m) if (m := deny_passage(c, p, n)) else None, ("contradicted",)),  # noqa: E501
    ("number", "passage", lambda c, p, n: (c, m) if (m := renumber_passage(c, p)) else None,
     ("contradicted", "unverified")),
    ("antonym", "passage", lambda c, p, n: (c, m) if (m := antonym_passage(c, p, n)) else None, ("contradicted",)),  # noqa: E501
]  # fmt: skip


def verdict_of(claim: str, passage: str) -> tuple[str, str]:
    """`check`'s verdict; an older tree's (supported / unsupported) read in today's words (the
    "before" column: a missing number or name is unverified, a flip contradicted)."""
    verdict, reason = check(claim, passage)
    if verdict == "supported":
        return "consistent", reason
    if verdict == "unsupported":
        return ("unverified" if reason.startswith("the passage does not") else "contradicted"), reason
    return verdict, reason


def met(ok: bool) -> str:
    return "met" if ok else "BELOW TARGET"


def real_text(corpus: Path, splits: str = "all", misses: bool = False) -> bool:
    """Code's check on human-labelled true claims and on their mutations, per split and passage
    shape; the targets are judged on the held-out splits of WiCE and CiteCheck. `splits`: "all",
    "tuned" or "held"; `misses`: print each true claim not consistent, each mutation missed."""
    ok, found = True, False
    for language, name, split, load, tuned, shape, judged in REAL:
        kind = role_of = split_role(tuned)
        # not in "all"
        later = ("fresh", "fresh2", "tune2", "held2", "tune3", "held3", "tune4", "held4", "tune5", "tune6",
                 "fresh3", "fresh4", "tune7", "fresh5")  # fmt: skip
        if (splits == "all" and kind in later) or splits not in ("all", kind):
            continue
        pairs = load(corpus / name.lower(), split, shape)
        if not pairs:
            print(f"{language} ({name} {split}): skipped, no data under {corpus / name.lower()} "
                  "(see bench/README.md)")  # fmt: skip
            continue
        found = True
        verdicts = [(c, p, verdict_of(c, p)) for c, p in pairs]
        count = Counter(v for _, _, (v, _) in verdicts)
        n = len(pairs)
        wrong, fine = count["contradicted"] / n, count["consistent"] / n
        role = {
            "tuned": "tuned on",
            "held": "held out",
            "fresh": "fresh, held out",
            "fresh2": "fresh (4th pass), held out",
            "tune2": "tuned on (5th pass)",
            "held2": "held out (5th pass)",
            "tune3": "tuned on (6th pass)",
            "held3": "held out (6th pass)",
            "tune4": "tuned on (9th pass)",
            "held4": "held out (9th pass)",
            "tune5": "tuned on (9th pass)",
            "tune6": "tuned on (10th pass)",
            "fresh3": "fresh (14th pass), held out",
            "fresh4": "fresh (15th pass), held out",
            "tune7": "tuned on (22nd pass)",
            "fresh5": "fresh (22nd pass), held out",
        }[kind]
        target = f" (targets <= 0.03: {met(wrong <= 0.03)}; >= 0.85: {met(fine >= 0.85)})" if judged else ""
        print(f"{language} ({name} {split}, {role}; passage: {SHAPES[shape]}): {n} true claims: "
              f"contradicted {wrong:.3f} ({count['contradicted']}), unverified "
              f"{count['unverified'] / n:.3f} ({count['unverified']}), consistent {fine:.3f} "
              f"({count['consistent']}){target}")  # fmt: skip
        ok &= not judged or (wrong <= 0.03 and fine >= 0.85)
        if misses:
            for c, _, (v, reason) in verdicts:
                if v != "consistent":
                    print(f"    - [{v}] {c}\n      {reason}")
        what, unfaithful = UNFAITHFUL.get(name, ("", None))
        if unfaithful and (bad := unfaithful(corpus / name.lower(), split, shape)):
            got = Counter(verdict_of(c, p)[0] for c, p in bad)
            print(f"  {len(bad)} {what} (real, not mutated; no target): "
                  f"contradicted {got['contradicted'] / len(bad):.3f} ({got['contradicted']}), unverified "
                  f"{got['unverified'] / len(bad):.3f} ({got['unverified']}), consistent "
                  f"{got['consistent'] / len(bad):.3f} ({got['consistent']})")  # fmt: skip
        base = [(c, p) for c, p, (v, _) in verdicts if v == "consistent"]
        for kind, side, mutate, caught in MUTATIONS:
            made = [m for i, (c, p) in enumerate(base) if (m := mutate(c, p, i)) is not None]
            if not made:
                continue
            got = Counter(verdict_of(c, p)[0] for c, p in made)
            rate = sum(got[v] for v in caught) / len(made)
            want = " or ".join(caught)
            print(f"  {side:<7} {kind:<8}: {len(made):>4} mutated, {want} {rate:.3f} "
                  f"(contradicted {got['contradicted']}, unverified {got['unverified']}, consistent "
                  f"{got['consistent']})" + (f" (target >= 0.95: {met(rate >= 0.95)})" if judged else ""))  # fmt: skip  # noqa: E501
            ok &= not judged or rate >= 0.95
            if misses:
                for c, p in made:
                    v, reason = verdict_of(c, p)
                    if v not in caught:
                        shown = c if side == "claim" else (carrier(c, p) or "")[:300]
                        print(f"    - [{v}] {shown}\n      claim: {c}\n      {reason}")
        if name == "SummEdits" and role_of in ("tune2", "held2", "tune6"):
            edits = [(c, p, verdict_of(c, p)) for c, p in summedits_edits(corpus / name.lower(), split)]
            got = Counter(v for _, _, (v, _) in edits)
            m = len(edits) or 1
            print(f"  recall  edits   : {len(edits):>4} edited sentences of summaries labelled "
                  f"inconsistent: contradicted {got['contradicted'] / m:.3f} ({got['contradicted']}), "
                  f"contradicted or unverified {(got['contradicted'] + got['unverified']) / m:.3f} "
                  f"(unverified {got['unverified']}, consistent {got['consistent']}) (measured, no target)")  # fmt: skip  # noqa: E501
            if misses:
                for c, _, (v, reason) in edits:
                    if v == "consistent":
                        print(f"    - [{v}] {c}\n      {reason}")
    if not found:
        print(f"real-text section skipped: no data under {corpus} (see bench/README.md)")
    return ok


if __name__ == "__main__":
    import argparse

    parser = argparse.ArgumentParser(
        description="code's check on WiCE, CiteCheck and OCNLI (held-out targets)"
    )
    parser.add_argument("--corpus", type=Path, default=CORPUS, help="where wice/, citecheck/, ocnli/ are")
    parser.add_argument("--splits", default="all",
                        choices=("all", "tuned", "held", "fresh", "fresh2", "tune2", "held2", "tune3",
                                 "held3", "tune4", "held4", "tune5", "tune6", "fresh3", "fresh4", "tune7",
                                 "fresh5"),
                        help="tuned: WiCE dev, CiteCheck dev, OCNLI train.3k; held: WiCE and CiteCheck "
                        "test, OCNLI dev; fresh (not in all): WiCE and CiteCheck train, OCNLI train.10k's "
                        "unseen premises; fresh2 (not in all): SummEdits' consistent summaries, "
                        "by sentence; tune2 / held2 (not in all): the same, news + podcast (tuned on) / "
                        "scitldr + ectsum + qmsumm + samsum (held out), with a recall row of the "
                        "label-0 edits; tune3 / held3 (not in all): FEVER-Symmetric dev / test; "
                        "tune4 / held4 (not in all): DialogSum dev / test; tune5 (not in all): QMSum "
                        "val; tune6 (not in all): SummEdits' model-written sales calls and "
                        "emails; fresh3 (not in all): QAGS CNN/DM and XSum, summary sentences all "
                        "three workers judged supported (held out, read once); fresh4 (not in all): FRANK "
                        "CNN/DM and XSum, sentences of summaries people judged wholly factual (held "
                        "out, read once); tune7 / fresh5 (not in all): COVID-Fact, HealthVer and "
                        "UHGEval, one half tuned on, the other held out")  # fmt: skip
    parser.add_argument("--misses", action="store_true", help="print each true claim not consistent and "
                        "each mutation missed")  # fmt: skip
    args = parser.parse_args()
    sys.exit(0 if real_text(args.corpus, args.splits, args.misses) else 1)
