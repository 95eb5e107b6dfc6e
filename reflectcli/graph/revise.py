"""The revise step: rewrite the best version so far.

- `full`: the whole article in one call.
- `section` (default): only the sections the critique names. Each is found by its outline title
  and replaced in place; every other byte of the article is kept. When few sections are named
  they are rewritten one per step, each call carrying only its section, the outline and a short
  context; when a single call carrying the article costs fewer tokens (most sections named), they
  are rewritten together in one call that returns only the named sections.

A rewrite that is empty, shorter than half or more than six times longer than what it replaces
is rejected (the guard is recorded), and so is one that drops a part of the text it revised (a
heading, code block, table, HTML block or licence: writing/parts.py): a section rewrite keeps
its old text, a whole-article rewrite gives such a section (and the text before the first
section) its old text back, and the trace names what was dropped. A round whose every rewrite
was rejected makes no version: the run goes to `decide` (which stops, `rewrite_rejected`)
instead of reviewing unchanged text.
"""

from __future__ import annotations

from typing import Any

from reflectcli.graph.common import (
    Budgeted,
    BudgetExceeded,
    attributed,
    budget_stop,
    call_event,
    generated_text,
    grounded,
    note_event,
    section_evidence,
    section_tokens,
)
from reflectcli.graph.human import pending_human
from reflectcli.graph.pick import picking, propose, steered
from reflectcli.graph.rules import best_version, review_of
from reflectcli.models.base import ModelClient
from reflectcli.writing import revise_prompts
from reflectcli.writing.citations import cited_ids, run_labels
from reflectcli.writing.parts import describe, lost_parts, restore_parts
from reflectcli.writing.textops import (
    clean_article,
    clean_section,
    estimate_tokens,
    locate_sections,
    match_section,
    replace_bodies,
    rewrite_guard,
    section_bodies,
)


def rewrite_tokens(text: str, floor: int) -> int:
    """`max_tokens` for rewriting `text`: half as long again as it is (in tokens), at least
    `floor`. (Sized in tokens: a cap in characters lets a rewrite run ~3x too long.)"""
    return max(floor, int(1.5 * estimate_tokens(text)) + 64)


def section_level(text: str, titles: list[str], index: int) -> int:
    """The heading level of section `index` in `text` (2, an assembled draft's, when missing):
    a rewrite's own headings must sit below it."""
    span = locate_sections(text, titles)[index]
    return span.level if span else 2


def _messages_tokens(messages: list[dict[str, str]]) -> int:
    return sum(estimate_tokens(m["content"]) for m in messages)


def plan_revision(state: dict[str, Any], base: dict[str, Any], review: dict[str, Any],
                  round_no: int, compact: bool = False,
                  cached: float | None = None) -> dict[str, Any]:  # fmt: skip
    """Which sections to rewrite, each with the improvements that name it, and whether one call
    (the article in, the named sections out) is cheaper than one call per section. Items naming
    no section go to every target; with no section named, every section is a target. With
    `cached` (a provider that caches prompts: a cached input token's price as a share of an
    uncached one) each section rewrite carries the reviewed article in its system message, the
    review's, read from the cache: its tokens are weighed at that share."""
    outline = state["outline"]["sections"]
    titles = [s["title"] for s in outline]
    bodies = section_bodies(base["text"], titles)
    locked = set(state.get("locked") or [])  # the person's --keep: never rewritten
    present = [i for i, body in enumerate(bodies) if body is not None and i not in locked]
    per: dict[int, list[dict[str, Any]]] = {}
    general = []
    for imp in review.get("improvements") or []:
        index = match_section(imp.get("section") or "", titles)
        if index in locked:
            continue  # shown in the review, not applied
        if index is None or bodies[index] is None:
            general.append(imp)
        else:
            per.setdefault(index, []).append(imp)
    targets = sorted(per) or present
    items = [per.get(i, []) + general for i in targets]
    language = state["params"].get("language")
    one_by_one = 0.0
    for i, its in zip(targets, items, strict=True):
        system, user = revise_prompts.section_revise_messages(
            state["task"], outline, bodies, i, its, round_no, language,
            sources=state.get("evidence") or None,
            article=base["text"] if cached is not None else None,
        )  # fmt: skip
        one_by_one += (estimate_tokens(system["content"]) * (1.0 if cached is None else cached)
                       + estimate_tokens(user["content"]) + estimate_tokens(bodies[i] or ""))  # fmt: skip
    together = _messages_tokens(revise_prompts.sections_revise_messages(
        state["task"], base["text"], [titles[i] for i in targets],
        [imp for its in items for imp in its], round_no, language, outline=outline,
    )) + sum(estimate_tokens(bodies[i] or "") + 8 for i in targets)  # fmt: skip
    return {
        "round": round_no,
        "base": base["n"],
        "targets": targets,
        "items": items,
        # a tiny model cannot be trusted to return several sections under their headings
        "together": len(targets) > 1 and together < one_by_one and not compact,
        "done": [],
    }


def evidence_for(state: dict[str, Any], indexes: list[int], texts: list[str]) -> list[dict[str, Any]]:
    """The passages a rewrite may cite: those found for the queries of the review it answers,
    for its sections, and those its text already cites."""
    by_id = {e["id"]: e for e in state.get("evidence") or []}
    asked = len(state.get("reviews") or [])  # found for the queries of the review being answered
    ids = [e["id"] for e in state.get("evidence") or [] if e.get("round") == asked and asked]
    ids += [e["id"] for i in indexes for e in section_evidence(state, i)]
    ids += [i for text in texts for i in cited_ids(text, run_labels(state)) if i in by_id]
    return [by_id[i] for i in dict.fromkeys(ids)]


class Reviser:
    def __init__(self, writer: ModelClient):
        self.writer = writer

    def __call__(self, state: dict[str, Any]) -> dict[str, Any]:
        round_no = len(state["reviews"]) + 1
        base = best_version(state)
        review = review_of(state, base["n"]) or state["reviews"][-1]
        human = pending_human(state)
        if human:  # the person's own critique is this round's, and only it
            said = " ".join(h["issue"] for h in human)
            review = {**review, "improvements": human, "feedback": f"The reader's own critique: {said}"}
        review = steered(state, review, round_no)  # the writer's strikes and additions (--pick)
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
        if picking(state):
            mode = "section"  # each change the writer answers is one section's rewrite
        titles = [s["title"] for s in state["outline"]["sections"]]
        if state.get("locked") or state.get("labels"):
            mode = "section"  # a whole-article rewrite would touch the locked sections, or the
            # person's own reference list (no section: kept byte for byte)
        elif mode == "section" and not any(locate_sections(base["text"], titles)):
            mode = "full"  # no outline heading left to revise by: rewrite it whole
        writer = Budgeted(self.writer, state)
        try:
            if mode == "full":
                update = self._full(state, writer, base, review, round_no)
            else:
                tiny = bool(getattr(self.writer, "tiny", False))
                cached = None
                if getattr(self.writer, "caches_prompts", False):
                    cached = getattr(self.writer, "cache_share", None)
                    cached = 0.1 if cached is None else cached  # (a provider's usual read price)
                revision = revision or plan_revision(state, base, review, round_no, tiny, cached)
                if not revision["targets"]:  # every section it could rewrite is locked
                    note = note_event("revise", "guard", "nothing to revise: every section the review "
                                      "names is locked (--keep)", guard="locked", round=round_no)  # fmt: skip
                    update = {"trace": [note], "revision": None}
                elif revision["together"]:
                    update = self._together(state, writer, base, revision, round_no)
                else:
                    update = self._section(state, writer, base, revision, round_no)
        except BudgetExceeded as exc:
            stop = budget_stop("revise", exc, round_no)
            stop["trace"] = trace + stop["trace"]
            return stop
        update["trace"] = trace + update["trace"]
        if update.get("revision") is None:  # the round is over: did it make a version?
            if picking(state) and update.get("versions"):  # the writer answers each change first
                proposed = propose(state, base, update.pop("versions")[0]["text"], review, round_no)
                if proposed["changes"]:
                    update["pick"] = proposed
            update["rejected"] = None if update.get("versions") or update.get("pick") else round_no
            if human:
                critiques = dict(state.get("critiques") or {})
                for item in human:
                    critiques[item["id"]] = {**item, "applied_in": round_no}
                update["critiques"] = critiques
        return update

    def _new_version(self, state, base, text: str, round_no: int) -> dict[str, Any]:
        n = state["versions"][-1]["n"] + 1
        return {"n": n, "round": round_no - 1, "kind": "revision", "base": base["n"], "text": text}

    def _full(self, state, writer, base, review, round_no) -> dict[str, Any]:
        messages = revise_prompts.revise_messages(
            state["task"],
            base["text"],
            review,
            round_no,
            state["params"].get("language"),
            state.get("evidence") or None,
            state.get("lessons"),
            compact=bool(getattr(self.writer, "tiny", False)),
            outline=state["outline"]["sections"],
        )
        completion = writer.complete(
            messages,
            step=f"revise:r{round_no}",
            max_tokens=rewrite_tokens(base["text"], section_tokens(state)),
        )
        raw, notes = generated_text(completion, "revise", messages, round=round_no)
        text, removed = grounded(clean_article(raw), state, "revise", round=round_no)
        text, cited = attributed(text, state.get("evidence") or [], self.writer, "revise", round=round_no)
        trace = [call_event("revise", completion, round=round_no), *notes, *removed, *cited]
        titles = [s["title"] for s in state["outline"]["sections"]]
        guard = rewrite_guard(base["text"], text)
        if (
            guard is None
            and None in locate_sections(text, titles)
            and any(locate_sections(base["text"], titles))
        ):
            guard = "lost_sections"  # (a draft without headings has none to lose)
        if guard:
            trace.append(note_event(
                "revise", "guard", f"rewrite rejected ({_why(guard)}: {len(text)} chars vs "
                f"{len(base['text'])}); kept version {base['n']}", guard=guard, round=round_no,
                chars=len(text), previous_chars=len(base["text"]),
            ))  # fmt: skip
            return {"trace": trace, "revision": None}
        kept = self._kept_parts(base["text"], text, titles, round_no, trace)
        if kept is None:
            return {"trace": trace, "revision": None}
        return {
            "versions": [self._new_version(state, base, kept, round_no)],
            "trace": trace,
            "revision": None,
        }

    def _kept_parts(self, before: str, text: str, titles: list[str], round_no: int,
                    trace: list[dict[str, Any]]) -> str | None:  # fmt: skip
        """A whole-article rewrite with every section that dropped a part of the version it
        revised given back its old text (writing/parts.restore_parts); None when nothing of the
        rewrite is left."""
        text, dropped = restore_parts(before, text, titles)
        for index, lost in dropped:
            where = "the text before the first section" if index is None else f"section {index + 1}"
            extra = {} if index is None else {"section": index + 1}
            trace.append(_lost_note(f"the rewrite of {where}", lost, round_no, **extra))
        if dropped and text.strip() == before.strip():
            trace.append(note_event("revise", "guard", "rewrite rejected: every part it changed lost "
                                    "something of the version it revised", guard="lost_part",
                                    round=round_no))  # fmt: skip
            return None
        return text

    def _section(self, state, writer, base, revision, round_no) -> dict[str, Any]:
        outline = state["outline"]["sections"]
        titles = [s["title"] for s in outline]
        bodies = section_bodies(base["text"], titles)
        k = len(revision["done"])
        index = revision["targets"][k]
        body = bodies[index] or ""
        evidence = evidence_for(state, [index], [body])
        tiny = bool(getattr(self.writer, "tiny", False))

        def ask(article: str | None):
            return revise_prompts.section_revise_messages(
                state["task"], outline, bodies, index, revision["items"][k], round_no,
                state["params"].get("language"), compact=tiny, evidence=evidence,
                lessons=state.get("lessons"),
                sources=state.get("evidence") or None,  # the same for every section: cacheable
                article=article,  # the review's whole prefix (its article), read from the cache
            )  # fmt: skip

        messages = ask(None)
        if getattr(self.writer, "caches_prompts", False) and not tiny:
            shaped = ask(base["text"])
            if cache_pays(self.writer, shaped, messages):
                messages = shaped
        completion = writer.complete(
            messages,
            step=f"revise:r{round_no}:s{index + 1}",
            max_tokens=rewrite_tokens(body, section_tokens(state)),
            stop=["\n\n"] if tiny else None,  # one paragraph
        )
        raw, notes = generated_text(completion, "revise", messages, round=round_no, section=index + 1)
        level = section_level(base["text"], titles, index)
        new_body, removed = grounded(clean_section(raw, titles[index], titles, level), state, "revise",
                                     round=round_no, section=index + 1)  # fmt: skip
        new_body, cited = attributed(new_body, evidence, self.writer, "revise", round=round_no,
                                     section=index + 1)  # fmt: skip
        trace = [call_event("revise", completion, round=round_no, section=index + 1), *notes,
                 *removed, *cited]  # fmt: skip
        kept, guard = self._guarded(body, new_body, index, round_no, trace, titles[index])
        revision = {**revision, "done": [*revision["done"], kept]}
        if len(revision["done"]) < len(revision["targets"]):
            return {"revision": revision, "trace": trace}
        return self._finish(state, base, revision, round_no, trace)

    def _together(self, state, writer, base, revision, round_no) -> dict[str, Any]:
        titles = [s["title"] for s in state["outline"]["sections"]]
        bodies = section_bodies(base["text"], titles)
        targets = revision["targets"]
        named = "\n\n".join(bodies[i] or "" for i in targets)
        messages = revise_prompts.sections_revise_messages(
            state["task"], base["text"], [titles[i] for i in targets],
            [imp for its in revision["items"] for imp in its], round_no,
            state["params"].get("language"),
            evidence_for(state, targets, [bodies[i] or "" for i in targets]),
            state.get("lessons"), state["outline"]["sections"],
        )  # fmt: skip
        completion = writer.complete(
            messages, step=f"revise:r{round_no}", max_tokens=rewrite_tokens(named, section_tokens(state))
        )
        raw, notes = generated_text(completion, "revise", messages, round=round_no)
        trace = [call_event("revise", completion, round=round_no,
                            sections=[i + 1 for i in targets]), *notes]  # fmt: skip
        article, removed = grounded(clean_article(raw), state, "revise", round=round_no)
        trace += removed
        answered = section_bodies(article, [titles[i] for i in targets])
        done: list[str | None] = []  # a section's new body, or None (its text kept)
        for index, new_body in zip(targets, answered, strict=True):
            if new_body is None:
                trace.append(note_event(
                    "revise", "guard", f"section {index + 1} missing from the answer; kept its "
                    "text", guard="missing", round=round_no, section=index + 1,
                ))  # fmt: skip
                done.append(None)
                continue
            new_body = clean_section(
                new_body, titles[index], titles, section_level(base["text"], titles, index)
            )
            done.append(self._guarded(bodies[index] or "", new_body, index, round_no, trace,
                                      titles[index])[0])  # fmt: skip
        return self._finish(state, base, {**revision, "done": done}, round_no, trace)

    def _guarded(self, body, new_body, index, round_no, trace, title="") -> tuple[str | None, str | None]:
        guard = rewrite_guard(body, new_body)
        if guard:
            trace.append(note_event(
                "revise", "guard", f"section {index + 1} rewrite rejected ({_why(guard)}: "
                f"{len(new_body)} chars vs {len(body)}); kept its text", guard=guard,
                round=round_no, section=index + 1,
            ))  # fmt: skip
            return None, guard
        if lost := lost_parts(body, new_body, title):
            trace.append(_lost_note(f"the rewrite of section {index + 1}", lost, round_no, section=index + 1))
            return None, "lost_part"
        return new_body, None

    def _finish(self, state, base, revision, round_no, trace) -> dict[str, Any]:
        titles = [s["title"] for s in state["outline"]["sections"]]
        new = {t: text for t, text in zip(revision["targets"], revision["done"], strict=True)
               if text is not None}  # fmt: skip
        update: dict[str, Any] = {"revision": None, "trace": trace}
        if new:
            text = replace_bodies(base["text"], titles, new)
            update["versions"] = [self._new_version(state, base, text, round_no)]
        return update


_GUARDS = {
    "empty": "empty",
    "left_open": "a code block left open that would swallow the sections after it",
    "too_short": "shorter than half",
    "too_long": "more than six times longer",
    "lost_sections": "sections of the outline missing",
    "lost_part": "a part of the version it revised missing (a code block, table, licence, heading)",
}


def _lost_note(what: str, lost, round_no: int, **extra: Any) -> dict[str, Any]:
    """The trace note of a rewrite that dropped parts of the text it revised."""
    return note_event("revise", "guard", f"{what} rejected: it dropped {describe(lost)} of the "
                      "version it revised; kept its text", guard="lost_part", round=round_no,
                      lost=[{"kind": p.kind, "text": p.shown} for p in lost], **extra)  # fmt: skip


def _why(guard: str) -> str:
    return _GUARDS.get(guard, guard)


def revision_pending(state: dict[str, Any]) -> bool:
    """A section-by-section revision with sections still to rewrite."""
    revision = state.get("revision")
    return bool(revision and len(revision["done"]) < len(revision["targets"]))


def cache_pays(client: Any, shaped: list[dict[str, Any]], plain: list[dict[str, Any]]) -> bool:
    """Whether the rewrite prompt that begins with its review's system message (`shaped`, that
    message read from the provider's cache) costs less than the `plain` one, for prompts of
    these sizes (about 4 characters a token): the client decides from its price map and its
    provider's minimum cacheable prefix (a client that cannot say: where it caches at all)."""
    decide = getattr(client, "cache_saves", None)
    if decide is None:
        return bool(getattr(client, "caches_prompts", False))
    tokens = [sum(estimate_tokens(m["content"]) for m in ms if isinstance(m.get("content"), str))
              for ms in (shaped, plain)]  # fmt: skip
    return bool(decide(estimate_tokens(shaped[0]["content"]), tokens[0], tokens[1]))
