"""Bring your own draft, killed: `write --from`, `review` and `revise` (after an `edit`), each
SIGKILLed once where a paid answer is journaled but not checkpointed, then resumed: no completed
request is sent again, version 1 stays the file byte for byte, a `--keep` section stays
byte-identical in every version, and the person's edit is the base of the next revision.
Real processes against the scripted OpenAI-compatible server on 127.0.0.1."""

from __future__ import annotations

import signal
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from typer.testing import CliRunner

from reflectcli.cli.app import app
from reflectcli.models.fake import TITLES
from reflectcli.writing.textops import section_bodies
from tests.crashkit import (
    MODEL,
    Child,
    Kill,
    KillScript,
    integrity,
    kill_at,
    resent_after_completion,
    run_state,
)
from tests.openai_server import OpenAIServer, loopback_fixture

DRAFT = f"""# Notes on revising

Some words before the first section, with a footnote.[^1]

## {TITLES[0]}

A first draft records what the writer thought on one day.

```python
# {TITLES[1]}
def revise(text):  # a comment that looks like a heading above
    return text
```

The code above is not a heading.

## {TITLES[1]}

| draft | words |
|-------|------:|
| first | 1,200 |
| third |   900 |

* a list item
  continued

{TITLES[2]}
{"-" * len(TITLES[2])}

A setext heading, and odd Markdown, stay as they are.

[^1]: A footnote's text.
"""
MINE = "Toni Morrison rewrote the ending of Beloved many times."


@pytest.fixture(autouse=True)
def offline_env(monkeypatch):
    loopback_fixture(monkeypatch, REFLECTCLI_BACKOFF="0")


def killed_then_resumed(work: Path, name: str, args: list[str], point: str, script: KillScript,
                        thread: str) -> None:  # fmt: skip
    child, code = kill_at(work, name, args, script, Kill(point, signal.SIGKILL))
    assert code == -signal.SIGKILL, child.describe()
    assert integrity(work / "runs" / "reflect.db") == "ok"
    final = Child(work, f"{name}-resume", ["resume", thread, "--runs-dir", "runs"])
    assert final.finish() == 0, final.describe()
    assert "replayed from the journal" in " ".join(final.stdout.split()), final.describe()


def own_draft_chain(work: Path) -> None:
    """write --from (killed after the review's answer), edit, revise (killed after the
    revision's answer)."""
    script = KillScript((6.0, 9.5), 3)
    (work / "mine.md").write_text(DRAFT, encoding="utf-8")
    with OpenAIServer(reply=script) as server:
        args = ["write", "--from", "mine.md", "--keep", TITLES[2], "--model", MODEL, "--api-base",
                server.base_url, "--runs-dir", "runs", "--thread-id", "own", "--threshold", "9"]  # fmt: skip
        killed_then_resumed(work, "own", args, "journal:review:r1", script, "own")
        state = run_state(work / "runs" / "reflect.db", "own")
        assert state["status"] == "finished" and state["versions"][0]["text"] == DRAFT
        edited = state["versions"][-1]["text"].replace(
            "A first draft records", f"{MINE} A first draft records"
        )  # fmt: skip
        (work / "edited.md").write_text(edited, encoding="utf-8")
        result = CliRunner().invoke(app, ["edit", "own", "--file", str(work / "edited.md"), "--runs-dir",
                                          str(work / "runs")])  # fmt: skip
        assert result.exit_code == 0, result.output
        args = ["revise", "own", "Name the year.", "--section", TITLES[1], "--runs-dir", "runs"]
        killed_then_resumed(work, "steer", args, "journal:revise:r4:s2", script, "own")
        assert resent_after_completion(server) == {}, "a completed request was sent again"
        steps = [":".join(r.step.split(":")[:2]) for r in server.completed]  # the server names no section
    # your edit is reviewed first (so that the revision of it is compared with something)
    assert steps == ["review:r1", "revise:r2", "review:r2", "review:r3", "revise:r4", "review:r4"], steps
    state = run_state(work / "runs" / "reflect.db", "own")
    kept = section_bodies(DRAFT, list(TITLES))[2]
    assert all(section_bodies(v["text"], list(TITLES))[2] == kept for v in state["versions"])
    mine = next(v for v in state["versions"] if v["kind"] == "edit")
    last = state["versions"][-1]
    assert last["base"] == mine["n"] and MINE in last["text"]  # revised from the person's edit
    assert [r["version"] for r in state["reviews"]][-2:] == [mine["n"], last["n"]]
    assert state["critiques"]["h1"]["applied_in"] == 4 and state["status"] == "finished"


def review_chain(work: Path) -> None:
    script = KillScript((7.0,), 3)
    (work / "mine.md").write_text(DRAFT, encoding="utf-8")
    with OpenAIServer(reply=script) as server:
        args = ["review", "mine.md", "--model", MODEL, "--api-base", server.base_url, "--runs-dir", "runs",
                "--thread-id", "rev"]  # fmt: skip
        killed_then_resumed(work, "rev", args, "journal:review:r1", script, "rev")
        assert [r.step for r in server.completed] == ["review:r1"]
    state = run_state(work / "runs" / "reflect.db", "rev")
    assert state["status"] == "finished" and len(state["reviews"]) == 1
    assert state["versions"] == [{"n": 1, "round": 0, "kind": "file", "text": DRAFT}]


@pytest.mark.slow
def test_your_draft_killed_and_resumed_pays_for_nothing_twice(tmp_path):
    for name in ("own", "rev"):
        (tmp_path / name).mkdir()
    with ThreadPoolExecutor(2) as pool:
        jobs = [pool.submit(own_draft_chain, tmp_path / "own"), pool.submit(review_chain, tmp_path / "rev")]
        for job in jobs:
            job.result()
