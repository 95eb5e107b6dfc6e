"""The memory bank: lessons stored in the runs folder's database, learned at the end of a run,
recalled at the start of the next. Every change is an event in the memory log
(`memory_write`, `memory_merge`, `memory_decay`, `memory_supersede`, and the user's
`memory_add`, `memory_edit`, `memory_pin`, `memory_forget`; `memory_note` for a critique of
theirs that waits, `pending`, until they ask for the same in another run).

Recall: the lessons whose scope is `general` or one of the task's tags, ranked by decayed
strength × (1 + relevance), relevance from BM25 over the lesson's text and tags (1 for the
best match, falling to 0 for the last; 0 for lessons that do not match the task's words)."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from reflectcli.errors import UserError
from reflectcli.memory import lessons as rules
from reflectcli.store.db import Store
from reflectcli.store.library import fts_query
from reflectcli.store.memory import MemoryTables
from reflectcli.writing.textops import searchable

HALF_LIFE_DAYS = 30.0


def _body(text: str, scope: str, tags: str) -> str:
    return searchable(f"{text} {tags} {scope if scope != 'general' else ''}")


CAREFUL = "Apply with care, it once lowered the score: "


class Memory:
    """Lessons in `runs_dir`'s reflect.db. `clock` gives the time (tests move it)."""

    def __init__(self, runs_dir: str | Path, half_life_days: float = HALF_LIFE_DAYS,
                 clock: Callable[[], float] = time.time, store: Store | None = None):  # fmt: skip
        self.runs_dir = runs_dir
        self.half_life = half_life_days
        self.clock = clock
        self.store = store  # an open store to use (a run's own), instead of opening one

    @contextmanager
    def _tables(self, write: bool = True) -> Iterator[MemoryTables | None]:
        store = Store(self.runs_dir) if write else Store.existing(self.runs_dir)
        try:
            yield MemoryTables(store.conn) if store is not None else None
        finally:
            if store is not None:
                store.close()

    @contextmanager
    def _transaction(self) -> Iterator[MemoryTables]:
        if self.store is not None:
            with self.store.transaction(exclusive=True):
                yield MemoryTables(self.store.conn)
            return
        store = Store(self.runs_dir)
        try:
            with store.transaction(exclusive=True):
                yield MemoryTables(store.conn)
        finally:
            store.close()

    def strength(self, lesson: dict[str, Any], now: float | None = None) -> float:
        now = self.clock() if now is None else now
        return rules.decayed(lesson["strength"], lesson["last_seen"], now, self.half_life,
                             lesson["pinned"])  # fmt: skip

    def _metabolize(self, tables: MemoryTables, now: float, thread_id: str | None) -> list[int]:
        """Archive the active lessons whose decayed strength fell below the floor (in SQL)."""

        def strength_now(strength: float, last_seen: float) -> float:
            return rules.decayed(strength, last_seen, now, self.half_life)

        archived = tables.fade(strength_now, rules.FLOOR)
        for lesson_id in archived:
            tables.log("memory_decay", lesson_id, thread_id, f"strength < {rules.FLOOR}: archived", now)
        return archived

    def metabolize(self) -> list[int]:
        """Archive what has decayed below the floor now (learning does this at every run's end)."""
        with self._transaction() as tables:
            return self._metabolize(tables, self.clock(), None)

    # --- learning ---------------------------------------------------------------------------

    def learn(self, thread_id: str, state: dict[str, Any]) -> dict[str, Any]:
        """Store what the run's critique history teaches, once per run: a second call for the
        same thread (a resumed learning step) returns the first call's result and writes nothing."""
        with self._transaction() as tables:
            done = tables.learned(thread_id)
            if done is not None:
                return {**done, "repeated": True}
            now = self.clock()
            result: dict[str, Any] = {"written": [], "merged": [], "superseded": [], "archived": []}
            result["archived"] = self._metabolize(tables, now, thread_id)
            active = tables.lessons(("active",))
            task_tags = rules.tags(state.get("task", ""))
            for found in rules.learn(state):
                match = self._closest(active, found["text"])
                if found["kind"] == "worse":
                    if match is not None:
                        result["superseded"].append(self._supersede(tables, match, found, thread_id, now))
                        active = [x for x in active if x["id"] != match["id"]]
                    continue
                if match is not None:
                    bonus = 1.5 if found["kind"] == "recurring" else 1.0
                    value = rules.reinforced(self.strength(match, now), bonus)
                    tables.update(match["id"], strength=value, seen=match["seen"] + 1, last_seen=now)
                    match.update(strength=value, last_seen=now, seen=match["seen"] + 1)
                    tables.add_evidence(match["id"], thread_id, found["round"], found["kind"],
                                        found["score_change"], found["detail"], now)  # fmt: skip
                    tables.log("memory_merge", match["id"], thread_id,
                               f"{found['kind']}: “{found['text']}” → strength {value:.2f}", now)  # fmt: skip
                    result["merged"].append(match["id"])
                    continue
                start = rules.START[found["kind"]]
                body = _body(found["text"], "general", task_tags)
                lesson_id = tables.insert(found["text"], "general", task_tags, start, now, "learned", body)
                tables.add_evidence(lesson_id, thread_id, found["round"], found["kind"],
                                    found["score_change"], found["detail"], now)  # fmt: skip
                tables.log("memory_write", lesson_id, thread_id, f"{found['kind']}: {found['detail']}", now)
                contradicted = [x for x in active if x["scope"] == "general" and not x["pinned"]
                                and rules.opposes(x["text"], found["text"])]  # fmt: skip
                for old in contradicted:  # the critic now asks for the opposite: the old one yields
                    tables.update(old["id"], status="superseded", superseded_by=lesson_id)
                    tables.log("memory_supersede", old["id"], thread_id,
                               f"superseded by lesson {lesson_id}: the critic asked for the opposite "
                               f"(“{found['text']}”)", now)  # fmt: skip
                    result["superseded"].append(old["id"])
                active = [x for x in active if x not in contradicted]
                if (lesson := tables.get(lesson_id)) is not None:  # (just written: it is there)
                    active.append(lesson)
                result["written"].append(lesson_id)
            tables.mark_learned(thread_id, result, now)
        return result

    def heed(self, thread_id: str, item: dict[str, Any], task: str) -> dict[str, Any]:
        """A person's own critique (`reflectcli revise`): it reinforces a lesson that says the
        same (by HUMAN_BONUS: a person outweighs the critic); otherwise it waits as `pending`
        (never recalled) until a critique of theirs in another run says the same, and then
        becomes an active lesson with the person as its source (strength START["human"]).
        Once per critique: a second call for the same thread and item writes nothing.
        Returns {"action": "reinforced"|"promoted"|"pending"|"skipped"|"repeated", "lesson": id}."""
        text = rules.lesson_text(item.get("issue") or "")
        if not rules.learnable(item) or len(rules.stems(text)) < 2:
            return {"action": "skipped", "lesson": None}
        mark = f"your critique {item['id']}"
        with self._transaction() as tables:
            for lesson in tables.lessons(("active", "pending")):
                if any(e["thread_id"] == thread_id and e["detail"].startswith(mark)
                       for e in tables.evidence(lesson["id"])):  # fmt: skip
                    return {"action": "repeated", "lesson": lesson["id"]}
            now = self.clock()
            detail = f"{mark}: “{' '.join(item['issue'].split())[:120]}”"
            match = self._closest(tables.lessons(("active",)), text)
            if match is not None:
                value = rules.reinforced(self.strength(match, now), rules.HUMAN_BONUS)
                tables.update(match["id"], strength=value, seen=match["seen"] + 1, last_seen=now)
                tables.add_evidence(match["id"], thread_id, item.get("round"), "human", None, detail, now)
                tables.log("memory_merge", match["id"], thread_id,
                           f"human: “{text}” → strength {value:.2f}", now)  # fmt: skip
                return {"action": "reinforced", "lesson": match["id"]}
            waiting = [x for x in tables.lessons(("pending",)) if rules.same(x["text"], text)
                       and any(e["thread_id"] != thread_id for e in tables.evidence(x["id"]))]  # fmt: skip
            if waiting:  # said again, in another run: now it is a lesson, the person's own
                lesson = waiting[0]
                start = rules.START["human"]
                tables.update(lesson["id"], status="active", strength=start, seen=lesson["seen"] + 1,
                              last_seen=now)  # fmt: skip
                tables.add_evidence(lesson["id"], thread_id, item.get("round"), "human", None, detail, now)
                runs = sorted({e["thread_id"] for e in tables.evidence(lesson["id"]) if e["thread_id"]})
                said = f"your critique recurred (runs {', '.join(runs)}): a lesson from you"
                tables.log("memory_write", lesson["id"], thread_id, said, now)
                return {"action": "promoted", "lesson": lesson["id"]}
            task_tags = rules.tags(task)
            lesson_id = tables.insert(text, "general", task_tags, 0.0, now, "human",
                                      _body(text, "general", task_tags))  # fmt: skip
            tables.update(lesson_id, status="pending")
            tables.add_evidence(lesson_id, thread_id, item.get("round"), "human", None, detail, now)
            kept = "your critique, kept: it becomes a lesson when you ask for it in another run"
            tables.log("memory_note", lesson_id, thread_id, kept, now)
            return {"action": "pending", "lesson": lesson_id}

    @staticmethod
    def _closest(active: list[dict[str, Any]], text: str) -> dict[str, Any] | None:
        """The general lesson that says the same as `text` (the most similar), if any."""
        rule = {x["id"]: x["text"].removeprefix(CAREFUL) for x in active}  # what it says, not its caution
        alike = [(rules.similarity(rule[x["id"]], text), x) for x in active
                 if x["scope"] == "general" and rules.same(rule[x["id"]], text)]  # fmt: skip
        return max(alike, key=lambda pair: (pair[0], -pair[1]["id"]))[1] if alike else None

    def _supersede(self, tables: MemoryTables, old: dict[str, Any], found: dict[str, Any],
                   thread_id: str, now: float) -> int:  # fmt: skip
        """Evidence against a lesson (applied, and the score fell): a more careful lesson takes
        its place; both are kept, linked."""
        rule = old["text"].removeprefix(CAREFUL)  # superseding a superseder: one prefix, not two
        text = f"{CAREFUL}{rule[0].lower()}{rule[1:]}"
        new_id = tables.insert(text, old["scope"], old["tags"], rules.START["worked"], now,
                               "learned", _body(text, old["scope"], old["tags"]))  # fmt: skip
        tables.add_evidence(new_id, thread_id, found["round"], "worse", found["score_change"],
                            found["detail"], now)  # fmt: skip
        tables.update(old["id"], status="superseded", superseded_by=new_id)
        tables.log("memory_supersede", old["id"], thread_id,
                   f"superseded by lesson {new_id}: {found['detail']}", now)  # fmt: skip
        tables.log("memory_write", new_id, thread_id, f"supersedes lesson {old['id']}", now)
        return old["id"]

    # --- recall -----------------------------------------------------------------------------

    def recall(self, task: str, k: int = 3, thread_id: str | None = None) -> list[dict[str, Any]]:
        """The top-k lessons for a task ([{id, text, score}]); counts each as used. Exact and
        fast at any size: lessons matching the task's words are scored one by one; the others
        (relevance 0, so score = decayed strength <= stored strength) are read strongest first
        and the scan stops once no stored strength can beat the k-th best score."""
        if k <= 0:
            return []
        with self._transaction() as tables:
            now = self.clock()
            query = fts_query(searchable(task))
            ranked = sorted(tables.matching(query).items(), key=lambda kv: kv[1])[:500] if query else []
            relevance = {i: 1 - n / len(ranked) for n, (i, _) in enumerate(ranked)}
            best: dict[int, tuple[float, dict[str, Any]]] = {}

            def consider(lesson: dict[str, Any]) -> None:
                if not rules.in_scope(lesson["scope"], task):
                    return
                value = self.strength(lesson, now)
                if value >= rules.FLOOR:
                    best[lesson["id"]] = (value * (1 + relevance.get(lesson["id"], 0.0)), lesson)

            for lesson in tables.some(list(relevance)):
                consider(lesson)
            for lesson in tables.by_strength():
                kth = sorted((s for s, _ in best.values()), reverse=True)[k - 1] if len(best) >= k else 0.0
                if lesson["strength"] < kth:
                    break
                if lesson["id"] not in best:
                    consider(lesson)
            scored = sorted(best.values(), key=lambda pair: (-pair[0], pair[1]["id"]))[:k]
            chosen = [{"id": x["id"], "text": x["text"], "score": round(s, 3)} for s, x in scored]
            tables.count_used([c["id"] for c in chosen])
        return chosen

    # --- the user's own edits -----------------------------------------------------------------

    def add(self, text: str, scope: str = "general") -> int:
        text = " ".join(text.split())
        if len(text) < 3:
            raise UserError('a lesson needs some words, e.g. "Open with a concrete case"', exit_code=2)
        scope = scope.strip().lower() or "general"
        with self._transaction() as tables:
            now = self.clock()
            lesson_id = tables.insert(text, scope, "", rules.START["user"], now, "user",
                                      _body(text, scope, ""))  # fmt: skip
            tables.log("memory_add", lesson_id, None, f"added by you (scope {scope})", now)
        return lesson_id

    def _existing(self, tables: MemoryTables, lesson_id: int) -> dict[str, Any]:
        lesson = tables.get(lesson_id)
        if lesson is None:
            raise UserError(f"no lesson {lesson_id}", hint="`reflectcli memory list --all` shows them",
                            exit_code=1)  # fmt: skip
        return lesson

    def edit(self, lesson_id: int, text: str) -> None:
        text = " ".join(text.split())
        if len(text) < 3:
            raise UserError("a lesson needs some words", exit_code=2)
        with self._transaction() as tables:
            lesson = self._existing(tables, lesson_id)
            tables.update(lesson_id, text=text)
            tables.reindex(lesson_id, _body(text, lesson["scope"], lesson["tags"]))
            tables.log("memory_edit", lesson_id, None, f"was “{lesson['text']}”", self.clock())

    def pin(self, lesson_id: int, pinned: bool = True) -> None:
        """A pinned lesson never decays (and an archived one comes back)."""
        with self._transaction() as tables:
            lesson = self._existing(tables, lesson_id)
            now = self.clock()
            fields: dict[str, Any] = {"pinned": int(pinned)}
            if pinned:  # keep the strength it has now; it stops decaying from here
                fields["strength"] = max(self.strength(lesson, now), rules.FLOOR)
                fields["last_seen"] = now
                if lesson["status"] == "archived":
                    fields["status"] = "active"
            else:
                fields["last_seen"] = now
            tables.update(lesson_id, **fields)
            tables.log("memory_pin", lesson_id, None, "pinned" if pinned else "unpinned", now)

    def forget(self, lesson_id: int) -> dict[str, Any]:
        with self._transaction() as tables:
            lesson = self._existing(tables, lesson_id)
            tables.delete(lesson_id)
            tables.log("memory_forget", lesson_id, None, f"forgot “{lesson['text']}”", self.clock())
        return lesson

    # --- reading ----------------------------------------------------------------------------

    def list(self, everything: bool = False) -> list[dict[str, Any]]:
        """Lessons with their strength now (active only, unless `everything`), strongest first."""
        statuses = ("active", "pending", "archived", "superseded") if everything else ("active",)
        with self._tables(write=False) as tables:
            found = tables.lessons(statuses) if tables else []
        now = self.clock()
        for lesson in found:
            lesson["strength_now"] = round(self.strength(lesson, now), 3)
        return sorted(found, key=lambda x: (x["status"] != "active", -x["strength_now"], x["id"]))

    def show(self, lesson_id: int) -> dict[str, Any]:
        with self._tables(write=False) as tables:
            if tables is None:
                raise UserError(f"no lesson {lesson_id}", hint="`reflectcli memory list --all` shows them")
            lesson = self._existing(tables, lesson_id)
            lesson["strength_now"] = round(self.strength(lesson), 3)
            lesson["evidence"] = tables.evidence(lesson_id)
            lesson["events"] = tables.events(lesson_id)
            lesson["supersedes"] = [x["id"] for x in tables.lessons(("superseded",))
                                    if x["superseded_by"] == lesson_id]  # fmt: skip
        return lesson
