"""Start-up cost of the MCP server: `reflectcli mcp` (stdio) from spawn to its `initialize` answer,
then `tools/list` round trips, against a baseline measured in the same run: the SDK's own
smallest server (an MCPServer with one tool, over stdio: the floor any server on this SDK pays).

Raw JSON-RPC lines over the child's pipes (no client library in the timing). For each start the
child's CPU time (user + system, /proc) when it answered is recorded too: on a shared machine
the wall time is mostly waiting for a core, the CPU time is what the start costs. The starts of
the two servers are interleaved so machine noise hits both alike; medians are compared.
Targets: ready for `initialize` <= 1 s, `tools/list` <= 50 ms (the load average is printed).

Also checks, with `python -X importtime`, that the server answers `initialize` and `tools/list`
without importing litellm or langgraph (exit status 1 if it does).

    python bench/bench_mcp.py [--reps 7]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _bytecode import compile_package  # (bench/ is sys.path[0])

ROOT = Path(__file__).resolve().parent.parent
START_TARGET, LIST_TARGET = 1.0, 0.050
FORBIDDEN = ("litellm", "langgraph")
SERVER = [sys.executable, "-m", "reflectcli", "mcp"]
FLOOR_CODE = (
    "from mcp.server.mcpserver import MCPServer\n"
    "server = MCPServer('floor')\n"
    "@server.tool()\n"
    "def ping(text: str = '') -> str:\n    return text\n"
    "server.run()\n"
)
FLOOR = [sys.executable, "-c", FLOOR_CODE]
INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "bench", "version": "1"},
    },
}
TICK = os.sysconf("SC_CLK_TCK")


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICK  # utime, stime


class Child:
    """A server on pipes, spoken to one JSON-RPC line at a time."""

    def __init__(self, cmd: list[str], cwd: str, extra: list[str] = ()):
        env = {k: v for k, v in os.environ.items() if k != "PYTHONPROFILEIMPORTTIME"}
        self.started = time.perf_counter()
        self.proc = subprocess.Popen(
            [*cmd[:1], *extra, *cmd[1:]],
            cwd=cwd,
            env=env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )

    def ask(self, message: dict) -> dict:
        self.proc.stdin.write(json.dumps(message) + "\n")
        self.proc.stdin.flush()
        line = self.proc.stdout.readline()
        if not line:
            raise SystemExit(f"the server closed its output:\n{self.proc.stderr.read()[-2000:]}")
        return json.loads(line)

    def notify(self, message: dict) -> None:
        self.proc.stdin.write(json.dumps(message) + "\n")
        self.proc.stdin.flush()

    def close(self) -> str:
        self.proc.stdin.close()
        err = self.proc.stderr.read()
        self.proc.wait(30)
        return err


def start_once(cmd: list[str], cwd: str, lists: int = 0) -> tuple[float, float, list[float], int]:
    """(seconds to the initialize answer, CPU seconds by then, tools/list round trips, tools)."""
    child = Child(cmd, cwd)
    answer = child.ask(INITIALIZE)
    ready = time.perf_counter() - child.started
    cpu = cpu_seconds(child.proc.pid)
    assert "result" in answer, answer
    child.notify({"jsonrpc": "2.0", "method": "notifications/initialized"})
    rounds, count = [], 0
    for i in range(lists):
        t = time.perf_counter()
        listed = child.ask({"jsonrpc": "2.0", "id": 10 + i, "method": "tools/list"})
        rounds.append(time.perf_counter() - t)
        count = len(listed["result"]["tools"])
    child.close()
    return ready, cpu, rounds, count


def heavy_imports(cwd: str) -> list[str]:
    """The forbidden modules a server loaded by the time it answered initialize and tools/list."""
    child = Child(SERVER, cwd, extra=["-X", "importtime"])
    child.ask(INITIALIZE)
    child.notify({"jsonrpc": "2.0", "method": "notifications/initialized"})
    child.ask({"jsonrpc": "2.0", "id": 2, "method": "tools/list"})
    err = child.close()
    names = {line.split("|")[-1].strip() for line in err.splitlines() if line.startswith("import time:")}
    if "reflectcli.mcp.server" not in names:
        raise SystemExit("-X importtime output has no reflectcli.mcp.server: cannot check imports")
    return sorted(n for n in names if n.split(".")[0] in FORBIDDEN)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=7)
    args = parser.parse_args()
    print(compile_package())
    print(f"load average before: {os.getloadavg()[0]:.2f} (2 cores shared)")
    with tempfile.TemporaryDirectory() as cwd:
        start_once(SERVER, cwd), start_once(FLOOR, cwd)  # warm the page cache
        ours, floor, lists = [], [], []
        for _ in range(args.reps):
            wall, cpu, rounds, tools = start_once(SERVER, cwd, lists=20)
            ours.append((wall, cpu))
            lists += rounds
            floor.append(start_once(FLOOR, cwd)[:2])
        heavy = heavy_imports(cwd)
    load = os.getloadavg()[0]
    med = {
        name: (statistics.median(w for w, _ in rows), statistics.median(c for _, c in rows))
        for name, rows in (("reflectcli mcp", ours), ("SDK floor (1 tool)", floor))
    }
    for name, (wall, cpu) in med.items():
        print(f"{name:<20} ready for initialize: median {wall:.3f} s wall, {cpu:.3f} s CPU")
    (w_ours, c_ours), (w_floor, c_floor) = med.values()
    print(f"ratio to the SDK floor: {w_ours / w_floor:.2f} wall, {c_ours / c_floor:.2f} CPU")
    listed = statistics.median(lists)
    print(
        f"tools/list ({tools} tools): median {1000 * listed:.1f} ms, max {1000 * max(lists):.1f} ms "
        f"over {len(lists)} calls"
    )
    print(f"load average after: {load:.2f}")
    print("litellm/langgraph imported before a tool needs them: " + (", ".join(heavy) or "none"))
    ok = not heavy and listed <= LIST_TARGET
    print(
        f"targets: initialize <= {START_TARGET:g} s: {'met' if w_ours <= START_TARGET else 'MISSED'} "
        f"(wall; CPU {'within' if c_ours <= START_TARGET else 'over'}); tools/list <= "
        f"{1000 * LIST_TARGET:g} ms: {'met' if listed <= LIST_TARGET else 'MISSED'}"
    )
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
