"""`python tests/crash_child.py ARGS` = `reflectcli ARGS`, stopping at one named point so that a
test can kill the process exactly there.

CRASH_PAUSE names the point (see tests/crashkit.py: `journal:<step>` or `checkpoint:<S>`);
CRASH_MARKER is the file written when it is reached. CRASH_START_AT (a time.time() value) makes
it wait, imports done, until then: several children started together then open the database in
the same few milliseconds. CRASH_HOST names the host this process claims runs as (two processes
of one machine then stand for two machines, whose pids cannot see each other). Nothing else
differs from
`python -m reflectcli`: same CLI, same litellm, same database code.
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

sys.path.append(str(Path(__file__).absolute().parent.parent))  # `tests.*`, after PYTHONPATH

from tests.crashkit import pause_at  # noqa: E402

if os.environ.get("CRASH_PAUSE"):
    pause_at(os.environ["CRASH_PAUSE"], Path(os.environ["CRASH_MARKER"]))

from reflectcli.cli.app import main  # noqa: E402

if os.environ.get("CRASH_HOST"):
    import reflectcli.store.claims  # noqa: E402

    reflectcli.store.claims.HOST = os.environ["CRASH_HOST"]  # the host a claim is made from

if os.environ.get("CRASH_START_AT"):
    import reflectcli.runner  # noqa: E402,F401  (what `write` imports before opening the db)

    time.sleep(max(0.0, float(os.environ["CRASH_START_AT"]) - time.time()))

sys.argv[0] = "reflectcli"
main()
