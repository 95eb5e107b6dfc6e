"""The revise step: rewrite the best version so far, as a whole (`full`) or section by section
(`section`: only the sections the critique names, one per step, the rest kept byte for byte)."""

from __future__ import annotations

from typing import Any

from reflectcli.graph.common import Budgeted, BudgetExceeded, budget_stop, call_event, note_event
from reflectcli.models.base import ModelClient
from reflectcli.output.summary import best_version, review_of
from reflectcli.writing import prompts
from reflectcli.writing.textops import (
    clean_article,
    clean_section,
    join_sections,
    match_section,
    rewrite_guard,
    split_sections,
)

SECTION_TOKENS = 1024


def plan_revision(base: dict[str, Any], review: dict[str, Any], round_no: int) -> dict[str, Any]:
    """Which sections to rewrite, each with the improvements that name it. Items naming no
    known section go to every targeted section; with no named section, all are targeted."""
    sections = split_sections(base["text"])
    titles = [title for title, _ in sections]
    per: dict[int, list[dict[str, Any]]] = {}
    general = []
    for imp in review.get("improvements") or []:
        index = match_section(imp.get("section") or "", titles)
        if index is None:
            general.append(imp)
        else:
            per.setdefault(index, []).append(imp)
    targets = sorted(per) or list(range(len(sections)))
    return {
        "round": round_no,
        "base": base["n"],
        "targets": targets,
        "items": [per.get(i, []) + general for i in targets],
        "done": [],
    }


class Reviser:
    def __init__(self, writer: ModelClient):
        self.writer = writer

    def __call__(self, state: dict[str, Any]) -> dict[str, Any]:
        round_no = len(state["reviews"]) + 1
        base = best_version(state)
        review = review_of(state, base["n"]) or state["reviews"][-1]
        trace = []
        latest = state["versions"][-1]
        revision = state.get("revision")
        if not revision or revision.get("round") != round_no:
            if base["n"] != latest["n"]:
                trace.append(note_event(
                    "revise", "rollback", f"version {latest['n']} scored lower; revising from "
                    f"the best, version {base['n']} ({review['score']:g})", round=round_no,
                ))  # fmt: skip
            revision = None
        mode = (state["params"].get("policy") or {}).get("revision", "full")
        writer = Budgeted(self.writer, state)
        try:
            if mode == "full":
                update = self._full(state, writer, base, review, round_no)
            else:
                revision = revision or plan_revision(base, review, round_no)
                update = self._section(state, writer, base, revision, round_no)
        except BudgetExceeded as exc:
            stop = budget_stop("revise", exc, round_no)
            stop["trace"] = trace + stop["trace"]
            return stop
        update["trace"] = trace + update["trace"]
        return update

    def _new_version(self, state, base, text: str, round_no: int) -> dict[str, Any]:
        n = state["versions"][-1]["n"] + 1
        return {"n": n, "round": round_no - 1, "kind": "revision", "base": base["n"], "text": text}

    def _full(self, state, writer, base, review, round_no) -> dict[str, Any]:
        completion = writer.complete(
            prompts.revise_messages(
                state["task"], base["text"], review, round_no, state["params"].get("language")
            ),  # fmt: skip
            step=f"revise:r{round_no}",
            max_tokens=max(SECTION_TOKENS, 2 * len(base["text"]) // 3),
        )
        text = clean_article(completion.text)
        trace = [call_event("revise", completion, round=round_no)]
        guard = rewrite_guard(base["text"], text)
        if guard:
            trace.append(note_event(
                "revise", "guard", f"rewrite rejected ({guard}: {len(text)} chars vs "
                f"{len(base['text'])}); kept version {base['n']}", guard=guard, round=round_no,
                chars=len(text), previous_chars=len(base["text"]),
            ))  # fmt: skip
            return {"trace": trace}
        return {"versions": [self._new_version(state, base, text, round_no)], "trace": trace}

    def _section(self, state, writer, base, revision, round_no) -> dict[str, Any]:
        sections = split_sections(base["text"])
        k = len(revision["done"])
        index = revision["targets"][k]
        title, body = sections[index]
        completion = writer.complete(
            prompts.section_revise_messages(
                state["task"],
                base["text"],
                title,
                body,
                revision["items"][k],
                round_no,
                state["params"].get("language"),
            ),  # fmt: skip
            step=f"revise:r{round_no}:s{index + 1}",
            max_tokens=max(SECTION_TOKENS, 2 * len(body) // 3),
        )
        new_body = clean_section(completion.text, title)
        trace = [call_event("revise", completion, round=round_no, section=index + 1)]
        guard = rewrite_guard(body, new_body)
        if guard:
            trace.append(note_event(
                "revise", "guard", f"section {index + 1} rewrite rejected ({guard}: "
                f"{len(new_body)} chars vs {len(body)}); kept its text", guard=guard,
                round=round_no, section=index + 1,
            ))  # fmt: skip
            new_body = None
        done = [*revision["done"], new_body]
        revision = {**revision, "done": done}
        if len(done) < len(revision["targets"]):
            return {"revision": revision, "trace": trace}
        replaced = list(sections)
        changed = 0
        for target, text in zip(revision["targets"], done, strict=True):
            if text is not None:
                replaced[target] = (sections[target][0], text)
                changed += 1
        update: dict[str, Any] = {"revision": None, "trace": trace}
        if changed:
            text = join_sections(replaced)
            update["versions"] = [self._new_version(state, base, text, round_no)]
        return update


def revision_pending(state: dict[str, Any]) -> bool:
    """A section-by-section revision with sections still to rewrite."""
    revision = state.get("revision")
    return bool(revision) and len(revision["done"]) < len(revision["targets"])
