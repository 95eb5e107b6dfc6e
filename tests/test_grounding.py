"""Grounded writing: research from the source library, cited drafts, invented citations removed,
claims checked (critic + code), References in every output, and research kept on resume."""

from __future__ import annotations

import json
import re

import pytest
from typer.testing import CliRunner

from reflectcli.cli.app import app
from reflectcli.errors import RunInterrupted, UserError
from reflectcli.models.fake import ScriptedResponder, prompt_text
from reflectcli.output.exporters import export
from reflectcli.runner import Runner
from reflectcli.sources import library
from reflectcli.sources.verify import check, judge
from reflectcli.store.db import Store
from reflectcli.writing.citations import cited_ids, strip_invented
from reflectcli.writing.claims import claims_in
from tests.corpus import FACTS, make_corpus
from tests.helpers import FailOnce, quiet_ui, settings

TITLES = ["The Vellmar psalter", "The Kestrel lighthouse log"]
MOON = "The psalter was printed on the Moon by robots"


def ids_for(prompt: str) -> list[str]:
    """The ids a draft should cite: those its instruction names as found for its section (the
    run's context lists every source), else every id listed."""
    named = re.search(r"found for this section: ((?:\[S\d+\](?:, )?)+)", prompt)
    if named:
        return re.findall(r"S\d+", named.group(1))
    return re.findall(r"^\[(S\d+)\] ", prompt, re.M)


class Grounded:
    """Plays a grounded run: drafts cite the passages their prompt gives (a true sentence),
    an invented id and, in section 1, a claim its source does not hold. The critic judges
    claims; with `honest` it calls the Moon claim contradicted, else supported (a critic that
    believes everything). Revisions drop the Moon claim and invent another id."""

    def __init__(self, scores=(9.0, 9.0), honest=True):
        self.scores = list(scores)
        self.honest = honest

    def __call__(self, step: str, messages: list[dict[str, str]]) -> str:
        prompt = prompt_text(messages)
        kind = step.split(":")[0]
        if kind == "plan" and "curious reader" in prompt:  # a tiny writer asks questions
            return json.dumps({"questions": ["Which typeface was cast for printing the Vellmar psalter?",
                                             "What history do the Kestrel lighthouse log's ships tell?",
                                             "Who paid for printing in Mainz?"]})  # fmt: skip
        if kind == "plan":
            return json.dumps({"sections": [
                {"title": TITLES[0], "goal": "Printing: Mainz workshop typeface psalter 1457"},
                {"title": TITLES[1], "goal": "Printing: Kestrel lighthouse ships winter gale"},
            ]})  # fmt: skip
        if kind == "draft":
            ids = ids_for(prompt) or ["S1"]  # a tiny writer is shown facts without ids
            assert "Sources:" in prompt or "Facts you can use:" in prompt
            n = int(step[-1])
            fact = FACTS["html"] if n == 1 else FACTS["pdf"]
            extra = f" {MOON} [{ids[0]}]." if n == 1 else ""
            return f"{fact[:-1]} [{ids[0]}]. Scholars still argue about it [S99].{extra}"
        if kind == "review":
            round_no = int(step[-1])
            claims = []
            for claim, sources, quoted in re.findall(r"^(C\d+) \[([^\]]+)\]: (.*)$", prompt, re.M):
                sentence = json.loads(quoted)  # each claim's opening is quoted data, like the article
                moon = sentence.startswith("The psalter was printed on the Moon")
                verdict = "contradicted" if moon and self.honest else "supported"
                for source in sources.split(", "):
                    claims.append({"claim": claim, "source": source, "verdict": verdict,
                                   "quote": "The Mainz workshop cast a ninth typeface", "reason":
                                   "the source says Mainz" if moon else "the source says so"})  # fmt: skip
            score = self.scores[min(round_no, len(self.scores)) - 1]
            return json.dumps({
                "score": score, "dimensions": dict.fromkeys(
                    ("accuracy", "completeness", "readability", "structure"), score),
                "feedback": "The article is clear, but one claim needs checking against [S77].",
                "improvements": [], "claims": claims,
            })  # fmt: skip
        if kind == "revise":
            body = re.search(r"<section>\n(.*)\n</section>", prompt, re.S).group(1)
            kept = re.sub(re.escape(MOON) + r" \[S\d+\]\.", "", body).strip()
            return kept + " A later survey agreed [S42]."
        raise AssertionError(step)


@pytest.fixture
def grounded(fake, runs_dir, tmp_path):
    outcomes = library.add(runs_dir, [str(make_corpus(tmp_path / "notes")["md"].parent)])
    assert all(o.status == "added" for o in outcomes if o.status != "ignored")
    fake.responder = Grounded()
    return fake


def write(runs_dir, **flags):
    # the library's facts share no word with the task, so `auto` would write without them: ask
    research = {"sources": "local", **flags.pop("research", {})}
    return Runner(quiet_ui()).write("The history of printing", settings(
        runs_dir, max_sections=2, max_rounds=3, threshold=8, research=research, **flags))  # fmt: skip


def all_outputs(runs_dir, thread_id: str) -> dict[str, str]:
    store = Store(runs_dir)
    run, state = store.get_run(thread_id), store.load_state(thread_id)
    store.close()
    out = {f: export(run, state, f, "final") for f in ("md", "report", "json", "html")}
    out["artifact"] = (runs_dir / f"{thread_id}.md").read_text()
    return out


def leaky(script):
    """The script, with unheld ids in every field a model writes: outline titles and goals, the
    critic's improvement sections and issues, claim reasons and search queries."""

    def answer(step, messages):
        text = script(step, messages)
        if step == "plan":
            data = json.loads(text)
            for section in data["sections"]:
                section["title"] += " [S9]"
                section["goal"] += " per [S8]"
            return json.dumps(data)
        if step.startswith("review"):
            data = json.loads(text)
            data["improvements"] = [{"section": "Intro [S32]", "issue": "Check the dates [S33] again.",
                                     "severity": "minor"}]  # fmt: skip
            for claim in data["claims"]:
                claim["reason"] += " [S31]"
            data["search_queries"] = ["psalter date per [S21]"]
            return json.dumps(data)
        return text

    return answer


def test_a_grounded_run_cites_only_what_it_holds(backend, grounded, runs_dir):
    grounded.responder = leaky(Grounded())
    result = write(runs_dir)
    state = result.state
    held = {e["id"] for e in state["evidence"]}
    assert held and all(e["text"] for e in state["evidence"])
    # research: one search per section, in the trace, before the first draft
    searches = [e for e in state["trace"] if e.get("kind") == "search"]
    assert [e.get("section") or f"r{e['round']}" for e in searches] == [1, 2, "r1"]
    assert searches[-1]["query"] == "psalter date per"  # the critic's query, its id gone
    # every version cites only held ids; the invented ones were removed and recorded
    for version in state["versions"]:
        assert set(cited_ids(version["text"])) <= held, version["text"]
        assert "[S99]" not in version["text"] and "[S42]" not in version["text"]
    removed = [i for e in state["trace"] if e.get("kind") == "invented_citation" for i in e["removed"]]
    assert removed.count("S99") == 2 and "S42" in removed
    assert result.summary["citations_removed"] == len(removed)
    # the invariant: no output of the run holds an id the run does not hold
    for name, text in all_outputs(runs_dir, result.thread_id).items():
        cited = set(re.findall(r"\[(S\d+)\]", text)) | set(re.findall(r"#ref-(S\d+)", text))
        assert cited <= held, (name, cited - held)
    assert any("S77" in (e.get("removed") or []) for e in state["trace"])  # from the critique


def test_a_contradicted_claim_blocks_the_pass_and_becomes_a_tracked_fix(grounded, runs_dir):
    state = write(runs_dir).state
    first = state["reviews"][0]
    assert first["score"] >= 8  # would pass on its score alone
    moon = [c for c in first["claims"] if c["sentence"].startswith("The psalter was printed")]
    assert moon and moon[0]["verdict"] == "contradicted" and moon[0]["by"] == "critic"
    fix = [i for i in first["improvements"] if i.get("dimension") == "accuracy"]
    assert fix and fix[0]["severity"] == "major" and fix[0]["section"] == TITLES[0]
    assert state["decisions"][0]["decision"] == "revise"
    assert "contradicted" in state["decisions"][0]["detail"]
    # the revision fixed it; the second review passes with every claim supported
    assert state["stop_reason"] == "passed" and state["final_version"] == 2
    final = next(r for r in state["reviews"] if r["version"] == 2)
    assert final["claims"] and all(c["verdict"] == "supported" for c in final["claims"])
    assert MOON not in next(v["text"] for v in state["versions"] if v["n"] == 2)


def test_the_check_overrules_a_critic_that_believes_everything(grounded, runs_dir):
    grounded.responder = Grounded(scores=(9.0, 9.0), honest=False)
    state = write(runs_dir).state
    moon = [c for c in state["reviews"][0]["claims"] if c["sentence"].startswith("The psalter")]
    # the Moon is a name the passage lacks: unverified (shown, counted), not a contradiction
    assert (moon[0]["verdict"], moon[0]["by"], moon[0]["critic"]) == ("unverified", "check", "supported")
    assert moon[0]["missing"] == ["Moon"] and "not in the passage: Moon" in moon[0]["reason"]


def test_outputs_end_with_references_that_resolve(backend, grounded, runs_dir):
    result = write(runs_dir)
    out = all_outputs(runs_dir, result.thread_id)
    md = out["md"]
    refs = md[md.index("## References") :]
    assert "press.html" in refs and "log.pdf, page 2" in refs
    assert out["artifact"].rstrip().endswith(refs.splitlines()[-1])
    assert '<li id="ref-S' in out["html"] and 'href="#ref-S' in out["html"]
    data = json.loads(out["json"])
    assert {r["id"] for r in data["references"]} == set(cited_ids(md))
    assert data["claims"] and all(c["verdict"] == "supported" for c in data["claims"])
    shown = CliRunner().invoke(app, ["show", result.thread_id, "--runs-dir", str(runs_dir)])
    assert "Cited claims" in shown.output and "References" in shown.output
    assert "supported" in shown.output
    stats = CliRunner().invoke(app, ["stats", "--runs-dir", str(runs_dir), "--json"])
    numbers = json.loads(stats.output)
    assert numbers["citations_removed"] == result.summary["citations_removed"] > 0
    assert numbers["supported_share"] == 1.0 and numbers["sources_used"] == 2


def test_a_resumed_run_never_searches_again(backend, grounded, runs_dir, monkeypatch):
    searched = []
    real = library.search
    monkeypatch.setattr("reflectcli.sources.research.search",
                        lambda *a, **k: searched.append(a[1]) or real(*a, **k))  # fmt: skip
    grounded.responder = FailOnce(Grounded(), "draft:s1", KeyboardInterrupt())
    with pytest.raises(RunInterrupted) as err:
        write(runs_dir)
    assert len(searched) == 3  # both sections and the task researched before the first draft
    result = Runner(quiet_ui()).resume(err.value.thread_id, str(runs_dir), {})
    assert result.state["status"] == "finished" and len(searched) == 3
    assert [e["section"] for e in result.state["trace"] if e.get("kind") == "search"] == [1, 2]


def test_no_sources_means_no_research(fake, runs_dir):
    script = ScriptedResponder(scores=[9], sections=2)
    fake.responder = lambda step, messages: script(step, messages) + (
        " It is known [S1]." if step.startswith("draft") else "")  # fmt: skip
    state = Runner(quiet_ui()).write("x y", settings(runs_dir, max_sections=2)).state
    assert state["params"]["research"]["sources"] == "none" and not state.get("evidence")
    assert "research" not in " ".join(str(e.get("node")) for e in state["trace"])
    for version in state["versions"]:  # no run holds an id: every citation goes
        assert not cited_ids(version["text"])


def test_bad_sources_choices_are_one_line(fake, runs_dir):
    with pytest.raises(UserError, match="library in .* is empty"):
        write(runs_dir, research={"sources": "local"})
    with pytest.raises(UserError, match="needs a web search provider"):
        write(runs_dir, research={"sources": "web"})
    result = CliRunner().invoke(app, ["write", "x", "--model", "fake/w", "--sources", "local",
                                      "--runs-dir", str(runs_dir)])  # fmt: skip
    assert result.exit_code == 2 and "Traceback" not in result.output
    assert not (runs_dir / "reflect.db").exists()  # nothing was created for a refused run


@pytest.mark.parametrize(
    ("text", "known", "expected", "removed"),
    [
        ("A [S1]. B [S9].", {"S1"}, "A [S1]. B.", ["S9"]),
        ("A [S1, S9] b.", {"S1"}, "A [S1] b.", ["S9"]),
        ("A [s2][S3].", {"S3"}, "A [S3].", ["S2"]),
        ("A [S7]\nB", set(), "A\nB", ["S7"]),
        ("A [1] and [Sx] stay.", set(), "A [1] and [Sx] stay.", []),  # no list defines [1]; [Sx] names none
    ],
)
def test_strip_invented(text, known, expected, removed):
    assert strip_invented(text, known) == (expected, removed)


def test_the_check_vetoes_hard_facts_only():
    passage = FACTS["html"]
    assert check("The Mainz workshop cast a typeface for the psalter in 1457.", passage)[0] == "consistent"
    later = check("The Mainz workshop cast a typeface in 1460.", passage)
    assert later == ("unverified", "not in the passage: 1460")
    assert check("The Leipzig workshop cast a typeface.", passage)[0] == "unverified"
    # a claim with no number, name or polarity of its own is the critic's to judge
    verdict, reason = check("Printing spread quickly across every country.", passage)
    assert verdict == "consistent" and "of the sentence's words" in reason
    text = "## A\n\nOne claim [S1]. Then a second. [S2]\n\n## B\n\nNone here."
    assert [(c["id"], c["sentence"], c["ids"]) for c in claims_in(text, ["A", "B"])] == [
        ("C1", "One claim.", ["S1"]), ("C2", "Then a second.", ["S2"])]  # fmt: skip
    evidence = [{"id": "S1", "text": "One claim is here."}]
    verdicts = judge(text, ["A", "B"], evidence, [{"claim": "C1", "source": "S1",
                                                   "verdict": "contradicted", "reason": "no"}])  # fmt: skip
    assert [(v["claim"], v["source"], v["verdict"], v["by"]) for v in verdicts] == [
        ("C1", "S1", "contradicted", "critic")]  # fmt: skip


def test_a_tiny_writer_gets_its_supported_sentences_cited_in_code(grounded, runs_dir):
    script = Grounded()

    def uncited(step, messages):  # a writer that uses the passages but never cites
        answer = script(step, messages)
        return re.sub(r" \[S\d+\]", "", answer) if step.startswith("draft") else answer

    grounded.responder = uncited
    grounded.tiny = True
    state = write(runs_dir).state
    first = state["versions"][0]["text"]
    notes = [e for e in state["trace"] if e.get("kind") == "attributed"]
    assert notes and set(cited_ids(first)) == {i for e in notes if e["node"] == "draft" for i in e["added"]}
    assert all(e["by"] == "code" and "added by code" in e["note"] for e in notes)
    fact = FACTS["html"][:-1]
    assert re.search(re.escape(fact) + r" \[S\d+\]\.", first)  # the true sentence, cited
    assert not re.search(re.escape(MOON) + r" \[S\d+\]", first)  # the Moon one is not
    # a tiny critic judges nothing: code finds nothing against a sentence its passage says verbatim
    claims = state["reviews"][0]["claims"]
    assert claims and all(c["verdict"] == "consistent" and c["by"] == "check" and c["quote"] for c in claims)


def test_a_contradicted_claim_never_ships_even_from_the_best_scored_version(grounded, runs_dir):
    grounded.responder = Grounded(scores=(9.5, 9.0))  # version 1 scores higher but holds the Moon
    result = write(runs_dir)
    state = result.state
    assert state["stop_reason"] == "passed" and state["final_version"] == 2
    out = all_outputs(runs_dir, result.thread_id)
    assert MOON not in out["artifact"][out["artifact"].index("## Final article") :]
    assert MOON not in out["md"] and MOON not in json.loads(out["json"])["state"]["versions"][1]["text"]


def test_a_run_whose_every_version_is_contradicted_does_not_pass(grounded, runs_dir):
    script = Grounded(scores=(9.5, 9.0))

    def stubborn(step, messages):  # the revision keeps the Moon claim
        answer = script(step, messages)
        if step.startswith("revise"):
            return answer.replace(" A later survey agreed [S42].", f" {MOON} [S1].")
        return answer

    grounded.responder = stubborn
    result = write(runs_dir)
    state = result.state
    assert state["stop_reason"] != "passed"
    final = next(v["text"] for v in state["versions"] if v["n"] == state["final_version"])
    assert MOON in final
    assert any(MOON in k["issue"] for k in state["known_issues"])
    assert "## Known issues" in all_outputs(runs_dir, result.thread_id)["artifact"]


def test_references_show_each_sources_claims_with_verdict_and_quote(grounded, runs_dir):
    result = write(runs_dir)
    out = all_outputs(runs_dir, result.thread_id)
    refs = out["md"][out["md"].index("## References") :]
    cited = [line for line in refs.splitlines() if line.startswith("  - C")]
    assert cited and all(" supported: “" in line and "the source: “" in line for line in cited)
    assert "The Mainz workshop cast a ninth typeface" in refs  # the quoted passage sentence
    final = out["artifact"][out["artifact"].index("## Final article") :]
    assert all(line in final for line in cited)
    data = json.loads(out["json"])
    assert all(c["quote"] and c["verdict"] == "supported" for r in data["references"] for c in r["claims"])
    assert sum(len(r["claims"]) for r in data["references"]) == len(cited)
    assert '<a href="#claim-C1">C1</a> supported: “' in out["html"] and "the source: “" in out["html"]
