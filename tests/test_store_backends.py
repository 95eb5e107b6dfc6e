"""The store's two backends: choosing one, leases across hosts, and a PostgreSQL that goes away.

A real PostgreSQL (tests/pgserver.py) backs the `postgres` cases; SQLite is the file in the runs
folder."""

from __future__ import annotations

import json
import os
import time

import pytest
from typer.testing import CliRunner

from reflectcli.cli.app import app
from reflectcli.errors import ModelError
from reflectcli.models.fake import ScriptedResponder
from reflectcli.store.db import Store
from tests.helpers import FailOnce, raw_db

cli = CliRunner()
TASK = "Why do writers revise?"


def invoke(*args):
    return cli.invoke(app, [str(a) for a in args])


def test_the_store_flag_and_config_key_choose_postgres(scripted, runs_dir, pg_server, monkeypatch, tmp_path):
    """`--store URL` before the command, or `store = URL` in config.toml: the run lands in that
    PostgreSQL, `history` there lists it, the runs folder holds only the artifact."""
    url = pg_server.new_database()
    out = invoke("--store", url, "write", TASK, "--model", "fake/w", "--runs-dir", runs_dir,
                 "--thread-id", "flagged")  # fmt: skip
    assert out.exit_code == 0, out.output
    assert sorted(p.name for p in runs_dir.iterdir()) == ["flagged.md"]  # no reflect.db
    monkeypatch.delenv("REFLECTCLI_STORE")  # the flag set it for that process only... and here
    (tmp_path / "config.toml").write_text(f'store = "{url}"\n')
    listed = json.loads(invoke("history", "--json", "--runs-dir", runs_dir).output)
    assert [r["thread_id"] for r in listed] == ["flagged"]
    monkeypatch.setenv("REFLECTCLI_STORE", "sqlite")  # the environment beats the config file
    assert "no runs" in invoke("history", "--runs-dir", runs_dir).output


@pytest.mark.parametrize(
    ("store", "message"),
    [
        ("mysql://x@y/z", "store 'mysql://x@y/z' is not a postgresql:// URL"),
        ("postgresql://nobody:secret@127.0.0.1:1/none", "cannot reach the PostgreSQL store "
         "postgresql://nobody:***@127.0.0.1:1/none"),
        ("postgresql+psycopg://nobody:secret@db/x", "store 'postgresql+psycopg://nobody:***@db/x' is not"),
        ("postgresql://nobody@127.0.0.1:1/none?password=secret", "postgresql://nobody@127.0.0.1:1/none"
         "?password=***"),
    ],
)  # fmt: skip
def test_a_bad_store_is_one_line_without_the_password(fake, store, message, runs_dir):
    out = invoke("--store", store, "write", TASK, "--model", "fake/w", "--runs-dir", runs_dir)
    assert out.exit_code in (1, 2), out.output
    assert message in out.output and "secret" not in out.output
    assert len(out.output.strip().splitlines()) == 1 and "Traceback" not in out.output
    history = invoke("--store", store, "history", "--runs-dir", runs_dir)
    assert history.exit_code in (1, 2) and message in history.output


def test_a_lease_from_another_host_holds_until_it_expires(backend, runs_dir, monkeypatch):
    """A run claimed on another host (whose pid this host cannot check) is refused while its
    lease is fresh, reads as interrupted once it lapses, and is then anyone's to take."""
    store = Store(runs_dir)
    store.create_run("far", TASK, {"model": "m"}, "far.md")
    store.conn.execute("UPDATE runs SET status = 'running', owner_pid = 4242, owner_host = 'elsewhere', "
                       "lease_until = ? WHERE thread_id = 'far'", (time.time() + 60,))  # fmt: skip
    assert store.get_run("far")["status"] == "running"
    with pytest.raises(Exception, match=r"being run by another process \(pid 4242 on elsewhere\)"):
        store.acquire("far")
    store.conn.execute("UPDATE runs SET lease_until = ? WHERE thread_id = 'far'", (time.time() - 1,))
    assert store.get_run("far")["status"] == "interrupted"
    listed = json.loads(invoke("history", "--json", "--runs-dir", runs_dir).output)
    assert listed[0]["status"] == "interrupted"
    store.acquire("far")
    row = store.get_run("far")
    assert (row["owner_pid"], row["owner_host"]) == (os.getpid(), os.uname().nodename)
    assert row["lease_until"] > time.time()
    store.close()


def test_a_live_run_renews_its_lease(backend, runs_dir, monkeypatch):
    monkeypatch.setenv("REFLECTCLI_LEASE_SECONDS", "1.5")
    store = Store(runs_dir)
    store.create_run("alive", TASK, {"model": "m"}, "alive.md")
    store.acquire("alive")
    first = store.get_run("alive")["lease_until"]
    with store.keep_alive("alive"):
        time.sleep(2.0)
        renewed = store.get_run("alive")["lease_until"]
    assert renewed > first and renewed > time.time()  # renewed while alive: never lapsed
    store.close()


class CutConnections(ScriptedResponder):
    """Answers by script; when it reaches `step`, every connection to the database is cut first
    (the server restarted, the network dropped): the answer itself still arrives."""

    def __init__(self, pg_server, database: str, step: str, **kwargs):
        super().__init__(**kwargs)
        self.pg_server, self.database, self.step, self.done = pg_server, database, step, False
        self.asked: list[str] = []

    def __call__(self, step, messages):
        self.asked.append(step)
        if step == self.step and not self.done:
            self.done = True
            assert self.pg_server.terminate_connections(self.database) >= 1
        return super().__call__(step, messages)


def test_a_lost_database_connection_is_one_clear_line_and_the_run_resumes(scripted, runs_dir, pg_server,
                                                                          pg_url):  # fmt: skip
    """Cut the store's connections in the middle of a run: the run stops with one line naming
    PostgreSQL (exit 1, no traceback); `resume` finishes it from its last checkpoint without
    asking again for the steps checkpointed before the cut."""
    database = pg_url.rsplit("/", 1)[1]
    scripted.responder = CutConnections(pg_server, database, "draft:s2", scores=[8.0], sections=3)
    out = invoke("write", TASK, "--model", "fake/w", "--runs-dir", runs_dir, "--thread-id", "cut",
                 "--threshold", "7")  # fmt: skip
    assert out.exit_code == 1, out.output
    assert "the PostgreSQL store failed" in out.output and "Traceback" not in out.output
    assert "when it is back: reflectcli resume cut" in out.output
    before = len(scripted.responder.asked)
    resumed = invoke("resume", "cut", "--runs-dir", runs_dir)
    assert resumed.exit_code == 0, resumed.output
    assert "done passed" in resumed.output
    with raw_db(runs_dir) as db:
        row = db.execute("SELECT status, calls FROM runs WHERE thread_id = 'cut'").fetchone()
    assert row[0] == "finished"
    again = scripted.responder.asked[before:]
    assert again and not {"plan", "draft:s1"} & set(again), again  # checkpointed before the cut


@pytest.fixture
def bouncer(pg_server):
    from tests.pgserver import PgBouncer

    try:
        bouncer = PgBouncer(pg_server).start()
    except RuntimeError as exc:
        pytest.skip(str(exc))
    yield bouncer
    bouncer.stop()


def test_runs_work_behind_pgbouncer_in_transaction_mode(scripted, runs_dir, pg_server, bouncer, monkeypatch):
    """No prepared statements, no session state: a run written through PgBouncer (transaction
    pooling), interrupted, resumed, listed."""
    database = pg_server.new_database().rsplit("/", 1)[1]
    monkeypatch.setenv("REFLECTCLI_STORE", bouncer.url(database))
    scripted.responder = FailOnce(ScriptedResponder(scores=[6.0, 8.5], sections=3), "review:r2",
                                  ModelError("provider down"))  # fmt: skip
    first = invoke("write", TASK, "--model", "fake/w", "--runs-dir", runs_dir, "--thread-id", "pooled",
                   "--threshold", "8")  # fmt: skip
    assert first.exit_code == 1 and "provider down" in first.output, first.output
    resumed = invoke("resume", "pooled", "--runs-dir", runs_dir)
    assert resumed.exit_code == 0 and "done passed" in resumed.output, resumed.output
    listed = json.loads(invoke("history", "--json", "--runs-dir", runs_dir).output)
    assert [(r["thread_id"], r["status"], r["rounds"]) for r in listed] == [("pooled", "finished", 2)]


def test_a_run_that_loses_its_claim_stops_at_the_next_step(scripted, runs_dir, pg_url, monkeypatch):
    """Its lease is taken over (as another host would once it lapsed while the store was out of
    reach): the next renewal finds another owner, and the run stops after its current step with
    one line instead of running on beside the new owner."""
    monkeypatch.setenv("REFLECTCLI_LEASE_SECONDS", "1.5")

    class Usurped(ScriptedResponder):
        def __call__(self, step, messages):
            if step == "draft:s2":
                with raw_db(runs_dir) as db:
                    db.execute("UPDATE runs SET owner_pid = 7, owner_host = 'elsewhere', lease_until = ?, "
                               "generation = generation + 1 WHERE thread_id = 'taken'",
                               (time.time() + 60,))  # fmt: skip
                time.sleep(1.2)  # a renewal (every 0.5 s) sees it
            return super().__call__(step, messages)

    scripted.responder = Usurped(scores=[8.0], sections=3)
    out = invoke("write", TASK, "--model", "fake/w", "--runs-dir", runs_dir, "--thread-id", "taken")
    assert out.exit_code == 1, out.output
    assert "lost its claim on the run" in out.output and "Traceback" not in out.output
    with raw_db(runs_dir) as db:
        owner = db.execute("SELECT owner_pid, owner_host FROM runs WHERE thread_id = 'taken'").fetchone()
    assert tuple(owner) == (7, "elsewhere")  # the new owner's claim was left alone


def test_a_run_on_postgres_goes_through_one_pooled_connection(scripted, runs_dir, pg_url, monkeypatch):
    """The store, the lease renewal and LangGraph's checkpointer of one process share its one
    pool: a whole run (lease renewed every 0.33 s meanwhile) opens one connection, no more."""
    from reflectcli.store import pg

    monkeypatch.setenv("REFLECTCLI_LEASE_SECONDS", "1")
    pg.keep_pools()  # as a worker process does: the pool outlives each store handle
    try:
        scripted.responder = ScriptedResponder(scores=[6.0, 8.5], sections=3)
        out = invoke("write", TASK, "--model", "fake/w", "--runs-dir", runs_dir, "--thread-id", "lean",
                     "--threshold", "8")  # fmt: skip
        assert out.exit_code == 0, out.output
        stats = pg.Pool._all[pg_url].pool.get_stats()
        assert stats["pool_max"] == 1 and stats["connections_num"] == 1, stats
        assert stats["requests_num"] > 20  # every statement borrowed it
        import psycopg

        with psycopg.connect(pg_url, autocommit=True) as conn:  # whose connection it is, by its name
            names = conn.execute("SELECT application_name FROM pg_stat_activity WHERE datname = "
                                 "current_database() AND pid <> pg_backend_pid()").fetchall()  # fmt: skip
        assert [n for (n,) in names] == ["reflectcli-store"]
    finally:
        pg.Pool.keep = False
        pg.close_pools()


def _schema(path):
    import sqlite3

    conn = sqlite3.connect(path)
    try:
        tables = sorted(conn.execute("SELECT type, name, sql FROM sqlite_master"))
        names = [r[0] for r in conn.execute("SELECT name FROM _migrations ORDER BY name")]
        pragmas = [conn.execute(f"PRAGMA {p}").fetchone()[0] for p in ("auto_vacuum", "journal_mode")]
        return tables, names, pragmas
    finally:
        conn.close()


def test_a_new_database_from_the_template_is_the_migrated_one(tmp_path, monkeypatch):
    """A new reflect.db is the in-memory template copied into place (every migration applied
    once a process): the same tables, indexes, migrations and pragmas as a database migrated
    in place (the path taken where hard links fail), private, with no file left beside it."""
    from reflectcli.store import db, sqlitefile

    sqlitefile._template()  # (built once a process)
    applied = []
    real = db._apply_migrations
    monkeypatch.setattr(db, "_apply_migrations", lambda *a: (applied.append(1), real(*a))[1])
    made = Store(tmp_path / "template")
    made.close()
    assert applied == []  # copied, not migrated
    monkeypatch.setattr(os, "link", lambda *a: (_ for _ in ()).throw(PermissionError(1, "no links")))
    migrated = Store(tmp_path / "in-place")
    migrated.close()
    assert applied == [1]
    a, b = _schema(made.path), _schema(migrated.path)
    assert a == b and len(a[0]) > 30 and a[2] == [2, "wal"]  # incremental auto_vacuum, WAL
    for folder in ("template", "in-place"):
        assert os.stat(tmp_path / folder / "reflect.db").st_mode & 0o777 == 0o600
        assert sorted(p.name for p in (tmp_path / folder).iterdir()
                      if not p.name.startswith("reflect.db")) == []  # fmt: skip


def test_a_log_left_beside_a_moved_database_never_reaches_the_new_one(tmp_path):
    """A process killed mid-run leaves reflect.db-wal; the person moves reflect.db aside (as
    the error for a broken database says to). The next store must start empty and whole:
    replayed onto a copied schema, that log would bring back the old tables or corrupt it."""
    import signal
    import subprocess
    import sys

    runs = tmp_path / "runs"
    code = (
        "import os, sys\n"
        "from reflectcli.store.db import Store\n"
        "s = Store(sys.argv[1])\n"
        "s.conn.execute('PRAGMA wal_autocheckpoint = 0')\n"
        "s.conn.execute('CREATE TABLE old_data (x)')\n"
        "for i in range(100): s.conn.execute('INSERT INTO old_data VALUES (randomblob(3000))')\n"
        "os.kill(os.getpid(), 9)\n"
    )
    proc = subprocess.run([sys.executable, "-c", code, str(runs)], capture_output=True, timeout=60)
    assert proc.returncode == -signal.SIGKILL and (runs / "reflect.db-wal").stat().st_size > 0
    (runs / "reflect.db").rename(tmp_path / "moved-aside.db")
    store = Store(runs)
    try:
        assert store.conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        names = {r[0] for r in store.conn.execute("SELECT name FROM sqlite_master")}
        assert "old_data" not in names and "runs" in names
        store.create_run("t", "task", {"model": "m"}, "t.md")
        assert store.get_run("t")["task"] == "task"
    finally:
        store.close()


def test_one_connection_shared_by_two_threads_never_deadlocks(tmp_path):
    """A run's plan request journaled from a thread of its own (`prefetch`) while the main
    thread reads the run row: SQLite steps `LEASE_LIVE`'s Python function `db_now()` with the
    GIL released and the connection's mutex held, and needs the GIL back; a thread that binds a
    statement on the same connection holds the GIL while it waits for that mutex. Every use of
    the connection now takes the store's lock (waited on without the GIL). Before, this hung
    within a second (seen as a stuck README tour test). In a child, so a hang is a failure."""
    import subprocess
    import sys
    import textwrap

    code = textwrap.dedent(f"""
        import threading, time
        from reflectcli.store.db import Store
        s = Store({str(tmp_path)!r})
        s.create_run("t1", "task", {{"model": "m"}}, {str(tmp_path / "t1.md")!r})
        stop = threading.Event()
        def journal():
            i = 0
            while not stop.is_set():
                s.journal_put(f"k{{i}}", "t1", "plan", {{"model": "m"}}); i += 1
        threading.Thread(target=journal, daemon=True).start()
        until = time.monotonic() + 1.5
        while time.monotonic() < until:
            s.get_run("t1"); s.load_state("t1"); s.journal_count("t1")
        stop.set()
        print("done")
    """)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0 and "done" in out.stdout, out.stderr
