"""`python bench/_record_prompts.py OUT.jsonl <reflectcli arguments>`: runs the reflectcli CLI as
`python -m reflectcli` would, with every model call's messages (as sent) and answer appended to
OUT.jsonl, one JSON object a line: {"step", "messages", "text", "replayed"}. The recording sits at
the journal's client (models/journal.py), which every call of a run goes through; nothing else
changes. For benches that check an article against the prompts that were actually sent."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from reflectcli.models import journal  # the installed package (with --fresh-venv, the new venv's)

OUT = Path(sys.argv.pop(1))
_complete = journal.JournaledClient.complete


def complete(self, messages, **kwargs):
    done = _complete(self, messages, **kwargs)
    with OUT.open("a", encoding="utf-8") as f:
        f.write(json.dumps({"step": kwargs.get("step"), "messages": messages, "text": done.text,
                            "replayed": done.replayed}, ensure_ascii=False) + "\n")  # fmt: skip
    return done


journal.JournaledClient.complete = complete

if __name__ == "__main__":
    from reflectcli.cli.app import main

    sys.argv[0] = "reflectcli"
    main()
