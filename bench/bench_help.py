"""Start-up cost of the CLI: wall time of `python -m reflectcli --help` vs the floor set by its
two unavoidable imports, `python -c "import typer, rich"`, measured in the same run.

Each command is a fresh subprocess (the full interpreter start is included in both); the
repetitions of the two are interleaved so machine noise hits both alike, and medians are
compared. Target: `--help` <= 0.5 s absolute (the load average is printed with it).

Also checks, with `python -X importtime -m reflectcli --help`, that `--help` imports neither
litellm nor langgraph (exit status 1 if it does), and lists the costliest imports.

    python bench/bench_help.py [--reps 7]
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import subprocess
import sys
import time
from pathlib import Path

from _bytecode import compile_package  # (bench/ is sys.path[0])

ROOT = Path(__file__).resolve().parent.parent
TARGET_SECONDS = 0.5
FORBIDDEN = ("litellm", "langgraph")
INFO_ONLY = ("xllamacpp", "pydantic", "sqlite3")

HELP = [sys.executable, "-m", "reflectcli", "--help"]
FLOOR = [sys.executable, "-c", "import typer, rich"]
BARE = [sys.executable, "-c", "pass"]
# context only: a two-command Typer app printing its --help (Typer's rich help rendering)
TYPER_APP = (
    "import sys, typer\n"
    "app = typer.Typer(add_completion=False)\n"
    "@app.command()\n"
    "def a(x: str = 'x'):\n    pass\n"
    "@app.command()\n"
    "def b(y: int = 1):\n    pass\n"
    "sys.argv = ['app', '--help']\n"
    "app()\n"
)
MINI = [sys.executable, "-c", TYPER_APP]


def env() -> dict[str, str]:
    out = dict(os.environ)
    out.pop("PYTHONPROFILEIMPORTTIME", None)
    out["NO_COLOR"] = "1"
    return out


def timed(cmd: list[str]) -> float:
    started = time.perf_counter()
    proc = subprocess.run(cmd, cwd=ROOT, env=env(), capture_output=True, text=True)
    elapsed = time.perf_counter() - started
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} exited {proc.returncode}:\n{proc.stderr[-2000:]}")
    return elapsed


def import_times() -> dict[str, tuple[int, int]]:
    """module -> (self us, cumulative us) from one `-X importtime` run of `--help`."""
    cmd = [sys.executable, "-X", "importtime", "-m", "reflectcli", "--help"]
    proc = subprocess.run(cmd, cwd=ROOT, env=env(), capture_output=True, text=True)
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} exited {proc.returncode}:\n{proc.stderr[-2000:]}")
    line = re.compile(r"^import time:\s+(\d+) \|\s+(\d+) \|(\s*)(\S+)")
    out: dict[str, tuple[int, int]] = {}
    for text in proc.stderr.splitlines():
        match = line.match(text)
        if match:
            out[match[4]] = (int(match[1]), int(match[2]))
    if "reflectcli.cli" not in out:
        raise SystemExit("-X importtime output has no reflectcli.cli: cannot check imports")
    return out


def top_level(name: str) -> str:
    return name.split(".", 1)[0]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=7, help="timed repetitions of each")
    args = parser.parse_args()

    print(compile_package())
    commands = {"help": HELP, "floor": FLOOR, "mini": MINI, "bare": BARE}
    for cmd in commands.values():  # warm the OS file cache and .pyc files
        timed(cmd)
    times: dict[str, list[float]] = {name: [] for name in commands}
    for _ in range(args.reps):
        for name, cmd in commands.items():
            times[name].append(timed(cmd))
    med = {k: statistics.median(v) for k, v in times.items()}

    print(f"CLI start-up, median of {args.reps} interleaved subprocess runs")
    print(f"  python -m reflectcli --help        {med['help'] * 1000:8.1f} ms")
    print(f'  python -c "import typer, rich"     {med["floor"] * 1000:8.1f} ms')
    print(f"  (context) minimal Typer app --help {med['mini'] * 1000:8.1f} ms")
    print(f'  (context) python -c "pass"         {med["bare"] * 1000:8.1f} ms')
    ratio = med["help"] / med["floor"]
    beyond = (med["help"] - med["floor"]) * 1000
    print(f"  ratio --help / import typer, rich  {ratio:8.2f}x  ({beyond:+.1f} ms)")
    verdict = "OK" if med["help"] <= TARGET_SECONDS else "ABOVE TARGET"
    print(
        f"target: --help <= {TARGET_SECONDS:g} s: {med['help']:.3f} s {verdict} "
        f"(load average {os.getloadavg()[0]:.1f})"
    )

    runs = [import_times() for _ in range(3)]
    tops = {top_level(m) for modules in runs for m in modules}
    cumulative = {m: statistics.median(r[m][1] for r in runs if m in r) for m in runs[0]}
    print()
    print("python -X importtime -m reflectcli --help (3 runs):")
    failed = False
    for name in FORBIDDEN:
        hit = name in tops
        failed |= hit
        print(f"  {'FAIL' if hit else 'PASS'}: {name} {'IS' if hit else 'is not'} imported")
    for name in INFO_ONLY:
        print(f"  info: {name} {'is' if name in tops else 'is not'} imported")
    roots = sorted(((cum, m) for m, cum in cumulative.items() if "." not in m), reverse=True)[:6]
    listed = ", ".join(f"{m} {cum / 1000:.0f} ms" for cum, m in roots)
    print(f"  costliest top-level imports (cumulative, median): {listed}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
