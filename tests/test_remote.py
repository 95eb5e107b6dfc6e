"""The remote-model path: litellm against a local OpenAI-compatible server (127.0.0.1 only).

In-process: the client's retries, timeouts and one-line errors; a whole `write` through the CLI;
a crash between an answer and its checkpoint. Subprocesses (slow): SIGKILL after a completed
answer and during a pending call, then `resume`; Ctrl-C. Nothing here reaches the internet.
"""

from __future__ import annotations

import json
import re
import signal
import socket
import sqlite3
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from reflectcli.cli.app import app
from reflectcli.config import Settings
from reflectcli.errors import ModelError
from reflectcli.models.factory import make_client
from reflectcli.models.fake import ScriptedResponder
from tests.crashkit import child_env, default_signals
from tests.openai_server import (
    Action,
    OpenAIServer,
    answer,
    context_window_error,
    delay,
    drop,
    error,
    loopback_fixture,
    messages_hash,
    step_of,
)

MODEL = "openai/test-model"
TASK = "Why do writers revise?"
MESSAGES = [
    {"role": "system", "content": "You are a careful writer."},
    {"role": "user", "content": "Say something about revision, in two or three sentences."},
]
PROCESS_TIMEOUT = 90  # one subprocess: ~5 s of `import litellm`, then a fast scripted run

runner = CliRunner()


# --- fixtures and helpers ----------------------------------------------------------------------


@pytest.fixture(autouse=True)
def offline_env(monkeypatch):
    """Loopback never goes through a proxy; the API key is a test one."""
    loopback_fixture(monkeypatch)


@pytest.fixture
def openai_server():
    """A running OpenAIServer; set `.reply` (and hooks) in the test. Answers "ok" by default."""
    with OpenAIServer() as server:
        yield server


class Script:
    """Server replies for a whole run, chosen by the step found in the prompt (ScriptedResponder
    writes the outline, sections, reviews scoring `scores`, revisions). Optionally *holds* the
    first request of step `hold`: it signals `arrived`, waits for `release`, then drops the
    connection without answering (so that request never completes)."""

    def __init__(self, scores=(8.0,), sections: int = 3, hold: str | None = None):
        self.responder = ScriptedResponder(scores=scores, sections=sections)
        self.hold = hold
        self.arrived = threading.Event()
        self.release = threading.Event()
        self._lock = threading.Lock()

    def __call__(self, body: dict[str, Any]) -> Action:
        step = step_of(body)
        with self._lock:
            hold = step == self.hold and not self.arrived.is_set()
            if hold:
                self.arrived.set()
        if hold:
            self.release.wait(PROCESS_TIMEOUT)
            return drop()
        return answer(self.responder(step, body["messages"]))


def settings_for(server: OpenAIServer, **overrides: Any) -> Settings:
    values = {"model": MODEL, "api_base": server.base_url, "retries": 2, "backoff": 0.0,
              "timeout": 10.0, "runs_dir": "runs", **overrides}  # fmt: skip
    return Settings(**values)


def closed_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def invoke(*args: str):
    return runner.invoke(app, list(args), catch_exceptions=False)


def completed_hashes_unique(server: OpenAIServer) -> None:
    """No request whose answer had been completed was ever sent again."""
    counts = Counter(r.hash for r in server.completed)
    repeated = {server_step(server, h): n for h, n in counts.items() if n > 1}
    assert not repeated, f"completed requests sent again: {repeated}"


def server_step(server: OpenAIServer, digest: str) -> str:
    return next(r.step for r in server.records if r.hash == digest)


FULL_RUN = ["plan", "draft:s1", "draft:s2", "draft:s3", "review:r1", "revise:r2", "review:r2"]


# --- the test server itself ----------------------------------------------------------------------


def post(url: str, body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
    request = urllib.request.Request(
        url, data=json.dumps(body).encode(), headers={"Content-Type": "application/json"}
    )
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    try:
        with opener.open(request, timeout=5) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read())


def test_server_answers_records_and_calls_hooks(openai_server):
    arrived, done = [], []
    completed = threading.Event()  # the hook runs after the answer is written: the client may see it first

    def complete(record):
        done.append(record.index)
        completed.set()

    openai_server.on_request = lambda record: arrived.append(record.index)
    openai_server.on_complete = complete
    openai_server.reply = lambda body: error(429) if body.get("n") == 2 else answer("hi there")
    messages = [{"role": "user", "content": "Task: x\n\nReview round 2. The article: ..."}]
    status, payload = post(openai_server.base_url + "/chat/completions",
                           {"model": "m", "messages": messages})  # fmt: skip
    assert status == 200
    assert payload["object"] == "chat.completion"
    assert payload["choices"][0]["message"] == {"role": "assistant", "content": "hi there"}
    assert payload["choices"][0]["finish_reason"] == "stop"
    usage = payload["usage"]
    assert usage["total_tokens"] == usage["prompt_tokens"] + usage["completion_tokens"] > 0
    root = openai_server.base_url.removesuffix("/v1")
    status, payload = post(root + "/chat/completions", {"model": "m", "messages": [], "n": 2})
    assert status == 429 and payload["error"]["type"] == "rate_limit_error"
    assert completed.wait(10)
    assert openai_server.count == 2 and arrived == [1, 2] and done == [1]
    first, second = openai_server.records
    assert first.step == "review:r2" and first.completed and first.status == 200
    assert not second.completed and second.status == 429
    assert first.hash == messages_hash(messages) != second.hash


# --- the litellm client, in-process ------------------------------------------------------------


def test_plain_answer_with_token_usage(openai_server):
    openai_server.reply = lambda body: answer("Revision turns notes into an argument.")
    client = make_client(MODEL, settings_for(openai_server))
    completion = client.complete(MESSAGES, step="draft:s1", max_tokens=200)
    assert completion.text == "Revision turns notes into an argument."
    assert completion.model == MODEL and completion.step == "draft:s1"
    assert completion.prompt_tokens > 0 and completion.completion_tokens > 0
    assert completion.tokens == completion.prompt_tokens + completion.completion_tokens
    assert completion.retries == 0 and completion.retry_log == []
    assert openai_server.count == 1
    (seen,) = openai_server.wait_completed(1)  # the flag lands just after the answer is sent
    assert seen.path == "/v1/chat/completions"
    assert seen.body["model"] == "test-model"
    assert seen.body["messages"] == MESSAGES
    assert seen.headers["authorization"] == "Bearer sk-test"


def test_no_key_with_api_base_sends_a_placeholder(openai_server, monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY")
    monkeypatch.delenv("REFLECTCLI_API_KEY")
    client = make_client(MODEL, settings_for(openai_server))
    assert client.complete(MESSAGES, step="plan").text == "ok"
    assert openai_server.records[0].headers["authorization"] == "Bearer no-key"


def test_an_exported_provider_key_is_not_sent_to_a_custom_server(openai_server, monkeypatch):
    """OPENAI_API_KEY belongs to OpenAI: a server behind api_base gets a key only from
    REFLECTCLI_API_KEY (the critic's own server: REFLECTCLI_CRITIC_API_KEY)."""
    monkeypatch.setenv("OPENAI_API_KEY", "sk-openai-SECRET")
    monkeypatch.delenv("REFLECTCLI_API_KEY")
    make_client(MODEL, settings_for(openai_server)).complete(MESSAGES, step="plan")
    monkeypatch.setenv("REFLECTCLI_API_KEY", "sk-local")
    make_client(MODEL, settings_for(openai_server)).complete(MESSAGES, step="plan")
    seen = [r.headers["authorization"] for r in openai_server.wait_completed(2)]
    assert seen == ["Bearer no-key", "Bearer sk-local"]


def test_rate_limit_is_retried(openai_server):
    actions = iter([error(429), answer("after the limit")])
    openai_server.reply = lambda body: next(actions)
    completion = make_client(MODEL, settings_for(openai_server)).complete(MESSAGES, step="plan")
    assert completion.text == "after the limit"
    assert completion.retries == 1
    assert len(completion.retry_log) == 1 and "RateLimitError" in completion.retry_log[0]
    assert openai_server.count == 2
    openai_server.wait_completed(1)
    assert [r.completed for r in openai_server.records] == [False, True]


@pytest.mark.parametrize("status", [500, 503])
def test_server_errors_are_retried_then_bounded(openai_server, status):
    openai_server.reply = lambda body: error(status)
    client = make_client(MODEL, settings_for(openai_server, retries=2))
    with pytest.raises(ModelError) as caught:
        client.complete(MESSAGES, step="plan")
    message = caught.value.message
    assert "\n" not in message
    assert "gave up after 3 attempts" in message
    assert openai_server.count == 3  # retries + 1, no hidden retries inside litellm/openai


def test_server_error_then_success_is_recovered(openai_server):
    actions = iter([error(503), error(500), answer("third time lucky")])
    openai_server.reply = lambda body: next(actions)
    client = make_client(MODEL, settings_for(openai_server, retries=2))
    completion = client.complete(MESSAGES, step="plan")
    assert completion.text == "third time lucky"
    assert completion.retries == 2 and len(completion.retry_log) == 2
    assert openai_server.count == 3


def test_timeout_is_retried_then_bounded(openai_server):
    openai_server.reply = lambda body: delay(5.0, answer("too late"))
    client = make_client(MODEL, settings_for(openai_server, retries=1, timeout=1.0))
    started = time.monotonic()
    with pytest.raises(ModelError) as caught:
        client.complete(MESSAGES, step="plan")
    elapsed = time.monotonic() - started
    message = caught.value.message
    assert "\n" not in message
    assert "gave up after 2 attempts" in message and "Timeout" in message
    assert "timeout" in (caught.value.hint or "")
    assert openai_server.count == 2
    assert elapsed < 4.5  # two attempts of ~1 s each, not the server's 5 s delay
    assert openai_server.completed == []


def test_connection_refused(openai_server):
    dead = f"http://127.0.0.1:{closed_port()}/v1"
    settings = settings_for(openai_server, retries=1, api_base=dead)
    with pytest.raises(ModelError) as caught:
        make_client(MODEL, settings).complete(MESSAGES, step="plan")
    message = caught.value.message
    assert "\n" not in message
    assert "gave up after 2 attempts: connection refused" in message


def test_authentication_error_is_not_retried(openai_server):
    openai_server.reply = lambda body: error(401)
    with pytest.raises(ModelError) as caught:
        make_client(MODEL, settings_for(openai_server)).complete(MESSAGES, step="plan")
    assert "set REFLECTCLI_API_KEY" in caught.value.message  # the custom server's key
    assert "\n" not in caught.value.message
    assert openai_server.count == 1


def test_model_not_found_is_not_retried(openai_server):
    openai_server.reply = lambda body: error(404)
    with pytest.raises(ModelError, match="model not found"):
        make_client(MODEL, settings_for(openai_server)).complete(MESSAGES, step="plan")
    assert openai_server.count == 1


def test_context_window_error(openai_server):
    openai_server.reply = lambda body: context_window_error()
    with pytest.raises(ModelError) as caught:
        make_client(MODEL, settings_for(openai_server)).complete(MESSAGES, step="plan")
    assert "context window" in caught.value.message
    assert openai_server.count == 1


# --- the CLI, in-process -------------------------------------------------------------------------


def test_write_through_the_cli(openai_server, tmp_path):
    openai_server.reply = Script(scores=[8.0], sections=2)
    runs = tmp_path / "runs"
    result = invoke("write", TASK, "--model", MODEL, "--api-base", openai_server.base_url,
                    "--runs-dir", str(runs), "--sections", "2", "--max-rounds", "2",
                    "--threshold", "7")  # fmt: skip
    assert result.exit_code == 0, result.output
    thread = re.search(r"thread (\S+)", result.output).group(1)
    assert thread.startswith("why-do-writers-revise-")
    assert "passed" in result.output
    artifact = runs / f"{thread}.md"
    assert artifact.is_file()
    assert "Final article" in artifact.read_text(encoding="utf-8")
    assert openai_server.count == 4
    assert openai_server.steps() == ["plan", "draft:s1", "draft:s2", "review:r1"]
    assert len(openai_server.wait_completed(4)) == 4


def test_model_error_through_the_cli_is_one_line_and_resumable(openai_server, tmp_path):
    """A 401 stops the run with one line and exit 1; after the fix, resume finishes it."""
    script = Script(scores=[8.0], sections=2)
    openai_server.reply = lambda body: error(401) if step_of(body) == "draft:s2" else script(body)
    runs = tmp_path / "runs"
    result = invoke("write", TASK, "--model", MODEL, "--api-base", openai_server.base_url,
                    "--runs-dir", str(runs), "--sections", "2", "--threshold", "7",
                    "--thread-id", "auth-fail")  # fmt: skip
    assert result.exit_code == 1
    errors = [line for line in result.stderr.splitlines() if line.startswith("error:")]
    assert len(errors) == 1 and "REFLECTCLI_API_KEY" in errors[0], result.stderr
    assert "Traceback" not in result.output + result.stderr
    assert openai_server.steps() == ["plan", "draft:s1", "draft:s2"]

    openai_server.reply = script
    result = invoke("resume", "auth-fail", "--runs-dir", str(runs))
    assert result.exit_code == 0, result.output
    assert openai_server.steps() == ["plan", "draft:s1", "draft:s2", "draft:s2", "review:r1"]
    openai_server.wait_completed(4)
    completed_hashes_unique(openai_server)


def test_crash_after_the_answer_before_the_checkpoint_replays_from_journal(
    openai_server, tmp_path, monkeypatch
):
    """Killed between an answered call and its checkpoint: the resume replays the journaled
    answer instead of sending the request again."""
    from reflectcli.store.db import Store

    put = Store.journal_put

    def put_then_die(self, key, thread_id, step, answer):
        put(self, key, thread_id, step, answer)
        if step == "draft:s2":
            raise KeyboardInterrupt  # as if the process died right after journaling

    monkeypatch.setattr(Store, "journal_put", put_then_die)
    openai_server.reply = Script(scores=[8.0], sections=2)
    runs = tmp_path / "runs"
    result = invoke("write", TASK, "--model", MODEL, "--api-base", openai_server.base_url,
                    "--runs-dir", str(runs), "--sections", "2", "--threshold", "7",
                    "--thread-id", "journal-test")  # fmt: skip
    assert result.exit_code == 130
    assert "reflectcli resume journal-test" in result.stderr
    assert openai_server.steps() == ["plan", "draft:s1", "draft:s2"]

    monkeypatch.setattr(Store, "journal_put", put)
    result = invoke("resume", "journal-test", "--runs-dir", str(runs))
    assert result.exit_code == 0, result.output
    assert "replayed from the journal" in " ".join(result.output.split()), result.output
    assert openai_server.steps() == ["plan", "draft:s1", "draft:s2", "review:r1"]
    openai_server.wait_completed(4)
    completed_hashes_unique(openai_server)


# --- real processes: SIGKILL, Ctrl-C, resume ---------------------------------------------------


class Child:
    """`python -m reflectcli ...` in `tmp`, output to files (no pipe can fill up)."""

    def __init__(self, tmp: Path, name: str, *args: str):
        self.out_path, self.err_path = tmp / f"{name}.out", tmp / f"{name}.err"
        with open(self.out_path, "wb") as out, open(self.err_path, "wb") as err:
            self.proc = subprocess.Popen(
                [sys.executable, "-m", "reflectcli", *args],
                cwd=tmp, env=child_env(tmp), stdout=out, stderr=err, stdin=subprocess.DEVNULL,
                preexec_fn=default_signals,
            )  # fmt: skip

    @property
    def stdout(self) -> str:
        return self.out_path.read_text(encoding="utf-8", errors="replace")

    @property
    def stderr(self) -> str:
        return self.err_path.read_text(encoding="utf-8", errors="replace")

    def describe(self) -> str:
        return f"exit {self.proc.returncode}\nstdout:\n{self.stdout}\nstderr:\n{self.stderr}"

    def wait_for(self, event: threading.Event, timeout: float = PROCESS_TIMEOUT) -> None:
        """Wait for a server-side event; fail at once (with the output) if the child ends."""
        deadline = time.monotonic() + timeout
        while not event.wait(0.05):
            if self.proc.poll() is not None:
                pytest.fail(f"the child ended before the awaited request:\n{self.describe()}")
            if time.monotonic() > deadline:
                self.kill()
                pytest.fail(f"timed out waiting for the awaited request:\n{self.describe()}")

    def finish(self, timeout: float = PROCESS_TIMEOUT) -> int:
        try:
            return self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            self.kill()
            pytest.fail(f"the child did not finish in {timeout}s:\n{self.describe()}")

    def kill(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait(10)


def write_args(server: OpenAIServer, thread: str, sections: int, threshold: float) -> list[str]:
    return ["write", TASK, "--model", MODEL, "--api-base", server.base_url, "--runs-dir",
            "runs", "--thread-id", thread, "--sections", str(sections), "--max-rounds", "2",
            "--threshold", str(threshold)]  # fmt: skip


def integrity(db: Path) -> str:
    conn = sqlite3.connect(db)
    try:
        return conn.execute("PRAGMA integrity_check").fetchone()[0]
    finally:
        conn.close()


def run_row(db: Path, thread: str) -> tuple[str, str, int]:
    conn = sqlite3.connect(db)
    try:
        return conn.execute(
            "SELECT status, stop_reason, calls FROM runs WHERE thread_id = ?", (thread,)
        ).fetchone()
    finally:
        conn.close()


@pytest.mark.slow
def test_sigkill_after_a_completed_answer_then_resume(openai_server, tmp_path):
    """SIGKILL once the 2nd section's answer has completed (the client is already waiting on
    the 3rd section); `resume` in a new process finishes the run without sending any request
    whose answer had completed."""
    script = Script(scores=[6.0, 9.5], sections=3, hold="draft:s3")
    openai_server.reply = script
    first = Child(tmp_path, "write", *write_args(openai_server, "kill-test", 3, 9))
    try:
        first.wait_for(script.arrived)  # request 4 is pending, so answer 3 was completed
        assert [r.step for r in openai_server.wait_completed(3)] == FULL_RUN[:3]
        first.proc.send_signal(signal.SIGKILL)
        assert first.finish() == -signal.SIGKILL
    finally:
        script.release.set()
        first.kill()
    assert openai_server.count == 4

    second = Child(tmp_path, "resume", "resume", "kill-test", "--runs-dir", "runs")
    assert second.finish() == 0, second.describe()
    assert "resuming kill-test" in second.stdout
    assert "passed" in second.stdout

    completed = openai_server.wait_completed(7)
    completed_hashes_unique(openai_server)
    assert len(completed) == 7
    assert [r.step for r in completed] == FULL_RUN
    assert openai_server.steps() == FULL_RUN[:4] + FULL_RUN[3:]  # only draft:s3 was sent twice
    artifact = tmp_path / "runs" / "kill-test.md"
    assert "Final article" in artifact.read_text(encoding="utf-8")
    db = tmp_path / "runs" / "reflect.db"
    assert integrity(db) == "ok"
    assert run_row(db, "kill-test") == ("finished", "passed", 7)


@pytest.mark.slow
def test_sigkill_during_a_pending_call_then_resume(openai_server, tmp_path):
    """SIGKILL while the review's answer is delayed: the resume sends that one request again
    (it never completed) and nothing else twice."""
    script = Script(scores=[6.0, 9.5], sections=3, hold="review:r1")
    openai_server.reply = script
    first = Child(tmp_path, "write", *write_args(openai_server, "kill-pending", 3, 9))
    try:
        first.wait_for(script.arrived)
        time.sleep(0.3)  # the call is well under way
        first.proc.send_signal(signal.SIGKILL)
        assert first.finish() == -signal.SIGKILL
    finally:
        script.release.set()
        first.kill()
    assert [r.step for r in openai_server.wait_completed(4)] == FULL_RUN[:4]

    second = Child(tmp_path, "resume", "resume", "kill-pending", "--runs-dir", "runs")
    assert second.finish() == 0, second.describe()

    assert [r.step for r in openai_server.wait_completed(7)] == FULL_RUN
    completed_hashes_unique(openai_server)
    counts = Counter(r.hash for r in openai_server.records)
    review = next(r for r in openai_server.records if r.step == "review:r1")
    assert counts[review.hash] == 2  # pending when killed, so sent once more
    assert sum(counts.values()) == 8
    assert "Final article" in (tmp_path / "runs" / "kill-pending.md").read_text(encoding="utf-8")
    assert integrity(tmp_path / "runs" / "reflect.db") == "ok"


@pytest.mark.slow
def test_ctrl_c_during_a_call_keeps_the_checkpoint(openai_server, tmp_path):
    """SIGINT while a call is pending: exit 130 and the resume command on stderr; then the
    resume (in-process) finishes."""
    script = Script(scores=[8.0], sections=2, hold="draft:s2")
    openai_server.reply = script
    child = Child(tmp_path, "write", *write_args(openai_server, "ctrl-c", 2, 7))
    try:
        child.wait_for(script.arrived)
        time.sleep(0.3)
        child.proc.send_signal(signal.SIGINT)
        code = child.finish(timeout=20)
    finally:
        script.release.set()
        child.kill()
    assert code == 130, child.describe()
    assert "reflectcli resume ctrl-c" in child.stderr
    assert "Traceback" not in child.stderr
    db = tmp_path / "runs" / "reflect.db"
    assert run_row(db, "ctrl-c")[0] == "interrupted"

    result = invoke("resume", "ctrl-c", "--runs-dir", str(tmp_path / "runs"))
    assert result.exit_code == 0, result.output
    assert "passed" in result.output
    steps = ["plan", "draft:s1", "draft:s2", "review:r1"]
    assert [r.step for r in openai_server.wait_completed(4)] == steps
    assert openai_server.steps() == steps[:3] + steps[2:]  # the interrupted call, once more
    completed_hashes_unique(openai_server)
    assert "Final article" in (tmp_path / "runs" / "ctrl-c.md").read_text(encoding="utf-8")
    assert integrity(db) == "ok"
