"""A throwaway PostgreSQL server for the tests and benchmarks: `initdb` in a temp folder,
listening on 127.0.0.1 only (and a socket in that folder), removed at the end.

The server binaries come from the system (Debian: `apt-get install postgresql`; `.ci/run`
installs them when missing), else from the `pgserver` wheel the test extra installs, so a fresh
machine with Python and pip alone runs these tests too. As root, the server runs as the
`postgres` user (PostgreSQL refuses to run as root).
"""

from __future__ import annotations

import glob
import os
import shutil
import socket
import subprocess
import tempfile
import time
import uuid
from pathlib import Path


def bindir() -> Path | None:
    """The server binaries: REFLECTCLI_TEST_PG_BINDIR, else the system's, else the wheel's."""
    if os.environ.get("REFLECTCLI_TEST_PG_BINDIR"):
        return Path(os.environ["REFLECTCLI_TEST_PG_BINDIR"])
    for candidate in sorted(glob.glob("/usr/lib/postgresql/*/bin"), reverse=True):
        if Path(candidate, "initdb").exists():
            return Path(candidate)
    found = shutil.which("initdb")
    if found:
        return Path(found).resolve().parent
    try:
        import pgserver  # binaries in a wheel: PostgreSQL 16
    except ImportError:
        return None
    bundled = Path(pgserver.__file__).parent / "pginstall" / "bin"
    return bundled if (bundled / "initdb").exists() else None


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class PgServer:
    """`with PgServer() as pg: pg.new_database()` gives a fresh postgresql:// URL."""

    def __init__(self, max_connections: int = 300):
        self.bin = bindir()
        if self.bin is None:
            raise RuntimeError("PostgreSQL server binaries not found: apt-get install postgresql")
        self.max_connections = max_connections
        self.port = _free_port()
        self.root = Path(tempfile.mkdtemp(prefix="reflectcli-pg-"))
        self.data = self.root / "data"
        self.user = "reflect"
        self.as_user: list[str] = []
        if os.geteuid() == 0:
            shutil.chown(self.root, "postgres")
            self.as_user = ["runuser", "-u", "postgres", "--"]
            if not str(self.bin).startswith("/usr/"):  # a wheel under /root: postgres cannot read it
                site = self.bin.parents[2]  # the binaries find their libraries in ../../../pgserver.libs
                for part in ("pgserver/pginstall", "pgserver.libs"):
                    shutil.copytree(site / part, self.root / "site" / part, symlinks=True)
                self.bin = self.root / "site" / "pgserver" / "pginstall" / "bin"

    def _run(self, *args: str) -> None:
        subprocess.run([*self.as_user, *args], check=True, capture_output=True, timeout=120)

    def start(self) -> PgServer:
        self._run(str(self.bin / "initdb"), "-D", str(self.data), "-A", "trust", "-U", self.user,
                  "--no-sync", "-E", "UTF8", "--locale=C.UTF-8")  # fmt: skip
        self._pg_ctl_start()
        return self

    def _pg_ctl_start(self) -> None:
        options = (f"-c listen_addresses=127.0.0.1 -p {self.port} -k {self.root} -c fsync=off "
                   f"-c synchronous_commit=off -c full_page_writes=off "
                   f"-c max_connections={self.max_connections}")  # fmt: skip
        self._run(str(self.bin / "pg_ctl"), "-D", str(self.data), "-o", options,
                  "-l", str(self.root / "log"), "-w", "-t", "60", "start")  # fmt: skip

    def url(self, database: str = "postgres") -> str:
        return f"postgresql://{self.user}@127.0.0.1:{self.port}/{database}"

    def new_database(self) -> str:
        import psycopg

        name = "t_" + uuid.uuid4().hex[:12]
        with psycopg.connect(self.url(), autocommit=True) as conn:
            conn.execute(f"CREATE DATABASE {name}")
        return self.url(name)

    def terminate_connections(self, database: str) -> int:
        """Cut every client connection to `database` (a lost connection, as clients see it)."""
        import psycopg

        with psycopg.connect(self.url(), autocommit=True) as conn:
            rows = conn.execute(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                "WHERE datname = %s AND pid <> pg_backend_pid()", (database,)
            ).fetchall()  # fmt: skip
        return len(rows)

    def stop(self) -> None:
        try:
            self._run(str(self.bin / "pg_ctl"), "-D", str(self.data), "-m", "immediate", "-w", "stop")
        except (subprocess.CalledProcessError, subprocess.TimeoutExpired):
            pass
        time.sleep(0.1)
        shutil.rmtree(self.root, ignore_errors=True)

    def __enter__(self) -> PgServer:
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()


class PgBouncer:
    """PgBouncer in transaction mode in front of `server` (127.0.0.1 only): what a team puts
    between many workers and one PostgreSQL. Needs the `pgbouncer` binary (Debian package)."""

    def __init__(self, server: PgServer):
        system = "/usr/sbin/pgbouncer"
        self.binary = shutil.which("pgbouncer") or (system if Path(system).exists() else None)
        if self.binary is None:
            raise RuntimeError("pgbouncer not installed (apt-get install pgbouncer)")
        self.server = server
        self.port = _free_port()
        self.root = Path(tempfile.mkdtemp(prefix="reflectcli-pgbouncer-"))
        (self.root / "users.txt").write_text(f'"{server.user}" ""\n')
        (self.root / "pgbouncer.ini").write_text(
            "[databases]\n"
            f"* = host=127.0.0.1 port={server.port}\n"
            "[pgbouncer]\n"
            f"listen_addr = 127.0.0.1\nlisten_port = {self.port}\nunix_socket_dir =\n"
            f"auth_type = trust\nauth_file = {self.root / 'users.txt'}\n"
            "pool_mode = transaction\nmax_client_conn = 500\ndefault_pool_size = 20\n"
            "ignore_startup_parameters = extra_float_digits,options\n"
            f"logfile = {self.root / 'log'}\npidfile = {self.root / 'pid'}\n"
        )  # fmt: skip
        self.as_user: list[str] = []
        if os.geteuid() == 0:  # pgbouncer refuses to run as root
            shutil.chown(self.root, "postgres")
            for name in ("users.txt", "pgbouncer.ini"):
                shutil.chown(self.root / name, "postgres")
            self.as_user = ["runuser", "-u", "postgres", "--"]
        self.proc: subprocess.Popen | None = None

    def start(self) -> PgBouncer:
        self.proc = subprocess.Popen([*self.as_user, self.binary, str(self.root / "pgbouncer.ini")],
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)  # fmt: skip
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            with socket.socket() as s:
                if s.connect_ex(("127.0.0.1", self.port)) == 0:
                    return self
            time.sleep(0.05)
        raise RuntimeError(
            f"pgbouncer did not start: {(self.root / 'log').read_text(errors='replace')[-500:]}"
        )

    def url(self, database: str) -> str:
        return f"postgresql://{self.server.user}@127.0.0.1:{self.port}/{database}"

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
        shutil.rmtree(self.root, ignore_errors=True)
