"""`reflectcli mcp`: the MCP server (the official Python SDK's MCPServer) over stdio, or
streamable HTTP on 127.0.0.1. The tools are registered here and call tools.py off the event
loop; results are JSON (structured content, and the same as text), scrubbed of secrets; errors
are the CLI's one-line messages as tool errors (`is_error`).

Runs outlive the call: `write` returns the thread id at once (or follows the run for `wait`
seconds, sending a progress notification per step), `status(wait=...)` follows it later.
Cancelling a `write` that follows its run stops the run at its next checkpoint; `cancel` does
the same for any run. When the stdio client goes away (its end of stdin closes: it quit, or was
killed) or the server is told to stop (SIGINT, SIGTERM), every run stops at its next checkpoint,
exactly as Ctrl-C leaves it, and the server exits: `write(resume=thread)` carries on later."""

from __future__ import annotations

import json
import logging
import signal
import time
from typing import Annotated, Any

import anyio
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import CallToolResult, TextContent
from pydantic import Field, ValidationError

from reflectcli import __version__
from reflectcli.errors import UserError
from reflectcli.mcp.jobs import Job, one_line
from reflectcli.mcp.safety import scrub
from reflectcli.mcp.tools import REVIEW_TIMEOUT, Tools

log = logging.getLogger(__name__)

GRACE = 60.0  # seconds the server waits, when told to stop, for each run's step under way
MAX_WAIT = 3600.0
INSTRUCTIONS = (
    "reflectcli writes articles in a loop (plan, draft, review, revise) with every model call "
    "checkpointed. `write` returns a thread id at once; follow it with `status(thread, wait=60)` "
    "(progress notifications while it waits), then read `article(thread)`. A run stopped "
    "(cancel, a closed client) continues with `write(resume=thread)`, paying no call twice."
)

Wait = Annotated[
    float,
    Field(
        description="Seconds to follow the run, sending a progress notification "
        "per step (0: return at once).",
        ge=0,
        le=MAX_WAIT,
    ),
]
Thread = Annotated[str, Field(description="Thread id (from write, or history).")]


def result(data: Any) -> CallToolResult:
    """A tool's data as its structured content and as JSON text, secrets scrubbed."""
    data = scrub(data)
    text = json.dumps(data, ensure_ascii=False, indent=1, default=str)
    return CallToolResult(content=[TextContent(type="text", text=text)], structured_content=data)


def failure(exc: BaseException) -> CallToolResult:
    """An error as a tool error: the CLI's line, scrubbed."""
    if not isinstance(exc, UserError):
        log.exception("tool failed")
    return CallToolResult(
        content=[TextContent(type="text", text=scrub("error: " + one_line(exc)))], is_error=True
    )


async def call(fn, *args: Any) -> CallToolResult:
    """Run a tool body in a worker thread (the event loop keeps serving other calls)."""
    try:
        return result(await anyio.to_thread.run_sync(fn, *args))
    except Exception as exc:
        return failure(exc)


async def follow(job: Job, ctx: Context, wait: float, owner: bool) -> None:
    """Send the job's events as progress notifications (progress = the event's number, message =
    its line) until it ends or `wait` seconds pass. `owner`: a cancelled follow stops the run at
    its next checkpoint (the call that started it was cancelled); else only the watching stops."""
    seen, deadline = 0, time.monotonic() + wait
    try:
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                return
            events = await anyio.to_thread.run_sync(job.wait, seen, min(left, 1.0), abandon_on_cancel=True)
            for event in events:
                try:
                    await ctx.report_progress(event["seq"], None, scrub(event["message"]))
                except Exception:  # nobody to tell any more (the client went): stop following
                    log.debug("progress for %s not sent", job.thread_id, exc_info=True)
                    return
            seen += len(events)
            if job.done and seen >= len(job.events):
                return
    except anyio.get_cancelled_exc_class():
        if owner:
            job.stop.set()
        raise


def bad_arguments(tool: str, exc: ValidationError) -> CallToolResult:
    """Arguments the tool's schema rejects, in one line as the config model says it (the first
    problem: the argument, what is wrong, what was given), not pydantic's report."""
    err = exc.errors()[0]
    where = ".".join(str(p) for p in err["loc"]) or "?"
    given = f" (got {err['input']!r})" if "input" in err and not isinstance(err["input"], dict) else ""
    more = len(exc.errors()) - 1
    tail = f"; and {more} more" if more else ""
    return failure(UserError(f"{tool}: argument '{where}': {err['msg']}{given}{tail}"))


class Server(MCPServer):
    """MCPServer whose argument errors are one line, like every other error of ours."""

    async def call_tool(self, name: str, arguments: dict[str, Any], context: Any = None) -> Any:
        try:
            return await super().call_tool(name, arguments, context)
        except ToolError as exc:
            if isinstance(exc.__cause__, ValidationError):
                return bad_arguments(name, exc.__cause__)
            raise


def build(tools: Tools) -> MCPServer:
    """The server and its tools, resources and prompt."""
    server = Server("reflectcli", version=__version__, instructions=INSTRUCTIONS, log_level="ERROR")
    _run_tools(server, tools)
    _read_tools(server, tools)
    _draft_tools(server, tools)
    _source_tools(server, tools)
    # `ask(thread, question)` is registered beside `show`, when the CLI has `ask`.
    _resources(server, tools)
    _prompts(server)
    return server


async def started(tools: Tools, start, ctx: Context, wait: float) -> CallToolResult:
    """A run started (or resumed) by `start()`, followed for `wait` seconds; its status."""
    try:
        job = await anyio.to_thread.run_sync(start)
    except Exception as exc:
        return failure(exc)
    await follow(job, ctx, wait, owner=True)
    return await call(tools.status, job.thread_id)


def _run_tools(server: MCPServer, tools: Tools) -> None:
    """write, status, cancel: start a run (or resume one), follow it, stop it."""

    @server.tool()
    async def write(
        ctx: Context,
        task: Annotated[str, Field(description="What to write, e.g. 'an analysis of X'.")] = "",
        sources: Annotated[
            list[str] | None,
            Field(
                description="Files, folders or http(s) URLs to add to "
                "the source library and cite (paths inside the server's roots)."
            ),
        ] = None,
        model: Annotated[
            str | None,
            Field(
                description="Writer model: local/smollm2 or a litellm "
                "model string (default: the server's config)."
            ),
        ] = None,
        threshold: Annotated[float | None, Field(description="Score (0-10) that passes.")] = None,
        max_rounds: Annotated[int | None, Field(description="Reviews at most.")] = None,
        sections: Annotated[int | None, Field(description="Outline sections at most.")] = None,
        evidence: Annotated[
            str | None,
            Field(
                description="Evidence to cite: local, web, hybrid, none or "
                "auto (default: local with sources, else the config's)."
            ),
        ] = None,
        thread_id: Annotated[str | None, Field(description="Use this thread id.")] = None,
        resume: Annotated[
            str | None,
            Field(
                description="Continue this stopped run instead (its own "
                "settings; no call it paid for is made again)."
            ),
        ] = None,
        wait: Wait = 0,
    ) -> CallToolResult:
        """Start writing a cited article (or resume a stopped run). Returns the thread id and
        status at once; with `wait`, follows the run first (progress per step)."""
        return await started(
            tools,
            lambda: tools.write(
                task, sources, model, threshold, max_rounds, sections, evidence, thread_id, resume
            ),
            ctx,
            wait,
        )

    @server.tool()
    async def status(ctx: Context, thread: Thread, wait: Wait = 0) -> CallToolResult:
        """Where a run stands: status, progress, scores, what a resume does next, the events so
        far. With `wait`, follows the run first (cancelling that only stops the watching)."""
        job = tools.jobs.get(thread)
        if job is not None and wait:
            await follow(job, ctx, wait, owner=False)
        return await call(tools.status, thread)

    @server.tool()
    async def cancel(thread: Thread) -> CallToolResult:
        """Stop a run at its next checkpoint, as Ctrl-C does; `write(resume=thread)` continues it."""
        return await call(tools.cancel, thread)


def _read_tools(server: MCPServer, tools: Tools) -> None:
    """show, article, export, history: what the runs hold."""

    @server.tool()
    async def show(thread: Thread) -> CallToolResult:
        """A run in full: scores per round with dimensions and feedback, decisions, known
        issues, guards, the verdicts on the output's cited claims, its references."""
        return await call(tools.show, thread)

    @server.tool()
    async def article(
        thread: Thread,
        version: Annotated[
            str, Field(description="final (the output), best, or a version number.")
        ] = "final",
    ) -> CallToolResult:
        """The run's article as Markdown, with its References."""
        return await call(tools.article, thread, version)

    @server.tool()
    async def export(
        thread: Thread,
        format: Annotated[
            str,
            Field(
                description="md (the article), report (the full record), json "
                "(everything), html (one self-contained page)."
            ),
        ] = "md",
        version: Annotated[str, Field(description="final, best, or a version number.")] = "final",
    ) -> CallToolResult:
        """Export a run as `reflectcli export` does: the text in the chosen format."""
        return await call(tools.export, thread, format, version)

    @server.tool()
    async def history(
        limit: Annotated[int, Field(description="Runs at most, newest first.")] = 20,
        status: Annotated[
            str | None,
            Field(description="Only runs with this status: running, finished, failed, interrupted, waiting."),
        ] = None,
        search: Annotated[str | None, Field(description="Only runs whose task contains this.")] = None,
    ) -> CallToolResult:
        """Past runs, newest first: status, scores, calls, tokens, the article's resource URI."""
        return await call(tools.history, limit, status, search)


def _draft_tools(server: MCPServer, tools: Tools) -> None:
    """review, revise: an article of your own reviewed, a run continued with your critique."""

    @server.tool()
    async def review(
        ctx: Context,
        text: Annotated[str | None, Field(description="The article's Markdown.")] = None,
        path: Annotated[
            str | None, Field(description="Or the path of a Markdown file inside the server's roots.")
        ] = None,
        task: Annotated[
            str | None, Field(description="What the article is meant to do (default: its title).")
        ] = None,
        critic: Annotated[str | None, Field(description="llm or checklist.")] = None,
    ) -> CallToolResult:
        """Review an article you wrote: scores, feedback, improvements by section, the verdicts
        on its cited claims; a run that `revise` can continue."""
        try:
            job = await anyio.to_thread.run_sync(tools.review, text, path, task, critic)
        except Exception as exc:
            return failure(exc)
        await follow(job, ctx, REVIEW_TIMEOUT, owner=True)
        return await call(tools.reviewed, job)

    @server.tool()
    async def revise(
        ctx: Context,
        thread: Thread,
        feedback: Annotated[str, Field(description="Your critique, e.g. 'Open with the 1455 date'.")],
        section: Annotated[
            str | None, Field(description="The section it concerns (a title, or its number).")
        ] = None,
        severity: Annotated[str, Field(description="major or minor.")] = "major",
        rounds: Annotated[int, Field(description="More rounds at most (1-10).")] = 1,
        wait: Wait = 0,
    ) -> CallToolResult:
        """Continue a finished run with your critique: the next revision applies it, the critic
        reviews. Returns at once (or follows for `wait` seconds)."""
        return await started(
            tools, lambda: tools.revise(thread, feedback, section, severity, rounds), ctx, wait
        )


def _source_tools(server: MCPServer, tools: Tools) -> None:
    """sources_add, sources_search: the library that runs cite."""

    @server.tool()
    async def sources_add(
        targets: Annotated[
            list[str],
            Field(
                description="Files (.md .txt .html .pdf .docx), folders "
                "(inside the server's roots) and http(s) URLs."
            ),
        ],
    ) -> CallToolResult:
        """Read files, folders and URLs into the source library that runs cite."""
        return await call(tools.sources_add, targets)

    @server.tool()
    async def sources_search(
        query: Annotated[str, Field(description="Words to look for (any language).")],
        limit: Annotated[int, Field(description="Chunks at most.")] = 10,
    ) -> CallToolResult:
        """Search the source library: the best-matching chunks (BM25), each with a snippet."""
        return await call(tools.sources_search, query, limit)


def _resources(server: MCPServer, tools: Tools) -> None:
    """A run's article, record, JSON and page as resources (`reflectcli://runs/{thread}/...`)."""

    def resource(name: str, title: str, mime: str) -> None:
        @server.resource(
            f"reflectcli://runs/{{thread}}/{name}", name=f"run-{name}", title=title, mime_type=mime
        )
        async def read(thread: str) -> str:
            return scrub(await anyio.to_thread.run_sync(tools.resource, thread, name))

    resource("article.md", "A run's article (Markdown)", "text/markdown")
    resource("record.md", "A run's full record: every version, review, decision, trace", "text/markdown")
    resource("run.json", "Everything about a run (JSON)", "application/json")
    resource("article.html", "A run's article as one self-contained page", "text/html")


def _prompts(server: MCPServer) -> None:
    """The prompt that writes a cited article with the tools."""

    @server.prompt(name="write_cited_article", title="Write a cited article")
    def write_cited_article(topic: str, sources: str = "") -> str:
        """Write a cited article on a topic from your own sources, with reflectcli's loop."""
        where = (
            f"First add my sources with `sources_add` (targets: {sources}). "
            if sources
            else "Use the source library (`sources_search` shows what it holds). "
        )
        return (
            f"Write me a cited article on: {topic}\n\n{where}Then call `write` with the task"
            f"{' and those sources' if sources else ''}; follow it with `status(thread, wait=60)` "
            "until it is finished, tell me its scores and the verdicts on its cited claims "
            "(`show`), and give me the article (`article`). If it stops, continue it with "
            "`write(resume=thread)`."
        )


def serve(tools: Tools, http_port: int | None = None, host: str = "127.0.0.1", notice=None) -> None:
    """Serve until the client goes away (stdio) or the server is told to stop; then stop every
    run at its next checkpoint (saying so through `notice`, to the server's log) and exit."""
    server = build(tools)

    def stop(signum, frame):
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, stop)
    why = "the client went away" if http_port is None else "the server stopped"
    try:
        if http_port is None:
            server.run("stdio")
        else:
            server.run("streamable-http", host=host, port=http_port)
    except KeyboardInterrupt:
        why = "told to stop"
    finally:
        going = tools.jobs.stop_all()
        if going and notice is not None:
            names = ", ".join(j.thread_id for j in going)
            notice(
                f"reflectcli mcp: {why}; stopping {len(going)} run{'s' if len(going) != 1 else ''} "
                f"at the next checkpoint ({names}); continue with write(resume=THREAD)"
            )
        if going:
            try:
                tools.jobs.join(GRACE)
            except KeyboardInterrupt:  # told again: leave now (a kill loses no checkpoint either)
                pass
