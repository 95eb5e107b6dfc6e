"""Start-up benches time reflectcli as installed: `pip install` compiles every module to
bytecode, and so does a first run without PYTHONDONTWRITEBYTECODE. A checkout run with that
variable set (as on this machine) would instead compile our modules from source at every
start (~50 ms of `history`'s 0.3 s here) while the baseline's typer and rich load compiled."""

from __future__ import annotations

import compileall
import os
from pathlib import Path

import reflectcli


def compile_package() -> str:
    """Write the bytecode of the reflectcli package being timed (a no-op where it is current);
    a line saying so, for the bench's output."""
    package = Path(reflectcli.__file__).parent
    compileall.compile_dir(str(package), quiet=1)
    flag = " (PYTHONDONTWRITEBYTECODE is set here)" if os.environ.get("PYTHONDONTWRITEBYTECODE") else ""
    return f"bytecode: {package} compiled, as pip install leaves it{flag}"
