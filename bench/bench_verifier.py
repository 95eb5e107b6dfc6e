"""Trust in citations: the veto on cited claims, on hand-written and on real text; the precision
of `supported` end to end; invented citations in the outputs of scripted grounded runs.

1. Hand-written set (built here, by the authors of the veto: a floor, not a field measurement):
   20 passages of invented facts, sentences labelled supported (copies, reorderings,
   paraphrases, a pronoun first) or not supported (a changed number or name, a negation, an
   opposite word, a changed detail, a topic-level claim), every case of issue 20's first list
   among them. Each is judged as a run judges it (`sources.verify.judge`: the scripted critic's
   verdict, paired by claim id, then the veto) with four critics: `believer` (supported to
   everything: the veto alone), `right`, `noisy` (right 80 % of the time, seeded) and `none`
   (judges nothing). Printed: precision and recall of `supported`. Target: precision >= 0.9
   for every critic but `believer`.
2. Real text (verifier_realtext.py): the veto alone on human-labelled true claims of WiCE and
   OCNLI (`--corpus DIR`; skipped with a note when absent), and on them mutated by script.
3. End to end: scripted runs through the real runner whose writer cites the hand-written set's
   sentences; the precision of `supported` in the References of the artifact and the json
   export, for the `believer` critic and the `right` one.
4. No contradiction ships (issue 32): the same scripted writer, a credulous critic (score 9,
   every claim supported) and the checklist critic; passed runs holding a claim code found
   contradicted, and such claims missing from the References. Target: 0 and 0.
4b. No false claim ships, on real text (issue 32, twentieth pass): the same, on a library of
   WiCE test's and CiteCheck test's passages (`real_set`: 16 true claims each, their claim-side
   mutations, and the claim cited to its passage mutated); per language and critic, also the
   false claims the outputs hold by the verdict References shows (`consistent`: code's misses).
5. Invented citations: 20 scripted runs where the writer cites held ids and, at random
   (seeded), ids the run does not hold; every output (artifact, md, report, json, html) is
   scanned for `[Sn]` and `#ref-Sn` not in the run's evidence. Target: 0.

    python bench/bench_verifier.py [--seed N] [--corpus DIR]
    python bench/bench_verifier.py --ships-only --ships-seed S --threshold T   # 4 and 4b alone (~1.5 min)
"""

from __future__ import annotations

import io
import json
import random
import re
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from reflectcli.models.fake import prompt_text  # noqa: E402
from reflectcli.sources.verify import judge  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))
from verifier_realtext import CORPUS, real_text  # noqa: E402

# (passage, supported sentences, unsupported sentences)
SET = [
    ("Johannes Gutenberg built a press with movable metal type in Mainz around 1450.",
     ["Gutenberg built a press with movable metal type in Mainz around 1450.",
      "Around 1450, in Mainz, Gutenberg built a press with movable metal type.",
      "In Mainz Gutenberg built a movable metal type press."],
     ["Gutenberg built a press with movable metal type in Mainz around 1480.",
      "Gutenberg built a press with movable metal type in Venice around 1450.",
      "Gutenberg never built a press with movable metal type in Mainz.",
      "The press changed how Europeans thought about knowledge."]),
    ("The Kestrel lighthouse log notes forty-one ships in the winter gale of 1783.",
     ["The Kestrel lighthouse log notes forty-one ships in the 1783 winter gale.",
      "In the winter gale of 1783 the Kestrel log noted forty-one ships."],
     ["The Kestrel lighthouse log notes forty-one ships in the winter gale of 1790.",
      "The Osprey lighthouse log notes forty-one ships in the winter gale of 1783.",
      "Lighthouses saved thousands of sailors every winter."]),
    ("Bi Sheng made movable type from baked clay in China around 1040.",
     ["Bi Sheng made movable type from baked clay around 1040.",
      "Around 1040 in China, Bi Sheng made movable clay type."],
     ["Bi Sheng made movable type from cast bronze in China around 1040.",
      "Bi Sheng made movable type from baked clay in Japan around 1040.",
      "Bi Sheng did not make movable type from baked clay."]),
    ("By 1500 presses worked in more than 250 European towns and had printed twenty million volumes.",
     ["By 1500 presses worked in more than 250 European towns.",
      "Presses had printed twenty million volumes by 1500."],
     ["By 1500 presses worked in more than 400 European towns.",
      "By 1600 presses had printed twenty million volumes.",
      "Printing made books affordable for every family."]),
    ("The Vellmar psalter was printed in 1457 with a ninth typeface cast in the Mainz workshop.",
     ["The Vellmar psalter was printed in 1457.",
      "A ninth typeface cast in the Mainz workshop printed the Vellmar psalter in 1457."],
     ["The Vellmar psalter was printed in 1467.",
      "The Vellmar psalter was printed in Strasbourg with a ninth typeface.",
      "The Vellmar psalter was the most beautiful book of its century."]),
    ("Luther's pamphlets sold in the hundreds of thousands during the 1520s.",
     ["During the 1520s Luther's pamphlets sold in the hundreds of thousands."],
     ["Luther's pamphlets sold in the hundreds of thousands during the 1540s.",
      "Erasmus's pamphlets sold in the hundreds of thousands during the 1520s.",
      "Luther's pamphlets never sold well."]),
    ("The Tessaly orrery has 37 bronze gears cut by the clockmaker Ansel Roe in 1762.",
     ["The Tessaly orrery has 37 bronze gears.",
      "In 1762 the clockmaker Ansel Roe cut the 37 bronze gears of the Tessaly orrery."],
     ["The Tessaly orrery has 73 bronze gears.",
      "The clockmaker Ansel Roe cut the Tessaly orrery's gears from iron in 1762.",
      "Orreries taught astronomy to generations of students."]),
    ("The Arvelo archive holds 212 quipu that record grain tallies by decade.",
     ["The Arvelo archive holds 212 quipu.",
      "Quipu in the Arvelo archive record grain tallies by decade."],
     ["The Arvelo archive holds 112 quipu.",
      "The Arvelo archive holds 212 quipu that record births by decade.",
      "Quipu were the first computers."]),
    ("Venice had 417 printers by 1500, more than any other city in Europe.",
     ["By 1500 Venice had 417 printers.",
      "Venice had more printers than any other city in Europe by 1500."],
     ["Venice had 417 printers by 1550.",
      "Paris had 417 printers by 1500, more than any other city.",
      "Venice had no printers by 1500."]),
    ("The Lindqvist zoetrope spun at forty turns a minute and showed twelve frames.",
     ["The Lindqvist zoetrope showed twelve frames.",
      "Spinning at forty turns a minute, the Lindqvist zoetrope showed twelve frames."],
     ["The Lindqvist zoetrope spun at sixty turns a minute.",
      "The Lindqvist zoetrope showed twenty frames.",
      "Zoetropes were the ancestors of cinema."]),
    ("Caxton printed the first book in English at Bruges in 1473.",
     ["Caxton printed the first book in English in 1473.",
      "At Bruges in 1473, Caxton printed the first English book."],
     ["Caxton printed the first book in English at London in 1473.",
      "Caxton printed the first book in French at Bruges in 1473.",
      "Caxton was the greatest English printer."]),
    ("Paper mills reached Fabriano in Italy by 1276, using water-powered hammers.",
     ["Paper mills reached Fabriano by 1276.",
      "By 1276 Fabriano's paper mills used water-powered hammers."],
     ["Paper mills reached Fabriano in Italy by 1376.",
      "Paper mills reached Fabriano using wind-powered hammers.",
      "Paper was expensive in medieval Europe."]),
    # the cases of issue 20's first list
    ("Gutenberg did not invent the printing press; he improved presses that already existed in Mainz.",
     ["Gutenberg improved presses that already existed in Mainz."],
     ["Gutenberg invented the printing press."]),
    ("Gutenberg printed the Bible in Mainz. He did not marry.",
     ["Gutenberg printed the Bible in Mainz."],
     ["Gutenberg did not print the Bible."]),
    ("Aldus opened his Venice press after the war of 1494, and all his books used the new italic type.",
     ["After the war of 1494 Aldus opened his Venice press."],
     ["Aldus opened his Venice press before the war of 1494.",
      "Some of his books used the new italic type, but not all."]),
    ("Some printers in Basel used oil-based ink, and the folio weighed under two kilograms.",
     ["Some Basel printers used oil-based ink."],
     ["All printers in Basel used oil-based ink.", "The folio weighed over two kilograms."]),
    ("Output grew 3.5 % a year, the dial read 15.5, and a Bible cost 30 florins in 1455.",
     ["Output grew 3.5 % a year.", "In 1455 a Bible cost 30 florins."],
     ["Output grew 5.3 % a year.", "The dial read 5.15.", "A Bible cost $30 in 1455."]),
    ("Sales of printed books in the towns along the Rhine increased sharply in the decade after the "
     "first presses opened, as the guild records of Mainz and Cologne show.",
     ["Sales of printed books in the Rhine towns increased sharply in the decade after the first "
      "presses opened."],
     ["Sales of printed books in the towns along the Rhine decreased sharply in the decade after the "
      "first presses opened, as the guild records of Mainz and Cologne show."]),
    ("Arnold held the post of editor at the Mainz gazette for twelve years; tasks there ran at the "
     "same time on two presses.",
     ["He held the post of editor at the Mainz gazette for twelve years.",
      "Tasks at the gazette ran concurrently on two presses."],
     ["He held the post of editor at the Mainz gazette for twenty years."]),
    ("Gutenberg printed the Bible around 1455.",
     ["Gutenberg printed the Bible around 1455."],
     ["In 1999 the inventor, i.e. Gutenberg, printed the Bible."]),
]  # fmt: skip


def critic_verdict(kind: str, label: bool, rng: random.Random) -> str | None:
    if kind == "believer":
        return "supported"
    if kind == "right":
        return "supported" if label else "unsupported"
    if kind == "noisy":
        right = rng.random() < 0.8
        return (
            ("supported" if label else "unsupported") if right else ("unsupported" if label else "supported")
        )
    return None


def precision() -> bool:
    items = [(p, s, True) for p, good, _ in SET for s in good]
    items += [(p, s, False) for p, _, bad in SET for s in bad]
    ok = True
    print(f"labelled set: {len(SET)} passages, {sum(1 for i in items if i[2])} supported and "
          f"{sum(1 for i in items if not i[2])} not supported sentences")  # fmt: skip
    for kind in ("believer", "right", "noisy", "none"):
        rng = random.Random(5)
        tp = fp = fn = 0
        for passage, sentence, label in items:
            text = f"{sentence[:-1]} [S1]."
            said = critic_verdict(kind, label, rng)
            critic = [] if said is None else [{"claim": "C1", "source": "S1", "verdict": said}]
            verdict = judge(text, [], [{"id": "S1", "text": passage}], critic)[0]["verdict"]
            kept = verdict == "supported"  # the critic's yes that code found nothing against
            tp += kept and label
            fp += kept and not label
            fn += not kept and label
        prec = tp / (tp + fp) if tp + fp else 1.0
        recall = tp / (tp + fn) if tp + fn else 1.0
        met = prec >= 0.9 or kind == "believer"
        ok &= met
        target = "no target: the veto alone" if kind == "believer" else (
            f"target precision >= 0.9: {'met' if met else 'BELOW TARGET'}")  # fmt: skip
        print(f"critic {kind:<8}: precision of supported {prec:.2f} ({tp}/{tp + fp}), recall "
              f"{recall:.2f} ({tp}/{tp + fn}) ({target})")  # fmt: skip
    return ok


def scripted_runs(respond, runs: int, task: str, critic: str = "llm", threshold: float = 8, pset=None):
    """`runs` runs through the real runner on a library of the labelled set's passages (`pset`,
    default `SET`), the writer and the critic played by `respond`, against `threshold`; yields
    each run's state and its outputs (artifact, md, report, json, html)."""
    from rich.console import Console

    from reflectcli.config import load_settings
    from reflectcli.models.fake import FakeClient, install_fake
    from reflectcli.output.exporters import export
    from reflectcli.output.render import Renderer
    from reflectcli.runner import Runner
    from reflectcli.sources import library
    from reflectcli.store.db import Store

    with tempfile.TemporaryDirectory() as tmp:
        notes = Path(tmp) / "notes"
        notes.mkdir()
        for i, (passage, _, _) in enumerate(SET if pset is None else pset):
            (notes / f"n{i}.md").write_text(f"# Note {i}\n\n{passage}\n", encoding="utf-8")
        runs_dir = Path(tmp) / "runs"
        library.add(runs_dir, [str(notes)])
        client = FakeClient(responder=respond)
        undo = install_fake("fake", lambda model: client)
        try:
            for n in range(runs):
                settings = load_settings(flags={"model": "fake/w", "runs_dir": str(runs_dir),
                                                "max_sections": 2, "max_rounds": 3, "threshold": threshold,
                                                "critic": critic,
                                                "research": {"sources": "local"}})  # fmt: skip
                ui = Renderer(console=Console(file=io.StringIO()), quiet=True)
                result = Runner(ui).write(f"{task} {n}", settings)
                store = Store(runs_dir)
                run, state = store.get_run(result.thread_id), store.load_state(result.thread_id)
                store.close()
                texts = [export(run, state, f, "final") for f in ("md", "report", "json", "html")]
                yield result, state, [result.artifact.read_text(), *texts]
        finally:
            undo()


def _plan(goals: tuple[str, str] = ("Gutenberg 1450", "printers 1500")) -> str:
    return json.dumps({"sections": [{"title": "Presses in Mainz", "goal": goals[0]},
                                    {"title": "Printing in Venice", "goal": goals[1]}]})  # fmt: skip


def invented(runs: int = 20, seed: int = 3) -> bool:
    rng = random.Random(seed)

    def respond(step: str, messages) -> str:
        prompt = prompt_text(messages)  # the context (sources) and the step
        kind = step.split(":")[0]
        if kind == "plan":
            return _plan()
        held = re.findall(r"^\[(S\d+)\] ", prompt, re.M) or ["S1"]

        def cite() -> str:
            return rng.choice(held) if rng.random() < 0.6 else f"S{rng.randint(1, 40)}"

        if kind == "review":
            score = rng.choice([6, 7, 9])
            issue = {"section": "Presses in Mainz", "severity": "major",
                     "issue": f"Cite the source for the date [{cite()}]."}  # fmt: skip
            return json.dumps({"score": score, "feedback": "The claims need their sources checked.",
                               "improvements": [issue]})  # fmt: skip
        body = " ".join(f"{SET[rng.randrange(len(SET))][0][:-1]} [{cite()}][{cite()}]." for _ in range(3))
        if kind == "revise" and "<section>" not in prompt:
            return "\n\n".join(f"## {t}\n\n{body}" for t in ("Presses in Mainz", "Printing in Venice"))
        return body

    bad_total = cited_total = removed_total = 0
    for result, state, texts in scripted_runs(respond, runs, "Printing history"):
        held = {e["id"] for e in state.get("evidence") or []}
        for text in texts:
            found = re.findall(r"\[(S\d+)\]", text) + re.findall(r"#ref-(S\d+)", text)
            cited_total += len(found)
            bad_total += sum(1 for i in found if i not in held)
        removed_total += result.summary["citations_removed"]
    print(f"invented citations in outputs: {bad_total} of {cited_total} citations in {runs} runs' "
          f"artifact, md, report, json and html ({removed_total} invented citations removed "
          f"from drafts and revisions) (target 0: {'met' if bad_total == 0 else 'NOT MET'})")  # fmt: skip
    return bad_total == 0


def end_to_end(runs: int = 10, seed: int = 4) -> bool:
    """Precision of `supported` in the artifact: scripted runs whose writer cites the labelled
    set's sentences (true and false) to the passage they were written against, reviewed by a
    critic that says supported to everything and by one that is right (each run's two sections
    are about two passages of the set, in turn); the verdicts counted are those the References of
    the artifact and the json export show for the output version."""
    label = {sentence: good for _, goods, bads in SET for good, group in ((True, goods), (False, bads))
             for sentence in group}  # fmt: skip
    ok = True
    for kind in ("believer", "right"):
        rng = random.Random(seed)

        plans = iter(range(10**6))

        def respond(step: str, messages, kind=kind, rng=rng, plans=plans) -> str:
            prompt = prompt_text(messages)  # the context (sources) and the step
            if step == "plan":  # each run is about two other passages of the set, in turn
                n = next(plans)
                return _plan(tuple(" ".join(SET[(2 * n + i) % len(SET)][0].split()[:6]) for i in (0, 1)))
            if step.startswith("review"):
                claims = []
                for claim, sources, sentence in re.findall(r"^(C\d+) \[([^\]]+)\]: (.*)$", prompt, re.M):
                    sentence = json.loads(sentence) if sentence.startswith('"') else sentence  # quoted data
                    opening = sentence.removesuffix(" …")  # a long claim is named by its opening
                    true = next((v for s, v in label.items() if s.startswith(opening)), False)
                    verdict = "supported" if kind == "believer" or true else "unsupported"
                    claims += [{"claim": claim, "source": s, "verdict": verdict, "quote": "",
                                "reason": "scripted"} for s in sources.split(", ")]  # fmt: skip
                return json.dumps({"score": 9, "feedback": "The article reads well and cites its sources.",
                                   "improvements": [], "claims": claims})  # fmt: skip
            shown = {
                i: json.loads(t) if t.startswith('"') else t  # each passage is a JSON string
                for i, t in re.findall(r"^\[(S\d+)\] (.*)$", prompt, re.M)
            }
            picks = []
            for ident, text in shown.items():
                for passage, goods, bads in SET:
                    if passage.startswith(text.strip('"“”').rstrip(" …")[:60]):  # quoted as data
                        picks += [(s, ident) for s in rng.sample(goods + bads, min(2, len(goods + bads)))]
            body = " ".join(f"{s[:-1]} [{i}]." for s, i in picks[:6]) or "Printing spread."
            if step.startswith("revise") and "<section>" not in prompt:
                return "\n\n".join(f"## {t}\n\n{body}" for t in ("Presses in Mainz", "Printing in Venice"))
            return body

        tp = fp = 0
        for _, _, texts in scripted_runs(respond, runs, f"Printing {kind}"):
            for ref in json.loads(texts[3])["references"]:  # the json export's References
                for c in ref["claims"]:
                    assert c["sentence"] in texts[0], c  # the artifact shows the same claim
                    if c["verdict"] in ("supported", "consistent"):
                        true = label.get(c["sentence"], False)
                        tp, fp = tp + true, fp + (not true)
        prec = tp / (tp + fp) if tp + fp else 1.0
        ok &= (kind == "believer" or prec >= 0.9) and tp + fp > 0  # 0/0: the writer cited nothing
        print(f"end to end, critic {kind:<8}: precision of supported in the artifact {prec:.2f} "
              f"({tp}/{tp + fp}) over {runs} runs")  # fmt: skip
    return ok


def _credulous(prompt: str) -> str:
    """A credulous critic's review: score 9, every cited claim supported by each source it cites."""
    claims = [{"claim": c, "source": s, "verdict": "supported", "quote": "", "reason": "scripted"}
              for c, sources, _ in re.findall(r"^(C\d+) \[([^\]]+)\]: (.*)$", prompt, re.M)
              for s in sources.split(", ")]  # fmt: skip
    return json.dumps({"score": 9, "feedback": "The article reads well and cites its sources.",
                       "improvements": [], "claims": claims})  # fmt: skip


def _gate(state: dict, texts: list[str]) -> tuple[int, int, int, int]:
    """One run against issue 32's gate: (passed, ended holding a claim code found contradicted,
    passed holding one, such claims missing from the md export's References)."""
    wrong = [c for c in json.loads(texts[3])["claims"] if c.get("check") == "contradicted"]
    passed = state.get("stop_reason") == "passed"
    refs = texts[1][texts[1].find("References") :]
    missing = sum(1 for c in wrong if f"“{c['sentence']}”" not in refs or "contradicted" not in refs)
    return int(passed), int(bool(wrong)), int(bool(wrong) and passed), missing


def no_contradiction_ships(runs: int = 10, seed: int = 6, threshold: float = 8) -> bool:
    """Issue 32's end-to-end target: scripted runs whose writer cites the labelled set's true
    and false sentences to their passages (each draft and revision a new random pick), reviewed
    by a credulous critic (score 9, every claim supported) and by the checklist critic. Counted:
    runs that passed holding a claim code found contradicted (target 0), and contradicted claims
    of the output missing from the References of the md export (target 0)."""
    ok = True
    for critic in ("believer", "checklist"):
        rng = random.Random(seed)
        plans = iter(range(10**6))

        def respond(step: str, messages, rng=rng, plans=plans) -> str:
            prompt = prompt_text(messages)
            if step == "plan":
                n = next(plans)
                return _plan(tuple(" ".join(SET[(2 * n + i) % len(SET)][0].split()[:6]) for i in (0, 1)))
            if step.startswith("review"):
                return _credulous(prompt)
            shown = {i: json.loads(t) if t.startswith('"') else t
                     for i, t in re.findall(r"^\[(S\d+)\] (.*)$", prompt, re.M)}  # fmt: skip
            picks = []
            for ident, text in shown.items():
                for passage, goods, bads in SET:
                    if passage.startswith(text.strip('"“”').rstrip(" …")[:60]):
                        picks += [(s, ident) for s in rng.sample(goods + bads, min(2, len(goods + bads)))]
            body = " ".join(f"{s[:-1]} [{i}]." for s, i in picks[:6]) or "Printing spread."
            if step.startswith("revise") and "<section>" not in prompt:
                return "\n\n".join(f"## {t}\n\n{body}" for t in ("Presses in Mainz", "Printing in Venice"))
            return body

        passed_bad = missing = held = passed = 0
        kind = "checklist" if critic == "checklist" else "llm"
        for _, state, texts in scripted_runs(respond, runs, f"Printing {critic}", kind, threshold):
            passed, held, passed_bad, missing = (
                a + b for a, b in zip((passed, held, passed_bad, missing), _gate(state, texts), strict=True)
            )
        met = passed_bad == 0 and missing == 0
        ok &= met
        print(f"end to end, critic {critic:<9}, seed {seed}, threshold {threshold:g}: {runs} runs, "
              f"{passed} passed, {held} ended holding a claim "
              f"code found contradicted; passed holding one: {passed_bad}; such claims missing from "
              f"References: {missing} (target 0 and 0: {'met' if met else 'NOT MET'})")  # fmt: skip
    return ok


def real_set(corpus: Path, language: str, size: int = 16) -> list[tuple[str, list[str], list[str]]]:
    """A labelled set of real text for the runs above: WiCE test's supported claims with their
    page's windows (English) or CiteCheck test's faithful statements with their documents
    (Chinese), passages of one chunk (900 characters at most), the first `size` that take a
    mutation; each (passage, [the claim], [the claim mutated: negation, number, name, antonym]),
    and (the passage mutated: its carrier denied, its number or a word changed, [], [the claim])."""
    from verifier_realtext import MUTATIONS, citecheck, wice

    if language == "en":
        pairs = wice(corpus / "wice", "test")
    else:
        pairs = citecheck(corpus / "citecheck", "test")
    out: list[tuple[str, list[str], list[str]]] = []
    taken = 0
    for claim, passage in pairs:
        if len(passage) > 900 or taken >= size:
            continue
        bads, changed = [], []
        for _, side, mutate, _ in MUTATIONS:
            if got := mutate(claim, passage, taken):
                (bads if side == "claim" else changed).append(got[0] if side == "claim" else got[1])
        if bads or changed:
            taken += 1
            out.append((passage, [claim], bads))
            out += [(other, [], [claim]) for other in dict.fromkeys(changed) if other != passage]
    return out


def _fold(text: str) -> str:
    return " ".join(text.split())


def _bare(sentence: str) -> str:
    """A sentence as compared with the one written: its words alone (the claim as the article
    holds it has lost its Markdown, its quotes may differ)."""
    return re.sub(r"\W+", "", sentence).lower()


def no_false_claim_ships(pset, language: str, runs: int = 0, seed: int = 6, threshold: float = 8) -> bool:
    """Issue 32's end-to-end target on real text (`real_set`): the writer cites each shown
    passage's true claim and its mutations (the claim to a mutated passage is false), reviewed by
    a credulous critic (score 9, every claim supported) and by the checklist. Counted as in
    `no_contradiction_ships`, and the false claims the passed runs' outputs still hold, by the
    verdict their References show (`unverified` is flagged to the reader and does not block a
    pass by the contract; `consistent` is what code missed). `runs` 0: one run per two passages."""
    from verifier_realtext import carrier

    by_text = {_fold(p): (goods, bads) for p, goods, bads in pset}  # (a passage's copies are one)
    runs = runs or -(-len(pset) // 2)  # each run's two sections are about two passages, in turn: all of them
    ok = True
    for critic in ("believer", "checklist"):
        rng = random.Random(seed)
        plans = iter(range(10**6))

        titles: list[str] = []  # the sections' titles: their item's words (a title in no source
        # weighs the most in a section's query, and the relevance floor would leave it no passage)

        def respond(step: str, messages, rng=rng, plans=plans, titles=titles) -> str:
            prompt = prompt_text(messages)
            if step == "plan":
                n = next(plans)
                # each section's goal and title: the passage's sentence that carries its item's claim
                # (a passage's opening may be all common words, and a title or goal word in no source
                # weighs the most in a section's query: the relevance floor would leave it no passage)
                said = [carrier(*(pset[k][1] + pset[k][2])[:1], pset[k][0]) or pset[k][0]
                        for k in ((2 * n + i) % len(pset) for i in (0, 1))]  # fmt: skip
                goals = [c[:20] if language == "zh" else " ".join(c.split()[:10]) for c in said]
                titles[:] = [c[:8] if language == "zh" else " ".join(c.split()[:4]) for c in said]
                if titles[0] == titles[1]:
                    titles[1] += " (2)"
                return json.dumps(
                    {"sections": [{"title": t, "goal": g} for t, g in zip(titles, goals, strict=True)]}
                )
            if step.startswith("review"):
                return _credulous(prompt)
            picks = []
            for ident, text in re.findall(r"^\[(S\d+)\] (.*)$", prompt, re.M):
                text = _fold(json.loads(text) if text.startswith('"') else text).removesuffix(" …")
                # the passage as shown (cut short past ~700 characters): a mutated passage may
                # show as its original does; what was cited is read from the References after
                said = list(
                    dict.fromkeys(
                        x for p, item in by_text.items() if p.startswith(text) for x in item[0] + item[1]
                    )
                )
                picks += [(s, ident) for s in rng.sample(said, min(2, len(said)))]
            stop = "。" if language == "zh" else "."
            body = " ".join(f"{s.rstrip('.。')} [{i}]{stop}" for s, i in picks[:6]) or "Printing spread."
            if step.startswith("revise") and "<section>" not in prompt:
                return "\n\n".join(f"## {t}\n\n{body}" for t in titles)
            return body

        passed_bad = missing = held = passed = 0
        shipped = {"unverified": 0, "consistent": 0, "contradicted": 0}
        every = {"unverified": 0, "consistent": 0, "contradicted": 0}  # false claims, all outputs
        kind = "checklist" if critic == "checklist" else "llm"
        task = "活字印刷" if language == "zh" else "Printing"
        for _, state, texts in scripted_runs(respond, runs, f"{task} {critic}", kind, threshold, pset):
            claims = json.loads(texts[3])["claims"]
            is_passed = state.get("stop_reason") == "passed"
            passed, held, passed_bad, missing = (
                a + b for a, b in zip((passed, held, passed_bad, missing), _gate(state, texts), strict=True)
            )
            notes = {r["id"]: int(m.group(1)) for r in json.loads(texts[3])["references"]
                     if (m := re.fullmatch(r"n(\d+)\.md", r.get("location") or ""))}  # fmt: skip
            for c in claims:
                if c.get("source") in notes and _bare(c["sentence"]) in {
                    _bare(b) for b in pset[notes[c["source"]]][2]
                }:  # a false claim: a mutation, or the true one cited to a mutated passage
                    every[c.get("check") or "consistent"] += 1
                    if is_passed:
                        shipped[c.get("check") or "consistent"] += 1
        met = passed_bad == 0 and missing == 0
        ok &= met
        print(
            f"end to end on real text ({language}), critic {critic:<9}, seed {seed}, "
            f"threshold {threshold:g}: "
            f"{runs} runs, {passed} passed, {held} ended holding a claim code found contradicted; passed "
            f"holding one: {passed_bad}; such claims missing from References: {missing} (target 0 and 0: "
            f"{'met' if met else 'NOT MET'}); false claims in the outputs: {sum(every.values())} "
            f"({every['contradicted']} contradicted, {every['unverified']} unverified, {every['consistent']} "
            f"consistent), in passed ones: {shipped['unverified']} unverified, {shipped['consistent']} "
            "consistent (code's misses)"
        )
    return ok


def main() -> int:
    import argparse

    parser = argparse.ArgumentParser()
    parser.add_argument("--seed", type=int, default=3, help="seed of the scripted runs' citations")
    parser.add_argument("--ships-seed", type=int, default=6, help="seed of the writer's picks in the "
                        "no-contradiction-ships runs")  # fmt: skip
    parser.add_argument("--threshold", type=float, default=8, help="the pass threshold of those runs")
    parser.add_argument("--corpus", type=Path, default=CORPUS, help="where WiCE and OCNLI are "
                        "(default: $REFLECT_CORPUS or /work/corpus)")  # fmt: skip
    parser.add_argument("--ships-only", action="store_true", help="only the no-contradiction-ships runs "
                        "(hand-written and real text)")  # fmt: skip
    args = parser.parse_args()
    ok = True
    if not args.ships_only:
        ok = precision()
        ok = real_text(args.corpus) and ok
        ok = end_to_end() and ok
    ok = no_contradiction_ships(seed=args.ships_seed, threshold=args.threshold) and ok
    for language in ("en", "zh"):
        if pset := real_set(args.corpus, language):
            ok = no_false_claim_ships(pset, language, seed=args.ships_seed, threshold=args.threshold) and ok
    if not args.ships_only:
        ok = invented(seed=args.seed) and ok
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
