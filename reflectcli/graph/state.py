"""The run state. JSON types only (str, int, float, bool, None, list, dict): checkpoints stay
portable and LangGraph's strict serializer never needs pickle. Lists that grow use an append
reducer so nodes return only what they add.
"""

from __future__ import annotations

from typing import Annotated, Any, TypedDict


def append(left: list | None, right: list | None) -> list:
    return [*(left or []), *(right or [])]


class RunState(TypedDict, total=False):
    task: str
    params: dict[str, Any]  # threshold, max_rounds, max_sections, language, models
    outline: dict[str, Any] | None  # {"sections": [{"title", "goal"}], "source", "errors"}
    sections: Annotated[list[str], append]  # drafted section bodies, in outline order
    versions: Annotated[list[dict[str, Any]], append]  # {"n", "round", "kind", "text"}
    reviews: Annotated[list[dict[str, Any]], append]  # Review + round, version, source
    decisions: Annotated[list[dict[str, Any]], append]  # {round, decision, reason, ...}
    trace: Annotated[list[dict[str, Any]], append]  # one event per model call or guard
    status: str  # running | finished
    stop_reason: str | None
    final_version: int | None
    plans: int  # outlines asked for (a regenerated outline is the 2nd)
    critiques: dict[str, dict[str, Any]]  # improvement id -> item with status open|addressed
    revision: dict[str, Any] | None  # a section-by-section revision in progress
    rejected: int | None  # the round whose revision made no version (every rewrite guarded)
    extra_rounds: int  # rounds granted by a human past max_rounds
    known_issues: list[dict[str, Any]]  # open improvements of the output, when it did not pass
    accepted: bool | None  # the human's answer at the stop gate
    evidence: Annotated[list[dict[str, Any]], append]  # passages [S1]... found by research
    research: dict[str, Any] | None  # {"plan": n, "sections": [[ids] per section researched]}
    lessons: list[dict[str, Any]]  # recalled at the start: [{"id", "text", "score"}]
    learned: dict[str, Any] | None  # what the learning step stored (lesson ids)
    locked: list[int]  # sections no revision may touch (`write --from FILE --keep TITLE`)
    references: list[dict[str, Any]]  # an outside article's reference list, resolved (`review`)
    labels: list[str]  # the labels that list defines (`3`, `^3`): its citations' own form
    steering: dict[str, Any] | None  # the writer's strikes and additions for a round (graph/pick.py)
    pick: dict[str, Any] | None  # a revision's proposed changes and the writer's answers so far
    questions: list[dict[str, Any]]  # `reflectcli ask`: each question, its answer and verdicts


def initial_state(task: str, params: dict[str, Any], lessons: list[dict[str, Any]] | None = None) -> RunState:
    return RunState(
        task=task,
        params=params,
        lessons=list(lessons or []),
        outline=None,
        status="running",
        stop_reason=None,
        final_version=None,
    )
