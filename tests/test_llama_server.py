"""The remote path end to end against a real OpenAI-compatible server: llama.cpp's own HTTP
server (as bundled in xllamacpp) serving the embedded GGUF on 127.0.0.1, reached through litellm
as `openai/smol` with `--api-base`. Slow: real generation on the CPU."""

from __future__ import annotations

import json
import socket
import sqlite3

import pytest
from typer.testing import CliRunner

from reflectcli.cli.app import app
from reflectcli.models.local import ensure_embedded_model, server_params
from tests.openai_server import loopback_fixture

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def llama_server():
    import xllamacpp

    params = server_params(ensure_embedded_model())
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    params.hostnames = ["127.0.0.1"]
    params.port = port
    server = xllamacpp.Server(params)
    yield f"http://127.0.0.1:{port}/v1"
    del server


def test_a_whole_run_through_litellm_to_a_real_llama_server(llama_server, tmp_path, monkeypatch):
    """Structured answers come back as JSON under the schema (sent as response_format): no
    attempt fails to parse (the 135M model may still repeat a title, which is rejected on its
    merits); every call is streamed, counted and journaled."""
    loopback_fixture(monkeypatch)
    runs = tmp_path / "runs"
    result = CliRunner().invoke(app, [
        "write", "Why do writers revise their drafts?", "--model", "openai/smol",
        "--api-base", llama_server, "--runs-dir", str(runs), "--thread-id", "real",
        "--sections", "2", "--max-rounds", "2", "--threshold", "10", "--timeout", "60",
    ])  # fmt: skip
    assert result.exit_code == 0, result.output
    with sqlite3.connect(runs / "reflect.db") as db:
        state = json.loads(db.execute("SELECT state FROM run_state").fetchone()[0])
    assert state["status"] == "finished"
    outline = state["outline"]
    problems = outline["errors"] + [e for r in state["reviews"] for e in r["errors"]]
    assert not [p for p in problems if "no JSON object" in p or "Field required" in p], problems
    if outline["source"] == "fallback":  # only for content: repeated or placeholder titles
        # a refused outline is refused for what it says (a title), never for its JSON
        assert all("appears twice" in p or "placeholder" in p or "the title" in p for p in outline["errors"])
    calls = [e for e in state["trace"] if "step" in e]
    steps = [e["step"] for e in calls]
    # the outline may hold fewer sections than asked: a title that repeats the task is dropped
    drafts = {f"draft:s{i + 1}" for i in range(len(outline["sections"]))}
    assert outline["sections"] and len(outline["sections"]) <= 2, outline
    assert steps[0] == "plan" and drafts | {"review:r1"} <= set(steps), steps
    assert all(e["completion_tokens"] > 0 and e["finish_reason"] for e in calls), calls
    assert state["reviews"][0]["source"] in ("llm", "llm-retry", "fallback")
    first = state["decisions"][0]
    if first["decision"] == "revise":  # threshold 10: the usual case; the revision step is the one
        # that timed out against a CPU server before max_tokens was sized in tokens
        assert any(s.startswith("revise") for s in steps), steps
        reasons = [d["reason"] for d in state["decisions"]]  # reviewed again, or every rewrite
        assert "review:r2" in steps or "rewrite_rejected" in reasons, (steps, reasons)  # guarded
    else:
        assert first.get("reason"), first  # stopped for a stated reason (e.g. no critique to act on)
    assert "## Final article" in (runs / "real.md").read_text()
