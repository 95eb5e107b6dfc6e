"""Proof that cannot flatter (issue 26): an independent judge, length-controlled win rates,
the judge's cost in gain per dollar, metrics without a model, and judging against another
system's published articles."""

from __future__ import annotations

import pytest

from reflectcli.errors import UserError
from reflectcli.eval.run import independence, shared_roles
from tests.helpers import settings


def test_the_judge_must_differ_from_writer_and_critic_by_model_and_server(runs_dir):
    mine = settings(runs_dir, model="openai/w", critic_model="openai/c", api_base="http://127.0.0.1:1/v1")
    assert shared_roles("openai/w", None, mine) == ["writer"]  # reached where the writer is
    assert shared_roles("openai/c", None, mine) == ["critic"]
    assert shared_roles("openai/w", "http://127.0.0.1:2/v1", mine) == []  # another server
    assert shared_roles("openai/j", None, mine) == []
    alone = settings(runs_dir, model="openai/w")
    assert shared_roles("openai/w", None, alone) == ["writer", "critic"]
    with pytest.raises(UserError) as err:
        independence("openai/w", None, [settings(runs_dir, model="openai/x"), alone], allowed=False)
    assert err.value.exit_code == 2 and "also the writer and the critic" in err.value.message
    assert "--judge-same" in err.value.hint and "\n" not in err.value.message + err.value.hint
    assert independence("openai/w", None, [alone], allowed=True) == {
        "shared": ["writer", "critic"], "judge_same": True}  # fmt: skip
    assert independence("openai/j", None, [alone], allowed=False)["judge_same"] is False
