"""Fixtures: every path in a temp folder, and fake models registered per test."""

from __future__ import annotations

import compileall
from pathlib import Path

import pytest

from reflectcli.models.fake import FakeClient, ScriptedResponder, install_fake


def pytest_configure(config):
    """Compile the package's bytecode once. The suite's child processes (crash tests, batch
    workers, `reflectcli` subprocesses) import reflectcli from this checkout, and where
    PYTHONDONTWRITEBYTECODE is set (as on this machine) each would otherwise compile every
    module from source again (~0.3 s of CPU a child)."""
    import reflectcli

    compileall.compile_dir(str(Path(reflectcli.__file__).parent), quiet=1)


@pytest.fixture(autouse=True)
def isolated(tmp_path, monkeypatch):
    """No test reads the user's config or writes outside its temp folder.

    The embedded model cache is left alone (it is 98 MB and fetched once), unless a test
    points REFLECTCLI_CACHE_DIR somewhere else itself.
    """
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("REFLECTCLI_CONFIG_DIR", str(tmp_path / "user-config"))
    for key in (
        "MODEL",
        "CRITIC_MODEL",
        "THRESHOLD",
        "MAX_ROUNDS",
        "MAX_SECTIONS",
        "LANGUAGE",
        "TEMPERATURE",
        "TIMEOUT",
        "API_BASE",
        "RUNS_DIR",
        "RETRIES",
        "BACKOFF",
        "STORE",
        "LEASE_SECONDS",
    ):
        monkeypatch.delenv(f"REFLECTCLI_{key}", raising=False)
    return tmp_path


@pytest.fixture(scope="session")
def pg_server():
    """One real PostgreSQL for the session (initdb in a temp folder, 127.0.0.1 only)."""
    from tests.pgserver import PgServer

    try:
        server = PgServer().start()
    except RuntimeError as exc:
        pytest.fail(f"{exc} (the Postgres-backed tests need a real server)")
    yield server
    server.stop()


@pytest.fixture
def pg_url(pg_server, monkeypatch):
    """A fresh database on the session's server, made the store in force."""
    url = pg_server.new_database()
    monkeypatch.setenv("REFLECTCLI_STORE", url)
    return url


@pytest.fixture(params=["sqlite", "postgres"])
def backend(request, monkeypatch):
    """Run the test on both stores: the SQLite file, then a fresh PostgreSQL database."""
    if request.param == "postgres":
        return request.getfixturevalue("pg_url")
    return None


@pytest.fixture
def runs_dir(tmp_path):
    return tmp_path / "runs"


@pytest.fixture
def fake():
    """A fake writer (and critic) behind model strings `fake/...`."""
    client = FakeClient()
    undo = install_fake("fake", lambda model: client)
    yield client
    undo()


@pytest.fixture
def scripted(fake):
    """The fake, answering a whole run by script; set `.responder.scores` per test."""
    fake.responder = ScriptedResponder(scores=[8.0], sections=3)
    return fake
