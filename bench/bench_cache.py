"""Prompts that providers can cache: how much of each call's input repeats the previous call's
prefix byte for byte, per step kind; and cached tokens counted and priced from a server's usage.

(a) Prefix sharing. A whole `reflectcli write` of 6 sections with a scripted fake writer and
    critic (full prompts, the ones a capable model gets), sections of ~250 words, reviews
    scoring 6, 7, 9 against threshold 8.5, each naming one section (so section revision runs
    one call per named section), run twice: without sources and with a local source library of
    six documents (`--sources local`). For every model call, in order, the shared prefix is the
    longest run of bytes its prompt (role and text of each message, in order) begins with that
    the previous call's prompt also began with; the share per step kind is
    sum(shared bytes) / sum(prompt bytes) over the calls of that kind. Bytes stand in for
    tokens (a tokenizer maps equal byte prefixes to equal token prefixes, up to the last token).
    The baseline, in the same process: the same two runs with writing/prompts.py as it is at
    `--baseline REV` (default: where this branch left main, `git merge-base HEAD main`), loaded
    from git and swapped in for the run (keyword arguments it does not take are dropped).
    Each run twice: with `prompt_cache` off (a provider without a cache: a section rewrite
    carries its section and neighbours' edges) and on (a section rewrite begins with its
    review's system message, the reviewed article included). The target is judged on the
    runs with it on: a provider without a cache gains nothing from a shared prefix.
    Target: >= 60 % in drafting and in section revision.

(b) Counted and priced. The same 6-section run through litellm against tests/openai_server.py
    with `prompt_cache=True` (its usage reports, as `prompt_tokens_details.cached_tokens`, the
    prefix each prompt shares with an earlier one) under two model names litellm prices,
    `openai/gpt-5-mini` (cached input at a tenth of the input rate: `prompt_cache = "auto"`
    turns shaping on) and `openai/gpt-4o-mini` (at half: auto leaves it off), each run with
    `prompt_cache` on and off: the run's cached tokens in the trace, `summarize` and the stored
    usage (`stats`), its cost against the same tokens priced without the cache, both from
    litellm's price map (`cache_read_input_token_cost` for the cached part), and the cost of
    on against off (what carrying the reviewed article into section rewrites costs).

    python bench/bench_cache.py [--no-server]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from reflectcli.config import Settings  # noqa: E402
from reflectcli.models.fake import (  # noqa: E402
    TITLES,
    FakeClient,
    ScriptedResponder,
    install_fake,
    prose,
)
from reflectcli.output.render import Renderer  # noqa: E402
from reflectcli.runner import Runner  # noqa: E402

TASK = "Why do writers revise their drafts?"
SECTIONS = 6
SCORES = (6.0, 7.0, 9.0)
THRESHOLD = 8.5
TARGET = 0.60
CACHE_MIN, CACHE_STEP = 1024, 128  # OpenAI caches a prompt's prefix from 1,024 tokens, in 128-token steps
KINDS = ("plan", "draft", "review", "section revision", "revision")


class LongSections(ScriptedResponder):
    """ScriptedResponder with sections of ~250 words (25 sentences of ~10 words): real sizes."""

    def __call__(self, step: str, messages: list[dict[str, str]]) -> str:
        if step.startswith("draft"):
            n = int(re.search(r"s(\d+)", step).group(1))
            return prose(n, 25)
        return super().__call__(step, messages)


def kind_of(step: str) -> str:
    head = step.split(":")[0]
    if head == "revise":
        return "section revision" if re.search(r":s\d+$", step) else "revision"
    return head


def prompt_bytes(messages: list[dict[str, Any]]) -> bytes:
    """What a provider reads, in order: each message's role and text."""
    parts = []
    for m in messages:
        content = m.get("content")
        if isinstance(content, list):
            content = "".join(b.get("text", "") for b in content if isinstance(b, dict))
        parts.append(f"<{m.get('role')}>{content or ''}")
    return "".join(parts).encode("utf-8")


def shared_prefix(a: bytes, b: bytes) -> int:
    return len(os.path.commonprefix([a, b]))


def shares(calls: list[tuple[str, list[dict[str, Any]]]]) -> dict[str, tuple[int, int, int]]:
    """Per kind: (calls, shared bytes, prompt bytes), each call against the one before it."""
    out: dict[str, list[int]] = {}
    previous = b""
    for step, messages in calls:
        text = prompt_bytes(messages)
        row = out.setdefault(kind_of(step), [0, 0, 0])
        row[0] += 1
        row[1] += shared_prefix(text, previous)
        row[2] += len(text)
        previous = text
    return {k: (v[0], v[1], v[2]) for k, v in out.items()}


def corpus(folder: Path) -> Path:
    """Six short documents, one per section title, for `--sources local`."""
    folder.mkdir(parents=True, exist_ok=True)
    for i, title in enumerate(TITLES[:SECTIONS]):
        body = " ".join(f"{title}: {prose(i + j, 3)}" for j in range(4))
        (folder / f"doc{i + 1}.md").write_text(f"# {title}\n\n{body}\n", encoding="utf-8")
    return folder


Calls = list[tuple[str, list[dict[str, Any]]]]


def fake_run(tmp: Path, sources: bool, caches: bool = False) -> tuple[Calls, dict]:
    clients: list[FakeClient] = []

    def make(model: str) -> FakeClient:
        client = FakeClient(model, LongSections(scores=SCORES, sections=SECTIONS), caches_prompts=caches)
        clients.append(client)
        return client

    runs_dir = Path(tempfile.mkdtemp(dir=tmp, prefix="runs-"))
    extra: dict[str, Any] = {}
    if sources:
        from reflectcli.sources import library

        library.add(runs_dir, [str(corpus(tmp / f"docs-{runs_dir.name}"))])
        extra["research"] = {"sources": "local"}
    uninstall = install_fake("fake", make)
    try:
        settings = Settings(model="fake/w", runs_dir=str(runs_dir), max_sections=SECTIONS,
                            max_rounds=len(SCORES), threshold=THRESHOLD, **extra)  # fmt: skip
        result = Runner(Renderer(quiet=True)).write(TASK, settings)
    finally:
        uninstall()
    assert len(clients) == 1, "writer and critic are one client (the critic model is the writer's)"
    calls = [(h["step"], h["messages"]) for h in clients[0].history]
    return calls, result.summary


def report(label: str, table: dict[str, tuple[int, int, int]], judged: bool = True) -> list[str]:
    missed = []
    print(f"\n{label}")
    print(f"  {'step kind':<18} {'calls':>5} {'prompt bytes':>13} {'shared':>10} {'share':>7}")
    for kind in KINDS:
        if kind not in table:
            continue
        n, shared, total = table[kind]
        share = shared / total if total else 0.0
        flag = ""
        if kind in ("draft", "section revision"):
            flag = ("  OK" if share >= TARGET else "  BELOW TARGET") if judged else ""
            if share < TARGET and judged:
                missed.append(f"{label}: {kind}")
        print(f"  {kind:<18} {n:>5} {total:>13} {shared:>10} {share:>6.0%}{flag}")
    n = sum(v[0] for v in table.values())
    shared = sum(v[1] for v in table.values())
    total = sum(v[2] for v in table.values())
    print(f"  {'all calls':<18} {n:>5} {total:>13} {shared:>10} {shared / total:>6.0%}")
    return missed


def server_run(tmp: Path, model: str = "openai/gpt-5-mini", prompt_cache: str = "auto") -> float:
    """(b): cached tokens from a server's usage, counted and priced; returns the run's cost."""
    sys.path.insert(0, str(ROOT / "tests"))
    from openai_server import OpenAIServer, answer, step_of

    from reflectcli.models.remote import _litellm
    from reflectcli.store.catalog import stats

    responder = LongSections(scores=SCORES, sections=SECTIONS)
    os.environ.setdefault("REFLECTCLI_API_KEY", "sk-test")
    for var in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy"):
        os.environ.pop(var, None)
    os.environ["NO_PROXY"] = "127.0.0.1,localhost"
    with OpenAIServer(lambda body: answer(responder(step_of(body), body["messages"])), prompt_cache=True,
                      cache_min=CACHE_MIN, cache_step=CACHE_STEP) as server:  # as OpenAI caches  # fmt: skip
        runs_dir = Path(tempfile.mkdtemp(dir=tmp, prefix="server-"))
        settings = Settings(model=model, api_base=server.base_url, runs_dir=str(runs_dir),
                            max_sections=SECTIONS, max_rounds=len(SCORES), threshold=THRESHOLD,
                            retries=0, timeout=30.0, prompt_cache=prompt_cache)  # fmt: skip
        result = Runner(Renderer(quiet=True)).write(TASK, settings)
        requests = server.count
    litellm = _litellm()
    calls = [e for e in result.state["trace"] if "step" in e]
    s = result.summary
    info = litellm.get_model_info(model)
    plain = (
        sum(e["prompt_tokens"] for e in calls) * info["input_cost_per_token"]
        + sum(e["completion_tokens"] for e in calls) * info["output_cost_per_token"]
    )
    expected = (
        (s["prompt_tokens"] - s["cache_read_tokens"]) * info["input_cost_per_token"]
        + s["cache_read_tokens"] * info["cache_read_input_token_cost"]
        + s["completion_tokens"] * info["output_cost_per_token"]
    )
    usage = stats(str(runs_dir))["per_model"]
    print(f"\n(b) {len(calls)} calls ({requests} requests) to the scripted server caching prefixes of "
          f">= {CACHE_MIN} tokens in {CACHE_STEP}-token steps, model {model}, setting prompt_cache = "
          f"{prompt_cache}")  # fmt: skip
    print(
        f"  input tokens {s['prompt_tokens']}, of which cached {s['cache_read_tokens']} "
        f"({s['cache_read_tokens'] / max(1, s['prompt_tokens']):.0%}); output {s['completion_tokens']}"
    )
    for e in calls:
        print(f"    {e['step']:<14} in {e['prompt_tokens']:>6}  cached {e.get('cache_read_tokens', 0):>6}")
    print(f"  stats (run_usage): {json.dumps(usage)}")
    print(f"  cost: ${s['cost']:.6f} as counted; ${expected:.6f} from litellm's price map "
          f"(input ${info['input_cost_per_token'] * 1e6:.3f}/M, cached "
          f"${info['cache_read_input_token_cost'] * 1e6:.3f}/M, output "
          f"${info['output_cost_per_token'] * 1e6:.3f}/M); ${plain:.6f} without the cache "
          f"({s['cost'] / plain:.0%} of it)")  # fmt: skip
    # summarize rounds the cost to 6 places
    ok = abs(s["cost"] - expected) < 5e-7 and usage[0]["cache_read_tokens"] == s["cache_read_tokens"]
    print(f"  counted and priced at the cached rate: {'OK' if ok else 'MISMATCH'}")
    if not ok:
        raise SystemExit(1)
    return s["cost"]


def baseline_prompts(rev: str):
    """writing/prompts.py at `rev`, as a module whose builders ignore keywords they lack."""
    import inspect
    import subprocess
    import types

    text = subprocess.run(["git", "-C", str(ROOT), "show", f"{rev}:reflectcli/writing/prompts.py"],
                          capture_output=True, text=True, check=True).stdout  # fmt: skip
    module = types.ModuleType("baseline_prompts")
    exec(compile(text, f"{rev}:prompts.py", "exec"), module.__dict__)  # noqa: S102 - our own file

    def lenient(fn):
        names = set(inspect.signature(fn).parameters)
        return lambda *a, **k: fn(*a, **{n: v for n, v in k.items() if n in names})

    for name, fn in list(module.__dict__.items()):
        if name.endswith("_messages") and callable(fn):
            setattr(module, name, lenient(fn))
    return module


def swapped(module):
    """A context in which the graph's nodes build their prompts with `module`'s builders."""
    import contextlib

    from reflectcli.writing import prompts

    @contextlib.contextmanager
    def swap():
        saved = {n: getattr(prompts, n) for n in dir(prompts) if n.endswith("_messages")}
        for name in saved:
            if hasattr(module, name):
                setattr(prompts, name, getattr(module, name))
        try:
            yield
        finally:
            for name, fn in saved.items():
                setattr(prompts, name, fn)

    return swap()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--no-server", action="store_true", help="skip (b) (no litellm import)")
    parser.add_argument("--baseline", default=None, help="git revision of the baseline prompts")
    args = parser.parse_args()
    import subprocess

    rev = args.baseline or subprocess.run(["git", "-C", str(ROOT), "merge-base", "HEAD", "main"],
                                          capture_output=True, text=True).stdout.strip()  # fmt: skip
    missed: list[str] = []
    with tempfile.TemporaryDirectory(prefix="reflectcli-cache-") as name:
        tmp = Path(name)
        for sources, caches in ((False, False), (False, True), (True, False), (True, True)):
            what = "local sources" if sources else "no sources"
            calls, summary = fake_run(tmp, sources, caches)
            now = shares(calls)
            label = f"(a) {SECTIONS} sections, {what}, prompt_cache {'on' if caches else 'off'}"
            missed += report(f"{label}: {len(calls)} calls, {summary['rounds']} rounds", now,
                             judged=caches)  # fmt: skip
            if rev and not caches:
                with swapped(baseline_prompts(rev)):
                    old_calls, _ = fake_run(tmp, sources)
                old = shares(old_calls)
                report(f"    baseline: the prompts at {rev[:10]}, {what}: {len(old_calls)} calls", old)
                print("  share now / baseline: " + ", ".join(
                    f"{k} {now[k][1] / now[k][2] / max(1e-9, old[k][1] / old[k][2]):.1f}x"
                    for k in KINDS if k in now and k in old and old[k][2]))  # fmt: skip
        if not args.no_server:  # the cost of shaping section rewrites, at two cached rates
            for model in ("openai/gpt-5-mini", "openai/gpt-4o-mini"):
                costs = {setting: server_run(tmp, model, setting) for setting in ("on", "off", "auto")}
                best = min(costs["on"], costs["off"])
                print(f"  {model}: prompt_cache on costs {costs['on'] / costs['off']:.2f}x off; auto "
                      f"{costs['auto'] / best:.2f}x the cheaper of the two"
                      + ("" if costs["auto"] <= best * 1.001 else "  ABOVE the cheaper setting"))  # fmt: skip
    print(
        f"\ntarget: >= {TARGET:.0%} of drafting's and section revision's prompt bytes repeat the "
        f"previous call's prefix with prompt_cache on: "
        f"{'OK' if not missed else 'BELOW TARGET in ' + '; '.join(missed)}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
