"""`reflectcli ask ID "QUESTION"` (graph/ask.py): answers from a finished run's article and
evidence, checked by the article's claim check, against the scripted OpenAI-compatible server
(127.0.0.1 only); the run itself is written by the fake model."""

from __future__ import annotations

import json
import re
import signal

import pytest
from typer.testing import CliRunner

from reflectcli.cli.app import app
from reflectcli.models.fake import ScriptedResponder, prompt_text
from reflectcli.runner import Runner
from reflectcli.sources import library
from reflectcli.store.db import Store
from tests.corpus import FACTS, make_corpus
from tests.crashkit import Child, resent_after_completion
from tests.helpers import quiet_ui, settings
from tests.openai_server import OpenAIServer, answer, loopback_fixture, step_of
from tests.test_grounding import Grounded

MODEL = "openai/test-model"
QUESTION = "How many ships does the Kestrel lighthouse log note?"  # names section 2
GALE = "How many ships were counted in the winter gale?"  # names no section
WRONG = "The Kestrel lighthouse log notes twelve ships in the winter gale"
RIGHT = "The Kestrel lighthouse log notes forty-one ships in the winter gale"


@pytest.fixture(autouse=True)
def offline_env(monkeypatch):
    loopback_fixture(monkeypatch)


class AskScript:
    """The server's side: an answer citing the Kestrel passage (by the id the ask prompt shows
    it under), the critic's verdicts on its claims, and plain reviews for anything else."""

    def __init__(self, said: str = WRONG, verdict: str = "contradicted", score: float = 9.5):
        self.said, self.verdict = said, verdict
        self.responder = ScriptedResponder(scores=[score], sections=2)
        self.asked: list[str] = []

    def __call__(self, body):
        prompt = prompt_text(body["messages"])
        if "The reader's question" in prompt:
            self.asked.append("ask")
            ids = dict(re.findall(r'^\[(S\d+)\] "(.*)"$', prompt, re.M))
            kestrel = next(i for i, text in ids.items() if "Kestrel" in text)
            return answer(f"{self.said} [{kestrel}]. It was a hard winter.")
        if "Check the answer's cited claims" in prompt:
            self.asked.append("check")
            claims = re.findall(r"^(C\d+) \[([^\]]+)\]: ", prompt, re.M)
            return answer(json.dumps({"claims": [
                {"claim": c, "source": s.split(", ")[0], "verdict": self.verdict, "quote": FACTS["pdf"],
                 "reason": "the log says forty-one"} for c, s in claims]}))  # fmt: skip
        return answer(self.responder(step_of(body), body["messages"]))


@pytest.fixture
def finished(fake, runs_dir, tmp_path):
    """A finished grounded run `me` (the fake model), its library holding the Kestrel log."""
    library.add(runs_dir, [str(make_corpus(tmp_path / "notes")["md"].parent)])
    fake.responder = Grounded()
    flags = {"max_sections": 2, "max_rounds": 1, "threshold": 8, "research": {"sources": "local"}}
    result = Runner(quiet_ui()).write("The history of printing", settings(runs_dir, **flags), "me")
    assert result.state["status"] == "finished"
    return result.state


def ask(server, runs_dir, *args):
    return CliRunner().invoke(app, ["ask", "me", *args, "--model", MODEL, "--api-base", server.base_url,
                                    "--runs-dir", str(runs_dir)])  # fmt: skip


def stored(runs_dir):
    with Store(runs_dir) as store:
        return store.get_run("me"), store.load_state("me")


def test_an_answer_citing_a_passage_that_says_otherwise_is_shown_contradicted(finished, runs_dir):
    script = AskScript()
    with OpenAIServer(script) as server:
        result = ask(server, runs_dir, QUESTION)
    assert result.exit_code == 0, result.output
    assert script.asked == ["ask", "check"]
    out = " ".join(result.output.split())
    source = re.search(r"winter gale \[(S\d+)\]", out).group(1)
    assert f"{WRONG} [{source}] (✗ contradicted by {source}). It was" in out  # the mark where it stands
    assert "cited claims: 1 contradicted" in out and f"C1 contradicted [{source}]" in out
    run, state = stored(runs_dir)
    q = state["questions"][0]
    assert q["question"] == QUESTION and q["claims"][0]["verdict"] == "contradicted"
    assert "✗ contradicted" in q["answer"] and q["cited"] == [source]
    shown = " ".join(CliRunner().invoke(app, ["show", "me", "--runs-dir", str(runs_dir)]).output.split())
    assert f"(✗ contradicted by {source})" in shown and QUESTION in shown
    report = CliRunner().invoke(app, ["export", "me", "-f", "report", "--runs-dir", str(runs_dir)]).output
    assert "## Questions" in report and f"(✗ contradicted by {source})" in report
    exported = CliRunner().invoke(app, ["export", "me", "-f", "json", "--runs-dir", str(runs_dir)])
    data = json.loads(exported.output)
    assert data["state"]["questions"][0]["claims"][0]["verdict"] == "contradicted"
    assert sum(1 for e in state["trace"] if e.get("node") == "ask" and "step" in e) == 2  # its calls, counted
    assert run["calls"] == sum(1 for e in state["trace"] if "step" in e)
    again = ask(OpenAIServer(script).start(), runs_dir, QUESTION)  # the same question: its record, no call
    assert again.exit_code == 0 and script.asked == ["ask", "check"] and "asked before (q1)" in again.output


def test_ask_apply_adds_one_section_and_keeps_every_other_byte(finished, runs_dir):
    before = finished["versions"][finished["final_version"] - 1]
    script = AskScript(said=RIGHT, verdict="supported")
    with OpenAIServer(script) as server:
        result = ask(server, runs_dir, GALE, "--apply")
    assert result.exit_code == 0, result.output
    _, state = stored(runs_dir)
    version = next(v for v in state["versions"] if v["kind"] == "answer")
    assert version["base"] == before["n"] and version["text"].startswith(before["text"])
    added = version["text"][len(before["text"]) :]
    assert added.startswith("\n\n## " + GALE + "\n\n") and RIGHT in added
    assert added.count("\n## ") == 1
    titles = [s["title"] for s in state["outline"]["sections"]]
    assert titles[-1] == GALE and len(titles) == len(finished["outline"]["sections"]) + 1
    assert state["reviews"][-1]["version"] == version["n"]  # reviewed, then chosen by the rule
    assert state["final_version"] == version["n"] and state["status"] == "finished"
    assert state["questions"][0]["applied"].startswith("new section")


def test_a_question_that_names_a_section_is_worked_into_it(finished, runs_dir):
    script = AskScript(said=RIGHT, verdict="supported")
    with OpenAIServer(script) as server:
        result = ask(server, runs_dir, QUESTION, "--apply")
    assert result.exit_code == 0, result.output
    _, state = stored(runs_dir)
    item = next(c for c in state["critiques"].values() if c.get("origin") == "question")
    assert item["by"] == "human" and item["section"] == "The Kestrel lighthouse log"
    assert QUESTION in item["issue"] and RIGHT in item["issue"] and item["applied_in"] is not None
    assert len(state["outline"]["sections"]) == len(finished["outline"]["sections"])  # no new section
    assert state["versions"][-1]["kind"] == "revision" and state["status"] == "finished"
    assert "worked into" in state["questions"][0]["applied"]


def test_a_contradicted_answer_is_not_applied(finished, runs_dir):
    with OpenAIServer(AskScript()) as server:
        result = ask(server, runs_dir, QUESTION, "--apply")
    assert result.exit_code == 1 and "not applied" in " ".join(result.output.split())
    _, state = stored(runs_dir)
    assert len(state["versions"]) == len(finished["versions"]) and state["status"] == "finished"
    assert state["questions"][0]["applied"] is None  # asked and kept, not applied


def test_ask_refuses_what_it_cannot_do(finished, runs_dir):
    with OpenAIServer(AskScript()) as server:
        for args, message in [(["   "], "the question is empty"), ([QUESTION, "--section", "2"],
                              "--section goes with --apply")]:  # fmt: skip
            result = ask(server, runs_dir, *args)
            assert result.exit_code == 2 and message in result.output, result.output
        result = CliRunner().invoke(app, ["ask", "nope", QUESTION, "--runs-dir", str(runs_dir)])
        assert result.exit_code == 1 and "unknown thread id 'nope'" in result.output


@pytest.mark.slow
@pytest.mark.parametrize("point, new", [("journal:ask:q1", ["check"]), ("journal:check:q1", [])])
def test_a_kill_during_ask_resumes_with_no_repeated_call(finished, runs_dir, tmp_path, point, new):
    script = AskScript()
    with OpenAIServer(script) as server:
        args = ["ask", "me", QUESTION, "--model", MODEL, "--api-base", server.base_url,
                "--runs-dir", str(runs_dir)]  # fmt: skip
        child = Child(tmp_path, "killed", args, pause=point)
        child.wait_paused()
        child.proc.send_signal(signal.SIGKILL)
        child.finish(30)
        paid = list(script.asked)
        again = Child(tmp_path, "again", args)
        assert again.finish() == 0, again.describe()
        assert resent_after_completion(server) == {}
        assert script.asked == paid + new  # what was answered before the kill is replayed
        assert "✗ contradicted" in again.stdout
    _, state = stored(runs_dir)
    assert len(state["questions"]) == 1 and state["questions"][0]["claims"][0]["verdict"] == "contradicted"


@pytest.mark.slow
def test_ask_works_with_the_embedded_model(finished, runs_dir):
    """SmolLM2 answers (fetched once into the user cache if missing): the short prompt, no ids
    shown, every citation one the run holds, the record kept."""
    args = ["ask", "me", "What did the Mainz workshop cast?", "--model", "local/smollm2"]
    result = CliRunner().invoke(app, [*args, "--runs-dir", str(runs_dir)])
    assert result.exit_code == 0, result.output
    _, state = stored(runs_dir)
    q = state["questions"][0]
    assert q["model"] == "local/smollm2" and q["text"].strip()
    held = {e["id"] for e in state["evidence"]}
    assert set(re.findall(r"\[(S\d+)\]", q["text"])) <= held
    call = next(e for e in state["trace"] if e.get("step") == "ask:q1")
    assert call["model"] == "local/smollm2"
    assert not any(
        e.get("step", "").startswith("check:") for e in state["trace"]
    )  # a tiny critic judges none


@pytest.mark.parametrize("text", [
    "The log notes twelve ships\nin the winter gale [S2]. It was hard.",  # a sentence over two lines
    "- The log notes **twelve** ships in the winter gale [S2].\n- It was hard.",  # emphasis in a list
    "日志记载了冬季风暴中的十二艘船[S2]。那年冬天很冷。",
])  # fmt: skip
def test_a_mark_stands_in_its_sentence(text):
    from reflectcli.graph.ask import marked
    from reflectcli.writing.claims import claims_in

    verdicts = [
        {"sentence": c["sentence"], "source": "S2", "verdict": "contradicted"} for c in claims_in(text, [])
    ]
    shown = marked(text, verdicts)
    assert len(verdicts) == 1 and shown.count("(✗ contradicted by S2)") == 1
    assert not shown.startswith("(✗") and shown.replace(" (✗ contradicted by S2)", "") == text
