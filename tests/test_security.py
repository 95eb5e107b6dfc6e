"""Nothing leaked, nothing executed: strict checkpoint serde, private files, no API key in
anything written, thread ids checked before they touch a path, HTML export escaped."""

from __future__ import annotations

import json
import os
import pickle
import sqlite3
import stat
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import ormsgpack
import pytest
from typer.testing import CliRunner

from reflectcli.cli.app import app
from reflectcli.errors import ModelError
from reflectcli.models.fake import ScriptedResponder, review_json
from reflectcli.runner import Runner
from reflectcli.store.db import Store, validate_thread_id
from tests.crashkit import MODEL, TASK, Child, KillScript
from tests.helpers import FailOnce, quiet_ui, settings
from tests.openai_server import OpenAIServer, error, loopback_fixture, step_of

cli = CliRunner()
KEY = "sk-test-SECRET-123456"


def invoke(*args: Any):
    return cli.invoke(app, [str(a) for a in args])


# --- checkpoints: JSON types only, strict msgpack, never pickle -------------------------------


def test_the_checkpoint_serializer_is_strict(tmp_path):
    """Pickle is off; a msgpack constructor outside LangGraph's safe list is not called (the
    same bytes do call it under a permissive serializer, so the payload is live)."""
    from langgraph.checkpoint.serde.jsonplus import JsonPlusSerializer

    serde = Store(tmp_path / "runs").checkpointer().serde
    assert serde.pickle_fallback is False
    assert serde._allowed_msgpack_modules is None  # strict: LangGraph's safe types only

    class Boom:
        def __reduce__(self):
            return (os.mkdir, (str(tmp_path / "pickled"),))

    with pytest.raises(Exception):  # noqa: B017  (whatever it raises, it must not unpickle)
        serde.loads_typed(("pickle", pickle.dumps(Boom())))
    assert not (tmp_path / "pickled").exists()

    target = tmp_path / "constructed"
    ext = ormsgpack.Ext(1, ormsgpack.packb(("os", "mkdir", [str(target)])))  # constructor, args
    payload = ("msgpack", ormsgpack.packb({"value": ext}))
    serde.loads_typed(payload)
    assert not target.exists()
    JsonPlusSerializer(allowed_msgpack_modules=True).loads_typed(payload)
    assert target.exists()  # a permissive serializer would have run it


def _json_only(value: Any, where: str = "") -> None:
    if isinstance(value, dict):
        for key, item in value.items():
            assert isinstance(key, str), f"{where}: key {key!r}"
            _json_only(item, f"{where}.{key}")
    elif isinstance(value, list):
        for i, item in enumerate(value):
            _json_only(item, f"{where}[{i}]")
    else:
        assert value is None or isinstance(value, str | int | float | bool), (
            f"{where}: {type(value).__name__}"
        )


def test_checkpoints_and_state_hold_json_types_only(scripted, runs_dir):
    """An unfinished run (its checkpoints are kept): every checkpoint and pending write decodes,
    with the strict serializer, to JSON types only; none is pickled; the graph uses that saver."""
    scripted.responder = FailOnce(ScriptedResponder(scores=[6, 9.5], sections=2), "review:r2",
                                  ModelError("provider down"))  # fmt: skip
    with pytest.raises(ModelError):
        Runner(quiet_ui()).write(TASK, settings(runs_dir, threshold=9), "halfway")
    store = Store(runs_dir)
    serde = store.checkpointer().serde
    conn = sqlite3.connect(runs_dir / "reflect.db")
    checkpoints = conn.execute("SELECT type, checkpoint, metadata FROM checkpoints").fetchall()
    writes = conn.execute("SELECT type, value, channel FROM writes").fetchall()
    assert len(checkpoints) >= 8 and writes
    for kind, blob, metadata in checkpoints:
        assert kind == "msgpack"
        _json_only(serde.loads_typed((kind, blob)), "checkpoint")
        _json_only(json.loads(metadata), "metadata")
    for kind, blob, channel in writes:
        assert kind in ("msgpack", "null", "empty") and kind != "pickle", (channel, kind)
        _json_only(serde.loads_typed((kind, blob)), f"write {channel}")
    state = store.load_state("halfway")
    _json_only(state, "run_state")
    assert state["reviews"] and state["trace"]

    runner = Runner(quiet_ui())
    graph, _ = runner._graph(store, "halfway", settings(runs_dir), runner._models(settings(runs_dir)))
    assert graph.checkpointer.serde.pickle_fallback is False
    assert graph.checkpointer.serde._allowed_msgpack_modules is None


# --- files are private ---------------------------------------------------------------------------


def _modes(folder: Path) -> dict[str, int]:
    return {p.name: stat.S_IMODE(p.stat().st_mode) for p in folder.iterdir()}


def test_runs_files_are_private_even_with_umask_0(scripted, runs_dir, tmp_path):
    """With umask 0, the runs folder is 0700 and every file in it 0600, looked at in the middle
    of a run (reflect.db with its -wal and -shm open) and after; exports written with -o too."""
    seen: dict[str, int] = {}
    responder = ScriptedResponder(scores=[6, 9.5], sections=2)

    def spy(step, messages):
        if step == "review:r2":
            seen.update(_modes(runs_dir))
            seen["(folder)"] = stat.S_IMODE(runs_dir.stat().st_mode)
        return responder(step, messages)

    scripted.responder = spy
    old = os.umask(0)
    try:
        Runner(quiet_ui()).write(TASK, settings(runs_dir, threshold=9), "private")
        exports = {}
        for fmt in ("md", "report", "json", "html"):
            out = tmp_path / f"export.{fmt}"
            result = invoke("export", "private", "--runs-dir", runs_dir, "-f", fmt, "-o", out)
            assert result.exit_code == 0, result.output
            exports[out.name] = stat.S_IMODE(out.stat().st_mode)
    finally:
        os.umask(old)
    assert seen.pop("(folder)") == 0o700
    assert {"reflect.db", "reflect.db-wal", "reflect.db-shm", "private.md"} <= set(seen), seen
    assert set(seen.values()) == {0o600}, seen
    assert stat.S_IMODE(runs_dir.stat().st_mode) == 0o700
    after = _modes(runs_dir)
    assert set(after.values()) == {0o600}, after
    assert not [name for name in after if name.endswith(".tmp")]  # no leftover temp files
    assert set(exports.values()) == {0o600}, exports


# --- API keys never written ------------------------------------------------------------------------


def _echo_401(server: OpenAIServer, body: dict) -> Any:
    """A 401 that echoes the key it got, masked the way OpenAI does."""
    record = next(r for r in reversed(server.records) if r.body is body)
    got = record.headers.get("authorization", "").removeprefix("Bearer ")
    masked = got[:8] + "*" * (len(got) - 12) + got[-4:]
    return error(401, f"Incorrect API key provided: {masked}. You can find your API key at "
                      "https://platform.openai.com/account/api-keys.", code="invalid_api_key")  # fmt: skip


def _scan(folder: Path, needles: tuple[bytes, ...]) -> list[str]:
    hits = []
    for path in folder.rglob("*"):
        if path.is_file():
            data = path.read_bytes()
            hits += [f"{path}: {n!r}" for n in needles if n in data]
    return hits


@pytest.mark.slow
def test_api_key_never_written(tmp_path, monkeypatch):
    """REFLECTCLI_API_KEY=sk-test-SECRET-123456 (the key for an api_base server): `write
    --debug` meets a 401 whose message echoes
    the key masked (as OpenAI's does), then `resume --debug` meets a 429; then show, history
    and every export. Not one byte under the work folder (database with its WAL, artifact,
    exports, the processes' stdout and stderr with debug logs) holds the key or its secret
    part, though the key did reach the provider."""
    loopback_fixture(monkeypatch, REFLECTCLI_API_KEY=KEY)
    script = KillScript((6.0, 9.5), 2)
    failed = {"draft:s2": False, "review:r1": False}

    with OpenAIServer() as server:

        def reply(body):
            step = step_of(body)
            if step in failed and not failed[step]:
                failed[step] = True
                return _echo_401(server, body) if step == "draft:s2" else error(429)
            return script(body)

        server.reply = reply
        base = ["--runs-dir", "runs", "--debug"]
        env = {"REFLECTCLI_API_KEY": KEY}
        first = Child(tmp_path, "write", ["write", TASK, "--model", MODEL, "--api-base",
                                          server.base_url, "--thread-id", "key", "--sections",
                                          "2", "--threshold", "9", *base], env=env)  # fmt: skip
        assert first.finish() == 1, first.describe()
        assert "set REFLECTCLI_API_KEY" in first.stderr and "sk-test-*********3456" in first.stderr
        second = Child(tmp_path, "resume", ["resume", "key", *base], env=env)
        assert second.finish() == 0, second.describe()
        assert "DEBUG" in second.stderr  # there were logs to scan
        assert {r.headers["authorization"] for r in server.records} == {f"Bearer {KEY}"}

    runs = tmp_path / "runs"
    outputs = []
    for fmt in ("md", "report", "json", "html"):
        out = tmp_path / f"out.{fmt}"
        assert invoke("export", "key", "--runs-dir", runs, "-f", fmt, "-o", out).exit_code == 0
        outputs.append(invoke("export", "key", "--runs-dir", runs, "-f", fmt).output)
    for args in (["show", "key"], ["show", "key", "--json"], ["history", "--json"], ["stats"]):
        result = invoke(*args, "--runs-dir", runs)
        assert result.exit_code == 0, result.output
        outputs.append(result.output)
    (tmp_path / "cli-outputs.txt").write_text("\n".join(outputs))
    assert "1 retry: RateLimitError" in (runs / "key.md").read_text()
    # SQLite's WAL too: the folder is scanned after the processes ended and before anything
    # else opened the database, then again with a connection holding it open.
    needles = (KEY.encode(), b"SECRET", KEY.encode("utf-16-le"))
    assert _scan(tmp_path, needles) == []
    conn = sqlite3.connect(runs / "reflect.db")
    dump = "\n".join(conn.iterdump())
    conn.close()
    assert "SECRET" not in dump and "sk-test-*" not in dump


# --- thread ids --------------------------------------------------------------------------------------


HOSTILE = ["../x", "/etc/passwd", "x/../../y", "..", ".", "a b", "x\n", "x" * 65, "ab.md",
           "ünï", "x;rm -rf", "-x", "_x", "x\\y"]  # fmt: skip


@pytest.mark.parametrize("thread", HOSTILE)
def test_hostile_thread_ids_are_refused_before_any_path(thread, tmp_path, fake):
    before = sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*"))
    runs = tmp_path / "runs"
    commands = [  # options first, then `--`: an id may start with "-"
        ["write", TASK, "--model", "fake/w", "--runs-dir", runs, f"--thread-id={thread}"],
        ["resume", "--runs-dir", runs, "--", thread],
        ["show", "--runs-dir", runs, "--", thread],
        ["export", "--runs-dir", runs, "-o", tmp_path / "out.md", "--", thread],
        ["diff", "--runs-dir", runs, "--", thread],
        ["delete", "--runs-dir", runs, "--", thread],
    ]
    for args in commands:
        result = invoke(*args)
        assert result.exit_code == 2, (args, result.output)
        lines = result.output.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("error: invalid thread id"), (args, lines)
    assert sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*")) == before
    with pytest.raises(Exception, match="invalid thread id"):
        validate_thread_id(thread)


# --- html ------------------------------------------------------------------------------------------


EVIL = [
    "<script>alert(1)</script>", "<img src=x onerror=alert(2)>", "\"><svg onload=alert(3)>",
    "<a href=\"javascript:alert(4)\">x</a>", "</title><iframe src=//evil>", "'&amp;\"",
]  # fmt: skip
ALLOWED_TAGS = {"html", "head", "meta", "title", "style", "body", "header", "h1", "h2", "h3", "h4", "h5",
                "h6", "table", "thead", "tbody", "tr", "th", "td", "article", "p", "ul", "ol", "li", "strong",
                "em", "code", "pre", "blockquote", "br", "hr", "span", "a", "i"}  # fmt: skip
ALLOWED_ATTRS = {"lang", "charset", "name", "content", "class", "style", "id", "href", "rel", "tabindex",
                 "title", "role", "aria-label", "start"}  # fmt: skip


class _Tags(HTMLParser):
    def __init__(self):
        super().__init__()
        self.tags: list[tuple[str, list]] = []
        self.text: list[str] = []

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, attrs))

    def handle_data(self, data):
        self.text.append(data)


def test_html_export_escapes_everything(fake, runs_dir):
    """Hostile text in the task, outline, sections, feedback and improvements: the page has only
    the exporter's own tags and attributes, and shows every hostile string as text."""
    evil = " ".join(EVIL)

    def responder(step, messages):
        kind = step.split(":")[0]
        if kind == "plan":
            return json.dumps({"sections": [{"title": f"T{i} {e}", "goal": e}
                                            for i, e in enumerate(EVIL[:2])]})  # fmt: skip
        if kind == "review":
            review = json.loads(review_json(6.5))
            review["feedback"] = evil
            review["improvements"] = [{"section": EVIL[2], "issue": EVIL[3], "severity": "major"}]
            return json.dumps(review)
        return f"Body {evil}"

    fake.responder = responder
    Runner(quiet_ui()).write(f"Task {evil}", settings(runs_dir, max_sections=2, max_rounds=1),
                             "evil")  # fmt: skip
    page = invoke("export", "evil", "--runs-dir", runs_dir, "-f", "html").output
    parser = _Tags()
    parser.feed(page)
    for tag, attrs in parser.tags:
        assert tag in ALLOWED_TAGS, tag
        for name, value in attrs:
            assert name in ALLOWED_ATTRS, (tag, name, value)
            assert "<" not in (value or "") and "javascript" not in (value or "").lower()
    text = "".join(parser.text)
    for snippet in EVIL:
        assert snippet in text, snippet  # shown, as text


def test_the_runs_folder_and_the_parents_it_creates_are_private(scripted, tmp_path):
    """`--runs-dir a/b/runs` creates a, a/b and runs owner-only (mkdir's mode covers the last
    folder only); a runs folder that already existed open (as git checks out `runs/`, 0755) is
    made private when the database is created in it."""
    old = os.umask(0o022)
    try:
        deep = tmp_path / "a" / "b" / "runs"
        Runner(quiet_ui()).write(TASK, settings(deep, threshold=1), "deep")
        for folder in (tmp_path / "a", tmp_path / "a" / "b", deep):
            assert stat.S_IMODE(folder.stat().st_mode) == 0o700, folder
        tracked = tmp_path / "tracked"
        tracked.mkdir(mode=0o755)
        Runner(quiet_ui()).write(TASK, settings(tracked, threshold=1), "tracked")
        assert stat.S_IMODE(tracked.stat().st_mode) == 0o700
    finally:
        os.umask(old)
