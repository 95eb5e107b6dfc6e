"""Running an evaluation: each task of the suite is an ordinary run (in `history`, resumable),
written with the user's settings; then the judge compares its first draft (the one-shot
baseline: no extra writing is paid) with its final output, in both orders, and grades both on
the rubric, and judges equal-length copies of the two (eval/matched.py, for the length-controlled
preference). Every finished task and every judgement is stored as it lands, so an evaluation
stopped by Ctrl-C or a kill resumes where it stopped and never pays for either twice (the
judge's calls are journaled too)."""

from __future__ import annotations

import re
import secrets
import string
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from reflectcli.config import Settings, reviewer_of, with_overrides
from reflectcli.errors import RunInterrupted, UserError
from reflectcli.eval import judge as judging
from reflectcli.eval import matched, metrics, reliability, stats
from reflectcli.eval.outputs import attach
from reflectcli.models.factory import api_base_for, make_client, same_model
from reflectcli.models.journal import JournaledClient
from reflectcli.output.artifacts import final_text
from reflectcli.runner import Runner
from reflectcli.store.db import Store
from reflectcli.store.evals import EvalTables

# the judgements of a task (its "metrics", computed without a model, are stored beside them and
# are not a judgement: an eval stored before them gets them on resume)
KINDS = ("rubric_first", "rubric_final", "ab", "ba")
AB_KINDS = ("rubric_b", "vs_ab", "vs_ba")  # with --against: config B's final vs A's final
# with --against-outputs: the other system's article as A and our final as B, then swapped
OTHER_KINDS = ("other_ab", "other_ba")
JUDGE_CONTEXT = 32000  # tokens the judge's context window holds, unless --judge-context says
# equal-length copies judged per pair (eval/matched.py: section openings, then closings), each in
# both orders: with 30 tasks, one tells a quality-only judge from a length-only one in 49 % of
# simulated evals when every final is longer (86 % with mixed gaps), two in 97 % (99 %):
# bench_length_control.py
LENGTH_PAIRS = 2


def new_eval_id(suite: str) -> str:
    name = re.sub(r"[^a-z0-9]+", "-", Path(suite).stem.lower()).strip("-")[:20] or "eval"
    return f"{name}-{''.join(secrets.choice(string.ascii_lowercase + string.digits) for _ in range(6))}"


def thread_for(eval_id: str, n: int, config: str = "") -> str:
    return f"e-{eval_id}-{n:03d}{config}"


def kinds(found: dict[str, Any]) -> tuple[str, ...]:
    meta = found.get("meta") or {}
    ends = meta.get("length_pairs", 0)  # an eval stored before them has none
    return (KINDS + stats.equal_kinds("", ends) + (AB_KINDS if found.get("against") else ())
            + (OTHER_KINDS + stats.equal_kinds("other_", ends) if meta.get("outputs") else ()))  # fmt: skip


def _roles(settings: Settings) -> list[tuple[str, str, str | None]]:
    """(role, model, api_base) of each model that writes or critiques with `settings`."""
    found = [("writer", settings.model, settings.api_base)]
    if settings.critic == "llm":
        found.append(("critic", settings.critic_name, api_base_for(settings, "critic")))
    return found


def shared_roles(judge: str, judge_api_base: str | None, settings: Settings) -> list[str]:
    """The roles of `settings` the judge is (the same model at the same api_base: one string, or
    two that name one model, `gpt-4o-mini` and `openai/gpt-4o-mini-2024-07-18`:
    models/factory.same_model): a judge that wrote or critiqued the texts grades its own homework.
    The one rule for independence."""
    base = judge_api_base or settings.api_base  # the judge is reached where the writer is
    return [role for role, model, at in _roles(settings) if same_model(judge, base, model, at)]


def roles_named(shared: list[str], named: dict[str, str]) -> str:
    """`the writer and the critic`, each with its own model string where it is not the judge's."""
    return " and ".join(f"the {r}" + (f" {named[r]} (the same model)" if r in named else "") for r in shared)


def independence(judge: str, judge_api_base: str | None, configs: list[Settings], allowed: bool) -> dict:
    """{"shared": roles the judge also plays, "same_as": {role: its model string, where it is not
    the judge's}, "judge_same": allowed}; a UserError (exit 2) when the judge is the writer or the
    critic of any configuration and `--judge-same` was not given."""
    shared = list(dict.fromkeys(r for config in configs for r in shared_roles(judge, judge_api_base, config)))
    named = {role: model for config in configs for role, model, _ in _roles(config)
             if role in shared_roles(judge, judge_api_base, config) and model != judge}  # fmt: skip
    if shared and not allowed:
        where = f" at {judge_api_base}" if judge_api_base else ""
        raise UserError(
            f"the judge {judge}{where} is also {roles_named(shared, named)}: a judge grading its own "
            "writing is not evidence",
            hint="pass --judge with another model (or --judge-api-base for another server), or "
            "--judge-same to allow it (every report will say so)",
            exit_code=2,
        )
    return {"shared": shared, "same_as": named, "judge_same": bool(shared)}


def _judge_settings(settings: Settings, meta: dict[str, Any]) -> Settings:
    """The settings the judge's client is made from: the writer's, at the judge's own server."""
    base = meta.get("judge_api_base")
    return settings.model_copy(update={"api_base": base}) if base else settings


class Evaluation:
    def __init__(self, ui, runs_dir: str | Path):
        self.ui = ui
        self.runs_dir = str(runs_dir)
        self.context = JUDGE_CONTEXT  # the judge's window, in tokens (the eval's own, once resumed)
        self.length_pairs = 0  # equal-length copies per pair (the eval's own, once resumed)

    @contextmanager
    def _tables(self):
        store = Store(self.runs_dir)
        try:
            yield store, EvalTables(store.conn)
        finally:
            store.close()

    def start(self, suite: str, tasks: list[dict[str, Any]], settings: Settings, judge: str,
              against: Settings | None = None, *, judge_api_base: str | None = None,
              judge_same: bool = False, judge_context: int | None = None,
              outputs: dict[str, Any] | None = None, length_pairs: int = LENGTH_PAIRS) -> str:  # fmt: skip
        configs = [settings, against] if against else [settings]
        meta = {**independence(judge, judge_api_base, configs, judge_same),
                "judge_api_base": judge_api_base, "length_pairs": length_pairs}  # fmt: skip
        client = make_client(judge, _judge_settings(settings, meta), "judge")  # an unknown judge fails here
        # the window the judge's parts are sized by: the flag, else the client's own, else the default
        meta["judge_context"] = judge_context or getattr(client, "context_window", None) or JUDGE_CONTEXT
        if outputs is not None:  # every task gets the other system's article, or nothing starts
            tasks = attach(tasks, outputs, suite)
            meta["outputs"] = {k: outputs[k] for k in ("system", "file", "sha256")} | {
                "articles": len(outputs["articles"])}  # fmt: skip
        for item in tasks:  # a bad override fails before the eval exists, naming its line
            for config in configs:
                with_overrides(config, item["overrides"], f"{suite}:{item['line']}")
        eval_id = new_eval_id(suite)
        with self._tables() as (_, tables):
            tables.create(eval_id, suite, judge, settings.run_params(), tasks,
                          against.run_params() if against else None, meta)  # fmt: skip
        count = f"{len(tasks)} task{'s' if len(tasks) != 1 else ''}"
        same = f" (NOT independent: also the {' and '.join(meta['shared'])})" if meta["shared"] else ""
        self.ui.notice(f"eval {eval_id}: {count} from {suite}, judged by {judge}{same} "
                       f"(resume with `reflectcli eval resume {eval_id}`)")  # fmt: skip
        return self.resume(eval_id)

    def resume(self, eval_id: str) -> str:
        with self._tables() as (_, tables):
            found = tables.get(eval_id)
        if found is None:
            raise UserError(f"unknown eval {eval_id!r} in {self.runs_dir}",
                            hint="`reflectcli eval list` shows them")  # fmt: skip
        settings = Settings.model_validate({**found["settings"], "runs_dir": self.runs_dir})
        other = (Settings.model_validate({**found["against"], "runs_dir": self.runs_dir})
                 if found.get("against") else None)  # fmt: skip
        cool = _judge_settings(settings, found["meta"]).model_copy(update={"temperature": 0.0})
        judge = make_client(found["judge"], cool, "judge")
        if hasattr(judge, "preflight"):
            judge.preflight()
        store = Store(self.runs_dir)
        try:
            client = JournaledClient(judge, store, f"judge-{eval_id}", lambda kind, data: None)
            self.context = found["meta"].get("judge_context") or JUDGE_CONTEXT
            self.length_pairs = found["meta"].get("length_pairs", 0)
            tables = EvalTables(store.conn)
            for item in found["tasks"]:
                try:
                    self._task(eval_id, item, settings, client, tables, store)
                    if item.get("other_article") is not None:
                        self._outputs(eval_id, item, client, tables, store)
                    if other is not None:
                        self._versus(eval_id, item, other, client, tables, store)
                except KeyboardInterrupt:  # Ctrl-C while judging: what is stored stays stored
                    raise RunInterrupted(thread_for(eval_id, item["n"])) from None
            tables.set_status(eval_id, "finished")
        finally:
            store.close()
        self._store_result(eval_id)
        return eval_id

    def _store_result(self, eval_id: str) -> None:
        """The finished eval's headline, stored with it (`eval list` shows it): the verdict or
        why there is none, the judge's order consistency and self-agreement."""
        data = report(self.runs_dir, eval_id)
        with self._tables() as (_, tables):
            tables.set_meta(eval_id, "result", headline_of(data["summary"]))

    def _written(self, item, settings, thread, store) -> dict[str, Any]:
        """The task's run (written, resumed, or found finished) and its state."""
        run = store.get_run(thread)
        if run is None:
            task_settings = with_overrides(settings, item["overrides"], f"task {item['n']}")
            Runner(self.ui).write(item["task"], task_settings, thread_id=thread)
        elif run["status"] != "finished":
            Runner(self.ui).resume(thread, self.runs_dir, {})
        return store.load_state(thread) or {}

    def _versus(self, eval_id, item, other, client, tables, store) -> None:
        """Config B on the same task: its final output graded, and judged against A's final in
        both orders (A's final as A, then as B)."""
        n = item["n"]
        if all(tables.result(eval_id, n, k) is not None for k in AB_KINDS):
            return
        self.ui.notice(f"task {n} with config B: {item['task'][:60]}")
        final_a = final_text(store.load_state(thread_for(eval_id, n)) or {}) or ""
        final_b = final_text(self._written(item, other, thread_for(eval_id, n, "b"), store)) or ""
        task, reference = item["task"], item.get("reference")
        if tables.result(eval_id, n, "rubric_b") is None:
            graded = judging.rubric(client, task, final_b, reference, f"rubric:{n}:b", self.context)
            tables.save(eval_id, n, "rubric_b", graded)
        for kind, a, b in (("vs_ab", final_a, final_b), ("vs_ba", final_b, final_a)):
            if tables.result(eval_id, n, kind) is None:
                verdict = judging.pair(client, task, a, b, reference, f"pair:{n}:{kind}", self.context)
                tables.save(eval_id, n, kind, verdict)

    def _outputs(self, eval_id, item, client, tables, store) -> None:
        """Our final against the other system's article for the same id, in both orders."""
        n, theirs = item["n"], item["other_article"]
        ours = final_text(store.load_state(thread_for(eval_id, n)) or {}) or ""
        for kind, a, b in (("other_ab", theirs, ours), ("other_ba", ours, theirs)):
            if tables.result(eval_id, n, kind) is None:
                verdict = judging.pair(client, item["task"], a, b, item.get("reference"), f"pair:{n}:{kind}",
                                       self.context)  # fmt: skip
                tables.save(eval_id, n, kind, verdict)
        self._equal(eval_id, n, "other_", item["task"], item.get("reference"), theirs, ours, client, tables)

    def _task(self, eval_id, item, settings, client, tables, store) -> None:
        n, thread = item["n"], thread_for(eval_id, item["n"])
        if all(tables.result(eval_id, n, k) is not None
               for k in (*KINDS, *stats.equal_kinds("", self.length_pairs), "metrics")):  # fmt: skip
            return
        self.ui.notice(f"task {n}/{len(tables.get(eval_id)['tasks'])}: {item['task'][:70]}")
        state = self._written(item, settings, thread, store)
        versions = state.get("versions") or []
        first, final = (versions[0]["text"] if versions else ""), (final_text(state) or "")
        task, reference = item["task"], item.get("reference")
        if tables.result(eval_id, n, "metrics") is None:  # no model: computed from the texts and the run
            found = {"first": metrics.article(first, None, item.get("length"), reference),
                     "final": metrics.article(final, state, item.get("length"), reference)}  # fmt: skip
            if item.get("other_article") is not None:
                found["other"] = metrics.article(item["other_article"], None, item.get("length"), reference)
            tables.save(eval_id, n, "metrics", found)
        if tables.result(eval_id, n, "rubric_first") is None:
            graded = judging.rubric(client, task, first, reference, f"rubric:{n}:first", self.context)
            tables.save(eval_id, n, "rubric_first", graded)
        if tables.result(eval_id, n, "rubric_final") is None:
            if final == first:  # the run kept its first draft: nothing to compare, nothing paid
                graded = {**tables.result(eval_id, n, "rubric_first"), "same_text": True, "tokens": 0,
                          "cost": None, "seconds": 0.0}  # fmt: skip
            else:
                graded = judging.rubric(client, task, final, reference, f"rubric:{n}:final", self.context)
            tables.save(eval_id, n, "rubric_final", graded)
        for kind, a, b in (("ab", first, final), ("ba", final, first)):
            if tables.result(eval_id, n, kind) is None:
                if final == first:
                    verdict = {"winner": "tie", "reason": "the output is the first draft",
                               "source": "same_text", "tokens": 0, "cost": None, "seconds": 0.0}  # fmt: skip
                else:
                    verdict = judging.pair(client, task, a, b, reference, f"pair:{n}:{kind}", self.context)
                tables.save(eval_id, n, kind, verdict)
        self._equal(eval_id, n, "", task, reference, first, final, client, tables)

    def _equal(self, eval_id, n, prefix, task, reference, first, final, client, tables) -> None:
        """The pair cut to equal length (eval/matched.py), each end of the eval's `length_pairs`
        judged in both orders (`first` as A, then as B); each verdict keeps the copies' words
        (first, final). Identical copies are a tie nobody is paid for."""
        for end in matched.ENDS[: self.length_pairs]:
            ab, ba = (f"{prefix}eq_{end}_{order}" for order in ("ab", "ba"))
            if tables.result(eval_id, n, ab) is not None and tables.result(eval_id, n, ba) is not None:
                continue
            a, b = matched.equal_length(first, final, end)
            words = [metrics.words(a), metrics.words(b)]
            for kind, x, y in ((ab, a, b), (ba, b, a)):
                if tables.result(eval_id, n, kind) is not None:
                    continue
                if a == b:
                    verdict = {"winner": "tie", "reason": "the equal-length copies are the same text",
                               "source": "same_text", "tokens": 0, "cost": None, "seconds": 0.0}  # fmt: skip
                else:
                    verdict = judging.pair(client, task, x, y, reference, f"pair:{n}:{kind}", self.context,
                                           note=judging.EQUAL_NOTE)  # fmt: skip
                tables.save(eval_id, n, kind, {**verdict, "words": words})


def headline_of(summary: dict[str, Any]) -> dict[str, Any]:
    """The few numbers an eval is listed with: no shares without a verdict."""
    judge = summary["verdict"]["judge"]
    given = summary["verdict"]["given"]
    return {"verdict": given, "pairs": judge["pairs"], "order_consistency": judge["order_consistency"],
            "needed": judge["needed"], "self_agreement": judge["self_agreement"],
            **({k: summary[k] for k in ("win", "tie", "loss", "lc_win", "lc_se", "lc_unknown")} if given
               else {})}  # fmt: skip


def _equal_pairs(got: dict[str, Any], prefix: str) -> list[dict[str, Any]]:
    """A task's equal-length pairs, each combined from its two orders with its own gap `d`
    (ln of the final copy's words over the other's); identical copies say nothing and are left out."""
    out = []
    for end in matched.ENDS:
        ab, ba = got.get(f"{prefix}eq_{end}_ab"), got.get(f"{prefix}eq_{end}_ba")
        if ab and ba and "same_text" not in (ab.get("source"), ba.get("source")):
            out.append({**stats.combine(ab, ba), "end": end, "d": metrics.log_length_ratio(*ab["words"])})
    return out


def report(runs_dir: str | Path, eval_id: str) -> dict[str, Any]:
    """Everything `eval report` shows: the numbers, per tag, the worst regressions, per task."""
    store = Store.existing(runs_dir)
    if store is None:
        raise UserError(f"no database in {runs_dir}", hint="run `reflectcli eval run` first")
    try:
        tables = EvalTables(store.conn)
        found = tables.get(eval_id)
        if found is None:
            raise UserError(f"unknown eval {eval_id!r} in {runs_dir}",
                            hint="`reflectcli eval list` shows them")  # fmt: skip
        results = tables.results(eval_id)
        items = []
        for item in found["tasks"]:
            n = item["n"]
            thread = thread_for(eval_id, n)
            got = {k: results.get((n, k)) for k in (*kinds(found), "metrics")}
            row = store.get_run(thread)
            entry = {**item, "thread_id": thread, **got,
                     "run": {k: row[k] for k in ("status", "rounds", "tokens", "cost", "stop_reason",
                                                 "first_score", "final_score")} if row else None}  # fmt: skip
            if (ab := got["ab"]) and (ba := got["ba"]):
                entry["pair"] = stats.combine(ab, ba)
                entry["pair_equal"] = _equal_pairs(got, "")
            # B's final in place of "final", A's as "first"
            if (ab := got.get("vs_ab")) and (ba := got.get("vs_ba")):
                entry["versus"] = stats.combine(ab, ba)
            # ours as "final", theirs as "first"
            if (ab := got.get("other_ab")) and (ba := got.get("other_ba")):
                entry["outputs_pair"] = stats.combine(ab, ba)
                entry["outputs_pair_equal"] = _equal_pairs(got, "other_")
            entry.pop("other_article", None)  # in the suite's file; the report names its hash
            items.append(entry)
    finally:
        store.close()
    sure = reliability.judge(items)
    verdict = {"judge": sure, "given": sure["decides"]}  # beside every result, in every export
    return {
        "eval": {k: found[k] for k in ("id", "suite", "judge", "status", "created_at", "updated_at")},
        "judge": {
            "model": found["judge"],
            "api_base": found["meta"].get("judge_api_base"),
            "shared": found["meta"].get("shared", []),
            "judge_same": found["meta"].get("judge_same", False),
            "same_as": found["meta"].get("same_as", {}),
            "context": found["meta"].get("judge_context"),
            "reliability": sure,
        },  # fmt: skip
        "models": {
            "writer": found["settings"].get("model"),
            "critic": reviewer_of(found["settings"]),  # `checklist` where no model reviews
        },
        "summary": {**stats.summarize(items), "verdict": verdict},
        "by_tag": {t: {**s, "verdict": verdict} for t, s in stats.by_tag(items).items()},
        "regressions": stats.regressions(items),
        "against": {**stats.versus(items), "verdict": verdict} if found.get("against") else None,
        "outputs": (
            {**found["meta"]["outputs"], **stats.against_outputs(items), "verdict": verdict}
            if found["meta"].get("outputs")
            else None
        ),  # fmt: skip
        "items": items,
    }


def evaluations(runs_dir: str | Path) -> list[dict[str, Any]]:
    store = Store.existing(runs_dir)
    if store is None:
        return []
    try:
        tables = EvalTables(store.conn)
        out = []
        for found in tables.all():
            results = tables.results(found["id"])
            done = sum(all((i["n"], k) in results for k in kinds(found)) for i in found["tasks"])
            out.append({"id": found["id"], "suite": found["suite"], "judge": found["judge"],
                        "status": found["status"], "tasks": len(found["tasks"]), "judged": done,
                        "created_at": found["created_at"],
                        "result": found["meta"].get("result")})  # fmt: skip
        return out
    finally:
        store.close()
