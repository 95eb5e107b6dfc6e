"""Remote calls at full strength, against the scripted OpenAI-compatible server on 127.0.0.1:
streamed answers (live token counts, a stall timeout between tokens, loops cut as they start),
the token cap detected, JSON schemas sent as response_format (and given up gracefully by a
server that refuses them), a critic on its own server with its own key."""

from __future__ import annotations

import json
import time
from typing import Any

import pytest
from typer.testing import CliRunner

from reflectcli.cli.app import app
from reflectcli.config import Settings
from reflectcli.errors import ModelError
from reflectcli.models.factory import make_client
from reflectcli.models.remote import _litellm
from reflectcli.writing.schemas import outline_schema
from tests.crashkit import KillScript
from tests.openai_server import OpenAIServer, answer, error, loopback_fixture, step_of

MODEL = "openai/test-model"
MESSAGES = [{"role": "user", "content": "Say something about revision."}]
TEXT = "Revision turns notes into an argument that a reader can follow from start to end."


@pytest.fixture(autouse=True)
def offline_env(monkeypatch):
    loopback_fixture(monkeypatch)


@pytest.fixture
def server():
    with OpenAIServer() as srv:
        yield srv


def client_for(server: OpenAIServer, **overrides: Any):
    values = {"model": MODEL, "api_base": server.base_url, "retries": 2, "backoff": 0.0,
              "timeout": 5.0, "runs_dir": "runs", **overrides}  # fmt: skip
    return make_client(MODEL, Settings(**values))


def test_a_streamed_answer_reports_tokens_as_they_arrive(server):
    long = " ".join(f"Sentence {i} adds one more point." for i in range(12))
    server.reply = lambda body: answer(long, chunk_delay=0.005)
    client = client_for(server)
    seen: list[int] = []
    client.progress = lambda step, tokens: seen.append(tokens)
    completion = client.complete(MESSAGES, step="draft:s1")
    assert completion.text == long and completion.finish_reason == "stop"
    assert seen and seen == sorted(seen) and len(set(seen)) >= 3
    body = server.records[0].body
    assert body["stream"] is True and body["stream_options"] == {"include_usage": True}
    assert completion.completion_tokens == len(long) // 4  # the server's own usage


def test_the_token_cap_is_reported(server):
    server.reply = lambda body: answer("One full sentence. And then it was cut", finish="length")
    completion = client_for(server).complete(MESSAGES, step="draft:s1", max_tokens=10)
    assert completion.finish_reason == "length"
    assert server.records[0].body["max_tokens"] == 10


def test_a_stall_is_retried_with_a_smaller_cap_and_its_tokens_counted(server):
    """No token for `timeout` seconds mid-answer: the attempt ends at once (not after a total
    timeout), its tokens are counted (a paid API bills them) and the retry asks for fewer."""
    answers = iter([answer(TEXT, stall_after=6), answer(TEXT)])
    server.reply = lambda body: next(answers)
    client = client_for(server, timeout=1.0)
    _litellm()  # its ~10 s import is not the stall being timed
    started = time.monotonic()
    completion = client.complete(MESSAGES, step="draft:s1", max_tokens=400)
    assert time.monotonic() - started < 4
    assert completion.text == TEXT and completion.retries == 1
    first, second = (r.body["max_tokens"] for r in server.records)
    assert (first, second) == (400, 300)  # never the same request again
    assert "after ~" in completion.retry_log[0] and "counted" in completion.retry_log[0]
    assert completion.completion_tokens > len(TEXT) // 4  # the stalled attempt's tokens too


def test_a_slow_but_steady_stream_is_never_cut(server):
    """`timeout` is the longest silence, not the longest answer: 1.5 s of tokens arriving every
    50 ms passes a 0.5 s timeout."""
    words = " ".join(f"word{i}" for i in range(30))
    server.reply = lambda body: answer(words, chunk_delay=0.05)
    completion = client_for(server, timeout=0.5).complete(MESSAGES, step="draft:s1")
    assert completion.retries == 0 and completion.text == words


def test_a_loop_is_cut_while_streaming(server):
    loop = "The draft is a record of what the writer thought at the time. " * 60
    server.reply = lambda body: answer(loop, chunk_delay=0.002)
    completion = client_for(server).complete(MESSAGES, step="draft:s1")
    assert completion.finish_reason == "loop"
    assert len(completion.text) < len(loop) // 4  # it stopped reading long before the end


def test_a_json_schema_goes_to_the_server_as_response_format(server):
    server.reply = lambda body: answer(json.dumps({"sections": [{"title": "A", "goal": ""}]}))
    schema = outline_schema(3)
    client = client_for(server)
    assert client.takes_schema  # an api_base server takes a schema by default
    client.complete(MESSAGES, step="plan", json_schema=schema)
    sent = server.records[0].body["response_format"]
    assert sent["type"] == "json_schema" and sent["json_schema"]["schema"] == schema
    client.complete(MESSAGES, step="draft:s1")  # free text: no response_format
    assert "response_format" not in server.records[1].body


@pytest.mark.parametrize(("mode", "expected"), [("json", {"type": "json_object"}),
                                                ("prompt", None)])  # fmt: skip
def test_the_structured_setting_forces_a_mode(server, mode, expected):
    server.reply = lambda body: answer("{}")
    client = client_for(server, structured=mode)
    client.complete(MESSAGES, step="plan", json_schema=outline_schema(3))
    assert server.records[0].body.get("response_format") == expected
    assert client.takes_schema is False


def test_a_server_that_refuses_response_format_is_asked_without_it(server):
    def reply(body):
        if body.get("response_format", {}).get("type") == "json_schema":
            return error(400, "response_format json_schema is not supported by this server")
        return answer("{}")

    server.reply = reply
    client = client_for(server)
    completion = client.complete(MESSAGES, step="plan", json_schema=outline_schema(3))
    assert completion.text == "{}" and "refused response_format" in completion.retry_log[0]
    client.complete(MESSAGES, step="review:r1", json_schema=outline_schema(3))
    kinds = [(r.body.get("response_format") or {}).get("type") for r in server.records]
    assert kinds == ["json_schema", "json_object", "json_object"]  # remembered


def test_an_unrelated_bad_request_is_not_mistaken_for_a_refusal(server):
    server.reply = lambda body: error(400, "temperature must be at most 2")
    with pytest.raises(ModelError, match="temperature must be at most 2"):
        client_for(server).complete(MESSAGES, step="plan", json_schema=outline_schema(3))
    assert server.count == 1


def test_the_critic_has_its_own_server_and_key(monkeypatch, tmp_path):
    """Writer on one server, critic on another (`--critic-api-base`): each request goes where
    its role says, and each server sees only its own key."""
    monkeypatch.setenv("REFLECTCLI_API_KEY", "sk-writer")
    monkeypatch.setenv("REFLECTCLI_CRITIC_API_KEY", "sk-critic")
    script = KillScript((9.0,), 2)
    with OpenAIServer(reply=script) as writer, OpenAIServer(reply=script) as critic:
        result = CliRunner().invoke(app, [
            "write", "Why do writers revise?", "--model", MODEL, "--api-base", writer.base_url,
            "--critic-api-base", critic.base_url, "--runs-dir", str(tmp_path / "runs"),
            "--sections", "2", "--threshold", "8",
        ])  # fmt: skip
        assert result.exit_code == 0, result.output
        assert [step_of(r.body) for r in writer.records] == ["plan", "draft:s1", "draft:s2"]
        assert [step_of(r.body) for r in critic.records] == ["review:r1"]
        assert {r.headers["authorization"] for r in writer.records} == {"Bearer sk-writer"}
        assert {r.headers["authorization"] for r in critic.records} == {"Bearer sk-critic"}


@pytest.mark.slow
def test_debug_logs_go_to_stderr_never_stdout(tmp_path):
    """`--debug` turns on litellm's own logging, which sends records below WARNING to stdout:
    reflectcli routes all of it to stderr, so stdout stays the program's output."""
    from tests.crashkit import Child

    with OpenAIServer(reply=KillScript((9.0,), 2)) as srv:
        child = Child(tmp_path, "debug", ["write", "Why do writers revise?", "--model", MODEL,
                                          "--api-base", srv.base_url, "--runs-dir", "runs",
                                          "--sections", "2", "--debug"],
                      env={"REFLECTCLI_TRANSPORT": "litellm"})  # litellm's own logs  # fmt: skip
        assert child.finish() == 0, child.describe()
    assert "LiteLLM" in child.stderr and "DEBUG" in child.stderr  # the logs exist
    assert "LiteLLM" not in child.stdout and "DEBUG" not in child.stdout
    assert len(child.stdout) < 5000, len(child.stdout)


def test_tokens_of_a_call_that_failed_for_good_are_counted_when_it_is_answered(server, tmp_path):
    """Stalls until the retries are spent: the error says what it cost, the journal keeps it,
    and the same request answered after a resume carries those tokens into the run's usage."""
    from reflectcli.models.journal import JournaledClient
    from reflectcli.store.db import Store

    server.reply = lambda body: answer(TEXT, stall_after=6)
    store = Store(tmp_path)
    journaled = JournaledClient(client_for(server, timeout=0.5, retries=1), store, "t1", lambda *a: None)
    with pytest.raises(ModelError) as failed:
        journaled.complete(MESSAGES, step="draft:s1", max_tokens=400)
    spent = failed.value.spent
    assert spent and spent["completion_tokens"] > 0 and "tokens of failed attempts" in str(failed.value)
    assert store.journal_count("t1") == 0  # not an answer: nothing to replay
    server.reply = lambda body: answer(TEXT)
    again = JournaledClient(client_for(server), store, "t1", lambda *a: None)  # as after a resume
    done = again.complete(MESSAGES, step="draft:s1", max_tokens=400)
    assert done.completion_tokens == len(TEXT) // 4 + spent["completion_tokens"]
    assert done.prompt_tokens >= spent["prompt_tokens"] and "1 failed call before" in done.retry_log[-1]
    replayed = again.complete(MESSAGES, step="draft:s1", max_tokens=400)  # replay: counted once
    assert replayed.replayed and replayed.completion_tokens == done.completion_tokens
    store.close()


def test_a_stall_at_the_smallest_cap_is_not_sent_again_unchanged(server):
    """3/4 of a 20-token cap is below the floor (16): the stalled request is not retried at all,
    rather than sent again as it was."""
    server.reply = lambda body: answer(TEXT, stall_after=6)
    client = client_for(server, timeout=0.5)
    with pytest.raises(ModelError) as failed:
        client.complete(MESSAGES, step="draft:s1", max_tokens=20)
    assert server.count == 1 and "gave up after 1 attempts" in str(failed.value)
