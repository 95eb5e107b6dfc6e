"""The tools' bodies: each a thin call into what the CLI's commands call (the runner for runs,
the catalog and exporters for reading them, the source library), returning plain data and
raising the CLI's one-line errors. Synchronous and free of the MCP SDK: server.py runs them off
the event loop and turns their data and errors into MCP results.

Inputs go through the CLI's own checks: settings through the one config model (load_settings,
the same messages as the flags), thread ids through the store's validation, paths through the
roots (safety.py), URLs through the fetch rules of the source library."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from reflectcli.errors import UserError
from reflectcli.mcp.jobs import Job, Jobs, event_ui, one_line
from reflectcli.mcp.safety import Roots
from reflectcli.mcp.views import resources, review_view, run_view, status_view

START_TIMEOUT = 120.0  # seconds a new run may take to start (the first loads the model library)
REVIEW_TIMEOUT = 600.0  # `review` follows its one-round run to its end, for this long at most


class Tools:
    """What the server's tools do, over one runs folder, config file and set of roots."""

    def __init__(
        self, roots: Roots, runs_dir: str | Path, config: str | Path | None = None, jobs: Jobs | None = None
    ):
        self.roots = roots
        self.runs_dir = Path(runs_dir).resolve()
        self.config = config
        self.jobs = jobs or Jobs()

    # --- settings and checks ----------------------------------------------------------------

    def settings(self, flags: dict[str, Any]):
        """The run's settings: config file < env < the tool's arguments, validated by the one
        config model (a bad value is the same one-line error as the CLI flag's)."""
        from reflectcli.config import load_settings

        return load_settings(
            self.config, flags={**flags, "runs_dir": str(self.runs_dir), "interactive": False}
        )

    def _model(self, model: str | None) -> str | None:
        """A `local/<file>.gguf` model is a file the server would load: it must lie in a root."""
        if model and model.startswith("local/") and model.endswith(".gguf"):
            return "local/" + str(self.roots.check(model.removeprefix("local/")))
        return model

    def _runner(self, job: Job):
        from reflectcli.runner import Runner

        return Runner(event_ui(job), should_stop=job.stop.is_set, own_signals=False)

    def _started(self, job: Job) -> Job:
        """The job once its run exists in the store (or it failed before: its error, now)."""
        job.wait_started(START_TIMEOUT)
        if job.status == "failed":
            raise UserError(job.error or "the run failed to start")
        return job

    # --- runs ---------------------------------------------------------------------------------

    def write(
        self,
        task: str | None = None,
        sources: list[str] | None = None,
        model: str | None = None,
        threshold: float | None = None,
        max_rounds: int | None = None,
        sections: int | None = None,
        evidence: str | None = None,
        thread_id: str | None = None,
        resume: str | None = None,
    ) -> Job:
        """Start a run (or resume one) in the background; the job once the run exists."""
        if resume:
            extra = {
                "task": task,
                "sources": sources,
                "threshold": threshold,
                "max_rounds": max_rounds,
                "sections": sections,
                "evidence": evidence,
                "thread_id": thread_id,
            }
            given = [k for k, v in extra.items() if v]
            if given:
                raise UserError(
                    f"resume continues the run with its own settings; drop {', '.join(given)}",
                    hint="only model may change on a resume",
                    exit_code=2,
                )
            return self.resume(resume, model)
        from reflectcli.runner import check_task, new_thread_id
        from reflectcli.store.db import validate_thread_id

        if not task:
            raise UserError("say what to write (a task), or continue a run with resume=THREAD", exit_code=2)
        task = check_task(task)
        targets = list(sources or [])
        mode = evidence or ("local" if targets else None)
        settings = self.settings(
            {
                "model": self._model(model),
                "threshold": threshold,
                "max_rounds": max_rounds,
                "max_sections": sections,
                "research": {"sources": mode},
            }
        )
        for target in targets:  # refused now, before anything starts
            self._check_target(target)
        tid = validate_thread_id(thread_id) if thread_id else new_thread_id(task)

        def body(job: Job):
            if targets:
                added = self._add(targets, settings.research.allow_private)
                kept = sum(o["status"] in ("added", "updated", "unchanged") for o in added)
                job.emit("sources", f"sources: {kept} of {len(added)} in the library", outcomes=added)
            return self._runner(job).write(task, settings, tid)

        return self._started(self.jobs.start(tid, "write", body))

    def resume(self, thread_id: str, model: str | None = None) -> Job:
        from reflectcli.store.db import validate_thread_id

        validate_thread_id(thread_id)
        flags = {"model": self._model(model), "interactive": False}
        return self._started(
            self.jobs.start(
                thread_id,
                "resume",
                lambda job: self._runner(job).resume(thread_id, str(self.runs_dir), flags),
            )
        )

    def revise(
        self, thread: str, feedback: str, section: str | None = None, severity: str = "major", rounds: int = 1
    ) -> Job:
        """Continue a finished run with the person's critique (`reflectcli revise`)."""
        from reflectcli.store.db import validate_thread_id

        validate_thread_id(thread)
        if severity not in ("major", "minor"):
            raise UserError(f"severity must be major or minor, got {severity!r}", exit_code=2)
        if not 1 <= rounds <= 10:
            raise UserError(f"rounds must be between 1 and 10, got {rounds}", exit_code=2)
        return self._started(
            self.jobs.start(
                thread,
                "revise",
                lambda job: self._runner(job).steer(
                    thread, str(self.runs_dir), feedback, section, severity, rounds
                ),
            )
        )

    def review(
        self,
        text: str | None = None,
        path: str | None = None,
        task: str | None = None,
        critic: str | None = None,
        model: str | None = None,
    ) -> Job:
        """Review a person's article (`reflectcli review`): a one-round run from their text."""
        from reflectcli.runner import new_thread_id

        if bool(text) == bool(path):
            raise UserError(
                "give the article as text, or the path of its Markdown file (one of them)", exit_code=2
            )
        base = None
        if path:
            real = self.roots.check(path)
            base = real.parent
            text = _read_utf8(real, path)
            stem = real.stem.replace("_", " ").replace("-", " ")
        else:
            stem = "Draft"
        settings = self.settings(
            {"model": self._model(model), "critic": critic, "max_rounds": 1, "memory": {"enabled": False}}
        )
        task, draft = _draft(text or "", stem, task, settings, base)
        tid = new_thread_id(task)
        return self._started(
            self.jobs.start(tid, "review", lambda job: self._runner(job).write(task, settings, tid, draft))
        )

    def reviewed(self, job: Job) -> dict[str, Any]:
        if job.status == "failed":
            raise UserError(job.error or "the review failed")
        if job.result is None:
            return self.status(job.thread_id)
        return review_view(job.thread_id, job.result.state)

    def cancel(self, thread: str) -> dict[str, Any]:
        """Stop a run this server is running at its next checkpoint (as Ctrl-C does)."""
        job = self.jobs.get(thread)
        if job is None or job.done:
            raise UserError(
                f"thread {thread} is not running in this server", hint="status(thread) says where it stands"
            )
        job.stop.set()
        return {
            "thread_id": thread,
            "status": "stopping",
            "note": "the run stops after the step under way; continue it with write(resume=...)",
        }

    # --- reading runs ---------------------------------------------------------------------------

    def _load(self, thread: str) -> tuple[dict[str, Any], dict[str, Any]]:
        from reflectcli.store.catalog import load_run

        return load_run(self.runs_dir, thread)

    def status(self, thread: str) -> dict[str, Any]:
        job = self.jobs.get(thread)
        try:
            run, state = self._load(thread)
        except UserError:
            if job is None:
                raise
            return {"thread_id": thread, "status": job.status, "events": list(job.events), "error": job.error}
        view = status_view(run, state, job)
        view["artifact"] = self.roots.relative(run.get("artifact"))
        return view

    def show(self, thread: str) -> dict[str, Any]:
        run, state = self._load(thread)
        view = run_view(run, state)
        view["artifact"] = self.roots.relative(run.get("artifact"))
        return view

    def article(self, thread: str, version: str = "final") -> dict[str, Any]:
        from reflectcli.output.exporters import choose_version, export

        run, state = self._load(thread)
        chosen = choose_version(state, str(version))
        return {
            "thread_id": thread,
            "version": chosen["n"],
            "status": run["status"],
            "markdown": export(run, state, "md", str(version)),
            "uri": resources(thread)["article"],
        }

    def export(self, thread: str, format: str = "md", version: str = "final") -> dict[str, Any]:
        from reflectcli.output.exporters import FORMATS, export

        if format not in FORMATS:
            raise UserError(f"unknown format {format!r}: choose one of {', '.join(FORMATS)}", exit_code=2)
        run, state = self._load(thread)
        return {"thread_id": thread, "format": format, "text": export(run, state, format, str(version))}

    def history(
        self, limit: int = 20, status: str | None = None, search: str | None = None
    ) -> dict[str, Any]:
        from reflectcli.store.catalog import history
        from reflectcli.store.queries import STATUSES

        if status and status not in STATUSES:
            raise UserError(f"status: choose one of {', '.join(STATUSES)}", exit_code=2)
        if not 1 <= limit <= 1000:
            raise UserError(f"limit must be between 1 and 1000, got {limit}", exit_code=2)
        runs = history(self.runs_dir, limit=limit, status=status, search=search)
        for run in runs:
            for private in ("owner_pid", "owner_host", "lease_until"):
                run.pop(private, None)
            run["artifact"] = self.roots.relative(run.get("artifact"))
            run["article"] = resources(run["thread_id"])["article"]
        return {"runs": runs}

    def resource(self, thread: str, name: str) -> str:
        """The text of a run's resource: the article, its record, its JSON or HTML export."""
        fmt = {"article.md": "md", "record.md": "report", "run.json": "json", "article.html": "html"}.get(
            name
        )
        if fmt is None:
            raise UserError(f"no resource {name!r} for a run (article.md, record.md, run.json, article.html)")
        run, state = self._load(thread)
        from reflectcli.output.exporters import export

        text = export(run, state, fmt, "final")
        assert isinstance(text, str)  # md, report, json and html are text (pdf and docx are bytes)
        return text

    # ask(thread, question) goes here when the CLI has `ask`: a read of the run and its sources,
    # like `show` (a call into what the command calls), registered in server.py beside `show`.

    # --- the source library -------------------------------------------------------------------------

    def _check_target(self, target: str) -> str:
        from reflectcli.sources.library import is_url

        return target if is_url(target) else str(self.roots.check(target))

    def _add(self, targets: list[str], allow_private: bool) -> list[dict[str, Any]]:
        """Add files, folders and URLs, each file inside a root (a folder's symlinks that lead
        out of the roots are skipped, said so); URLs by the CLI's fetch rules."""
        from reflectcli.sources.library import Outcome, add, expand, is_url

        items, outcomes = expand([self._check_target(t) for t in targets])
        inside = []
        for item in items:
            try:
                inside.append(item if is_url(item) else str(self.roots.check(item)))
            except UserError as exc:
                outcomes.append(Outcome(item, "skipped", error=one_line(exc)))
        outcomes += add(self.runs_dir, inside, allow_private=allow_private)
        rows = [o.to_dict() for o in outcomes]
        for row in rows:
            if not is_url(row["location"]):
                shown = self.roots.relative(row["location"]) or row["location"]
                for key in ("error", "warning"):
                    if row.get(key):
                        row[key] = row[key].replace(row["location"], shown)
                row["location"] = shown
        return rows

    def sources_add(self, targets: list[str]) -> dict[str, Any]:
        if not targets:
            raise UserError("name a file, folder or URL to add", exit_code=2)
        settings = self.settings({})
        return {"outcomes": self._add(targets, settings.research.allow_private)}

    def sources_search(self, query: str, limit: int = 10) -> dict[str, Any]:
        from reflectcli.sources.library import search

        if not 1 <= limit <= 200:
            raise UserError(f"limit must be between 1 and 200, got {limit}", exit_code=2)
        hits = search(self.runs_dir, query, limit)
        for hit in hits:
            if hit.get("location") and not hit["location"].startswith(("http://", "https://")):
                hit["location"] = self.roots.relative(hit["location"])
        return {"query": query, "hits": hits}


def _read_utf8(real: Path, shown: str) -> str:
    try:
        return real.read_bytes().decode("utf-8")
    except OSError as exc:
        raise UserError(f"cannot read {shown}: {exc.strerror or exc}", exit_code=2) from None
    except UnicodeDecodeError:
        raise UserError(f"{shown} is not UTF-8 text", hint="save it as UTF-8 Markdown", exit_code=2) from None


def _draft(text: str, stem: str, task: str | None, settings, base: Path | None) -> tuple[str, dict[str, Any]]:
    """(the task, the run's starting state) for a review of the person's text, its reference
    list resolved against the source library: what `reflectcli review` starts from (the same
    lower-level calls as cli/write.py's _read_draft and _with_references)."""
    from reflectcli.graph.common import note_event
    from reflectcli.graph.human import draft_start
    from reflectcli.sources.resolve import resolve
    from reflectcli.writing.citations import cited_ids
    from reflectcli.writing.draftfile import read_draft

    try:
        found = read_draft(text, stem, references_apart=True)
    except ValueError as exc:
        raise UserError(f"the article: {exc}", exit_code=2) from None
    draft = draft_start(found.titles, found.bodies, found.text, [])
    task = task or found.title or stem
    evidence, report = resolve(settings.runs_dir, found.text, base, settings.research.allow_private)
    if report:
        done = sum(1 for r in report if r["status"] == "resolved")
        note = note_event(
            "draft",
            "references",
            f"references: {done} of {len(report)} resolved in the "
            f"source library, {len(report) - done} reported",
            resolved=done,
            reported=len(report) - done,
        )
        held = [e["id"] for e in evidence]
        by_section = [[i for i in cited_ids(body) if i in held] for body in draft["sections"]]
        draft = {
            **draft,
            "evidence": evidence,
            "references": report,
            "trace": [*draft["trace"], note],
            "research": {"plan": draft["plans"], "sections": by_section},
        }
    return task, draft
