"""The human gate at a real terminal: `write --interactive` under a pseudo-terminal, answered
by typing, against the scripted OpenAI-compatible server (127.0.0.1 only)."""

from __future__ import annotations

import os
import pty
import re
import select
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.crashkit import default_signals
from tests.openai_server import OpenAIServer
from tests.test_remote import MODEL, Script, child_env

pytestmark = pytest.mark.slow


class Terminal:
    """A child process on a pty: read what it prints, type answers."""

    def __init__(self, args: list[str], env: dict[str, str], cwd: Path):
        self.master, slave = pty.openpty()
        self.proc = subprocess.Popen(args, stdin=slave, stdout=slave, stderr=slave, env=env,
                                     cwd=cwd, close_fds=True, preexec_fn=default_signals)  # fmt: skip
        os.close(slave)
        self.seen = ""

    def expect(self, text: str, timeout: float = 90) -> None:
        deadline = time.monotonic() + timeout
        while text not in self.seen:
            left = deadline - time.monotonic()
            if left <= 0:
                raise AssertionError(f"never saw {text!r}; output:\n{self.seen}")
            ready, _, _ = select.select([self.master], [], [], min(left, 0.5))
            if ready:
                try:
                    self.seen += os.read(self.master, 65536).decode("utf-8", "replace")
                except OSError:  # the child closed the terminal
                    if self.proc.poll() is not None:
                        raise AssertionError(f"exited before {text!r}:\n{self.seen}") from None

    def type(self, text: str) -> None:
        os.write(self.master, text.encode())

    def wait(self, timeout: float = 60) -> int:
        code = self.proc.wait(timeout)
        while True:  # drain what is left
            ready, _, _ = select.select([self.master], [], [], 0.1)
            if not ready:
                break
            try:
                chunk = os.read(self.master, 65536)
            except OSError:
                break
            if not chunk:
                break
            self.seen += chunk.decode("utf-8", "replace")
        os.close(self.master)
        return code


def test_interactive_write_at_a_terminal(tmp_path):
    with OpenAIServer(Script(scores=[6.0], sections=2)) as server:
        env = child_env(tmp_path) | {"TERM": "xterm", "COLUMNS": "120"}
        env.pop("NO_COLOR", None)
        term = Terminal(
            [sys.executable, "-m", "reflectcli", "write", "Why do writers revise?", "--model",
             MODEL, "--api-base", server.base_url, "--runs-dir", str(tmp_path / "runs"),
             "--sections", "2", "--max-rounds", "1", "--threshold", "9", "--thread-id", "tty",
             "--interactive"],
            env, tmp_path,
        )  # fmt: skip
        term.expect("outline: [a]pprove")
        term.type("a\n")
        term.expect("[a]ccept version 1")
        term.type("a\n")
        assert term.wait() == 0, term.seen
    plain = re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", term.seen)
    assert "→ approve (human)" in plain and "→ accept (human)" in plain
    assert plain.count("1. Why first drafts fall short") == 1  # the gate does not repeat it
    assert plain.count("stop (max_rounds)") == 1 and "stopped without passing" not in plain
    assert "done human_accept" in plain and "done max_rounds" not in plain
    artifact = (tmp_path / "runs" / "tty.md").read_text()
    assert "| approve | human |" in artifact and "| accept | human |" in artifact
    assert "## Known issues" in artifact and "## Final article" in artifact
