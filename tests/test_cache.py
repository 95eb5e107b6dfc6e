"""Prompts that providers can cache: what stays the same across a run's calls comes first (the
system message), the changing part last; the prefix is marked for Claude; cached tokens are read
from the usage, counted in the trace, `stats` and the cost, priced at the cached rate."""

from __future__ import annotations

import json
import os
import re
from types import SimpleNamespace

import pytest
from typer.testing import CliRunner

from reflectcli.cli.app import app
from reflectcli.config import Settings
from reflectcli.models.fake import ScriptedResponder, prompt_text
from reflectcli.models.remote import LiteLLMClient, cache_tokens, marked, needs_cache_marker
from reflectcli.runner import Runner
from reflectcli.writing import prompts, revise_prompts
from tests.helpers import quiet_ui, settings
from tests.openai_server import OpenAIServer, answer, loopback_fixture, step_of

OUTLINE = [{"title": f"Part {i}", "goal": f"Explain part {i}."} for i in range(1, 4)]
EVIDENCE = [{"id": f"S{i}", "text": f"Passage {i} says something.", "source_id": i} for i in range(1, 4)]


def shared(a: str, b: str) -> int:
    return len(os.path.commonprefix([a, b]))


def text_of(messages) -> str:
    return "".join(f"<{m['role']}>{m['content']}" for m in messages)


def test_each_draft_begins_with_the_previous_drafts_prompt_up_to_its_written_sections():
    bodies = [f"Body of part {i}, " * 100 for i in range(1, 4)]
    calls = [prompts.section_messages("Why revise?", OUTLINE, bodies[:i], i, None,
                                      evidence=EVIDENCE[i:i + 1], sources=EVIDENCE)
             for i in range(3)]  # fmt: skip
    assert len({c[0]["content"] for c in calls}) == 1  # one system message for every section
    first, second, third = (text_of(c) for c in calls)
    # the third repeats the second up to the end of section 1's body: only section 2 is new
    assert third[: shared(second, third)].rstrip().endswith(bodies[0].rstrip())
    rest = third[shared(second, third) :]  # what the provider reads afresh: section 2 and the step
    assert rest.lstrip().startswith("## Part 2") and bodies[0] not in rest and prompts.FRAME not in rest
    assert "found for this section: [S3]" in calls[2][1]["content"]  # its own sources named
    assert all(f"[{e['id']}]" in calls[0][0]["content"] for e in EVIDENCE)  # all in the context


def test_a_review_and_the_revisions_after_it_share_the_context_up_to_the_sources():
    article = "\n\n".join(f"## {s['title']}\n\nText of {s['title']}." for s in OUTLINE)
    review = prompts.review_messages("Why revise?", article, 1, None, outline=OUTLINE,
                                     evidence=EVIDENCE[:1], sources=EVIDENCE)  # fmt: skip
    items = [{"section": "Part 2", "issue": "Add an example.", "severity": "major"}]
    bodies = [f"Text of {s['title']}." for s in OUTLINE]
    section = revise_prompts.section_revise_messages("Why revise?", OUTLINE, bodies, 1, items, 2, None,
                                              evidence=EVIDENCE[1:2], sources=EVIDENCE)  # fmt: skip
    draft = prompts.section_messages("Why revise?", OUTLINE, [], 0, None, sources=EVIDENCE)
    assert section[0] == draft[0]  # a section rewrite's context is the drafts'
    common = review[0]["content"][: shared(review[0]["content"], section[0]["content"])]
    assert common.startswith(prompts.FRAME) and "[S3]" in common and "<article>" not in common
    assert "<article>" in review[0]["content"] and "Review round 1." in review[1]["content"]
    assert "Revision for round 2." in section[1]["content"] and "<section>" in section[1]["content"]


def test_for_a_caching_provider_a_section_rewrite_begins_with_its_reviews_whole_prefix():
    """prompt_cache on: the rewrite's system message is the review's byte for byte (article
    included), the lessons move behind it, and the neighbours' edges are not repeated."""
    article = "\n\n".join(f"## {s['title']}\n\nText of {s['title']}." for s in OUTLINE)
    review = prompts.review_messages("Why revise?", article, 1, None, outline=OUTLINE,
                                     evidence=EVIDENCE[:1], sources=EVIDENCE)  # fmt: skip
    items = [{"section": "Part 2", "issue": "Add an example.", "severity": "major"}]
    bodies = [f"Text of {s['title']}." for s in OUTLINE]
    lessons = [{"text": "Name a real example in every section."}]
    section = revise_prompts.section_revise_messages("Why revise?", OUTLINE, bodies, 1, items, 2, None,
                                              evidence=EVIDENCE[1:2], sources=EVIDENCE,
                                              lessons=lessons, article=article)  # fmt: skip
    assert section[0] == review[0] and "<article>" in section[0]["content"]
    assert "Name a real example" in section[1]["content"] and "Name a real" not in section[0]["content"]
    assert "The previous section ends" not in section[1]["content"]
    plain = revise_prompts.section_revise_messages("Why revise?", OUTLINE, bodies, 1, items, 2, None,
                                            evidence=EVIDENCE[1:2], sources=EVIDENCE,
                                            lessons=lessons)  # fmt: skip
    assert "<article>" not in plain[0]["content"] and "The previous section ends" in plain[1]["content"]


@pytest.mark.parametrize("caches", [True, False])
def test_a_run_sends_the_reviewed_article_to_section_rewrites_only_where_prompts_cache(caches, tmp_path):
    from reflectcli.models.fake import FakeClient, install_fake

    made = []

    def make(model):
        made.append(FakeClient(model, ScriptedResponder(scores=[6.0, 9.0], sections=3),
                               caches_prompts=caches))  # fmt: skip
        return made[-1]

    uninstall = install_fake("fake", make)
    try:
        result = Runner(quiet_ui()).write("Why revise?", Settings(
            model="fake/w", runs_dir=str(tmp_path), max_sections=3, max_rounds=2, threshold=8.5,
            memory={"enabled": False}))  # fmt: skip
    finally:
        uninstall()
    calls = made[0].history
    steps = [c["step"] for c in calls]
    first = next(i for i, s in enumerate(steps) if re.fullmatch(r"revise:r2:s\d+", s))
    review = calls[first - 1]
    assert review["step"] == "review:r1"
    rewrite = calls[first]["messages"][0]["content"]
    assert (rewrite == review["messages"][0]["content"]) is caches
    assert ("<article>" in rewrite) is caches
    assert result.state["status"] == "finished"


def test_the_tiny_models_prompts_keep_their_short_plain_form():
    """The embedded model's compact prompts carry no shared context: nothing grows longer."""
    draft = prompts.section_messages("Why revise?", OUTLINE, [], 0, None, compact=True, words=80)
    assert draft[0]["content"] == "You are a clear, concrete writer."
    assert draft[1]["content"].startswith("Article: Why revise?\nSection: Part 1 (Explain part 1.)")
    review = prompts.review_messages("Why revise?", "## Part 1\n\nText.", 1, None, compact=True)
    assert prompts.FRAME not in prompt_text(review) and review[1]["content"].startswith("Review round 1.")
    plan = prompts.questions_messages("Why revise?", 3)
    assert plan[0]["content"] == "You help plan short articles. Answer with JSON only."
    assert plan[1]["content"].startswith("Topic: Why revise?\nWrite three different short questions")


@pytest.mark.parametrize(("model", "marker"), [
    ("anthropic/claude-3-5-haiku-latest", True), ("claude-3-5-sonnet-20240620", True),
    ("bedrock/anthropic.claude-3-5-haiku-20241022-v1:0", True), ("vertex_ai/claude-sonnet-4", True),
    ("bedrock/amazon.nova-pro-v1:0", False), ("openai/gpt-4o-mini", False),
    ("deepseek/deepseek-chat", False), ("openai/llama3.1", False),
])  # fmt: skip
def test_only_providers_that_need_a_marker_get_one(model, marker):
    assert needs_cache_marker(model) is marker
    messages = prompts.section_messages("Why revise?", OUTLINE, [], 0, None)
    sent = LiteLLMClient(model)._kwargs(messages, None, 100, "draft:s1")["messages"]
    system = sent[0]["content"]
    if marker:
        assert system == [{"type": "text", "text": messages[0]["content"],
                           "cache_control": {"type": "ephemeral"}}]  # fmt: skip
        assert sent[1] == messages[1]  # the changing part is not marked
    else:
        assert sent == messages
    assert isinstance(messages[0]["content"], str)  # the prompt itself is left as it was


def test_marked_leaves_messages_without_a_system_text_alone():
    plain = [{"role": "user", "content": "Hello."}]
    assert marked(plain) == plain


def test_cached_tokens_are_read_from_openai_and_anthropic_usage():
    openai = SimpleNamespace(prompt_tokens=1000, prompt_tokens_details=SimpleNamespace(cached_tokens=768))
    assert cache_tokens(openai) == (768, 0)
    as_dict = SimpleNamespace(prompt_tokens=10, prompt_tokens_details={"cached_tokens": 4})
    assert cache_tokens(as_dict) == (4, 0)
    anthropic = SimpleNamespace(prompt_tokens=3000, prompt_tokens_details=None,
                                cache_read_input_tokens=2048, cache_creation_input_tokens=512)  # fmt: skip
    assert cache_tokens(anthropic) == (2048, 512)
    assert cache_tokens(SimpleNamespace(prompt_tokens=5)) == (0, 0)


def test_the_scripted_server_reports_a_cache_only_when_asked():
    body = {"messages": [{"role": "system", "content": "Context " * 50}, {"role": "user", "content": "Go."}]}
    plain, cached = OpenAIServer(), OpenAIServer(prompt_cache=True)
    record = SimpleNamespace(index=1)
    assert "prompt_tokens_details" not in plain._completion(body, "ok", record)["usage"]
    assert cached._completion(body, "ok", record)["usage"]["prompt_tokens_details"] == {"cached_tokens": 0}
    again = {"messages": [body["messages"][0], {"role": "user", "content": "Again."}]}
    usage = cached._completion(again, "ok", record)["usage"]
    common = len("<system>" + "Context " * 50 + "<user>")  # "Go." and "Again." share nothing
    assert usage["prompt_tokens_details"]["cached_tokens"] == min(usage["prompt_tokens"], common // 4) > 0


def test_a_run_shows_its_cached_tokens_and_prices_them_at_the_cached_rate(scripted, runs_dir):
    """Through the fake: the fake reports no cache, so nothing is invented (all zeros)."""
    result = Runner(quiet_ui()).write("Why revise?", settings(runs_dir, max_sections=2))
    assert result.summary["cache_read_tokens"] == 0 == result.summary["cache_creation_tokens"]
    assert "of which" not in result.artifact.read_text()


@pytest.mark.slow
def test_cached_tokens_from_a_server_are_counted_priced_and_shown(tmp_path, monkeypatch):
    """A real `write` through litellm to the scripted server with its prompt cache on, under a
    model name litellm prices (openai/gpt-4o-mini): each call's cached tokens reach the trace,
    the summary, the stored usage and `stats`, and the cost is litellm's with the cached rate."""
    loopback_fixture(monkeypatch)
    responder = ScriptedResponder(scores=[9.0], sections=3)
    model = "openai/gpt-4o-mini"
    with OpenAIServer(lambda body: answer(responder(step_of(body), body["messages"])),
                      prompt_cache=True) as server:  # fmt: skip
        runs = tmp_path / "runs"
        config = Settings(model=model, api_base=server.base_url, runs_dir=str(runs), max_sections=3,
                          threshold=8.0, retries=0, timeout=30.0)  # fmt: skip
        result = Runner(quiet_ui()).write("Why do writers revise their drafts?", config)
        usages = [r.body for r in server.records]
    assert [e["step"] for e in result.state["trace"] if "step" in e] == [
        "plan", "draft:s1", "draft:s2", "draft:s3", "review:r1"]  # fmt: skip
    assert all(body["messages"][0]["role"] == "system" for body in usages)
    calls = {e["step"]: e for e in result.state["trace"] if "step" in e}
    assert calls["plan"]["cache_read_tokens"] == 0
    assert calls["draft:s3"]["cache_read_tokens"] > calls["draft:s2"]["cache_read_tokens"] > 0
    s = result.summary
    assert s["cache_read_tokens"] == sum(e["cache_read_tokens"] for e in calls.values()) > 0
    from reflectcli.models.remote import _litellm

    info = _litellm().get_model_info(model)
    assert info["cache_read_input_token_cost"] < info["input_cost_per_token"]
    expected = ((s["prompt_tokens"] - s["cache_read_tokens"]) * info["input_cost_per_token"]
                + s["cache_read_tokens"] * info["cache_read_input_token_cost"]
                + s["completion_tokens"] * info["output_cost_per_token"])  # fmt: skip
    assert s["cost"] == pytest.approx(expected, abs=1e-6)
    full = (s["prompt_tokens"] * info["input_cost_per_token"]
            + s["completion_tokens"] * info["output_cost_per_token"])  # fmt: skip
    assert s["cost"] < full
    artifact = result.artifact.read_text()
    assert f"of which {s['cache_read_tokens']} cached" in artifact
    assert re.search(r"\d+ input tokens from the prompt cache", artifact)  # the trace's call notes
    out = CliRunner().invoke(app, ["stats", "--json", "--runs-dir", str(runs)])
    (row,) = json.loads(out.output)["per_model"]
    assert row["cache_read_tokens"] == s["cache_read_tokens"] and row["cost"] == pytest.approx(s["cost"])
    table = CliRunner().invoke(app, ["stats", "--runs-dir", str(runs)]).output
    assert "of which cached" in table and str(s["cache_read_tokens"]) in table


def test_litellm_sends_the_marker_to_anthropic(monkeypatch):
    """What leaves the process for a Claude model: Anthropic's `system` blocks with the marker
    on the run's context (a local server captures the request and refuses it)."""
    import threading
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

    from reflectcli.errors import ModelError

    loopback_fixture(monkeypatch)
    seen: list[tuple[str, dict]] = []

    class Capture(BaseHTTPRequestHandler):
        def log_message(self, *args):  # quiet
            pass

        def do_POST(self):  # noqa: N802
            seen.append((self.path, json.loads(self.rfile.read(int(self.headers["content-length"])))))
            body = json.dumps({"type": "error", "error": {"type": "invalid_request_error",
                                                          "message": "captured"}}).encode()  # fmt: skip
            self.send_response(400)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

    server = ThreadingHTTPServer(("127.0.0.1", 0), Capture)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        client = LiteLLMClient("anthropic/claude-haiku-4-5", retries=0, timeout=10,
                               api_base=f"http://127.0.0.1:{server.server_address[1]}")  # fmt: skip
        messages = prompts.section_messages("Why revise?", OUTLINE, [], 0, None)
        with pytest.raises(ModelError):
            client.complete(messages, step="draft:s1", max_tokens=50)
    finally:
        server.shutdown()
        server.server_close()
    ((path, body),) = seen
    assert path.endswith("/v1/messages")
    assert body["system"] == [{"type": "text", "text": messages[0]["content"],
                               "cache_control": {"type": "ephemeral"}}]  # fmt: skip
    assert [m["role"] for m in body["messages"]] == ["user"]
    assert "cache_control" not in json.dumps(body["messages"])


@pytest.mark.parametrize(("model", "setting", "caches"), [
    ("openai/gpt-5-mini", "auto", True),  # the price map bills its cached input (at a tenth)
    ("openai/gpt-4o-mini", "auto", True),  # ... at half: each prompt is weighed (below)
    ("anthropic/claude-3-5-haiku-latest", "auto", True),  # marked: a read costs a tenth
    ("openai/test-model", "auto", False),  # unknown to the price map
    ("openai/gpt-4o-mini", "off", False), ("openai/test-model", "on", True),
])  # fmt: skip
def test_prompt_cache_auto_follows_the_price_map(model, setting, caches):
    assert LiteLLMClient(model, prompt_cache=setting).caches_prompts is caches


@pytest.mark.parametrize(("model", "prefix", "shaped", "plain", "saves"), [
    ("openai/gpt-5-mini", 3000, 3300, 900, True),  # 300 + 300 < 900: the article read at a tenth
    ("openai/gpt-5-mini", 900, 1200, 700, False),  # under OpenAI's 1,024 tokens: nothing is cached
    ("openai/gpt-5-mini", 8000, 8300, 1000, False),  # 800 + 300 > 1,000: the read costs more
    ("openai/gpt-4o-mini", 3000, 3300, 900, False),  # half price: 1,500 + 300 > 900
    ("openai/gpt-4o-mini", 3000, 3100, 1800, True),  # ... unless the plain prompt is long too
    ("anthropic/claude-3-5-haiku-latest", 1500, 1800, 900, False),  # Haiku caches from 2,048
    ("anthropic/claude-3-5-haiku-latest", 3000, 3300, 900, True),
    ("deepseek/deepseek-chat", 500, 800, 700, True),  # DeepSeek caches from 64 tokens
    ("openai/test-model", 3000, 3300, 900, False),  # no cached price known
])  # fmt: skip
def test_auto_shapes_a_prompt_for_the_cache_only_where_it_saves_at_that_size(model, prefix, shaped, plain,
                                                                            saves):  # fmt: skip
    """prompt_cache auto, per prompt: the cached prefix at the price map's cached rate plus the
    rest, against the plain prompt in full; nothing is read from a cache below the provider's
    minimum cacheable prefix. (`on` and `off` decide alone.)"""
    assert LiteLLMClient(model).cache_saves(prefix, shaped, plain) is saves
    assert LiteLLMClient(model, prompt_cache="on").cache_saves(prefix, shaped, plain) is True
    assert LiteLLMClient(model, prompt_cache="off").cache_saves(prefix, shaped, plain) is False
