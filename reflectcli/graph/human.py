"""A person's own critique of a finished run (`reflectcli revise ID "feedback"`).

The critique becomes a tracked improvement (`h1`, `h2`, ...; `by: human`), the run is granted at
most N more rounds, and the graph is resumed as if the stop gate had been answered "one more
round": the next revision applies the person's items (and only them), the critic then reviews
as usual, and the controller decides with the granted rounds. The state change is computed
here, as one pure function; the runner writes it to the checkpoint (`update_state`).
"""

from __future__ import annotations

from typing import Any

from reflectcli.graph.common import note_event
from reflectcli.writing.textops import match_section

SEVERITIES = ("major", "minor")


def pending_human(state: dict[str, Any]) -> list[dict[str, Any]]:
    """The person's improvements that no revision has applied yet, oldest first."""
    return [c for c in (state.get("critiques") or {}).values()
            if c.get("by") == "human" and c.get("applied_in") is None]  # fmt: skip


def review_first(state: dict[str, Any]) -> bool:
    """The run's output has no review (your `edit`): a steered run reviews it first, so that
    what the revision makes of it is compared with something (the graph goes on after
    `revise`, at the review); otherwise the revision comes next (after `gate_stop`)."""
    versions = state.get("versions") or []
    if not versions:
        return False
    n = output_version(state)["n"]
    return not any(r["version"] == n for r in state.get("reviews") or [])


def unheeded(state: dict[str, Any]) -> list[dict[str, Any]]:
    """The person's own critiques the memory has not been told of yet (the learning step tells
    it at the run's end: memory/bank.py `heed`)."""
    heard = set((state.get("learned") or {}).get("heeded") or ())
    critiques = (state.get("critiques") or {}).values()
    return [c for c in critiques if c.get("by") == "human" and c["id"] not in heard]


def steer(
    state: dict[str, Any], feedback: str, section: str | None, severity: str, rounds: int
) -> dict[str, Any]:
    """The checkpoint update that hands the run back to the loop with the person's critique.
    Raises ValueError naming what is wrong (no such section, nothing to revise)."""
    feedback = " ".join(feedback.split())
    if not feedback:
        raise ValueError("the feedback is empty: say what to change")
    if severity not in SEVERITIES:
        raise ValueError(f"--severity must be major or minor, not {severity!r}")
    if not state.get("versions"):
        raise ValueError("the run has no article yet: resume it first")
    titles = [s["title"] for s in (state.get("outline") or {}).get("sections") or []]
    title = ""
    if section:
        index = match_section(section, titles)
        if index is None:
            raise ValueError(f"no section {section!r} in the run; its sections: "
                             + "; ".join(titles))  # fmt: skip
        title = titles[index]
    critiques = dict(state.get("critiques") or {})
    number = 1 + sum(1 for c in critiques.values()
                     if c.get("by") == "human" and c.get("kind") != "preference")  # fmt: skip
    used = len(state.get("reviews") or [])
    params = state["params"]
    first = 1 if review_first(state) else 0  # the critic reviews your edit, then your critique is applied
    extra = max(state.get("extra_rounds", 0), used + first + rounds - params["max_rounds"])
    round_no = used + 1
    item = {"id": f"h{number}", "section": title, "issue": feedback, "severity": severity, "by": "human",
            "round": used, "status": "open", "closed_in": None, "applied_in": None}  # fmt: skip
    critiques[item["id"]] = item
    where = f" on {title!r}" if title else ""
    return {
        "critiques": critiques,
        "extra_rounds": extra,
        "stop_reason": None,
        "status": "running",
        "accepted": None,
        "decisions": [
            {
                "round": used,
                "decision": "more",
                "reason": "human",
                "detail": f"your critique{where} ({item['id']}): up to {rounds} more "
                f"round{'s' if rounds != 1 else ''}",
            }
        ],  # fmt: skip
        "trace": [
            note_event(
                "human",
                "human",
                f"your critique{where} ({severity}): {feedback}",
                id=item["id"],
                round=round_no,
            )
        ],  # fmt: skip
    }


def draft_start(titles: list[str], bodies: list[str], text: str, locked: list[int]) -> dict[str, Any]:
    """The state a run from the person's own draft starts with: its headings as the outline
    (no plan step), its sections as drafted, the file itself as version 1, byte for byte; the
    graph goes on at the review (the runner writes it as the draft step's result)."""
    kept = ", ".join(repr(titles[i]) for i in locked)
    note = f"your draft: {len(titles)} section{'s' if len(titles) != 1 else ''}, version 1 as written"
    return {
        "outline": {"sections": [{"title": t, "goal": ""} for t in titles], "source": "file", "errors": []},
        "plans": 1,
        "sections": list(bodies),
        "versions": [{"n": 1, "round": 0, "kind": "file", "text": text}],
        "locked": list(locked),
        "trace": [note_event("draft", "human", note + (f"; locked: {kept}" if locked else ""))],
    }


def output_version(state: dict[str, Any]) -> dict[str, Any]:
    """The version a finished run gives as its output (the one `edit` opens)."""
    from reflectcli.graph.rules import best_version

    final = state.get("final_version")
    return next((v for v in state.get("versions") or [] if v["n"] == final), None) or best_version(state)


def edit_version(state: dict[str, Any], text: str) -> dict[str, Any] | None:
    """The finished run's state with the person's edit of its output as a new version (kind
    `edit`, its unified diff against the output stored beside it), which becomes the output and
    the base of any later revision (graph rules: `best_version`). None when nothing changed.
    Its headings become the outline (a goal kept where a title stays; a locked section stays
    locked while its title does). Raises ValueError when the text holds no words."""
    import difflib

    from reflectcli.writing.draftfile import read_draft

    versions = state.get("versions") or []
    if not versions:
        raise ValueError("the run has no article yet: resume it first")
    base = output_version(state)
    if text == base["text"]:
        return None
    outline = (state.get("outline") or {}).get("sections") or []
    draft = read_draft(text, outline[0]["title"] if len(outline) == 1 else "Article")
    goals = {s["title"]: s.get("goal", "") for s in outline}
    was = [s["title"] for s in outline]
    locked = [draft.titles.index(was[i]) for i in state.get("locked") or []
              if i < len(was) and was[i] in draft.titles]  # fmt: skip
    number = max(v["n"] for v in versions) + 1
    before, after = base["text"].splitlines(keepends=True), text.splitlines(keepends=True)
    diff = "".join(difflib.unified_diff(before, after, f"version {base['n']}", f"version {number} (yours)"))
    lines = diff.splitlines()[2:]
    added = sum(1 for x in lines if x.startswith("+"))
    removed = sum(1 for x in lines if x.startswith("-"))
    version = {"n": number, "round": len(state.get("reviews") or []), "kind": "edit", "by": "human",
               "base": base["n"], "text": text, "diff": diff}  # fmt: skip
    note = f"your edit of version {base['n']}: version {number} (+{added} −{removed} lines)"
    return {
        **state,
        "outline": {
            **(state.get("outline") or {}),
            "sections": [{"title": t, "goal": goals.get(t, "")} for t in draft.titles],
        },  # fmt: skip
        "versions": [*versions, version],
        "final_version": number,
        "known_issues": [],
        "locked": locked,
        "trace": [*(state.get("trace") or []), note_event("edit", "human", note, version=number)],
    }
