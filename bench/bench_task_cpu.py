"""Where a batch task's CPU goes: the bench_batch task (a run of 7 calls: plan, 3 drafts,
review, revise, review) through `Runner.write`, in this process, against the scripted
OpenAI-compatible server (tests/openai_server.py; its answers need no wait here), into SQLite
or a throwaway PostgreSQL (tests/pgserver.py). Prints the CPU seconds per task (this process,
the server's threads left out: their CPU is measured apart and subtracted) and, with
`--profile`, a cProfile of the tasks, sorted by own time and by cumulative time.

Target (issue 36): <= 0.15 s of CPU per task. Warm-up runs first (imports, the price map,
connections), so the figure is what one more task costs a live worker.

    python bench/bench_task_cpu.py [--tasks 10] [--store sqlite|postgres] [--profile] [--top 30]
"""

from __future__ import annotations

import argparse
import cProfile
import io
import os
import pstats
import resource
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tests.crashkit import KillScript  # noqa: E402
from tests.openai_server import OpenAIServer  # noqa: E402

MODEL = "openai/test-model"


def process_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


class Server:
    """The scripted server, with the CPU its handler threads spend counted (each request's
    handler thread measures its own thread_time)."""

    def __init__(self):
        self.script = KillScript((6.0, 9.5), 3)
        self.cpu = 0.0
        self.lock = threading.Lock()
        self.server = OpenAIServer(reply=self.script)

    def __enter__(self):
        import tests.openai_server as module

        handle = module._Handler.do_POST  # wrap: the CPU of each handler thread, counted apart
        owner = self

        def timed(handler):
            start = time.thread_time()
            try:
                return handle(handler)
            finally:
                with owner.lock:
                    owner.cpu += time.thread_time() - start

        module._Handler.do_POST = timed
        self._restore = lambda: setattr(module._Handler, "do_POST", handle)
        self.server.start()
        return self

    def __exit__(self, *exc):
        self.server.stop()
        self._restore()


def count_statements(seen: dict[str, int]) -> None:
    """Count every statement sent to the store, ours (sqlite3 / our PostgreSQL wrapper) and
    LangGraph's savers' (psycopg cursors), by its first words."""
    import sqlite3

    import psycopg

    def note(sql) -> None:
        key = " ".join(str(sql).split())[:70]
        seen[key] = seen.get(key, 0) + 1

    real = psycopg.Cursor.execute

    def execute(self, query, *a, **k):
        note(query if isinstance(query, str) else getattr(query, "as_string", lambda c: str(query))(self))
        return real(self, query, *a, **k)

    psycopg.Cursor.execute = execute
    many = psycopg.Cursor.executemany

    def executemany(self, query, rows, *a, **k):
        note(query)
        return many(self, query, rows, *a, **k)

    psycopg.Cursor.executemany = executemany
    del sqlite3  # (SQLite's connection methods cannot be wrapped: read its numbers with --profile)


def run_tasks(server: Server, n: int, runs: str, prefix: str, settings_for) -> None:
    from reflectcli.batch.execute import quiet_ui
    from reflectcli.runner import Runner

    for i in range(n):
        Runner(quiet_ui(), own_signals=False).write(f"Why do writers revise, case {i}?", settings_for(runs),
                                                     f"{prefix}-{i}")  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)  # fmt: skip
    parser.add_argument("--tasks", type=int, default=10)
    parser.add_argument("--warmup", type=int, default=2)
    parser.add_argument("--store", choices=("sqlite", "postgres"), default="sqlite")
    parser.add_argument("--profile", action="store_true")
    parser.add_argument(
        "--transport",
        choices=("auto", "litellm"),
        default="auto",
        help="litellm: the calls through litellm (the path before issue 36), for a baseline",
    )
    parser.add_argument("--top", type=int, default=30)
    parser.add_argument("--statements", action="store_true", help="count the SQL statements a task sends")
    args = parser.parse_args()
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    os.environ.setdefault("OPENAI_API_KEY", "sk-test")
    pg = None
    if args.store == "postgres":
        from tests.pgserver import PgServer

        pg = PgServer().__enter__()
        os.environ["REFLECTCLI_STORE"] = pg.new_database()
        from reflectcli.store.pg import keep_pools

        keep_pools()  # as a worker process does: one pool for the process's life
    from reflectcli.config import load_settings

    with Server() as server:
        base = server.server.base_url

        def settings_for(runs: str):
            return load_settings(flags={"model": MODEL, "api_base": base, "runs_dir": runs, "threshold": 9,
                                        "max_rounds": 2, "memory": {"enabled": True},
                                        "transport": args.transport})  # fmt: skip

        runs = tempfile.mkdtemp(prefix="bench-task-cpu-")
        run_tasks(server, args.warmup, runs, "warm", settings_for)
        seen: dict[str, int] = {}
        if args.statements:
            count_statements(seen)
        profiler = cProfile.Profile() if args.profile else None
        before, served, calls = process_cpu(), server.cpu, server.server.count
        wall = time.perf_counter()
        if profiler:
            profiler.enable()
        run_tasks(server, args.tasks, runs, "t", settings_for)
        if profiler:
            profiler.disable()
        wall = time.perf_counter() - wall
        used = process_cpu() - before - (server.cpu - served)
        calls = server.server.count - calls
    load = open("/proc/loadavg").read().split()[0]
    per = used / args.tasks
    print(
        f"{args.tasks} tasks ({calls} calls, transport {args.transport}) into {args.store}: {used:.2f} s CPU "
        f"= {per:.3f} s a task (the server's threads left out), {wall / args.tasks:.3f} s wall a task; "
        f"load average {load}"
    )
    print("  target <= 0.15 s a task: " + ("met" if per <= 0.15 else "ABOVE TARGET"))
    if seen:
        total = sum(seen.values())
        print(f"  {total / args.tasks:.0f} SQL statements a task; the most sent:")
        for sql, n in sorted(seen.items(), key=lambda x: -x[1])[:25]:
            print(f"    {n / args.tasks:6.1f}  {sql}")
    if profiler:
        for key in ("tottime", "cumulative"):
            out = io.StringIO()
            pstats.Stats(profiler, stream=out).sort_stats(key).print_stats(args.top)
            print(out.getvalue()[-12000:])
    if pg is not None:
        pg.__exit__(None, None, None)


if __name__ == "__main__":
    main()
