"""`reflectcli mcp`, through the MCP SDK's own client: a real `reflectcli mcp` subprocess over
stdio (and --http), its runs against the scripted OpenAI-compatible server on 127.0.0.1.

- every tool, the resources and the prompt; a `write` whose progress notifications arrive in
  order; inputs checked by the config model, errors as one-line tool errors;
- a `write` cancelled mid-run stops at its next checkpoint (interrupted, as Ctrl-C leaves it),
  and `write(resume=...)` finishes it with no model call made twice;
- a client killed (SIGKILL) mid-run: the server sees its stdin close, stops the run at its
  next checkpoint and exits; a new client resumes it with no model call made twice;
- two clients on one server never run one thread twice;
- paths outside --root refused, secrets from the server's environment never in a result.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import textwrap
import threading
import time
from contextlib import asynccontextmanager
from pathlib import Path

import anyio
import pytest

from reflectcli.mcp.jobs import Job, Jobs, step_events
from reflectcli.mcp.safety import REDACTED, Roots, scrub, secrets_of
from tests.crashkit import KillScript, resent_after_completion
from tests.openai_server import OpenAIServer, step_of

SCORES = (6.0, 9.5)  # one revision, then a pass
CALLS = ["plan", "draft:s1", "draft:s2", "draft:s3", "review:r1", "revise:r2", "review:r2"]
TASK = "Why do writers revise?"
SECRET = "tok-9f8e7d6c5b4a-very-secret"
WAIT = 120.0


class Gate:
    """The run's script, holding the first request of `step` until `release` is set (then
    answering it: the call completes, as a slow model's would)."""

    def __init__(self, step: str | None = None):
        self.script = KillScript(SCORES, 3)
        self.step = step
        self.arrived, self.release = threading.Event(), threading.Event()

    def __call__(self, body):
        if self.step and step_of(body) == self.step and not self.arrived.is_set():
            self.arrived.set()
            self.release.wait(WAIT)
        return self.script(body)


def server_env(tmp_path: Path, server: OpenAIServer) -> dict[str, str]:
    """What the server process gets: the scripted model, a test key, no proxies, a secret."""
    return {
        "PATH": os.environ["PATH"],
        "HOME": str(tmp_path),
        "PYTHONDONTWRITEBYTECODE": "1",
        "NO_PROXY": "127.0.0.1,localhost",
        "OPENAI_API_KEY": "sk-test",
        "REFLECTCLI_API_KEY": "sk-test",
        "MY_SERVICE_TOKEN": SECRET,
        "REFLECTCLI_MODEL": "openai/test-model",
        "REFLECTCLI_API_BASE": server.base_url,
        "REFLECTCLI_BACKOFF": "0",
        "REFLECTCLI_CONFIG_DIR": str(tmp_path / "user-config"),
    }


def server_args(*extra: str) -> list[str]:
    return ["-m", "reflectcli", "mcp", "--runs-dir", "runs", *extra]


@asynccontextmanager
async def connect(tmp_path: Path, server: OpenAIServer, *extra: str):
    from mcp import Client, StdioServerParameters

    params = StdioServerParameters(
        command=sys.executable, args=server_args(*extra), env=server_env(tmp_path, server), cwd=str(tmp_path)
    )
    async with Client(params, mode="legacy", read_timeout_seconds=WAIT) as client:
        yield client


def data(result) -> dict:
    assert not result.is_error, result.content[0].text
    assert json.loads(result.content[0].text) == result.structured_content
    return result.structured_content


def error(result) -> str:
    assert result.is_error, result.structured_content
    text = result.content[0].text
    assert "\n" not in text and "Traceback" not in text
    return text


def run(coro_fn, *args):
    return anyio.run(coro_fn, *args)


# --- in-process: the pieces ----------------------------------------------------------------------


def test_a_path_outside_every_root_is_refused_even_through_a_symlink(tmp_path):
    inside, outside = tmp_path / "notes", tmp_path / "elsewhere"
    inside.mkdir(), outside.mkdir()
    (outside / "secret.md").write_text("# x\n")
    (inside / "link.md").symlink_to(outside / "secret.md")
    (inside / "ok.md").write_text("# ok\n")
    roots = Roots([inside])
    assert roots.check("ok.md") == (inside / "ok.md").resolve()  # relative: from the first root
    assert roots.check(str(inside / "ok.md")) == (inside / "ok.md").resolve()
    for bad in ("link.md", "../elsewhere/secret.md", str(outside / "secret.md"), "/etc/passwd"):
        with pytest.raises(Exception, match="outside the folders this server may read"):
            roots.check(bad)
    assert roots.relative(inside / "sub" / "a.md") == "sub/a.md"
    assert roots.relative("/somewhere/else/run.md") == "run.md"  # never an absolute path


def test_results_are_scrubbed_of_env_secrets_and_url_passwords():
    env = {"OPENAI_API_KEY": "sk-live-0123456789", "MY_TOKEN": SECRET, "SHORT_KEY": "abc", "HOME": "/home/x"}
    secrets = secrets_of(env)
    assert SECRET in secrets and "sk-live-0123456789" in secrets and "abc" not in secrets
    assert "/home/x" not in secrets  # not a secret's name
    data = {"a": f"key {SECRET}!", "b": ["postgresql://me:hunter22@db/x", 3], "c": {"sk-live-0123456789": 1}}
    clean = scrub(data, secrets)
    assert SECRET not in json.dumps(clean) and "hunter22" not in json.dumps(clean)
    assert clean["a"] == f"key {REDACTED}!" and clean["b"] == [f"postgresql://{REDACTED}@db/x", 3]
    assert clean["c"] == {REDACTED: 1}


def test_one_server_never_runs_one_thread_twice():
    jobs, release = Jobs(), threading.Event()
    first = jobs.start("t1", "write", lambda job: release.wait(10))
    with pytest.raises(Exception, match="is being run by this server already"):
        jobs.start("t1", "resume", lambda job: None)
    release.set()
    assert jobs.join(10) and first.status == "finished"
    again = jobs.start("t1", "resume", lambda job: None)  # once it ended, a resume may run it
    assert jobs.join(10) and again.status == "finished"


def test_steps_become_events_in_order():
    job = Job("t", "write")
    state = {"params": {"threshold": 9}, "outline": {"sections": [{"title": "A"}, {"title": "B"}]}}
    step_events(job, "plan", {"outline": 1}, state)
    step_events(job, "draft", {"sections": 1}, {**state, "sections": ["x"]})
    review = {"round": 1, "score": 6.0, "source": "llm", "version": 1}
    step_events(job, "review", {"reviews": 1}, {**state, "reviews": [review]})
    decision = {"round": 1, "decision": "revise", "reason": "below_threshold", "detail": "6 < 9"}
    step_events(job, "decide", {"decisions": 1}, {**state, "decisions": [decision]})
    assert [e["seq"] for e in job.events] == [1, 2, 3, 4]
    assert [e["kind"] for e in job.events] == ["outline", "draft", "review", "decision"]
    assert job.events[2]["score"] == 6.0 and job.events[3]["decision"] == "revise"
    assert job.events[2]["message"] == "round 1: score 6/10 (threshold 9, llm)"


def test_the_cli_does_not_load_the_mcp_sdk_until_the_command_runs():
    code = "import sys, reflectcli.cli.app; print(sorted(m for m in sys.modules if m.split('.')[0] == 'mcp'))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_bad_arguments_and_unknown_runs_are_one_line_tool_errors(tmp_path):
    """In memory (the SDK's own client on the server object): what the schema rejects and what
    the CLI rejects both come back as one `error: ...` line, never pydantic's report."""
    from mcp import Client

    from reflectcli.mcp.server import build
    from reflectcli.mcp.tools import Tools

    async def body():
        async with Client(build(Tools(Roots([tmp_path]), tmp_path / "runs"))) as client:
            bad = error(await client.call_tool("write", {"task": "x", "threshold": "abc"}))
            assert bad == (
                "error: write: argument 'threshold': Input should be a valid number, unable "
                "to parse string as a number (got 'abc')"
            )
            assert "argument 'wait'" in error(await client.call_tool("status", {"thread": "t", "wait": -1}))
            assert error(await client.call_tool("show", {"thread": "../x"})).startswith(
                "error: invalid thread id"
            )
            assert "unknown thread id 't'" in error(await client.call_tool("article", {"thread": "t"}))
            assert "not running in this server" in error(await client.call_tool("cancel", {"thread": "t"}))
            assert data(await client.call_tool("history", {})) == {"runs": []}
            assert "choose one of" in error(await client.call_tool("history", {"status": "lost"}))

    run(body)


# --- a real server over stdio ----------------------------------------------------------------------


@pytest.mark.slow
def test_every_tool_through_the_sdk_client(tmp_path):
    notes = tmp_path / "notes"
    notes.mkdir()
    (notes / "revision.md").write_text(
        "# Revision\n\nWriters revise drafts to cut what the reader "
        "does not need. Hemingway rewrote endings many times.\n"
    )
    (tmp_path / "mine.md").write_text(
        "# My essay\n\n## Start\n\nWriting is rewriting.\n\n## End\n\nSo revise.\n"
    )
    progress: list[tuple[float, str | None]] = []

    async def on_progress(value, total, message):
        progress.append((value, message))

    async def body(server):
        async with connect(tmp_path, server) as client:
            names = {t.name for t in (await client.list_tools()).tools}
            assert names >= {
                "write",
                "status",
                "show",
                "article",
                "export",
                "review",
                "revise",
                "history",
                "sources_add",
                "sources_search",
                "cancel",
            }
            # errors: the config model's one-line messages, as tool errors
            assert "config key 'threshold'" in error(
                await client.call_tool("write", {"task": TASK, "threshold": 11})
            )
            assert "say what to write" in error(await client.call_tool("write", {}))
            assert "unknown thread id 'nope'" in error(await client.call_tool("status", {"thread": "nope"}))
            # the source library
            added = data(await client.call_tool("sources_add", {"targets": ["notes"]}))["outcomes"]
            # shown relative to the folder added, as `sources add` shows it
            assert [(o["location"], o["status"]) for o in added] == [("revision.md", "added")]
            hits = data(await client.call_tool("sources_search", {"query": "Hemingway endings"}))["hits"]
            assert hits and "Hemingway" in hits[0]["snippet"]
            # a write, followed: progress notifications in order
            started = data(
                await client.call_tool(
                    "write",
                    {
                        "task": f"{TASK} {SECRET}",
                        "threshold": 9,
                        "max_rounds": 2,
                        "sections": 3,
                        "sources": ["notes"],
                        "thread_id": "t1",
                        "wait": WAIT,
                    },
                    progress_callback=on_progress,
                )
            )
            assert started["status"] == "finished" and started["scores"] == [6.0, 9.5]
            assert SECRET not in json.dumps(started) and REDACTED in started["task"]
            status = data(await client.call_tool("status", {"thread": "t1"}))
            assert status["stop_reason"] == "passed" and status["calls"] == len(CALLS)
            shown = data(await client.call_tool("show", {"thread": "t1"}))
            assert [r["score"] for r in shown["reviews"]] == [6.0, 9.5]
            assert shown["decisions"][0].startswith("round 1: revise") and "claims" in shown
            assert shown["known_issues"] == [] and shown["output_version"] == 2
            article = data(await client.call_tool("article", {"thread": "t1"}))
            assert article["version"] == 2 and article["markdown"].startswith("#")
            first = data(await client.call_tool("article", {"thread": "t1", "version": "1"}))
            assert first["version"] == 1 and first["markdown"] != article["markdown"]
            assert "no version '7'" in error(
                await client.call_tool("article", {"thread": "t1", "version": "7"})
            )
            exported = data(await client.call_tool("export", {"thread": "t1", "format": "html"}))
            assert exported["text"].startswith("<!DOCTYPE html>") or "<html" in exported["text"]
            assert json.loads(
                data(await client.call_tool("export", {"thread": "t1", "format": "json"}))["text"]
            )
            assert "unknown format 'pdf'" in error(
                await client.call_tool("export", {"thread": "t1", "format": "pdf"})
            )
            runs = data(await client.call_tool("history", {}))["runs"]
            assert [r["thread_id"] for r in runs] == ["t1"] and runs[0]["artifact"] == "runs/t1.md"
            # resources and the prompt
            text = (await client.read_resource("reflectcli://runs/t1/article.md")).contents[0].text
            assert text == article["markdown"]
            record = (await client.read_resource("reflectcli://runs/t1/record.md")).contents[0].text
            assert "## Final article" in record and SECRET not in record
            prompt = await client.get_prompt("write_cited_article", {"topic": "revision", "sources": "notes"})
            assert "sources_add" in prompt.messages[0].content.text
            # revise: one more round with the person's critique
            revised = data(
                await client.call_tool(
                    "revise", {"thread": "t1", "feedback": "Open with a concrete example.", "wait": WAIT}
                )
            )
            assert revised["status"] == "finished" and len(revised["scores"]) == 3
            # review of the person's own file, and of text
            reviewed = data(await client.call_tool("review", {"path": "mine.md"}))
            assert reviewed["score"] == 6.0 and reviewed["thread_id"]
            text = (tmp_path / "mine.md").read_text()
            assert (
                data(await client.call_tool("review", {"text": text, "critic": "checklist"}))["source"]
                == "checklist"
            )
            assert "outside the folders" in error(await client.call_tool("review", {"path": "/etc/hostname"}))
            assert "outside the folders" in error(await client.call_tool("sources_add", {"targets": ["../"]}))
            assert "outside the folders" in error(
                await client.call_tool("write", {"task": TASK, "sources": ["/etc"]})
            )
        return server.steps(completed_only=True)

    with OpenAIServer(reply=Gate()) as server:
        steps = run(body, server)
    assert steps[: len(CALLS)] == CALLS  # the write: each call once
    # its progress: one notification per step, in order, ending with the finish
    values = [v for v, _ in progress]
    assert values == sorted(values) and len(set(values)) == len(values)
    messages = [m for _, m in progress]
    assert messages[0] == "sources: 1 of 1 in the library"  # the write's own sources, added first
    assert messages[1:3] == ["started t1", "outline: 3 sections"]
    assert [m for m in messages if m.startswith("drafted")] == [f"drafted section {i}/3" for i in (1, 2, 3)]
    rounds = [m for m in messages if m.startswith("round")]
    assert [m.split(":")[0] + ":" + m.split(":")[1].split("(")[0] for m in rounds] == [
        "round 1: score 6/10 ",
        "round 1: revise ",
        "round 2: score 9.5/10 ",
        "round 2: stop ",
    ]
    assert messages[-1] == "finished: t1" and SECRET not in " ".join(messages)


@pytest.mark.slow
def test_a_cancelled_write_stops_at_a_checkpoint_and_resumes_paying_nothing_twice(tmp_path):
    gate = Gate("review:r1")

    async def body(server):
        async with connect(tmp_path, server) as client:
            with anyio.move_on_after(WAIT) as scope:
                async with anyio.create_task_group() as tg:

                    async def write():
                        await client.call_tool(
                            "write",
                            {
                                "task": TASK,
                                "threshold": 9,
                                "max_rounds": 2,
                                "sections": 3,
                                "thread_id": "c1",
                                "wait": WAIT,
                            },
                        )
                        raise AssertionError("the write returned instead of being cancelled")

                    tg.start_soon(write)
                    await anyio.to_thread.run_sync(gate.arrived.wait, WAIT)  # the review call is under way
                    tg.cancel_scope.cancel()  # the client cancels the call
            assert not scope.cancelled_caught
            # the cancellation reached the server before this answer (one ordered stream)
            assert data(await client.call_tool("status", {"thread": "c1"}))["status"] == "running"
            gate.release.set()  # the review call completes; the run stops after its step
            stopped = data(await client.call_tool("status", {"thread": "c1", "wait": WAIT}))
            assert stopped["status"] == "interrupted", stopped
            assert stopped["resume"] == {"tool": "write", "arguments": {"resume": "c1"}}
            assert stopped["rounds"] == 1 and stopped["calls"] == 5  # plan, 3 drafts, review: all kept
            done = data(await client.call_tool("write", {"resume": "c1", "wait": WAIT}))
            assert done["status"] == "finished" and done["scores"] == [6.0, 9.5]

    with OpenAIServer(reply=gate) as server:
        run(body, server)
        assert resent_after_completion(server) == {}
        assert [r.step for r in server.wait_completed(len(CALLS))] == CALLS
        assert server.count == len(CALLS)  # not one request more: nothing was paid twice


CLIENT = textwrap.dedent("""
    import sys, anyio, json
    from mcp import Client, StdioServerParameters

    async def main():
        params = StdioServerParameters(command=sys.executable, args=json.loads(sys.argv[1]),
                                       env=json.loads(sys.argv[2]), cwd=sys.argv[3])
        async with Client(params, mode="legacy", read_timeout_seconds=300) as client:
            result = await client.call_tool("write", {"task": sys.argv[4], "threshold": 9, "max_rounds": 2,
                                                      "sections": 3, "thread_id": "k1"})
            print(json.dumps(result.structured_content), flush=True)
            await client.call_tool("status", {"thread": "k1", "wait": 300})

    anyio.run(main)
""")


@pytest.mark.slow
def test_a_killed_client_leaves_the_run_at_a_checkpoint_and_a_new_client_resumes_it(tmp_path):
    import psutil

    gate = Gate("review:r1")
    with OpenAIServer(reply=gate) as server:
        env = server_env(tmp_path, server)
        client = subprocess.Popen(
            [sys.executable, "-c", CLIENT, json.dumps(server_args()), json.dumps(env), str(tmp_path), TASK],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env={**os.environ, **env},
        )
        try:
            assert json.loads(client.stdout.readline())["status"] == "running"  # write returned at once
            assert gate.arrived.wait(WAIT), "the run never reached its review"
            (mcp_server,) = psutil.Process(client.pid).children()
            client.send_signal(signal.SIGKILL)  # the client dies; its end of the server's stdin closes
            client.wait(30)
            # the server says it saw the client go (its stderr is the dead client's, this pipe)
            said = ""
            while "stopping 1 run" not in said:
                said = client.stderr.readline()
                assert said, "the server never said it saw its client go"
            assert "the client went away" in said and "k1" in said
            gate.release.set()  # the call under way completes; the run stops after its step
            mcp_server.wait(WAIT)  # the server exits by itself (psutil.TimeoutExpired if not)
            assert not mcp_server.is_running()
        finally:
            gate.release.set()
            if client.poll() is None:
                client.kill()

        async def resume(server):
            async with connect(tmp_path, server) as fresh:
                stopped = data(await fresh.call_tool("status", {"thread": "k1"}))
                assert stopped["status"] == "interrupted" and stopped["calls"] == 5
                done = data(await fresh.call_tool("write", {"resume": "k1", "wait": WAIT}))
                assert done["status"] == "finished" and done["scores"] == [6.0, 9.5]

        run(resume, server)
        assert resent_after_completion(server) == {}
        assert [r.step for r in server.wait_completed(len(CALLS))] == CALLS
        assert server.count == len(CALLS)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.mark.slow
def test_streamable_http_on_loopback_and_two_clients_never_run_one_thread_twice(tmp_path):
    from mcp import Client

    gate = Gate("review:r1")
    port = free_port()
    with OpenAIServer(reply=gate) as server:
        proc = subprocess.Popen(
            [sys.executable, *server_args("--http", str(port))],
            cwd=tmp_path,
            env=server_env(tmp_path, server),
            stderr=subprocess.PIPE,
            text=True,
        )
        try:

            async def body():
                url = f"http://127.0.0.1:{port}/mcp"
                for _ in range(600):  # until it listens
                    try:
                        with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                            break
                    except OSError:
                        assert proc.poll() is None, proc.stderr.read()
                        await anyio.sleep(0.05)
                async with Client(url) as one, Client(url) as two:
                    started = data(
                        await one.call_tool(
                            "write",
                            {"task": TASK, "threshold": 9, "max_rounds": 2, "sections": 3, "thread_id": "h1"},
                        )
                    )
                    assert started["status"] == "running"
                    await anyio.to_thread.run_sync(gate.arrived.wait, WAIT)
                    busy = error(await two.call_tool("write", {"resume": "h1"}))
                    assert "thread h1 is being run by this server already" in busy
                    assert data(await two.call_tool("cancel", {"thread": "h1"}))["status"] == "stopping"
                    gate.release.set()
                    stopped = data(await two.call_tool("status", {"thread": "h1", "wait": WAIT}))
                    assert stopped["status"] == "interrupted"
                    done = data(await two.call_tool("write", {"resume": "h1", "wait": WAIT}))
                    assert done["status"] == "finished"

            run(body)
            listening = {
                c.laddr.ip
                for c in __import__("psutil").Process(proc.pid).net_connections()
                if c.status == "LISTEN"
            }
            assert listening == {"127.0.0.1"}
        finally:
            gate.release.set()
            proc.send_signal(signal.SIGINT)
            proc.wait(60)
        assert resent_after_completion(server) == {} and server.count == len(CALLS)


@pytest.mark.slow
def test_the_server_starts_without_litellm_or_langgraph(tmp_path):
    proc = subprocess.Popen(
        [sys.executable, "-X", "importtime", *server_args()],
        cwd=tmp_path,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "REFLECTCLI_CONFIG_DIR": str(tmp_path)},
    )
    hello = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {
            "protocolVersion": "2025-06-18",
            "capabilities": {},
            "clientInfo": {"name": "t", "version": "1"},
        },
    }
    started = time.monotonic()
    proc.stdin.write(json.dumps(hello) + "\n")
    proc.stdin.flush()
    assert "result" in json.loads(proc.stdout.readline())
    ready = time.monotonic() - started
    proc.stdin.write(json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}) + "\n")
    proc.stdin.write(json.dumps({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}) + "\n")
    proc.stdin.flush()
    assert len(json.loads(proc.stdout.readline())["result"]["tools"]) >= 11
    proc.stdin.close()
    err = proc.stderr.read()
    assert proc.wait(30) == 0
    loaded = {line.split("|")[-1].strip() for line in err.splitlines() if line.startswith("import time:")}
    assert "reflectcli.mcp.server" in loaded
    assert not {m for m in loaded if m.split(".")[0] in ("litellm", "langgraph")}, "imported before needed"
    assert ready < 30  # the start-up time itself is measured by bench/bench_mcp.py
