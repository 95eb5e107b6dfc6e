"""`revise ID --pick` at a real terminal: tmux runs it (send-keys answers, capture-pane reads),
against the scripted OpenAI-compatible server (127.0.0.1 only). Three changes accepted, rejected
and edited; then a `kill -9` after the second answer, and `resume` asks only the third."""

from __future__ import annotations

import shlex
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from reflectcli.config import Settings
from reflectcli.runner import Runner
from reflectcli.store.db import Store
from reflectcli.writing.textops import section_bodies
from tests.crashkit import child_env
from tests.helpers import quiet_ui
from tests.openai_server import OpenAIServer, answer, loopback_fixture, step_of
from tests.test_pick import TASK, TITLES, ThreeAsks

pytestmark = [pytest.mark.slow,
              pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed "
                                 "(apt-get install tmux): the real-terminal test needs it")]  # fmt: skip
MODEL = "openai/test-model"
EDITED = "My own ending, typed in the editor."
WAIT = 90.0


@pytest.fixture(autouse=True)
def offline_env(monkeypatch):
    loopback_fixture(monkeypatch)


class Tmux:
    """A private tmux server (its own socket) running one command per session."""

    def __init__(self, work: Path):
        self.work, self.socket = work, work / "tmux.sock"

    def tmux(self, *args: str) -> str:
        done = subprocess.run(["tmux", "-S", str(self.socket), *args], capture_output=True, text=True,
                              timeout=30, check=True)  # fmt: skip
        return done.stdout

    def start(self, name: str, args: list[str], env: dict[str, str]) -> None:
        """Run `reflectcli ARGS` in session `name`; its pid goes to `<name>.pid`, then the
        shell prints its exit status and stays (so the pane can still be read)."""
        exports = "".join(f"export {k}={shlex.quote(v)}\n" for k, v in env.items())
        command = " ".join(shlex.quote(a) for a in [sys.executable, "-m", "reflectcli", *args])
        script = self.work / f"{name}.sh"
        script.write_text(f"{exports}cd {shlex.quote(str(self.work))}\n"
                          f"sh -c 'echo $$ > {name}.pid; exec {command}'\n"
                          "echo \"EXIT=$?\"\nsleep 600\n")  # fmt: skip
        self.tmux("new-session", "-d", "-s", name, "-x", "160", "-y", "50", f"sh {shlex.quote(str(script))}")

    def screen(self, name: str) -> str:
        return self.tmux("capture-pane", "-p", "-J", "-t", name, "-S", "-2000")

    def expect(self, name: str, text: str, after: int = 0) -> str:
        """Wait until `text` shows in the pane (past character `after`); the pane's text."""
        deadline = time.monotonic() + WAIT
        while True:
            seen = self.screen(name)
            if text in seen[after:]:
                return seen
            if time.monotonic() > deadline:
                raise AssertionError(f"never saw {text!r} in {name}:\n{seen}")
            time.sleep(0.05)

    def keys(self, name: str, *keys: str) -> None:
        self.tmux("send-keys", "-t", name, *keys)

    def pid(self, name: str) -> int:
        return int((self.work / f"{name}.pid").read_text())

    def close(self) -> None:
        subprocess.run(["tmux", "-S", str(self.socket), "kill-server"], capture_output=True, timeout=30)


@pytest.fixture
def terminal(tmp_path):
    tmux = Tmux(tmp_path)
    yield tmux
    tmux.close()


def finished_run(server: OpenAIServer, runs: Path, thread: str) -> str:
    """A finished run of the server's model whose review asks for one change in each section."""
    settings = Settings(model=MODEL, api_base=server.base_url, runs_dir=str(runs), max_sections=3,
                        max_rounds=1, threshold=9, retries=0, timeout=20.0)  # fmt: skip
    state = Runner(quiet_ui()).write(TASK, settings, thread).state
    assert state["status"] == "finished" and len(state["outline"]["sections"]) == 3
    return state["versions"][-1]["text"]


def env_for(work: Path) -> dict[str, str]:
    editor = work / "editor.sh"
    editor.write_text(f"#!/bin/sh\nprintf '%s\\n' {shlex.quote(EDITED)} > \"$1\"\n")
    editor.chmod(0o755)
    env = child_env(work, EDITOR=str(editor), TERM="xterm-256color", COLUMNS="160")
    return {k: env[k] for k in ("PATH", "HOME", "XDG_CONFIG_HOME", "XDG_CACHE_HOME", "XDG_DATA_HOME",
                                "REFLECTCLI_CONFIG_DIR", "OPENAI_API_KEY", "REFLECTCLI_BACKOFF",
                                "NO_PROXY", "PYTHONUNBUFFERED", "NO_COLOR", "PYTHONPATH", "EDITOR",
                                "TERM", "COLUMNS") if k in env}  # fmt: skip


def the_output(runs: Path, thread: str) -> dict:
    with Store(runs) as store:
        return store.load_state(thread)


def test_accept_reject_edit_at_a_real_terminal(terminal, tmp_path):
    responder = ThreeAsks(scores=[6, 9.5], sections=3)
    with OpenAIServer(lambda body: answer(responder(step_of(body), body["messages"]))) as server:
        runs = tmp_path / "runs"
        before = section_bodies(finished_run(server, runs, "t"), list(TITLES[:3]))
        terminal.start("pick", ["revise", "t", "--pick", "--runs-dir", str(runs)], env_for(tmp_path))
        terminal.expect("pick", "Enter to revise")
        terminal.keys("pick", "Enter")
        terminal.expect("pick", "change 1 of 3")
        screen = terminal.expect("pick", "[q]uit")
        assert "asked for: [major] Why first drafts fall short: Open with the day" in screen
        assert "{+A concrete example now supports it.+}" in " ".join(screen.split())  # the word diff
        terminal.keys("pick", "y", "Enter")
        terminal.expect("pick", "change 2 of 3")
        terminal.keys("pick", "n", "Enter")
        terminal.expect("pick", "change 3 of 3")
        terminal.keys("pick", "e", "Enter")
        screen = terminal.expect("pick", "EXIT=")
        assert "EXIT=0" in screen, screen
    state = the_output(runs, "t")
    version = next(v for v in state["versions"] if v.get("picked"))
    after = section_bodies(version["text"], list(TITLES[:3]))
    assert after[0] != before[0] and after[0].startswith(before[0])  # accepted: the rewrite
    assert after[1] == before[1]  # rejected: as it was
    assert after[2] == EDITED  # edited: as typed
    assert [p["answer"] for p in version["picked"]] == ["accept", "reject", "edit"]
    (tmp_path / "screen-pick.txt").write_text(screen)


def test_a_kill_after_the_second_answer_resumes_at_the_third(terminal, tmp_path):
    responder = ThreeAsks(scores=[6, 9.5], sections=3)
    with OpenAIServer(lambda body: answer(responder(step_of(body), body["messages"]))) as server:
        runs = tmp_path / "runs"
        before = section_bodies(finished_run(server, runs, "k"), list(TITLES[:3]))
        env = env_for(tmp_path)
        terminal.start("first", ["revise", "k", "--pick", "--runs-dir", str(runs)], env)
        terminal.expect("first", "Enter to revise")
        terminal.keys("first", "Enter")
        terminal.expect("first", "change 1 of 3")
        terminal.expect("first", "[q]uit")
        terminal.keys("first", "y", "Enter")
        terminal.expect("first", "change 2 of 3")
        terminal.keys("first", "n", "Enter")
        terminal.expect("first", "change 3 of 3")
        terminal.expect("first", "[q]uit", after=terminal.screen("first").index("change 3 of 3"))
        import os

        os.kill(terminal.pid("first"), signal.SIGKILL)
        assert "EXIT=137" in terminal.expect("first", "EXIT=")
        calls = len(server.records)
        terminal.start("again", ["resume", "k", "--runs-dir", str(runs)], env)
        screen = terminal.expect("again", "[q]uit")
        assert "change 3 of 3" in screen and "change 1 of 3" not in screen and "change 2 of 3" not in screen
        assert "Enter to revise" not in screen  # the steering is kept, not asked again
        terminal.keys("again", "y", "Enter")
        assert "EXIT=0" in terminal.expect("again", "EXIT=")
        steps = [r.step for r in server.records[calls:]]
    assert steps == ["review:r2"]  # the rewrites were not asked for again
    state = the_output(runs, "k")
    version = next(v for v in state["versions"] if v.get("picked"))
    assert [p["answer"] for p in version["picked"]] == ["accept", "reject", "accept"]
    after = section_bodies(version["text"], list(TITLES[:3]))
    assert after[1] == before[1] and after[0] != before[0] and after[2] != before[2]
