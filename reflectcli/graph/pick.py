"""Change by change (`revise --pick`, `write --from FILE --pick`): the writer steers a round
before its revision is written, then takes or leaves each change it proposes, as `git add -p`.

- `gate_steer` (before a round's revision, `pick = ask`): the improvements the revision will
  apply, numbered; the writer strikes some, or adds their own. One answer, one checkpoint.
- The revision runs as usual, one section's rewrite at a time (picking forces section mode).
  Where it would make a version, the Reviser hands the text to `propose` instead: one change per
  section whose text changed, each with the improvements that asked for it (`pick` in the state).
- `gate_pick` handles ONE change per execution and routes back to itself until every change is
  answered, so each answer lands in its own checkpoint (a kill after the second answer resumes
  at the third). Then the version is made from the accepted and edited bodies alone
  (`replace_bodies`: every other byte of the version it revised kept).

What the writer turns down (a rejected change's improvements, a struck improvement) is closed
and kept as the writer's preference: a critique of theirs (`by: human`, `kind: preference`,
"Do not: ...") that no revision applies and that the memory is told of at the run's end, as
their own critiques are (graph/human.py `unheeded`, memory/bank.py `heed`). With `pick = all`
(`--accept-all`) nothing is asked: every change is accepted, and recorded so.
"""

from __future__ import annotations

from typing import Any

from reflectcli.graph.common import note_event
from reflectcli.graph.gates import _interrupt
from reflectcli.graph.human import pending_human
from reflectcli.graph.rules import best_version, review_of
from reflectcli.writing.textops import match_section, replace_bodies, section_bodies

MODES = ("off", "ask", "all")
PICK_ACTIONS = ("accept", "reject", "edit", "all", "quit")
TAKEN = ("accept", "edit")  # answers whose body joins the version
DONE = {"accept": "accepted", "edit": "edited", "reject": "rejected", "skip": "skipped"}
FIELDS = ("id", "section", "issue", "severity")


def picking(state: dict[str, Any]) -> str | None:
    """`ask` or `all` when the run takes its revisions change by change, else None."""
    mode = (state.get("params") or {}).get("pick")
    return mode if mode in ("ask", "all") else None


def _titles(state: dict[str, Any]) -> list[str]:
    return [s["title"] for s in (state.get("outline") or {}).get("sections") or []]


def _next_round(state: dict[str, Any]) -> int:
    return len(state.get("reviews") or []) + 1


def needs_steer(state: dict[str, Any]) -> bool:
    """The revision about to start waits for the writer's steering first (`pick = ask`, and
    this round not steered yet)."""
    if picking(state) != "ask":
        return False
    round_no = _next_round(state)
    started = (state.get("revision") or {}).get("round") == round_no
    return not started and (state.get("steering") or {}).get("round") != round_no


def planned_items(state: dict[str, Any]) -> list[dict[str, Any]]:
    """The improvements the next revision applies before steering: the person's own pending
    critiques if any (they are the round's, and only they), else the review of the version it
    revises (the Reviser's choice, graph/revise.py)."""
    human = pending_human(state)
    if human:
        return human
    base = best_version(state)
    review = review_of(state, base["n"]) or (state.get("reviews") or [{}])[-1]
    return list(review.get("improvements") or [])


def steered(state: dict[str, Any], review: dict[str, Any], round_no: int) -> dict[str, Any]:
    """`review` with the writer's steering of round `round_no` applied: struck improvements out,
    added ones in (the review itself unchanged when the round was not steered)."""
    steering = state.get("steering") or {}
    if steering.get("round") != round_no:
        return review
    struck = set(steering.get("struck") or [])
    critiques = state.get("critiques") or {}
    kept = [i for i in review.get("improvements") or [] if i.get("id") not in struck]
    added = [critiques[i] for i in steering.get("added") or [] if i in critiques]
    return {**review, "improvements": kept + added}


def preference(item: dict[str, Any], number: int, round_no: int, why: str) -> dict[str, Any]:
    """The writer's preference from an improvement they turned down: a critique of theirs that
    says not to do it (never applied, never open; told to the memory like their critiques)."""
    issue = " ".join(str(item.get("issue") or "").split())
    return {"id": f"p{number}", "section": item.get("section") or "", "issue": f"Do not: {issue}",
            "severity": "minor", "by": "human", "kind": "preference", "of": item.get("id"),
            "why": why, "round": round_no - 1, "status": "kept", "closed_in": None,
            "applied_in": round_no}  # fmt: skip


def _turn_down(critiques: dict[str, Any], items: list[dict[str, Any]], round_no: int,
               status: str, why: str) -> list[str]:  # fmt: skip
    """Close `items` with `status` and keep each of the critic's as the writer's preference
    (the writer's own items are closed only: turning down a rewrite of what you asked for is
    no wish against it); the preferences' new ids."""
    made = []
    for item in items:
        ident = item.get("id") or ""
        mine = critiques.get(ident, item).get("by") == "human"
        if ident in critiques:
            critiques[ident] = {**critiques[ident], "status": status, "closed_in": round_no,
                                **({"applied_in": round_no} if mine else {})}  # fmt: skip
        if mine:
            continue
        number = 1 + sum(1 for c in critiques.values() if c.get("kind") == "preference")
        pref = preference(item, number, round_no, why)
        critiques[pref["id"]] = pref
        made.append(pref["id"])
    return made


def gate_steer(state: dict[str, Any]) -> dict[str, Any]:
    """The writer's steering of the next round: {"action": "go", "strike": [ids], "add":
    [{"issue", "section"}]}. Added items are the person's critiques (`h3`), applied in this
    round beside the critic's; with nothing left to apply the run stops (`human_stop`)."""
    round_no = _next_round(state)
    items = planned_items(state)
    titles = _titles(state)
    answer = _interrupt({"gate": "steer", "round": round_no, "sections": titles,
                         "items": [{k: i.get(k) for k in FIELDS} for i in items]})  # fmt: skip
    if answer.get("action") != "go":
        raise ValueError(f"steer gate: unknown answer {answer!r}")
    ids = [i.get("id") for i in items]
    struck = [i for i in dict.fromkeys(answer.get("strike") or []) if i in ids]
    critiques = dict(state.get("critiques") or {})
    used = len(state.get("reviews") or [])
    added: list[str] = []
    for extra in answer.get("add") or []:
        issue = " ".join(str(extra.get("issue") or "").split())
        if not issue:
            continue
        index = match_section(str(extra.get("section") or ""), titles)
        number = 1 + sum(1 for c in critiques.values()
                         if c.get("by") == "human" and c.get("kind") != "preference")  # fmt: skip
        ident = f"h{number}"
        item = {"id": ident, "section": titles[index] if index is not None else "", "issue": issue,
                "severity": "major", "by": "human", "round": used, "status": "open", "closed_in": None,
                "applied_in": round_no, "steered": True}  # fmt: skip
        critiques[ident] = item
        added.append(ident)
    prefs = _turn_down(critiques, [i for i in items if i.get("id") in struck], round_no, "struck",
                       f"struck before round {round_no}'s revision")  # fmt: skip
    left = len(items) - len(struck) + len(added)
    parts = [f"{len(struck)} struck" + (f" ({', '.join(struck)})" if struck else ""),
             f"{len(added)} added" + (f" ({', '.join(added)})" if added else "")]  # fmt: skip
    note = note_event("gate_steer", "steer", f"your steering of round {round_no}: " + ", ".join(parts)
                      + f"; {left} to apply", round=round_no, struck=struck, added=added,
                      preferences=prefs)  # fmt: skip
    update: dict[str, Any] = {"critiques": critiques, "trace": [note],
                              "steering": {"round": round_no, "struck": struck, "added": added}}  # fmt: skip
    if left == 0:
        update["decisions"] = [{"round": used, "decision": "stop", "reason": "human",
                                "detail": f"you struck every improvement of round {round_no}: "
                                "nothing left to revise"}]  # fmt: skip
        update["stop_reason"] = "human_stop"
    return update


def items_for(review: dict[str, Any], titles: list[str], index: int | None) -> list[dict[str, Any]]:
    """The improvements that asked for a change of section `index` (None: the whole article):
    those naming it, and those naming no section (they go to every section)."""
    found = []
    for imp in review.get("improvements") or []:
        named = match_section(imp.get("section") or "", titles)
        if index is None or named is None or named == index:
            found.append({k: imp.get(k) for k in FIELDS})
    return found


def propose(state: dict[str, Any], base: dict[str, Any], text: str, review: dict[str, Any],
            round_no: int) -> dict[str, Any]:  # fmt: skip
    """The changes a revision's text makes to `base`, one per outline section whose body
    changed (the whole article as one change when no section heading is found), each with the
    improvements that asked for it; the writer's answers start empty."""
    titles = _titles(state)
    before, after = section_bodies(base["text"], titles), section_bodies(text, titles)
    changes = [{"section": i, "title": titles[i], "old": old, "new": new,
                "items": items_for(review, titles, i)}
               for i, (old, new) in enumerate(zip(before, after, strict=True))
               if old is not None and new is not None and old != new]  # fmt: skip
    if not changes and text != base["text"] and not any(b is not None for b in before):
        changes = [{"section": None, "title": "whole article", "old": base["text"], "new": text,
                    "items": items_for(review, titles, None)}]  # fmt: skip
    return {"round": round_no, "base": base["n"], "changes": changes, "answers": []}


def pick_pending(state: dict[str, Any]) -> bool:
    """Proposed changes wait for the writer's answers."""
    return bool((state.get("pick") or {}).get("changes"))


def gate_pick(state: dict[str, Any]) -> dict[str, Any]:
    """One proposed change, answered: {"action": "accept" | "reject" | "all" | "quit"} or
    {"action": "edit", "body": "the section as you want it"}. `all` accepts it and every change
    after it; `quit` takes none of the rest (skipped, not turned down), and the review of what
    was accepted is the run's last round. Once every change is answered, the version."""
    pick = state["pick"]
    changes, answers = pick["changes"], list(pick["answers"])
    if picking(state) == "all":
        answers += [{"action": "accept", "by": "accept-all"}] * (len(changes) - len(answers))
    else:
        k = len(answers)
        change = changes[k]
        answer = _interrupt({
            "gate": "pick", "index": k + 1, "count": len(changes), "round": pick["round"],
            "title": change["title"], "old": change["old"], "new": change["new"],
            "items": change["items"], "answered": [a["action"] for a in answers],
        })  # fmt: skip
        action = answer.get("action")
        if action not in PICK_ACTIONS:
            raise ValueError(f"pick gate: unknown answer {answer!r}")
        if action == "edit":
            body = str(answer.get("body") or "").strip()
            answers.append({"action": "edit", "body": body} if body else {"action": "reject"})
        elif action == "all":
            answers += [{"action": "accept"}] + [{"action": "accept", "by": "all"}] * (len(changes) - k - 1)
        elif action == "quit":
            answers += [{"action": "skip"}] * (len(changes) - k)
        else:
            answers.append({"action": action})
    if len(answers) < len(changes):
        return {"pick": {**pick, "answers": answers}}
    return picked_version(state, pick, answers, quit_=any(a["action"] == "skip" for a in answers))


def picked_version(state: dict[str, Any], pick: dict[str, Any], answers: list[dict[str, Any]],
                   quit_: bool = False) -> dict[str, Any]:  # fmt: skip
    """Every change answered: the version of the accepted and edited bodies (none when nothing
    was taken: the run stops, `human_rejected`), the rejected changes' improvements closed and
    kept as the writer's preferences, one trace note naming each answer."""
    round_no = pick["round"]
    titles = _titles(state)
    base = next(v for v in state["versions"] if v["n"] == pick["base"])
    critiques = dict(state.get("critiques") or {})
    new: dict[int, str] = {}
    whole = None
    record, prefs = [], []
    for change, answer in zip(pick["changes"], answers, strict=True):
        action = answer["action"]
        if action in TAKEN:
            body = answer.get("body") or change["new"]
            if change["section"] is None:
                whole = body
            else:
                new[change["section"]] = body
        elif action == "reject":
            why = f"its change to {change['title']!r} rejected in round {round_no}"
            prefs += _turn_down(critiques, change["items"], round_no, "rejected", why)
        record.append({"section": change["title"], "answer": action,
                       "items": [i.get("id") for i in change["items"]]})  # fmt: skip
    counts = {a: sum(1 for r in record if r["answer"] == a) for a in ("accept", "edit", "reject", "skip")}
    said = ", ".join(f"{n} {DONE[a]}" for a, n in counts.items() if n)
    update: dict[str, Any] = {"pick": None, "critiques": critiques}
    text = whole if whole is not None else (replace_bodies(base["text"], titles, new) if new else None)
    used = len(state.get("reviews") or [])
    trace = []
    if text is not None and text != base["text"]:
        n = state["versions"][-1]["n"] + 1
        update["versions"] = [{"n": n, "round": round_no - 1, "kind": "revision", "base": base["n"],
                               "text": text, "picked": record}]  # fmt: skip
        trace.append(note_event("gate_pick", "pick", f"your picks for round {round_no}: {said}; version "
                                f"{n} holds the {counts['accept'] + counts['edit']} you took",
                                round=round_no, version=n, answers=record, preferences=prefs))  # fmt: skip
        if quit_:  # the review of what you took is the last round
            max_rounds = state["params"]["max_rounds"]
            update["extra_rounds"] = round_no - max_rounds
            update["decisions"] = [{"round": used, "decision": "more", "reason": "human",
                                    "detail": f"you quit picking: version {n} is reviewed, then the "
                                    "run ends"}]  # fmt: skip
    else:
        trace.append(note_event("gate_pick", "pick", f"your picks for round {round_no}: {said}; no "
                                f"version made, version {base['n']} stays", round=round_no,
                                answers=record, preferences=prefs))  # fmt: skip
        update["decisions"] = [{"round": used, "decision": "stop", "reason": "human",
                                "detail": f"you took none of round {round_no}'s changes; "
                                f"version {base['n']} stays"}]  # fmt: skip
        update["stop_reason"] = "human_rejected"
    update["trace"] = trace
    return update


def more_round(state: dict[str, Any], rounds: int) -> dict[str, Any]:
    """The checkpoint update that hands a finished run back to the loop for the critic's own
    list, to pick from (`revise ID --pick` without feedback): up to `rounds` more rounds.
    Raises ValueError when the output's review asks for no change."""
    from reflectcli.graph.human import output_version, review_first

    if not state.get("versions"):
        raise ValueError("the run has no article yet: resume it first")
    first = review_first(state)
    if not first and not planned_items(state):
        n = output_version(state)["n"]
        raise ValueError(f"the review of version {n} asks for no change: say what to change, "
                         "e.g. reflectcli revise ID \"Open with a real case\" --pick")  # fmt: skip
    used = len(state.get("reviews") or [])
    params = state["params"]
    extra = max(state.get("extra_rounds", 0), used + (1 if first else 0) + rounds - params["max_rounds"])
    detail = f"the critic's changes, yours to pick: up to {rounds} more round{'s' if rounds != 1 else ''}"
    return {
        "extra_rounds": extra, "stop_reason": None, "status": "running", "accepted": None,
        "decisions": [{"round": used, "decision": "more", "reason": "human", "detail": detail}],
        "trace": [note_event("human", "human", detail, round=used + 1)],
    }  # fmt: skip
