"""How soon a remote `write` sends its first request: from the command's start to the plan
request's arrival at the scripted OpenAI-compatible server (tests/openai_server.py, 127.0.0.1),
in wall seconds and in the CPU seconds the command had used by then (its /proc stat, all its
threads, read the moment the request arrives). Target (issue 36): <= 1 s on an idle core.

CPU seconds are the measure on a shared machine (wall time there includes waiting for a core);
the load average is printed beside them. Floors measured in the same run, interleaved: `python
-c pass`, and a script that imports httpx and sends the same kind of request.

    python bench/bench_first_call.py [--reps 5] [--model openai/test-model] [--importtime]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench._bytecode import compile_package  # noqa: E402
from tests.crashkit import child_env  # noqa: E402
from tests.openai_server import OpenAIServer, answer  # noqa: E402

TICK = os.sysconf("SC_CLK_TCK")
FLOOR = """
import sys, httpx
httpx.post(sys.argv[1] + "/chat/completions", json={"model": "m", "stream": True,
           "messages": [{"role": "user", "content": "Plan an article"}]}, timeout=30)
"""


def cpu_of(pid: int) -> float:
    """User + system CPU seconds of a live process, all its threads."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return float("nan")
    return (int(fields[11]) + int(fields[12])) / TICK


def load() -> str:
    return open("/proc/loadavg").read().split()[0]


class FirstRequest:
    """A scripted server that notes, for the process being timed, when its first request came
    and how much CPU it had used by then; the process is then let go (answers `ok`)."""

    def __init__(self):
        self.pid: int | None = None
        self.arrived = threading.Event()
        self.at = self.cpu = 0.0
        self.server = OpenAIServer(reply=lambda body: answer("ok"), on_request=self._seen)

    def _seen(self, record) -> None:
        if self.pid is not None and not self.arrived.is_set():
            self.cpu = cpu_of(self.pid)
            self.at = time.perf_counter()
            self.arrived.set()

    def time(self, cmd: list[str], env: dict, cwd: Path) -> tuple[float, float]:
        self.arrived.clear()
        started = time.perf_counter()
        proc = subprocess.Popen(cmd, env=env, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        self.pid = proc.pid
        if not self.arrived.wait(120):
            proc.kill()
            raise SystemExit(f"no request from {' '.join(cmd[:4])}: {proc.stderr.read().decode()[-2000:]}")
        proc.kill()
        proc.wait()
        return self.at - started, self.cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)  # fmt: skip
    parser.add_argument("--reps", type=int, default=5)
    parser.add_argument("--model", default="openai/test-model")
    parser.add_argument("--importtime", action="store_true", help="also list the costliest imports")
    args = parser.parse_args()
    print(compile_package())
    work = Path(tempfile.mkdtemp(prefix="bench-first-call-"))
    env = child_env(work)
    timer = FirstRequest()
    rows: dict[str, list[tuple[float, float]]] = {"reflectcli write": [], "httpx floor": []}
    with timer.server as server:
        base = server.base_url
        write = [sys.executable, "-m", "reflectcli", "write", "Why do writers revise?", "--model", args.model,
                 "--api-base", base, "--runs-dir", str(work / "runs"), "--max-rounds", "1"]  # fmt: skip
        floor = [sys.executable, "-c", FLOOR, base]
        loads = [load()]
        for _ in range(args.reps):
            rows["reflectcli write"].append(timer.time(write, env, work))
            rows["httpx floor"].append(timer.time(floor, env, work))
            loads.append(load())
    print(
        f"first request of a remote write ({args.model} at {base}), {args.reps} runs, "
        f"load average {' '.join(loads)}"
    )
    for name, got in rows.items():
        wall = statistics.median(w for w, _ in got)
        cpu = statistics.median(c for _, c in got)
        each = ", ".join(f"{c:.2f}" for _, c in got)
        print(f"  {name:18s} wall {wall:5.2f} s   CPU {cpu:5.2f} s (each: {each})")
    cpu = statistics.median(c for _, c in rows["reflectcli write"])
    print("  target <= 1 s of CPU before the first request: " + ("met" if cpu <= 1.0 else "ABOVE TARGET"))
    if args.importtime:
        proc = subprocess.run([*write[:1], "-X", "importtime", *write[1:]], env=env, cwd=work,
                              capture_output=True, text=True, timeout=120)  # fmt: skip
        lines = [x for x in proc.stderr.splitlines() if x.startswith("import time:") and "|" in x]
        parsed = []
        for line in lines[1:]:
            _, cumulative, name = line.split("|")
            parsed.append((int(cumulative), name.rstrip()))
        top = [p for p in parsed if not p[1].startswith("    ")]
        print("  top-level imports of the whole run (cumulative µs):")
        for us, name in sorted(top, reverse=True)[:15]:
            print(f"    {us / 1000:8.1f} ms {name.strip()}")


if __name__ == "__main__":
    main()
