"""`reflectcli ask ID "QUESTION"`: a reader's question about a finished run, answered from its
output and its evidence, and checked like the article.

The passages shown to the writer, in this order: the sources the output cites, then the source
library's best passages for the question, then a web search's (when the run used web research
and the person asks for it). New passages join the run's evidence under new ids (`[S7]`), so an
answer worked into the article keeps its citations. The answer's `[Sn]` citations go through the
article's claim check (sources/verify.py `judge`: the critic's verdict on each cited claim, code's
veto on hard facts); an invented id is removed, as in a draft. What is shown, stored and exported
is the answer with its marks: a claim whose source says otherwise carries `(✗ contradicted by
S2)` where it stands, so it is never read as an answer without it.

Applying an answer (`--apply`): to the section the question names (or `--section`), as the
person's critique of that section, revised and reviewed like `revise`; otherwise as a new section
after the last, every other byte of the output kept, then reviewed. Either way the usual
best-version rule chooses the output. Each call goes through the run's journaled client, so a
kill never pays twice: the same question asked again after a kill replays the journaled answer.
"""

from __future__ import annotations

import re
from typing import Any

from reflectcli.graph.common import call_event, generated_text, note_event
from reflectcli.graph.human import output_version, steer
from reflectcli.models.structured import complete_structured
from reflectcli.sources.evidence import number, relevant
from reflectcli.sources.verify import attribute, carrying, judge
from reflectcli.writing import ask_prompts
from reflectcli.writing.citations import cited_ids, strip_invented
from reflectcli.writing.claims import cited_sentences, claims_in, pieces
from reflectcli.writing.schemas import AnswerCheck, answer_check_schema
from reflectcli.writing.textops import locate_sections, match_section

MAX_CITED = 6  # of the output's cited sources shown with a question (a tiny model sees 3 in all)
ANSWER_TOKENS = 450
COMPACT_TOKENS = 160
CHECK_TOKENS = 700
CLEAN = ("supported", "consistent", "unjudged")  # verdicts that carry no mark
TITLE_CHARS = 80


def _tiny(client: Any) -> bool:
    return bool(getattr(client, "tiny", False))


def cited_sources(state: dict[str, Any], text: str) -> list[dict[str, Any]]:
    """The run's passages `text` cites, in the order it first cites them."""
    by_id = {e["id"]: e for e in state.get("evidence") or []}
    return [by_id[i] for i in dict.fromkeys(cited_ids(text)) if i in by_id]


def same_question(state: dict[str, Any], question: str, research: bool) -> dict[str, Any] | None:
    """The record of `question` asked before in the same way (with or without web research)."""
    return next((q for q in state.get("questions") or []
                 if q["question"] == question and bool(q.get("research")) == research), None)  # fmt: skip


class Asker:
    """Answers one question about a finished run: the writer answers, the critic judges the
    answer's cited claims (none with a tiny critic or the checklist: code's veto alone).
    `library` and `web` are retrievers (a query to {"hits", "notes"}), None when not used."""

    def __init__(self, writer: Any, critic: Any = None, library: Any = None, web: Any = None):
        self.writer, self.critic, self.library, self.web = writer, critic, library, web

    def __call__(self, state: dict[str, Any], question: str, research: bool = False) -> dict[str, Any]:
        """{"record": the question's record, "evidence": new passages, "trace": its events}."""
        n = len(state.get("questions") or []) + 1
        version = output_version(state)
        evidence = list(state.get("evidence") or [])
        shown = cited_sources(state, version["text"])[:MAX_CITED]
        new: list[dict[str, Any]] = []
        trace: list[dict[str, Any]] = []
        for where, retriever in (("the source library", self.library), ("the web", self.web)):
            if retriever is None:
                continue
            found = retriever(question)
            kept = relevant([(question, found["hits"])], len(found["hits"]))
            more, ids = number(evidence + new, [hit for _, hit in kept], None, question)
            new += [{**e, "question": n} for e in more]
            held = {e["id"]: e for e in evidence + new}
            shown += [held[i] for i in ids if i not in {e["id"] for e in shown}]
            trace.append(note_event("ask", "ask_search", f"question {n}: {', '.join(ids) or 'nothing'} "
                                    f"from {where}", ids=ids, question=n))  # fmt: skip
        tiny = _tiny(self.writer)
        shown = shown[:3] if tiny else shown
        params = state.get("params") or {}
        facts = [{**e, "text": _carried(question, e["text"])} for e in shown] if tiny else shown
        messages = ask_prompts.ask_messages(state.get("task", ""), version["text"], question, facts,
                                        params.get("language"), compact=tiny)  # fmt: skip
        completion = self.writer.complete(messages, step=f"ask:q{n}",
                                          max_tokens=COMPACT_TOKENS if tiny else ANSWER_TOKENS,
                                          stop=["\n\n"] if tiny else None)  # fmt: skip
        raw, notes = generated_text(completion, "ask", messages, question=n)
        trace += [call_event("ask", completion, question=n), *notes]
        text, gone = strip_invented(raw.strip(), {e["id"] for e in shown})
        if gone:
            trace.append(note_event("ask", "invented_citation", f"question {n}: removed {len(gone)} "
                                    f"citation(s) to sources not shown with it: {', '.join(gone)}",
                                    removed=gone, question=n))  # fmt: skip
        if tiny and shown:  # too small to cite: cited in code where it copied a passage
            text, added = attribute(text, shown)
            if added:
                note = f"question {n}: cited in code: {', '.join(added)}"
                trace.append(note_event("ask", "attributed", note, added=added, by="code", question=n))
        passages = evidence + new
        verdicts, events = self._check(question, text, passages, n)
        trace += events
        record = {
            "n": n, "question": question, "answer": marked(text, verdicts), "text": text,
            "claims": verdicts, "sources": [e["id"] for e in shown],
            "cited": [i for i in dict.fromkeys(cited_ids(text)) if i in {e["id"] for e in shown}],
            "research": research, "version": version["n"], "model": completion.model,
            "at": completion.at, "applied": None,
        }  # fmt: skip
        return {"record": record, "evidence": new, "trace": trace}

    def _check(self, question: str, text: str, passages: list[dict[str, Any]],
               n: int) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:  # fmt: skip
        """The verdicts on the answer's cited claims, and the check call's trace events."""
        claims = claims_in(text, [])
        if not claims:
            return [], []
        said: list[dict[str, Any]] = []
        events: list[dict[str, Any]] = []
        if self.critic is not None and not _tiny(self.critic):
            by_id = {e["id"]: e for e in passages}
            cited = [by_id[i] for i in dict.fromkeys(i for c in claims for i in c["ids"]) if i in by_id]
            schema = answer_check_schema([c["id"] for c in claims], [e["id"] for e in cited])
            example = not getattr(self.critic, "takes_schema", False)
            result = complete_structured(
                self.critic, ask_prompts.answer_check_messages(question, claims, cited, example=example),
                AnswerCheck, step=f"check:q{n}", fallback=AnswerCheck, json_schema=schema,
                max_tokens=CHECK_TOKENS,
            )  # fmt: skip
            events = [call_event("ask", c, question=n) for c in result.calls]
            if result.source == "fallback":
                events.append(note_event("ask", "fallback", f"question {n}: the critic's verdicts were "
                                         "unusable; code's check alone", question=n))  # fmt: skip
            said = [c.model_dump() for c in result.value.claims]
        return judge(text, [], passages, said), events


def _carried(question: str, passage: str) -> str:
    """The passage's sentence that holds most of the question's words (a tiny model is shown
    one sentence a passage, not its first lines), or the passage when none does."""
    best = carrying(question, passage)
    return best[0] if best else passage


def _mark(claims: list[dict[str, Any]]) -> str:
    parts = [("✗ " if c["verdict"] == "contradicted" else "? ") + f"{c['verdict']} by {c['source']}"
             for c in claims]  # fmt: skip
    return f" ({'; '.join(dict.fromkeys(parts))})"


def marked(text: str, verdicts: list[dict[str, Any]]) -> str:
    """The answer as it is shown and kept: each sentence whose cited source does not support it
    marked where it stands, before its full stop (`(✗ contradicted by S2)`), contradicted or not;
    a mark that cannot be placed (the sentence not found as written) goes on a line above the
    answer. Sentences are found as the claim check finds them: per block of lines, its line
    breaks read as spaces (one character for one, so a place found is a place in the text)."""
    bad: dict[str, list[dict[str, Any]]] = {}
    for v in verdicts:
        if v["verdict"] not in CLEAN:
            bad.setdefault(v["sentence"], []).append(v)
    if not bad:
        return text
    placed: set[str] = set()
    blocks = re.split(r"(\n[ \t]*\n)", text)
    for b, block in enumerate(blocks):
        if b % 2 or not block.strip():
            continue
        at, marks = 0, []
        for piece in pieces(block.replace("\n", " ")):
            for sentence, _ in cited_sentences(piece):
                if sentence in bad and sentence not in placed:
                    stop = _STOP.search(piece)  # (it matches: at least the end)
                    marks.append((at + (stop.start() if stop else len(piece)), _mark(bad[sentence])))
                    placed.add(sentence)
            at += len(piece)
        for where, mark in reversed(marks):
            block = block[:where] + mark + block[where:]
        blocks[b] = block
    top = [f"{_mark(claims).strip()} “{sentence}”" for sentence, claims in bad.items()
           if sentence not in placed]  # fmt: skip
    return "\n".join([*top, "".join(blocks)]) if top else "".join(blocks)


_STOP = re.compile(r"[.!?。！？]*\s*$")


def contradicted_claims(record: dict[str, Any]) -> list[dict[str, Any]]:
    return [c for c in record.get("claims") or [] if c["verdict"] == "contradicted"]


def question_title(question: str) -> str:
    """A heading for the section an answer becomes: the question, on one line, no Markdown
    block marks in front, at most TITLE_CHARS characters (cut at a word)."""
    title = strip_invented(" ".join(question.split()), set())[0]  # a heading cites nothing
    title = " ".join(title.split()).lstrip("#>*-+ ").strip()
    if len(title) > TITLE_CHARS:
        title = title[:TITLE_CHARS].rsplit(" ", 1)[0].rstrip(",;:") + " …"
    return title or "A reader's question"


def target_section(state: dict[str, Any], record: dict[str, Any], section: str | None) -> int | None:
    """The section an answer changes: the one `--section` names, else the one the question names
    by its title; None: the answer becomes a new section. Raises ValueError for an unknown
    `--section`."""
    titles = [s["title"] for s in (state.get("outline") or {}).get("sections") or []]
    if section:
        index = match_section(section, titles)
        if index is None:
            raise ValueError(f"no section {section!r} in the run; its sections: " + "; ".join(titles))
        return index
    wanted = " ".join(record["question"].split()).lower()
    return next((i for i, t in enumerate(titles) if len(t) > 3 and t.lower() in wanted), None)


def applied(state: dict[str, Any], n: int, how: str) -> list[dict[str, Any]]:
    """The run's questions with question `n` marked as applied (`how`: where it went)."""
    return [{**q, "applied": how} if q["n"] == n else q for q in state.get("questions") or []]


def answer_section(state: dict[str, Any], record: dict[str, Any]) -> dict[str, Any]:
    """The finished run's state with the answer as a new section after the last (its question as
    the heading, at the level of the output's sections): a new version whose text starts with
    the output's, byte for byte, and that the review comes to next, as one more round."""
    base = output_version(state)
    titles = [s["title"] for s in state["outline"]["sections"]]
    spans = [s for s in locate_sections(base["text"], titles) if s is not None]
    level = spans[-1].level if spans else 2
    title = question_title(record["question"])
    text = base["text"]
    gap = "" if text.endswith("\n\n") or not text else ("\n" if text.endswith("\n") else "\n\n")
    text += f"{gap}{'#' * level} {title}\n\n{record['text'].strip()}\n"
    versions = state.get("versions") or []
    used = len(state.get("reviews") or [])
    n = max(v["n"] for v in versions) + 1
    version = {"n": n, "round": used, "kind": "answer", "base": base["n"], "text": text,
               "question": record["n"]}  # fmt: skip
    extra = max(state.get("extra_rounds", 0), used + 1 - state["params"]["max_rounds"])
    detail = f"the answer to your question q{record['n']} as a new section, version {n}: reviewed next"
    outline = state["outline"]
    return {
        **state,
        "outline": {**outline, "sections": [*outline["sections"],
                                            {"title": title, "goal": "Answers a reader's question."}]},
        "versions": [*versions, version],
        "questions": applied(state, record["n"], f"new section, version {n}"),
        "status": "running", "stop_reason": None, "accepted": None, "final_version": None,
        "known_issues": [], "rejected": None, "revision": None, "pick": None, "extra_rounds": extra,
        "decisions": [*(state.get("decisions") or []),
                      {"round": used, "decision": "more", "reason": "human", "detail": detail}],
        "trace": [*(state.get("trace") or []), note_event("ask", "human", detail, question=record["n"],
                                                          version=n)],
    }  # fmt: skip


def answer_critique(state: dict[str, Any], record: dict[str, Any], index: int) -> dict[str, Any]:
    """The checkpoint update that works the answer into section `index`: the person's critique
    of it (graph/human.py `steer`), revised and reviewed in one more round."""
    title = state["outline"]["sections"][index]["title"]
    feedback = (f"Answer the reader's question “{' '.join(record['question'].split())}” in this "
                f"section, using this answer and its citations: {record['text']}")  # fmt: skip
    update = steer(state, feedback, title, "major", 1)
    item = next(e["id"] for e in update["trace"] if e.get("kind") == "human")
    update["critiques"][item] = {**update["critiques"][item], "origin": "question", "question": record["n"]}
    update["questions"] = applied(state, record["n"], f"worked into “{title}” ({item})")
    return update
