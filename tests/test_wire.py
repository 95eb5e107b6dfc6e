"""The two ways a remote call goes (models/remote.py): an OpenAI-compatible server behind
api_base straight over HTTP (models/openai_http.py, no litellm import), everything else through
litellm. Both send the same request, read the same answer, price it the same, and count what the
provider did not report as an estimate."""

from __future__ import annotations

import subprocess
import sys

import pytest

from reflectcli.models import prices
from reflectcli.models.remote import LiteLLMClient, _litellm, goes_direct
from reflectcli.writing.schemas import outline_schema
from tests.openai_server import OpenAIServer, answer, loopback_fixture

MESSAGES = [{"role": "system", "content": "You write."}, {"role": "user", "content": "Say something."}]
TEXT = "Revision turns notes into an argument that a reader can follow from start to end."


@pytest.fixture(autouse=True)
def offline_env(monkeypatch):
    loopback_fixture(monkeypatch)


def test_only_an_openai_model_behind_an_api_base_goes_direct():
    assert goes_direct("openai/test-model", "http://127.0.0.1:9/v1")
    assert not goes_direct("openai/test-model", "http://127.0.0.1:9/v1", "litellm")
    assert not goes_direct("openai/gpt-4o-mini", None)  # OpenAI itself: litellm maps its params
    assert not goes_direct("anthropic/claude-haiku-4-5", "http://127.0.0.1:9/v1")
    assert not goes_direct("ollama_chat/llama3", "http://127.0.0.1:9")


@pytest.mark.parametrize("model", ["openai/test-model", "openai/gpt-4o-mini"])
def test_both_transports_send_the_same_request_and_read_the_same_answer(model):
    """The same call through each path: the same request body (model, messages, stream options,
    token cap, response_format, stop), and the same Completion (text, usage, cache, cost)."""
    got, bodies = {}, []
    for transport in ("auto", "litellm"):
        with OpenAIServer(reply=lambda body: answer(TEXT), prompt_cache=True) as server:
            client = LiteLLMClient(model, api_base=server.base_url, retries=0, transport=transport)
            assert client.direct is (transport == "auto")
            calls = [client.complete(MESSAGES, step="plan", json_schema=outline_schema(3), max_tokens=50,
                                     stop=["\n\n\n"]) for _ in range(2)]  # 2nd: a cache hit  # fmt: skip
            got[transport] = [(c.text, c.prompt_tokens, c.completion_tokens, c.cache_read_tokens, c.cost,
                               c.finish_reason, c.estimated_tokens) for c in calls]  # fmt: skip
            bodies += [r.body for r in server.records]
    keys = ("model", "messages", "stream", "stream_options", "max_tokens", "response_format", "stop",
            "temperature")  # fmt: skip
    direct, through = ({k: b.get(k) for k in keys} for b in (bodies[0], bodies[2]))
    assert direct == through
    assert got["auto"] == got["litellm"]
    assert got["auto"][1][3] > 0  # the second call read the cache
    if model == "openai/gpt-4o-mini":
        assert got["auto"][0][4] and got["auto"][1][4] < got["auto"][0][4]  # priced, cheaper cached


@pytest.mark.parametrize("model", ["openai/gpt-4o-mini", "openai/gpt-5-mini", "deepseek/deepseek-chat",
                                   "anthropic/claude-haiku-4-5", "gemini/gemini-2.5-flash"])  # fmt: skip
def test_the_price_map_file_prices_a_call_as_litellm_does(model):
    """models/prices.py reads the file litellm prices from; its cost is litellm's to the cent's
    millionth, with and without cached input and cache writes."""
    from litellm.types.utils import PromptTokensDetailsWrapper, Usage

    litellm = _litellm()
    for prompt, completion, read, made in ((1200, 300, 0, 0), (5000, 800, 3072, 0), (4000, 100, 0, 2048)):
        usage = None
        if read or made:
            details = PromptTokensDetailsWrapper(cached_tokens=read, cache_creation_tokens=made)
            usage = Usage(prompt_tokens=prompt, completion_tokens=completion,
                          total_tokens=prompt + completion, prompt_tokens_details=details)  # fmt: skip
        a, b = litellm.cost_per_token(model=model, prompt_tokens=prompt, completion_tokens=completion,
                                      usage_object=usage)  # fmt: skip
        assert prices.cost(model, prompt, completion, read, made) == pytest.approx(a + b, rel=1e-9), (
            model, prompt, read, made)  # fmt: skip
    assert prices.cost("openai/no-such-model-x", 10, 10) is None


def test_a_loop_cut_records_the_prompt_as_an_estimate_not_zero():
    """A stream cut as a loop ends before the provider's usage chunk: the prompt is still
    counted (estimated: no provider count came), and the completion too; both are marked
    estimated, so every view can say so."""
    loop = "The draft is a record of what the writer thought at the time. " * 60
    with OpenAIServer(reply=lambda body: answer(loop, chunk_delay=0.001)) as server:
        client = LiteLLMClient("openai/test-model", api_base=server.base_url, retries=0)
        done = client.complete([{"role": "user", "content": "Write it. " * 100}], step="draft:s1")
    assert done.finish_reason == "loop"
    assert done.prompt_tokens >= 200  # ~1,000 characters of prompt: not 0
    assert done.estimated_tokens == done.prompt_tokens + done.completion_tokens


def test_a_cut_stream_is_shown_as_estimated_in_the_trace_and_the_artifact(tmp_path):
    from reflectcli.output import rows
    from reflectcli.output.artifacts import render_artifact

    event = {"node": "draft", "step": "draft:s1", "prompt_tokens": 250, "completion_tokens": 40,
             "estimated_tokens": 290, "cost": None, "retries": 0, "finish_reason": "loop", "duration": 1.0,
             "at": "2026-12-02T00:00:00", "model": "m"}  # fmt: skip
    assert "estimated" in rows.call_note(event)
    assert "received (estimated)" in rows.cost_line(event, 290, None)
    state = {"task": "t", "params": {"model": "m"}, "trace": [event]}
    text = render_artifact(state, "t", {"status": "running"})
    assert "~290 of them estimated" in text


@pytest.mark.slow
def test_a_remote_write_to_an_openai_compatible_server_never_imports_litellm(tmp_path):
    """The whole run of `write` against an OpenAI-compatible server: litellm is never imported
    (with `transport = litellm` it is)."""
    from tests.crashkit import KillScript, child_env

    script = (
        "import sys, runpy\n"
        "sys.argv = ['reflectcli', *sys.argv[1:]]\n"
        "try:\n    runpy.run_module('reflectcli', run_name='__main__')\n"
        "except SystemExit as exc:\n    code = exc.code\n"
        "print('LITELLM', 'litellm' in sys.modules, code, file=sys.stderr)\n"
    )
    with OpenAIServer(reply=KillScript((9.0,), 2)) as server:
        for transport, imported in (("auto", False), ("litellm", True)):
            env = child_env(tmp_path, REFLECTCLI_TRANSPORT=transport)
            proc = subprocess.run([sys.executable, "-c", script, "write", "Why do writers revise?", "--model",
                                   "openai/test-model", "--api-base", server.base_url, "--runs-dir",
                                   str(tmp_path / transport), "--sections", "2"],
                                  env=env, capture_output=True, text=True, timeout=300)  # fmt: skip
            assert f"LITELLM {imported} 0" in proc.stderr, proc.stderr[-3000:]


def test_a_new_runs_plan_is_sent_ahead_and_taken_by_the_plan_step(tmp_path, monkeypatch):
    """A remote write sends its plan request before the graph is built (its imports are most
    of a process's time before the first call); the plan step's call, the same request, takes
    that answer: one plan request reaches the server, and the trace's plan call is an answer,
    not a replay. A run with a budget does not send ahead (its plan could be refused)."""
    from reflectcli.models.journal import JournaledClient
    from reflectcli.runner import Runner
    from tests.crashkit import KillScript
    from tests.helpers import quiet_ui, settings

    sent = []
    real = JournaledClient.prefetch

    def counted(self, *args, **kwargs):
        sent.append(kwargs["step"])
        return real(self, *args, **kwargs)

    monkeypatch.setattr(JournaledClient, "prefetch", counted)
    with OpenAIServer(reply=KillScript((9.0,), 2)) as server:
        flags = {"model": "openai/test-model", "api_base": server.base_url, "max_sections": 2}
        state = Runner(quiet_ui()).write("Why do writers revise?", settings(tmp_path / "a", **flags)).state
        plans = [r for r in server.records if r.step == "plan"]
        assert sent == ["plan"] and len(plans) == 1
        calls = [e for e in state["trace"] if e.get("step") == "plan"]
        assert len(calls) == 1 and not calls[0]["replayed"] and state["status"] == "finished"
        budgeted = settings(tmp_path / "b", **flags)
        policy = budgeted.policy.model_copy(update={"max_tokens": 10**6})
        budgeted = budgeted.model_copy(update={"policy": policy})
        Runner(quiet_ui()).write("Why do writers revise?", budgeted)
        assert sent == ["plan"]  # not again
        assert len([r for r in server.records if r.step == "plan"]) == 2
