"""A SQLite store's file: private folders, connections, WAL, and a new database made from an
image of the migrated schema (built once a process in memory, synced, hard-linked into place so
that processes creating the same file at once all see it whole)."""

from __future__ import annotations

import os
import sqlite3
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

from reflectcli.store.migrations import MIGRATIONS, migration_sql


def make_private_dirs(folder: Path) -> None:
    """Create `folder` and every missing parent owner-only (0700): thread ids are task slugs,
    and the runs folder's listing is nobody else's business. (`mkdir(parents=True, mode=...)`
    gives the mode to the last folder only.)"""
    missing = []
    for path in [folder, *folder.parents]:
        if path.exists():
            break
        missing.append(path)
    for path in reversed(missing):
        try:
            path.mkdir(mode=0o700)
        except FileExistsError:
            pass
        _private(path)


def _private(folder: Path) -> None:
    """Owner-only, when this user owns it (best effort: never fails a run)."""
    try:
        if folder.stat().st_uid == os.getuid():
            os.chmod(folder, 0o700)
    except OSError:
        pass


def _sqlite_now() -> float:
    return time.time()


def _connect(path: str | Path, **kwargs: Any) -> sqlite3.Connection:
    conn = sqlite3.connect(str(path), timeout=30, check_same_thread=False, **kwargs)
    conn.execute("PRAGMA busy_timeout = 30000")
    conn.create_function("db_now", 0, _sqlite_now)  # one host: its clock is the database's
    return conn


def _apply_migrations(conn: Any, dialect: str) -> None:
    """The migrations not yet recorded in `_migrations`, in one transaction (one commit, not one
    a migration: a new database gets every table at once), each skipped if another process
    applied it first."""
    conn.execute("BEGIN IMMEDIATE")
    try:
        done = {row[0] for row in conn.execute("SELECT name FROM _migrations")}
        for name, _ in MIGRATIONS:
            if name in done:
                continue
            for statement in filter(str.strip, migration_sql(name, dialect).split(";")):
                conn.execute(statement)
            conn.execute("INSERT INTO _migrations VALUES (?, ?)", (name, time.time()))
        conn.execute("COMMIT")
    except BaseException:
        conn.execute("ROLLBACK")
        raise


_TEMPLATE: list[bytes] = []  # an empty database with every migration applied, once a process
_TEMPLATE_LOCK = threading.Lock()


def _template() -> bytes:
    """The bytes of a new SQLite database with every table: the migrations applied once in
    memory (40 statements, ~10 ms here), then copied into each new file (~1 ms)."""
    with _TEMPLATE_LOCK:
        if not _TEMPLATE:
            conn = sqlite3.connect(":memory:", isolation_level=None)
            try:
                conn.execute("PRAGMA auto_vacuum = INCREMENTAL")  # before any table
                conn.execute("CREATE TABLE _migrations (name TEXT PRIMARY KEY, applied_at REAL)")
                _apply_migrations(conn, "sqlite")
                image = bytearray(conn.serialize())
                # the header's read and write versions, 2 and 2: a file in WAL mode (sqlite.org/
                # fileformat2.html#file_format_version_numbers), so opening it needs no switch
                image[18:20] = b"\x02\x02"
                _TEMPLATE.append(bytes(image))
            finally:
                conn.close()
        return _TEMPLATE[0]


def _create_from_template(path: Path) -> bool:
    """Create `path` (mode 0600) holding the template, atomically: written and synced to a
    private file beside it, then hard-linked into place, so a process opening the same new file
    at once sees it whole or not at all (the link fails if another got there first: theirs is
    used). False, the file then created empty for the caller to migrate in place, where a
    log of an earlier database lies beside it (a `-wal` or `-journal` left by a killed process
    whose database was then moved aside: SQLite would replay it onto the template, while an
    empty file makes it discard the log) or where the file system has no hard links."""
    if any(path.with_name(path.name + end).exists() for end in ("-wal", "-journal")):
        os.close(os.open(path, os.O_CREAT | os.O_WRONLY, 0o600))
        return False
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".new")  # 0600
    try:
        with os.fdopen(fd, "wb") as out:
            out.write(_template())
            out.flush()
            os.fsync(out.fileno())  # on disk before it is the database: a power cut finds it whole
        try:
            os.link(tmp, path)
        except FileExistsError:
            pass  # another process created it first
        return True
    except OSError:
        os.close(os.open(path, os.O_CREAT | os.O_WRONLY, 0o600))
        return False
    finally:
        try:
            os.unlink(tmp)
        except OSError:
            pass


def _set_wal(conn: sqlite3.Connection, patience: float = 30.0) -> None:
    """Switch to WAL. The switch needs an exclusive lock and SQLite answers "database is locked"
    at once, without waiting, while another process opens the same new file: retry a while."""
    deadline = time.monotonic() + patience
    while True:
        try:
            conn.execute("PRAGMA journal_mode = WAL")
            return
        except sqlite3.OperationalError as exc:
            if "locked" not in str(exc) or time.monotonic() > deadline:
                raise
            time.sleep(0.01)
