"""Proof that cannot flatter (issue 26): an independent judge, length-controlled win rates,
the judge's cost in gain per dollar, metrics without a model, and judging against another
system's published articles."""

from __future__ import annotations

import json
import re

import pytest
from typer.testing import CliRunner

from reflectcli.cli.app import app
from reflectcli.errors import UserError
from reflectcli.eval import stats
from reflectcli.eval.run import Evaluation, independence, report, shared_roles
from reflectcli.models.fake import IMPROVED, FakeClient, ScriptedResponder, install_fake, prompt_text
from tests.helpers import quiet_ui, settings


def test_the_judge_must_differ_from_writer_and_critic_by_model_and_server(runs_dir):
    mine = settings(runs_dir, model="openai/w", critic_model="openai/c", api_base="http://127.0.0.1:1/v1")
    assert shared_roles("openai/w", None, mine) == ["writer"]  # reached where the writer is
    assert shared_roles("openai/c", None, mine) == ["critic"]
    assert shared_roles("openai/w", "http://127.0.0.1:2/v1", mine) == []  # another server
    assert shared_roles("openai/j", None, mine) == []
    alone = settings(runs_dir, model="openai/w")
    assert shared_roles("openai/w", None, alone) == ["writer", "critic"]
    with pytest.raises(UserError) as err:
        independence("openai/w", None, [settings(runs_dir, model="openai/x"), alone], allowed=False)
    assert err.value.exit_code == 2 and "also the writer and the critic" in err.value.message
    assert "--judge-same" in err.value.hint and "\n" not in err.value.message + err.value.hint
    assert independence("openai/w", None, [alone], allowed=True) == {
        "shared": ["writer", "critic"], "same_as": {}, "judge_same": True}  # fmt: skip
    assert independence("openai/j", None, [alone], allowed=False)["judge_same"] is False


# (judge, writer, one model?): litellm resolves provider routes and the cost map's -latest aliases;
# a snapshot's date, -latest and Bedrock's naming are dropped (no network: the local cost map)
ALIASES = [
    ("gpt-4o-mini", "openai/gpt-4o-mini", True),
    ("openai/gpt-4o-mini", "gpt-4o-mini-2024-07-18", True),
    ("azure/gpt-4o-mini", "openai/gpt-4o-mini", True),  # one model, two providers
    ("anthropic/claude-3-5-haiku-latest", "anthropic/claude-3-5-haiku-20241022", True),
    ("bedrock/us.anthropic.claude-3-5-haiku-20241022-v1:0", "anthropic/claude-3-5-haiku-latest", True),
    ("vertex_ai/claude-3-5-haiku@20241022", "anthropic/claude-3-5-haiku-20241022", True),
    ("claude-haiku-latest", "anthropic/claude-haiku-5-5", True),  # litellm's alias row
    ("claude-haiku-4-5", "claude-haiku-4-5-20251001", True),
    ("gpt-mini-latest", "gpt-5.4-mini", True),
    ("ollama_chat/llama3", "ollama/llama3", True),
    ("mistral/mistral-large-latest", "mistral/mistral-large-2407", True),
    ("gpt-4o", "gpt-4o-mini", False),
    ("anthropic/claude-3-5-haiku-latest", "anthropic/claude-3-5-sonnet-latest", False),
    ("claude-haiku-latest", "claude-haiku-4-5", False),  # -latest is 5-5 in this cost map
    ("gpt-4.1", "gpt-4.1-mini", False),
]


@pytest.mark.parametrize(("judge", "writer", "same"), ALIASES)
def test_the_judge_is_the_writer_by_canonical_name_not_by_string(runs_dir, judge, writer, same):
    mine = settings(runs_dir, model=writer, critic="checklist")
    assert shared_roles(judge, None, mine) == (["writer"] if same else [])
    assert shared_roles(judge, "http://127.0.0.1:9/v1", mine) == []  # another server: another model
    if same:
        with pytest.raises(UserError) as err:
            independence(judge, None, [mine], allowed=False)
        assert f"the judge {judge} is also the writer {writer} (the same model)" in err.value.message


def test_names_are_compared_without_litellm_where_no_remote_model_is_involved():
    import subprocess
    import sys

    probe = ("import sys; from reflectcli.models.factory import same_model as s; "
             "print(s('local/smollm2', None, 'local/smollm2', None), "
             "s('local/smollm2', None, 'gpt-4o', None), "
             "s('openai/gpt-4o', 'http://a/v1', 'gpt-4o', None), 'litellm' in sys.modules)")  # fmt: skip
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True).stdout
    assert out.split() == ["True", "False", "False", "False"]  # another server, or not remote: no import


GRADES = ("interest", "coherence", "relevance", "coverage", "accuracy", "completeness",
          "readability", "structure")  # fmt: skip
CUT = " Revision turns notes to self into an argument for a reader, cutting what wanders and adding " \
      "the example that makes a claim land."  # fmt: skip
EXTRA = " Every added sentence makes the article a little longer than it was before."


def articles(prompt: str) -> tuple[str, str]:
    a = re.search(r"<article_A>\n(.*?)\n</article_A>", prompt, re.S).group(1)
    b = re.search(r"<article_B>\n(.*?)\n</article_B>", prompt, re.S).group(1)
    return a, b


def longer_judge(step, messages):
    """Prefers the longer text, whatever it says."""
    if step.startswith("pair"):
        a, b = (len(t.split()) for t in articles(messages[-1]["content"]))
        return json.dumps({"winner": "A" if a > b else "B" if b > a else "tie", "reason": "More."})
    return json.dumps(dict.fromkeys(GRADES, 3))


def tie_judge(step, messages):
    if step.startswith("pair"):
        return json.dumps({"winner": "tie", "reason": "Alike."})
    return json.dumps(dict.fromkeys(GRADES, 3))


def a_judge(step, messages):
    if step.startswith("pair"):
        return json.dumps({"winner": "A", "reason": "The first."})
    return json.dumps(dict.fromkeys(GRADES, 3))


class Resizing(ScriptedResponder):
    """A writer whose revision grows task n's article by `grow[n]` sentences (a negative number:
    cuts one sentence instead)."""

    def __init__(self, grow: dict[int, int]):
        super().__init__(scores=[6, 9], sections=2)
        self.grow = grow

    def __call__(self, step, messages):
        out = super().__call__(step, messages)
        if step.startswith("revise"):
            n = int(re.search(r"Task (\d+) about", prompt_text(messages)).group(1))
            k = self.grow[n]
            out = out.replace(CUT, "", 1) if k < 0 else out.replace(IMPROVED, IMPROVED + EXTRA * k, 1)
        return out


@pytest.fixture
def judge():
    client = FakeClient(model="judge/x", responder=longer_judge)
    undo = install_fake("judge", lambda model: client)
    yield client
    undo()


def shown_report(runs_dir, eval_id: str) -> str:
    shown = CliRunner().invoke(app, ["eval", "report", eval_id, "--runs-dir", str(runs_dir)])
    return " ".join(shown.output.split())


def tasks(count: int) -> list[dict]:
    return [{"n": i, "line": i, "task": f"Task {i} about revising", "reference": None, "tags": [],
             "overrides": {}} for i in range(1, count + 1)]  # fmt: skip


def test_a_judge_that_prefers_length_wins_raw_and_no_effect_at_equal_length(scripted, judge, runs_dir):
    grow = {1: 1, 2: 2, 3: 3, 4: 4, 5: -1, 6: -1}
    scripted.responder = Resizing(grow)
    eval_id = Evaluation(quiet_ui(), runs_dir).start("mine", tasks(6), settings(runs_dir, threshold=8),
                                                     "judge/x")  # fmt: skip
    data = report(runs_dir, eval_id)
    s = data["summary"]
    # recomputed from the texts: the longer article won each pair, in both orders
    outcomes = []
    for item in data["items"]:
        words = item["metrics"]["first"]["words"], item["metrics"]["final"]["words"]
        assert (words[1] > words[0]) == (grow[item["n"]] > 0)
        outcomes.append(item["pair"]["outcome"])
        assert item["pair"]["consistent"]
    assert outcomes == ["final"] * 4 + ["first"] * 2
    assert s["win"] == round(4 / 6, 4) and s["loss"] == round(2 / 6, 4) and s["raw_direction"] == "better"
    assert abs(s["lc_win"] - 0.5) <= stats.BAND and s["lc_direction"] == "no effect"
    assert s["length_disagrees"] and s["lc_reaches_equal"]
    low, high = s["lc_interval"]
    assert low < 0.5 < high
    assert s["mean_length_change"] > 0 and s["mean_words_added"] > 0
    shown = shown_report(runs_dir, eval_id)
    assert "LENGTH: raw says better, at equal length no effect" in shown
    assert shown.index("LENGTH:") < shown.index("length-controlled preference")


def lc(natural: list[tuple[float, float]], equal: list[list[tuple[float, float]]] | None = None) -> dict:
    """stats.length_control over tasks whose verdicts were the same in both orders: task i's
    pair as written (d, y) and, when given, its equal-length pairs [(d', y'), ...]."""
    tasks = [[p, p] + [q for q in (equal[i] if equal else []) for _ in (0, 1)] for i, p in enumerate(natural)]
    raw = sum(y for _, y in natural) / len(natural)
    return stats.length_control(tasks, [d for d, _ in natural], raw, sum(map(len, equal or [])))


def test_length_control_with_a_fair_judge_and_where_length_and_quality_are_confounded():
    from reflectcli.eval.lengthcontrol import logistic_fit

    # a judge whose verdicts do not follow length, gaps both ways: LC stays with the raw preference
    points = [(0.1, 1.0), (0.2, 1.0), (-0.1, 1.0), (-0.2, 1.0), (0.3, 1.0), (0.05, 0.0)]
    fair = lc(points)
    assert fair["lc_direction"] == "better" and not fair["length_disagrees"] and fair["lc_win"] > 0.65
    assert 0 < fair["lc_se"] < 0.2 and fair["lc_interval"][0] < fair["lc_win"] < fair["lc_interval"][1]
    more = lc(points * 4)  # more tasks: a smaller standard error, an interval above 50 %
    assert more["lc_se"] < fair["lc_se"] and more["lc_interval"][0] > 0.5
    # every final grew by about the same ratio, and nothing was judged at equal length: the
    # verdicts cannot tell length from quality, so no number is given
    for grew in ([(0.2, 1.0)] * 4, [(0.30 + 0.01 * i, 1.0) for i in range(30)]):
        found = lc(grew)
        assert (
            found["lc_win"] is None and found["lc_unknown"] == "confounded" and not found["length_disagrees"]
        )
        assert found["lc_one_way"] and not found["lc_reaches_equal"]
    a, b = logistic_fit([-1.0, 1.0, -0.5, 0.5], [0.0, 1.0, 0.0, 1.0])
    assert abs(a) < 1e-6 and b > 1  # symmetric data: no preference at x = 0


def test_equal_length_pairs_tell_quality_from_length_when_every_final_is_longer():
    import random

    rng = random.Random(40)
    gaps = [0.30 + 0.01 * i for i in range(30)]  # every final longer, by 35 % to 80 %
    near = [[(rng.gauss(0, 0.03), 0.0) for _ in "ht"] for _ in gaps]  # two copies, their small gaps
    # a judge of quality (the final wins 25 of 30 pairs, as written and at equal length) ...
    wins = [1.0 if i % 6 else 0.0 for i in range(30)]
    quality = lc(
        list(zip(gaps, wins, strict=True)), [[(d, w) for d, _ in n] for n, w in zip(near, wins, strict=True)]
    )
    # ... and a judge of length (the longer wins as written; at equal length, a coin)
    length = lc([(d, 1.0) for d in gaps], [[(d, float(rng.random() < 0.5)) for d, _ in n] for n in near])
    assert quality["lc_direction"] == "better" and not quality["length_disagrees"]
    assert abs(quality["lc_win"] - 25 / 30) < 0.08 and quality["lc_equal_pairs"] == 60
    assert length["lc_direction"] == "no effect" and length["length_disagrees"]
    assert quality["lc_interval"][0] > length["lc_interval"][1]  # told apart
    assert quality["lc_reaches_equal"] and quality["lc_vif"] < 10


class Polishing(ScriptedResponder):
    """A writer whose revision improves every section (its closing words say so) and makes task
    n's article longer by `grow[n]` distinct sentences."""

    def __init__(self, grow: dict[int, int]):
        super().__init__(scores=[6, 9], sections=2)
        self.grow = grow

    def __call__(self, step, messages):
        out = super().__call__(step, messages)
        if not step.startswith("revise"):
            return out
        from reflectcli.models.fake import prose

        n = int(re.search(r"Task (\d+) about", prompt_text(messages)).group(1))
        return out.replace(IMPROVED, f"{IMPROVED} {prose(n, self.grow[n])}", 1).replace(
            "(draft:", "(polished:"
        )


def polish_judge(step, messages):
    """Prefers the polished article, whatever its length or position; a tie when neither or both are."""
    if step.startswith("pair"):
        a, b = ("polished:" in t for t in articles(messages[-1]["content"]))
        return json.dumps({"winner": "A" if a and not b else "B" if b and not a else "tie", "reason": "."})
    return json.dumps(dict.fromkeys(GRADES, 3))


@pytest.mark.parametrize("pairs", [2, 0])
def test_every_final_longer_a_quality_judge_is_not_called_length(scripted, judge, runs_dir, pairs):
    scripted.responder = Polishing({n: n % 4 + 1 for n in range(1, 9)})
    judge.responder = polish_judge
    eval_id = Evaluation(quiet_ui(), runs_dir).start("mine", tasks(8), settings(runs_dir, threshold=8),
                                                     "judge/x", length_pairs=pairs)  # fmt: skip
    data = report(runs_dir, eval_id)
    s = data["summary"]
    assert s["win"] == 1.0 and s["lc_one_way"] and s["mean_length_change"] > 0
    steps = [c["step"] for c in judge.history]
    shown = shown_report(runs_dir, eval_id)
    assert "LENGTH:" not in shown
    if pairs:  # the copies were judged (journaled, counted in the judge's tokens)
        assert sum(":eq_" in step for step in steps) == 8 * 2 * 2
        assert s["lc_equal_pairs"] == 16 and s["lc_direction"] == "better"
        assert s["lc_interval"][0] > 0.5 and s["lc_se"] > 0
        eq_tokens = sum(i[k]["tokens"] for i in data["items"] for k in stats.equal_kinds())
        assert eq_tokens > 0 and s["judge_tokens"] >= eq_tokens
        assert f"SE {s['lc_se']:.1%}" in shown and "16 equal-length pairs" in shown
    else:  # without them the report says it cannot tell, and gives no number
        assert not any(":eq_" in step for step in steps)
        assert s["lc_win"] is None and s["lc_unknown"] == "confounded"
        assert "length and quality are confounded here: every final is longer than its first draft" in shown


def test_equal_length_copies_keep_every_section_cut_at_sentences():
    from reflectcli.eval.matched import equal_length
    from reflectcli.eval.metrics import words

    first = "# T\n\n## One\n\nA one. A two is here.\n\n## Two\n\nB one.\n\n- item one. item two."
    final = (
        "# T\n\n## One\n\nA one, better. A two is here. An example now.\n\n## Two\n\nB one."
        "\n\n- item one. item two.\n\nA closing paragraph that the revision added."
    )
    head = equal_length(first, final, "head")
    assert head[0] == first.replace("\n\n- item", "\n\n- item")  # the shorter version, whole
    assert (
        head[1]
        == "# T\n\n## One\n\nA one, better. A two is here.\n\n## Two\n\nB one.\n\n- item one. item two."
    )
    tail = equal_length(first, final, "tail")
    assert tail[1].endswith("## Two\n\nA closing paragraph that the revision added.")
    assert "A two is here. An example now." in tail[1]
    assert abs(words(head[0]) - words(head[1])) <= 2 and [t.count("## ") for t in tail] == [2, 2]
    # 中文: cut between sentences as well
    zh = equal_length("## 一\n\n第一句。第二句。", "## 一\n\n第一句。第二句。第三句很长很长。", "head")
    assert zh[1] == "## 一\n\n第一句。第二句。"


def test_an_always_tie_judge_leaves_consistency_unknown(scripted, judge, runs_dir):
    scripted.responder = Resizing({1: 1, 2: 2, 3: -1})
    judge.responder = tie_judge
    eval_id = Evaluation(quiet_ui(), runs_dir).start("mine", tasks(3), settings(runs_dir, threshold=8),
                                                     "judge/x")  # fmt: skip
    s = report(runs_dir, eval_id)["summary"]
    assert s["tie"] == 1.0 and s["decided"] == 3 and s["consistency_pairs"] == 0
    assert s["position_consistency"] is None  # a judge that never decides proves no consistency
    shown = shown_report(runs_dir, eval_id)
    assert "position consistency unknown" in shown
    assert "100%" not in shown.split("position consistency")[1][:40]


def test_a_judge_that_prefers_position_a_gives_no_verdict_anywhere(scripted, judge, runs_dir, tmp_path):
    scripted.responder = Resizing({1: 1, 2: 2, 3: -1})
    judge.responder = a_judge
    eval_id = Evaluation(quiet_ui(), runs_dir).start("mine", tasks(3), settings(runs_dir, threshold=8),
                                                     "judge/x")  # fmt: skip
    data = report(runs_dir, eval_id)
    s = data["summary"]
    assert [(i["pair"]["ab"], i["pair"]["ba"]) for i in data["items"]] == [("first", "final")] * 3
    assert s["position_consistency"] == 0.0 and s["tie"] == 1.0 and s["win"] == 0.0
    assert s["preference"] == 0.5 and s["raw_direction"] == "no effect"
    # the 3 pairs as written and the equal-length copies that differ (4 of 6), none consistent: not a tie
    judged = data["judge"]["reliability"]
    assert judged["pairs"] == 7 and judged["consistent"] == 0 and judged["decides"] is False
    assert s["verdict"]["given"] is False and data["by_tag"] == {}
    said = (
        "no verdict (judge order-consistent on 0% of 7 pairs; a judge blind to the texts names the same "
        "text in both orders of up to half the pairs by chance: 7 of 7 needed to tell it apart)"
    )
    shown = shown_report(runs_dir, eval_id)
    assert f"final vs first draft over 3 tasks: {said}" in shown
    assert "tie 100%" not in shown and "length-controlled preference" not in shown
    page = CliRunner().invoke(app, ["eval", "report", eval_id, "--html", "--runs-dir", str(runs_dir)]).output
    assert said in " ".join(page.split())
    exported = json.loads(CliRunner().invoke(app, ["eval", "report", eval_id, "--json", "--runs-dir",
                                                   str(runs_dir)]).output)  # fmt: skip
    assert exported["summary"]["verdict"]["given"] is False
    stored = CliRunner().invoke(app, ["eval", "list", "--runs-dir", str(runs_dir)]).output
    assert "no verdict (judge order-consistent on 0% of 7 pairs)" in stored
    listed = CliRunner().invoke(app, ["eval", "list", "--json", "--runs-dir", str(runs_dir)]).output
    listed = json.loads(listed)
    assert listed[0]["result"]["verdict"] is False and "win" not in listed[0]["result"]


def test_the_verdict_rule_is_a_binomial_test_against_a_blind_judge():
    from reflectcli.eval.reliability import needed, tail

    assert [needed(n) for n in (1, 4, 5, 10, 16, 30, 100)] == [None, None, 5, 9, 12, 20, 59]
    assert tail(5, 5) == 1 / 32 and tail(20, 30) <= 0.05 < tail(19, 30)


def test_articles_longer_than_the_judges_window_are_judged_whole_in_aligned_parts():
    from reflectcli.eval import judge as judging
    from reflectcli.models.fake import prose

    a = "\n\n".join(f"## Part {i}\n\n{prose(i, 30)}" for i in range(8))  # ~2,400 words
    b = "\n\n".join(f"## Part {i}\n\n{prose(i + 50, 20)}" for i in range(8))
    client = FakeClient(model="judge/x", responder=longer_judge)
    verdict = judging.pair(client, "A task", a, b, None, "pair:1:ab", context=2000)
    k = verdict["parts"]
    assert k > 1 and [c["step"] for c in client.history] == [f"pair:1:ab:p{i}of{k}" for i in range(1, k + 1)]
    shown = [articles(c["messages"][-1]["content"]) for c in client.history]
    for whole, side in ((a, 0), (b, 1)):  # every paragraph reached the judge, in order, none cut
        assert "\n\n".join(part[side] for part in shown if part[side]) == whole
    assert all(f"part {i} of {k}" in c["messages"][-1]["content"] for i, c in enumerate(client.history, 1))
    assert verdict["winner"] == "A" and verdict["reason"].startswith(f"parts won: A {k}")
    short = judging.pair(FakeClient(model="judge/x", responder=longer_judge), "A task", "One.", "Two words.",
                         None, "pair:1:ab")  # fmt: skip
    assert short["parts"] == 1 and short["winner"] == "B"
    graded = judging.rubric(FakeClient(model="judge/x", responder=longer_judge), "A task", a, None,
                            "rubric:1:first", context=2000)  # fmt: skip
    assert graded["parts"] > 1 and graded["grades"]["interest"] == 3


def test_gain_per_dollar_counts_the_judge():
    def item(cost):
        grades = lambda g: {"grades": dict.fromkeys(GRADES, g), "tokens": 100, "cost": cost}  # noqa: E731
        return {"n": 1, "tags": [], "pair": stats.combine({"winner": "B"}, {"winner": "A"}),
                "ab": {"winner": "B", "tokens": 50, "cost": cost},
                "ba": {"winner": "A", "tokens": 50, "cost": cost},
                "rubric_first": grades(3), "rubric_final": grades(4),
                "run": {"rounds": 2, "tokens": 1000, "cost": 0.02}}  # fmt: skip

    s = stats.summarize([item(0.01), item(0.01)])
    assert s["judge_tokens"] == 600 and s["judge_cost"] == 0.08 and s["cost"] == 0.04
    assert s["gain_per_dollar"] == round(1.0 / ((0.04 + 0.08) / 2), 3)  # 16.667, not 50 (writing only)
    assert stats.summarize([item(None), item(0.01)])["gain_per_dollar"] is None  # a judge price unknown


def test_against_another_systems_outputs_every_pair_twice_and_the_numbers_recomputed(
    scripted, judge, runs_dir, tmp_path, monkeypatch
):
    import hashlib

    monkeypatch.setenv("COLUMNS", "400")  # the report names a temp path: no line may wrap inside it

    from reflectcli.models.fake import prose

    scripted.responder = Resizing({n: 1 for n in range(1, 6)})
    suite = tmp_path / "query.jsonl"  # DeepResearch Bench's shape
    lines = [{"id": n, "topic": "Science", "language": "en", "prompt": f"Task {n} about revising"}
             for n in range(1, 6)]  # fmt: skip
    suite.write_text("".join(json.dumps(line) + "\n" for line in lines))
    sizes = {1: 40, 2: 2, 3: 1, 4: 30, 5: 3}  # sentences of about 8 words: longer, then shorter than ours
    theirs = {n: f"# Their report {n}\n\n{prose(n, k)}" for n, k in sizes.items()}
    outputs = tmp_path / "odr.jsonl"
    outputs.write_text("".join(json.dumps({"id": n, "prompt": f"Task {n}", "article": theirs[n]}) + "\n"
                               for n in range(5, 0, -1)))  # fmt: skip
    run = CliRunner().invoke(app, ["eval", "run", str(suite), "--model", "fake/w", "--judge", "judge/x",
                                   "--against-outputs", str(outputs), "--against-name",
                                   "open_deep_research", "--runs-dir", str(runs_dir)])  # fmt: skip
    assert run.exit_code == 0, run.output
    steps = [c["step"] for c in judge.history if ":other_" in c["step"]]
    kinds = ("ab", "ba", "eq_head_ab", "eq_head_ba", "eq_tail_ab", "eq_tail_ba")  # and cut to equal length
    assert sorted(steps) == sorted(f"pair:{n}:other_{k}" for n in range(1, 6) for k in kinds)
    listed = CliRunner().invoke(app, ["eval", "list", "--json", "--runs-dir", str(runs_dir)])
    eval_id = json.loads(listed.output)[0]["id"]
    data = report(runs_dir, eval_id)
    got = data["outputs"]
    assert got["system"] == "open_deep_research"
    assert got["sha256"] == hashlib.sha256(outputs.read_bytes()).hexdigest()
    assert got["articles"] == 5 and got["judged"] == 5
    expected = []
    for item in data["items"]:
        n = item["n"]
        ab = next(c for c in judge.history if c["step"] == f"pair:{n}:other_ab")["messages"][-1]["content"]
        assert articles(ab)[0] == theirs[n]  # their article as A, then as B
        ba = next(c for c in judge.history if c["step"] == f"pair:{n}:other_ba")["messages"][-1]["content"]
        assert articles(ba)[1] == theirs[n]
        ours, other = item["metrics"]["final"]["words"], item["metrics"]["other"]["words"]
        assert other == len(theirs[n].split())
        expected.append("final" if ours > other else "first" if ours < other else "tie")
        assert item["outputs_pair"]["outcome"] == expected[-1]
    assert expected == ["first", "final", "final", "first", "final"]  # the length judge's verdicts
    assert got["win"] == 0.6 and got["loss"] == 0.4 and got["tie"] == 0.0
    assert got["preference"] == 0.6 and got["position_consistency"] == 1.0
    ratios = [i["metrics"]["final"]["words"] / i["metrics"]["other"]["words"] - 1 for i in data["items"]]
    assert got["mean_length_change"] == round(sum(ratios) / 5, 3)
    assert {t for i in data["items"] for t in i["tags"]} == {"Science"}
    text = " ".join(run.output.split())
    named = f"ours vs open_deep_research ({outputs}, sha256 {got['sha256']}, 5 articles)"
    assert f"{named} over 5 tasks: ours wins 60%" in text
    # a task without an article in the file stops before anything is written or paid
    short = tmp_path / "short.jsonl"
    short.write_text(json.dumps({"id": 1, "article": "Only one."}) + "\n")
    calls = len(judge.history)
    missing = CliRunner().invoke(app, ["eval", "run", str(suite), "--model", "fake/w", "--judge",
                                       "judge/x", "--against-outputs", str(short), "--runs-dir",
                                       str(runs_dir)])  # fmt: skip
    assert missing.exit_code == 2 and "has no article for 4 task id(s)" in " ".join(missing.output.split())
    assert len(judge.history) == calls and "Traceback" not in missing.output


def test_metrics_without_a_model():
    from reflectcli.eval import metrics

    # LongBench-Write's S_l: 100 at the asked length, -1/3 per 100 % over, -1/2 per 100 % under
    assert metrics.length_score(1000, 1000) == 100 and metrics.length_score(1000, 1500) == 83.33
    assert metrics.length_score(1000, 500) == 50 and metrics.length_score(1000, 4000) == 0
    assert metrics.length_score(1000, 0) == 0 and metrics.length_score(1000, 250) == 0
    assert metrics.words("Two words 中文字") == 5  # a CJK character is a word
    text = "## One\n\n" + " ".join(["word"] * 98) + " [S1] [S2]"
    state = {"final_version": 2, "trace": [{"kind": "invented_citation", "removed": ["S9", "S7"]},
                                           {"kind": "guard"}],
             "reviews": [{"version": 1, "claims": [{"verdict": "supported"}]},
                         {"version": 2, "claims": [{"verdict": "supported"},
                                                   {"verdict": "unsupported"}]}]}  # fmt: skip
    found = metrics.article(text, state, required=100)
    assert found["words"] == 102 and found["citations_per_1000_words"] == round(2000 / 102, 2)
    assert found["claims_supported"] == 0.5 and found["claims"] == 2
    assert found["invented_citations_removed"] == 2
    assert found["length_score"] == metrics.length_score(100, 102)
    assert metrics.rouge1("the cat sat", "the cat ran") == round(2 / 3, 4)
    assert metrics.rouge_l("a b c d", "a c d") == round(2 * 0.75 * 1 / 1.75, 4)
    reference = "Zillennials\n\n# Etymology\n\nText.\n\n# Date and age range\n\n## Arts and culture\n\nMore."
    mine = "## Etymology\n\nX.\n\n## The date and age ranges\n\nY.\n\n## Sport\n\nZ."
    assert metrics.heading_recall(mine, reference) == {"exact": round(1 / 3, 4), "fuzzy": round(2 / 3, 4),
                                                       "headings": 3}  # fmt: skip


def test_a_suite_with_lengths_and_references_reports_them(scripted, judge, runs_dir, tmp_path):
    scripted.responder = Resizing({1: 1, 2: 2})
    suite = tmp_path / "s.jsonl"
    reference = "# Why first drafts fall short\n\nWriters revise because a first draft records thinking."
    lines = [
        {"task": "Task 1 about revising", "length": 60, "id": "a"},
        {"task": "Task 2 about revising", "reference": reference},
    ]
    suite.write_text("".join(json.dumps(line) + "\n" for line in lines))
    run = CliRunner().invoke(app, ["eval", "run", str(suite), "--model", "fake/w", "--judge", "judge/x",
                                   "--runs-dir", str(runs_dir)])  # fmt: skip
    assert run.exit_code == 0, run.output
    listed = CliRunner().invoke(app, ["eval", "list", "--json", "--runs-dir", str(runs_dir)])
    data = report(runs_dir, json.loads(listed.output)[0]["id"])
    first, final = (data["items"][0]["metrics"][k] for k in ("first", "final"))
    from reflectcli.eval.metrics import length_score

    assert final["length_score"] == length_score(60, final["words"]) and "length_score" not in (
        data["items"][1]["metrics"]["final"])  # fmt: skip
    free = data["summary"]["model_free"]
    assert free["final"]["length_score"] == {"mean": final["length_score"], "tasks": 1}
    assert free["first"]["length_score"]["mean"] == first["length_score"]
    recall = data["items"][1]["metrics"]["final"]["heading_recall"]
    assert recall["exact"] == 1.0 and free["final"]["rouge1"]["tasks"] == 1
    text = " ".join(run.output.split())
    assert f"length score S_l {first['length_score']:.1f} → {final['length_score']:.1f} (1 task)" in text


def test_an_interrupted_comparison_with_outputs_resumes_without_paying_twice(
    scripted, judge, runs_dir, tmp_path
):
    from reflectcli.errors import RunInterrupted
    from reflectcli.eval.outputs import load as load_outputs
    from tests.helpers import FailOnce

    scripted.responder = Resizing({1: 1, 2: 2})
    judge.responder = FailOnce(longer_judge, "pair:2:other_ab", KeyboardInterrupt())
    file = tmp_path / "o.jsonl"
    file.write_text("".join(json.dumps({"id": str(n), "article": f"Their article {n}."}) + "\n"
                            for n in (1, 2)))  # fmt: skip
    suite = [{**t, "id": str(t["n"])} for t in tasks(2)]
    evaluation = Evaluation(quiet_ui(), runs_dir)
    with pytest.raises(RunInterrupted):
        evaluation.start("mine", suite, settings(runs_dir, threshold=8), "judge/x",
                         outputs=load_outputs(file))  # fmt: skip
    (eval_id,) = [e["id"] for e in __import__("reflectcli.eval.run", fromlist=["x"]).evaluations(runs_dir)]
    evaluation.resume(eval_id)
    steps = [c["step"] for c in judge.history]
    assert steps.count("pair:2:other_ab") == 2  # the interrupted call, then its answer
    assert all(steps.count(s) == 1 for s in set(steps) - {"pair:2:other_ab"})
    assert report(runs_dir, eval_id)["outputs"]["win"] == 1.0  # ours is longer than "Their article n."


def test_the_bit_parallel_lcs_equals_the_table():
    import random

    from reflectcli.eval.metrics import lcs_length

    def table(a, b):
        previous = [0] * (len(b) + 1)
        for x in a:
            row = [0]
            for j, y in enumerate(b):
                row.append(previous[j] + 1 if x == y else max(previous[j + 1], row[j]))
            previous = row
        return previous[-1]

    rng = random.Random(26)
    for _ in range(300):
        a = [rng.choice("abcde") for _ in range(rng.randint(0, 30))]
        b = [rng.choice("abcdef") for _ in range(rng.randint(0, 30))]
        assert lcs_length(a, b) == table(a, b)


def test_an_eval_stored_before_the_metrics_gets_them_on_resume_without_paying(scripted, judge, runs_dir):
    from reflectcli.eval.run import evaluations
    from tests.helpers import raw_db

    scripted.responder = Resizing({1: 1, 2: -1, 3: 2, 4: -1, 5: 1})
    eval_id = Evaluation(quiet_ui(), runs_dir).start("mine", tasks(5), settings(runs_dir, threshold=8),
                                                     "judge/x")  # fmt: skip
    with raw_db(runs_dir) as db:
        db.execute("DELETE FROM eval_results WHERE kind = 'metrics'")
        db.execute("UPDATE evals SET meta = NULL")  # as migration 011 leaves an older eval
    assert evaluations(runs_dir)[0]["judged"] == 5  # still judged
    assert report(runs_dir, eval_id)["summary"]["lc_unknown"] == "no lengths stored"
    assert "no lengths stored" in shown_report(runs_dir, eval_id)
    calls = len(judge.history)
    Evaluation(quiet_ui(), runs_dir).resume(eval_id)
    assert len(judge.history) == calls and report(runs_dir, eval_id)["summary"]["lc_win"] is not None
