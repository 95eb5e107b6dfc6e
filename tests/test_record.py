"""The runner's per-step bookkeeping: one summary of the state per step, handed to the index row,
the artifact and the result; the artifact written at most once per step."""

from __future__ import annotations

from reflectcli.output import artifacts, summary
from reflectcli.runner import Runner
from tests.helpers import quiet_ui, settings


class Counting:
    def __init__(self, fn):
        self.fn, self.calls = fn, 0

    def __call__(self, *args, **kwargs):
        self.calls += 1
        return self.fn(*args, **kwargs)


class StepsUI:
    """The quiet renderer, counting the steps the runner streams."""

    def __init__(self):
        self.inner, self.steps = quiet_ui(), 0

    def node_done(self, *args):
        self.steps += 1
        return self.inner.node_done(*args)

    def __getattr__(self, name):
        return getattr(self.inner, name)


def test_one_summary_and_at_most_one_artifact_write_per_step(scripted, runs_dir, monkeypatch):
    scripted.responder.scores = [6.0, 9.0]  # plan, 3 drafts, review, decide, revise, review, ...
    import reflectcli.recorder as runner_module

    summarize = Counting(summary.summarize)
    monkeypatch.setattr(runner_module, "summarize", summarize)
    in_artifact = Counting(summary.summarize)
    monkeypatch.setattr(artifacts, "summarize", in_artifact)
    writes = Counting(artifacts.write_private)
    monkeypatch.setattr(artifacts, "write_private", writes)
    ui = StepsUI()
    result = Runner(ui).write("Why do writers revise?", settings(runs_dir, threshold=8))
    assert result.state["status"] == "finished" and ui.steps >= 10
    assert summarize.calls == ui.steps  # one per step; the result reuses the last one
    assert in_artifact.calls == 0  # the artifact is rendered from the runner's summary
    assert writes.calls <= ui.steps  # the end of the run does not write the same text again
    assert result.summary == summary.summarize(result.state)
    text = result.artifact.read_text()
    assert "## Final article" in text and "- status: finished" in text


def stopping_after(steps: int) -> Runner:
    """A runner that stops (as Ctrl-C would, between steps) after `steps` graph steps."""
    runner = Runner(quiet_ui())
    done = {"n": 0}

    def should_stop() -> bool:
        done["n"] += 1
        return done["n"] >= steps

    runner.should_stop = should_stop
    return runner


def test_an_interrupted_run_still_says_so_in_its_artifact(scripted, runs_dir):
    """The record at the end rewrites the artifact when only the process's status changed."""
    import pytest

    from reflectcli.errors import RunInterrupted

    runner = stopping_after(2)
    with pytest.raises(RunInterrupted):
        runner.write("Why do writers revise?", settings(runs_dir, threshold=8), thread_id="stop")
    assert "- status: interrupted" in (runs_dir / "stop.md").read_text()


def test_steps_in_a_burst_share_an_artifact_write_and_the_end_always_writes(scripted, runs_dir, monkeypatch):
    """Steps closer together than ARTIFACT_EVERY leave the artifact to a later step: with the
    interval far longer than the run, the first step and the finished state are written, and
    the index row and snapshot still follow every step."""
    import reflectcli.recorder as runner_module

    monkeypatch.setattr(runner_module, "ARTIFACT_EVERY", 3600.0)
    scripted.responder.scores = [6.0, 9.0]
    writes = Counting(artifacts.write_private)
    monkeypatch.setattr(artifacts, "write_private", writes)
    saved = []
    from reflectcli.store.db import Store

    real = Store.save_state
    monkeypatch.setattr(Store, "save_state", lambda self, t, st: (saved.append(t), real(self, t, st))[1])
    ui = StepsUI()
    result = Runner(ui).write("Why do writers revise?", settings(runs_dir, threshold=8))
    assert result.state["status"] == "finished" and ui.steps >= 10
    assert writes.calls == 2  # the first step, then the finished run (the end's text is the same)
    assert len(saved) >= ui.steps  # the snapshot is not coalesced
    text = result.artifact.read_text()
    assert "## Final article" in text and "- status: finished" in text


def test_an_interrupted_run_in_a_burst_still_writes_its_last_state(scripted, runs_dir, monkeypatch):
    import pytest

    import reflectcli.recorder as runner_module
    from reflectcli.errors import RunInterrupted

    monkeypatch.setattr(runner_module, "ARTIFACT_EVERY", 3600.0)
    runner = stopping_after(3)
    with pytest.raises(RunInterrupted):
        runner.write("Why do writers revise?", settings(runs_dir, threshold=8), thread_id="burst")
    text = (runs_dir / "burst.md").read_text()
    assert "- status: interrupted" in text and "draft" in text.split("## Trace")[-1].lower()
