"""The graph's nodes. Each makes at most one model call (plus validation retries) and returns
only what it adds to the state. Nodes get their clients from the factory, never from globals,
and never print. Revision lives in revise.py, the human gate in gates.py."""

from __future__ import annotations

import time
from typing import Any

from reflectcli.graph.common import (
    Budgeted,
    BudgetExceeded,
    attributed,
    budget_stop,
    call_event,
    citation_notes,
    concurrency,
    generated_text,
    grounded,
    note_event,
    parallel_draft,
    researching,
    section_evidence,
    section_tokens,
)
from reflectcli.graph.controller import Facts, Rules, decide
from reflectcli.graph.human import pending_human
from reflectcli.graph.planning import plan_questions
from reflectcli.graph.rules import best_version, contradicted, critic_searches, next_search, review_of, spent
from reflectcli.graph.sanity import consistent, implausible
from reflectcli.models.base import ModelClient
from reflectcli.models.fallbacks import fallback_outline, heuristic_review
from reflectcli.models.structured import complete_structured
from reflectcli.pool import in_order
from reflectcli.sources.evidence import number, relevant, section_query
from reflectcli.sources.verify import judge
from reflectcli.writing import markdown, prompts
from reflectcli.writing.checklist import checklist_review
from reflectcli.writing.citations import cited_ids, clean_citations, run_labels, strip_invented
from reflectcli.writing.claims import claims_in
from reflectcli.writing.rubric import DIMENSIONS
from reflectcli.writing.schemas import Outline, Review, outline_schema, review_schema
from reflectcli.writing.textops import assemble, clean_section

PLAN_TOKENS = 600
REVIEW_TOKENS = 900


def weighted(score: float, dims: dict[str, float], weights: dict[str, float] | None) -> float:
    """Overall score: the weighted mean of the dimensions when weights are set."""
    if not weights:
        return score
    total = sum(weights.get(d, 0.0) for d in DIMENSIONS)
    return round(sum(dims[d] * weights.get(d, 0.0) for d in DIMENSIONS) / total, 2)


ONE_PARAGRAPH = ["\n\n"]  # a tiny model asked for one paragraph stops at its end


def compact(client: Any) -> bool:
    """Short, direct prompts: the model answering is a tiny one (the embedded model). Decided by
    the client, not the run's saved settings: a run resumed with a capable model gets full
    prompts."""
    return bool(getattr(client, "tiny", False))


def takes_schema(client: Any) -> bool:
    """Whether a JSON schema will constrain the client's answer (then no example is shown)."""
    return bool(getattr(client, "takes_schema", False))


MAX_CLAIM_ITEMS = 6  # improvements made from claims per review, worst first


def claim_improvements(claims: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """A tracked improvement (major, accuracy) for each claim its source does not support or
    contradicts: contradicted ones first, one per sentence (an unjudged claim is no fix)."""
    bad = sorted((c for c in claims if c["verdict"] in ("unsupported", "contradicted")),
                 key=lambda c: c["verdict"] != "contradicted")  # fmt: skip
    items, seen = [], set()
    for claim in bad:
        if claim["sentence"] in seen:
            continue
        seen.add(claim["sentence"])
        sentence = claim["sentence"] if len(claim["sentence"]) <= 140 else claim["sentence"][:137] + "..."
        items.append({
            "section": claim["section"],
            "issue": f"Correct or remove the claim \"{sentence}\": [{claim['source']}] is "
                     f"{claim['verdict']} ({claim['reason']}"
                     + (f"; it says: “{claim['quote']}”" if claim.get("quote") else "")
                     + "); say only what the source says, or cite one that says it",
            "severity": "major", "dimension": "accuracy", "origin": "claim",
        })  # fmt: skip
    return items[:MAX_CLAIM_ITEMS]


def _without_invented_ids(value: dict[str, Any], errors: list[str], held: set[str],
                          labels: Any, round_no: int) -> tuple[list[str], list[dict[str, Any]]]:  # fmt: skip
    """The critic's words cite no id the run lacks either: its feedback, improvements, queries
    and claim reasons are cleaned in place (`clean_citations`); returns its errors cleaned and
    the trace's notes on what was removed or rewritten."""
    invented: list[str] = []
    rewritten: list[tuple[str, str]] = []

    def clean(text: str) -> str:
        kept, gone, changed = clean_citations(text, held, labels)
        invented.extend(gone)
        rewritten.extend(changed)
        return kept

    value["feedback"] = clean(value["feedback"])
    for imp in value["improvements"]:
        imp["issue"], imp["section"] = clean(imp["issue"]), clean(imp["section"])
    value["search_queries"] = [q for q in (clean(q).strip() for q in value["search_queries"]) if q]
    for claim in value["claims"]:
        claim["reason"], claim["quote"] = clean(claim["reason"]), clean(claim["quote"])
    cleaned = [clean(e) for e in errors]
    return cleaned, citation_notes("review", invented, rewritten, " from the critique", round=round_no)


class Nodes:
    """The loop's steps, bound to a writer and a critic client."""

    def __init__(self, writer: ModelClient, critic: ModelClient, retriever: Any = None,
                 learner: Any = None):  # fmt: skip
        self.writer = writer
        self.critic = critic
        self.retriever = retriever  # query -> {"hits": ranked passages, "notes"}; None: no sources
        self.learner = learner  # state -> what was learned; None: the run learns nothing

    def plan(self, state: dict[str, Any]) -> dict[str, Any]:
        params = state["params"]
        limit = params["max_sections"]
        attempt = state.get("plans", 0) + 1
        writer = Budgeted(self.writer, state)
        step = "plan" if attempt == 1 else f"plan:g{attempt}"
        try:
            if compact(writer):  # a tiny model asks a reader's questions: it cannot plan titles
                result = plan_questions(writer, state["task"], limit, step)
            else:
                result = complete_structured(
                    writer,
                    prompts.plan_messages(state["task"], limit, params.get("language"),
                                          example=not takes_schema(writer)),
                    Outline,
                    step=step,
                    fallback=lambda: fallback_outline(state["task"], limit),
                    json_schema=outline_schema(limit),
                    max_tokens=PLAN_TOKENS,
                    context={"task": state["task"]},  # titles head parts of it
                )  # fmt: skip
        except BudgetExceeded as exc:
            return budget_stop("plan", exc, 0)
        sections = [s.model_dump() for s in result.value.sections][:limit]
        gone: list[str] = []
        for section in sections:  # an outline cites nothing: no id may reach a heading
            title, removed = strip_invented(section["title"], set())
            section["title"] = title.strip() or section["title"].replace("[", "").replace("]", "")
            section["goal"], dropped = strip_invented(section["goal"], set())
            section["goal"] = section["goal"].strip()
            gone += removed + dropped
        trace = [call_event("plan", c) for c in result.calls]
        trace += citation_notes("plan", gone, [], " from the outline")
        if result.source == "fallback":
            few = f"fewer than {min(2, limit)} usable questions"
            unusable = few if compact(writer) else "outline unusable"
            trace.append(note_event("plan", "fallback", f"{unusable} after retries; using a generic "
                                    "outline", errors=result.errors))  # fmt: skip
        what = "question dropped: the question" if compact(writer) else "section dropped: the title"
        for why in getattr(result.value, "dropped", []):
            trace.append(note_event("plan", "title_dropped", f"{what} {why}"))
        return {
            "outline": {"sections": sections, "source": result.source, "errors": result.errors},
            "plans": attempt,
            "trace": trace,
        }

    def research(self, state: dict[str, Any]) -> dict[str, Any]:
        """One search step (`next_search`): before drafting, a section's title and goal and the
        task itself; or the queries the latest review asked for. The passages whose score clears
        the relevance floor (`relevant`) join the evidence under ids kept for the whole run; a
        section whose own search found nothing relevant is flagged off-task. With parallel
        drafting the step researches every section left, not one. The step's searches run at
        once (up to `concurrency`; a query asked twice is searched once) and are merged in
        outline order. Each search is journaled: a resumed run never searches again."""
        search = next_search(state)
        if search is None:
            raise RuntimeError("research step without a search to make")
        if self.retriever is None:
            raise RuntimeError("this run uses sources, but no source library was given to it")
        outline = state["outline"]["sections"]
        if search["kind"] == "section":
            indices = [search["section"]]
            if parallel_draft(state):
                indices = list(range(search["section"], len(outline)))
            asked = [(i, list(dict.fromkeys([section_query(state["task"], outline[i]), state["task"]])))
                     for i in indices]  # fmt: skip
        else:  # the review's queries left, all at once
            asked = [(None, [query]) for query in search["queries"]]
        distinct = list(dict.fromkeys(q for _, queries in asked for q in queries))

        def timed(query: str) -> tuple[dict[str, Any], float]:
            started = time.perf_counter()
            return self.retriever(query), time.perf_counter() - started

        answers = dict(zip(distinct, in_order(timed, distinct, concurrency(state)),
                           strict=True))  # fmt: skip
        new: list[dict[str, Any]] = []
        trace: list[dict[str, Any]] = []
        said = {e.get("note") for e in state.get("trace") or [] if e.get("node") == "research"}
        done = state.get("research") or {}
        if done.get("plan") != state.get("plans"):  # a new outline: research it afresh
            done = {"plan": state.get("plans"), "sections": []}
        sections = list(done["sections"])
        for index, queries in asked:
            found = [(q, answers[q][0]) for q in queries]
            searches = [(q, f["hits"]) for q, f in found]
            kept = relevant(searches, max(len(hits) for _, hits in searches))
            ids: list[str] = []
            for query, hit in kept:
                more, got = number((state.get("evidence") or []) + new, [hit], index, query,
                                   search.get("round"))  # fmt: skip
                new += more
                ids += [i for i in got if i not in ids]
            query = queries[0]
            where = f"section {index + 1}" if index is not None else f"round {search['round']}"
            also = " and the task" if len(queries) > 1 else ""
            found_ids = ", ".join(ids) or "nothing"
            trace.append(note_event(
                "research", "search", f"{where}: {found_ids} for “{query}”{also}", query=query,
                ids=ids, duration=round(sum(answers[q][1] for q in queries), 3),
                **({"section": index + 1} if index is not None else {"round": search["round"]}),
            ))  # fmt: skip
            for _, f in found:
                for n in f.get("notes") or []:
                    if n["note"] not in said:
                        said.add(n["note"])
                        trace.append(note_event("research", n["kind"], n["note"]))
            if index is not None and len(queries) > 1 and kept and all(q != queries[0] for q, _ in kept):
                title = outline[index]["title"]
                trace.append(note_event("research", "off_task", f"section {index + 1} “{title}”: its "
                                        "own search found nothing relevant; its evidence is the "
                                        "task's", section=index + 1))  # fmt: skip
            if index is not None:
                sections.append(ids)
        update: dict[str, Any] = {"evidence": new, "trace": trace}
        if search["kind"] == "section":
            update["research"] = {**done, "sections": sections}
        return update

    def draft(self, state: dict[str, Any]) -> dict[str, Any]:
        """The next section (sequential drafting); or, with `draft = "parallel"`, every section
        left at once, up to `concurrency` calls in flight, merged in outline order. Each call is
        journaled on its own: after a kill the answered ones are replayed, none is sent again."""
        outline = state["outline"]["sections"]
        written = state.get("sections") or []
        writer = Budgeted(self.writer, state)
        parallel = parallel_draft(state)
        indices = range(len(written), len(outline)) if parallel else [len(written)]

        def one(index: int) -> tuple[str, list[dict[str, Any]]] | BudgetExceeded:
            try:
                return self._section(state, index, writer, parallel)
            except BudgetExceeded as exc:  # the others go on: what they wrote is kept
                return exc

        done = in_order(one, indices, concurrency(state, self.writer))
        refused = next((d for d in done if isinstance(d, BudgetExceeded)), None)
        upto = done.index(refused) if refused is not None else len(done)
        kept = [d for d in done[:upto] if not isinstance(d, BudgetExceeded)]
        if refused is not None:  # the sections before the first refused one are kept
            steps = {e["step"] for _, events in kept for e in events if "step" in e}
            stop = budget_stop("draft", BudgetExceeded(refused.why, [c for c in writer.calls
                                                                     if c.step not in steps]), 0)  # fmt: skip
            return {**stop, "sections": [body for body, _ in kept],
                    "trace": [e for _, events in kept for e in events] + stop["trace"]}  # fmt: skip
        bodies = [body for body, _ in kept]
        update: dict[str, Any] = {"sections": bodies, "trace": [e for _, events in kept for e in events]}
        if len(written) + len(bodies) == len(outline):
            text = assemble(outline, [*written, *bodies])
            update["versions"] = [{"n": 1, "round": 0, "kind": "draft", "text": text}]
        return update

    def _section(self, state: dict[str, Any], index: int, writer: Budgeted,
                 parallel: bool) -> tuple[str, list[dict[str, Any]]]:  # fmt: skip
        """Section `index`'s body and its trace events (the call, then any guard's notes)."""
        outline = state["outline"]["sections"]
        messages = prompts.section_messages(
            state["task"],
            outline,
            [] if parallel else state.get("sections") or [],
            index,
            state["params"].get("language"),
            compact=compact(self.writer),
            words=max(40, section_tokens(state) // 3),  # room below the cap
            evidence=section_evidence(state, index),
            lessons=state.get("lessons"),
            sources=state.get("evidence") or None,  # the same for every section: cacheable
            parallel=parallel,
        )
        completion = writer.complete(
            messages,
            step=f"draft:s{index + 1}",
            max_tokens=section_tokens(state),
            stop=ONE_PARAGRAPH if compact(self.writer) else None,
        )
        raw, notes = generated_text(completion, "draft", messages, section=index + 1)
        body = markdown.closed(clean_section(raw, outline[index]["title"], [s["title"] for s in outline]))
        body, removed = grounded(body, state, "draft", section=index + 1)
        body, cited = attributed(body, section_evidence(state, index), self.writer, "draft",
                                 section=index + 1)  # fmt: skip
        return body, [call_event("draft", completion, section=index + 1), *notes, *removed, *cited]

    def review(self, state: dict[str, Any]) -> dict[str, Any]:
        """The critic's review of the latest version: its score (checked against its dimensions,
        weighted by the policy), its improvements and claim verdicts, with every id it cites that
        the run lacks removed; the critiques' ledger updated."""
        if state["params"].get("critic") == "checklist":
            return self.checklist(state)
        version = state["versions"][-1]
        round_no = len(state.get("reviews") or []) + 1
        titles = [s["title"] for s in state["outline"]["sections"]]
        critiques = dict(state.get("critiques") or {})
        open_items = [c for c in critiques.values() if c["status"] == "open"]
        evidence = state.get("evidence") or []
        try:
            result = self._ask_critic(state, version, round_no, titles, open_items)
        except BudgetExceeded as exc:
            return budget_stop("review", exc, round_no)
        value = result.value.model_dump()
        trace = [call_event("review", c, round=round_no) for c in result.calls]
        weights = (state["params"].get("policy") or {}).get("weights")
        score = consistent(value["score"], value["dimensions"])
        if score != value["score"]:
            trace.append(note_event(
                "review", "adjusted", f"overall {value['score']:g} disagrees with the dimensions' "
                f"mean; using {score:g}", round=round_no,
            ))  # fmt: skip
        score = weighted(score, value["dimensions"], weights)
        errors, notes = _without_invented_ids(value, result.errors, {e["id"] for e in evidence},
                                              run_labels(state), round_no)  # fmt: skip
        trace += notes
        claims = judge(version["text"], titles, evidence, value.pop("claims", []))
        found = [*value["improvements"], *claim_improvements(claims)]
        improvements = [{**imp, "id": f"r{round_no}.{i}"} for i, imp in enumerate(found, 1)]
        for item_id in value["addressed"]:
            if item_id in critiques and critiques[item_id]["status"] == "open":
                critiques[item_id] = {**critiques[item_id], "status": "addressed",
                                      "closed_in": round_no}  # fmt: skip
        for imp in improvements:
            critiques[imp["id"]] = {**imp, "round": round_no, "status": "open", "closed_in": None}
        review = {
            **value,
            "score": score,
            "critic_score": value["score"],
            "improvements": improvements,
            "round": round_no,
            "version": version["n"],
            "source": result.source,
            "errors": errors,
        }
        if claims or evidence:
            review["claims"] = claims
        if result.source == "fallback":
            trace.append(note_event("review", "fallback", "critic answer unusable after "
                                    "retries; heuristic score used", round=round_no))  # fmt: skip
        return {"reviews": [review], "critiques": critiques, "trace": trace}

    def _ask_critic(self, state: dict[str, Any], version: dict[str, Any], round_no: int,
                    titles: list[str], open_items: list[dict[str, Any]]) -> Any:  # fmt: skip
        """The critic's call (`review:rN`): the version, the open critiques, the passages it
        cites, and the claims to judge (each cited claim with the ids it cites that the run
        holds; an outside article's unresolved references have none). A tiny critic judges no
        claims and is shown no passages' ids."""
        evidence = state.get("evidence") or []
        cited = set(cited_ids(version["text"], run_labels(state)))
        shown = [e for e in evidence if e["id"] in cited]
        tiny = compact(self.critic)
        to_judge = []
        for claim in claims_in(version["text"], titles) if shown and not tiny else []:
            if held_ids := [i for i in claim["ids"] if i in cited and any(e["id"] == i for e in shown)]:
                to_judge.append({**claim, "ids": held_ids})
        return complete_structured(
            Budgeted(self.critic, state),
            prompts.review_messages(
                state["task"],
                version["text"],
                round_no,
                state["params"].get("language"),
                open_items,
                compact=tiny,
                example=not takes_schema(self.critic),
                evidence=shown,
                research=researching(state),
                lessons=state.get("lessons"),
                claims=to_judge,
                outline=state["outline"]["sections"],
                sources=evidence or None,
            ),
            Review,
            step=f"review:r{round_no}",
            fallback=lambda: heuristic_review(version["text"], titles),
            json_schema=review_schema(
                titles,
                [c["id"] for c in open_items],
                [e["id"] for e in shown] if not tiny else None,
                queries=researching(state) and not tiny,
                claim_ids=[c["id"] for c in to_judge],
            ),
            max_tokens=REVIEW_TOKENS,
            check=lambda r: implausible(r.score, r.dimensions.model_dump(), r.feedback, tiny),
        )

    def checklist(self, state: dict[str, Any]) -> dict[str, Any]:
        """The review by rules (writing/checklist.py): no model call, the same shape as the
        critic's, `source: checklist`. Every cited claim gets code's verdict (`judge` with no
        critic: contradicted / unverified / consistent); a contradicted one is a major finding.
        Its earlier findings that are gone are addressed."""
        version = state["versions"][-1]
        round_no = len(state.get("reviews") or []) + 1
        outline = state["outline"]["sections"]
        critiques = dict(state.get("critiques") or {})
        open_items = [c for c in critiques.values() if c["status"] == "open"]
        started = time.perf_counter()
        titles = [s["title"] for s in outline]
        claims = judge(version["text"], titles, state.get("evidence") or [], [])  # code's check alone
        value = checklist_review(
            state["task"], version["text"], outline, max(40, section_tokens(state) // 3),
            [section_evidence(state, i) for i in range(len(outline))], open_items, claims,
        )  # fmt: skip
        improvements = [{**imp, "id": f"r{round_no}.{i}"} for i, imp in enumerate(value["improvements"], 1)]
        for item_id in value["addressed"]:
            critiques[item_id] = {**critiques[item_id], "status": "addressed", "closed_in": round_no}
        for imp in improvements:
            critiques[imp["id"]] = {**imp, "round": round_no, "status": "open", "closed_in": None}
        review = {**value, "critic_score": value["score"], "improvements": improvements, "round": round_no,
                  "version": version["n"], "source": "checklist", "errors": []}  # fmt: skip
        took = round(time.perf_counter() - started, 3)
        event = note_event("review", "checklist", f"{len(improvements)} finding(s) to fix, score "
                           f"{value['score']:g}, {took:.1f}s", round=round_no, duration=took)  # fmt: skip
        return {"reviews": [review], "critiques": critiques, "trace": [event]}

    def decide(self, state: dict[str, Any]) -> dict[str, Any]:
        reviews = state["reviews"]
        review = reviews[-1]
        rules = Rules.from_params(state["params"])
        extra = state.get("extra_rounds", 0)
        if extra:
            rules = Rules(**{**rules.__dict__, "max_rounds": rules.max_rounds + extra})
        used = spent(state)
        previous = reviews[-2]["improvements"] if len(reviews) > 1 else []
        facts = Facts(
            round=review["round"],
            scores=tuple(r["score"] for r in reviews),
            dimensions=review["dimensions"],
            improvements=tuple(i["issue"] for i in review["improvements"]),
            previous_improvements=tuple(i["issue"] for i in previous),
            tokens=used["tokens"],
            cost=used["cost"],
            fallback=review.get("source") == "fallback",
            rejected=state.get("rejected") == review["round"] + 1,
            contradicted=sum(1 for c in review.get("claims") or [] if c["verdict"] == "contradicted"),
            searches=len(critic_searches(state)),
            human=len(pending_human(state)),
        )
        decision = decide(facts, rules)
        update: dict[str, Any] = {"decisions": [decision.log_entry(review["round"])]}
        update["stop_reason"] = decision.reason if decision.action == "stop" else None
        return update

    def learn(self, state: dict[str, Any]) -> dict[str, Any]:
        """Lessons from the run's critique history into the memory, once (a resumed step finds
        the run already learned and stores nothing twice)."""
        if self.learner is None:
            raise RuntimeError("this run learns lessons, but no memory was given to it")
        result = self.learner(state)
        parts = [f"{len(result['written'])} new", f"{len(result['merged'])} reinforced"]
        if result["superseded"]:
            parts.append(f"{len(result['superseded'])} superseded")
        heard = result.get("heeded") or {}
        if heard:
            parts.append("your critiques: " + ", ".join(f"{k} {v}" for k, v in heard.items()))
        again = " (already stored)" if result.get("repeated") and not heard else ""
        note = note_event("learn", "memory", "lessons learned: " + ", ".join(parts) + again)
        before = (state.get("learned") or {}).get("heeded") or []
        learned = {k: result[k] for k in ("written", "merged", "superseded")}
        return {"learned": {**learned, "heeded": [*before, *(k for k in heard if k not in before)]},
                "trace": [note]}  # fmt: skip

    def finalize(self, state: dict[str, Any]) -> dict[str, Any]:
        """The output is the best-reviewed version; a run that did not pass lists its open
        improvements as known issues, and so does one whose output holds a claim that code or
        the critic found contradicted (it cannot pass: `contradicted`), each such claim named."""
        update: dict[str, Any] = {"status": "finished"}
        if not state.get("versions"):  # stopped (budget) before the draft was complete
            outline = (state.get("outline") or {}).get("sections") or []
            text = assemble(outline, state.get("sections") or [])
            update["versions"] = [{"n": 1, "round": 0, "kind": "partial", "text": text}]
            update["final_version"] = 1
            return update
        best = best_version(state)
        update["final_version"] = best["n"]
        update["known_issues"] = []  # a run steered again and passed has none left
        review = review_of(state, best["n"])
        if wrong := contradicted(review):  # every version holds one: the run cannot pass
            if state.get("stop_reason") == "passed":
                update["stop_reason"] = "contradicted"
        if state.get("stop_reason") != "passed" or wrong:
            issues = [{k: imp[k] for k in ("id", "section", "issue", "severity")}
                      for imp in (review or {}).get("improvements", [])]  # fmt: skip
            named = " ".join(i["issue"] for i in issues)
            issues += [{"id": f"{c['claim']}.{c['source']}", "section": c["section"], "severity": "major",
                        "issue": f"The claim \"{c['sentence']}\" is contradicted by [{c['source']}] "
                                 f"({c['reason']})"}
                       for c in wrong if c["sentence"][:60] not in named]  # fmt: skip
            update["known_issues"] = issues
        return update
