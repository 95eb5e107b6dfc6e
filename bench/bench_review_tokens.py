"""Tokens `reflectcli review` sends the critic, against the article's own size.

Target (issue 24): the critic sees the article once per review, and what it is sent is at most
1.3x the article's tokens plus the evidence (the cited sources' passages).

The article is public text: a Python documentation page (default: the urllib HOWTO of Debian's
python3.11-doc, /usr/share/doc/python3.11/html/howto/urllib2.html), read by the source
library's HTML reader and written as Markdown (its headings as `##`/`###`), whole sections
until it holds at least --words words. Two conditions, in the same run:

- `plain`: the article as it is (no citations, so no evidence);
- `cited`: the same article with numbered citations on the sentences naming urlopen, URLError /
  HTTPError, HTTP codes and urlencode, and a References list (three file paths to other pages
  of the same docs, added by the review; one title, matched in the library).

The critic is a real LLM path: `openai/test-model` through litellm to the scripted
OpenAI-compatible server (tests/openai_server.py, 127.0.0.1), which records every request body.
Tokens are counted on what was sent (each message's content, and the JSON schema of
`response_format` when there is one) with tiktoken's cl100k_base (the copy litellm ships; no
download), and with the code's own estimate (textops.estimate_tokens) beside it. The baseline
is the article's own tokens, counted the same way in the same run.

    python bench/bench_review_tokens.py [--words 3000] [--page PATH] [--per-reference 3]
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import re
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tests.openai_server import OpenAIServer, answer  # noqa: E402

DOCS = Path("/usr/share/doc/python3.11/html")
PAGE = DOCS / "howto/urllib2.html"
TARGET = 1.3
CITES = [  # (reference number, what a sentence names, reference entry)
    (1, re.compile(r"\burlopen\b"), "urllib.request documentation: {docs}/library/urllib.request.html"),
    (2, re.compile(r"\b(?:URLError|HTTPError)\b"), "`{docs}/library/urllib.error.html`"),
    (3, re.compile(r"\b(?:status code|[1-5]\d\d)\b"), "*http.client — HTTP protocol client*"),
    (4, re.compile(r"\burlencode\b"), "[urllib.parse]({docs}/library/urllib.parse.html)"),
]
_MARK = re.compile(r"\s?\[\d\]")


def tokenizer():
    """(name, count) — cl100k_base from litellm's bundled cache when it is there, else None."""
    spec = importlib.util.find_spec("litellm")
    if spec is not None and spec.origin:
        cache = Path(spec.origin).parent / "litellm_core_utils" / "tokenizers"
        if (cache / "9b5ad71b2ce5302211f9c61530b329a4922fc6a4").is_file():  # cl100k_base's file
            os.environ["TIKTOKEN_CACHE_DIR"] = str(cache)
            import tiktoken

            enc = tiktoken.get_encoding("cl100k_base")
            return "cl100k_base", lambda text: len(enc.encode(text, disallowed_special=()))
    return None


def article_from(page: Path, words: int) -> tuple[str, int]:
    """The page as Markdown: its title, then whole sections until `words` words (notes left out)."""
    from reflectcli.sources.readers import read_path

    doc = read_path(page)
    title = doc.title.rstrip("¶")
    out, count = [f"# {title}", ""], 0
    for seg in doc.segments:
        path = [p.rstrip("¶") for p in (seg.heading or "").split(" › ")]
        if len(path) < 2 or path[-1] in ("Footnotes",) or not seg.text.strip():
            continue
        body = _MARK.sub("", seg.text.strip())  # the page's own footnote marks: its notes are left out
        out += [f"{'#' * min(len(path), 4)} {path[-1]}", "", body, ""]
        count += len(seg.text.split())
        if count >= words:
            break
    return "\n".join(out).rstrip() + "\n", count


def with_citations(text: str, per_reference: int) -> tuple[str, int]:
    """`text` with `[n]` after the first sentences (outside headings) naming each reference's
    subject, and a References list; and how many citations were placed."""
    lines, placed = text.split("\n"), 0
    used = {n: 0 for n, _, _ in CITES}
    for i, line in enumerate(lines):
        if line.startswith("#") or not line.rstrip().endswith(".") or len(line.split()) < 8:
            continue
        for n, pattern, _ in CITES:
            if used[n] < per_reference and pattern.search(line):
                lines[i] = line.rstrip()[:-1] + f" [{n}]."
                used[n] += 1
                placed += 1
                break
    refs = ["", "## References", ""] + [f"{n}. {entry.format(docs=DOCS)}" for n, _, entry in CITES]
    return "\n".join(lines).rstrip() + "\n" + "\n".join(refs) + "\n", placed


def review_json(body: dict) -> str:
    prompt = body["messages"][-1]["content"]
    found = re.findall(r"^(C\d+) \[([^\]]+)\]:", prompt, re.M)
    claims = [{"claim": c, "source": s, "verdict": "supported", "quote": "", "reason": "it says so"}
              for c, ids in found for s in ids.split(", ")]  # fmt: skip
    return json.dumps({"score": 7, "dimensions": {"accuracy": 7, "completeness": 7, "readability": 7,
                       "structure": 7}, "feedback": "The HOWTO is clear and concrete, but it is long "
                       "and its examples use old APIs. Its error-handling part repeats itself.",
                       "improvements": [],
                       "claims": claims})  # fmt: skip


def _copies(messages: str, line: str) -> int:
    """How many times `line` is in the prompt, as written or inside a JSON-quoted article."""
    return messages.count(line) or messages.count(json.dumps(line, ensure_ascii=False)[1:-1])


def run(label: str, text: str, runs: Path, work: Path, config: Path) -> dict:
    from typer.testing import CliRunner

    from reflectcli.cli.app import app
    from reflectcli.writing.prompts import evidence_lines

    with OpenAIServer(reply=lambda body: answer(review_json(body))) as server:
        config.write_text(f'api_base = "{server.base_url}"\n[research]\nsources = "none"\n')
        (work / f"{label}.md").write_text(text)
        started = time.perf_counter()
        result = CliRunner().invoke(app, ["review", str(work / f"{label}.md"), "--model", "openai/test-model",
                                          "--config", str(config), "--runs-dir", str(runs), "--json",
                                          "--thread-id", label, "--files", str(DOCS)])  # fmt: skip
        took = time.perf_counter() - started
        if result.exit_code != 0:
            raise SystemExit(f"{label}: review failed: {result.output[-600:]}")
        records = [r for r in server.records if r.step.startswith("review")]
    data = json.loads(result.output)
    shown = CliRunner().invoke(app, ["show", label, "--json", "--runs-dir", str(runs)])
    state = json.loads(shown.output)["state"]
    body = records[0].body
    messages = "".join(str(m.get("content") or "") for m in body["messages"])
    schema = json.dumps(body["response_format"]) if body.get("response_format") else ""
    cited = {c["source"] for c in data.get("claims") or []}
    evidence = evidence_lines([e for e in state.get("evidence") or [] if e["id"] in cited], 700)
    prompt = body["messages"][-1]["content"]
    claims_part = ""
    if "Its cited claims" in prompt:  # the list of cited sentences the critic is to judge
        claims_part = prompt.split("Its cited claims", 1)[1].split("\nclaims:", 1)[0]
    return {
        "label": label, "calls": len(records), "seconds": took, "article": text, "evidence": evidence,
        "claims_list": claims_part, "messages": messages, "schema": schema,
        "copies": _copies(messages, text.strip().split("\n")[-1]) if text.strip() else 0,
        "refs": [(r["ref"], r["status"], r["by"]) for r in data.get("references") or []],
        "verdicts": len(data.get("claims") or []), "source": data.get("source"),
    }  # fmt: skip


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--words", type=int, default=3000)
    parser.add_argument("--page", type=Path, default=PAGE)
    parser.add_argument("--per-reference", type=int, default=3, help="paragraphs cited per reference")
    args = parser.parse_args()
    if not args.page.is_file():
        print(f"SKIPPED: {args.page} not found (apt-get install python3.11-doc, or --page another page)")
        return 0
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    os.environ.setdefault("LITELLM_MODE", "PRODUCTION")
    from reflectcli.writing.textops import estimate_tokens

    counters = [("estimate", estimate_tokens)]
    if (tiktoken := tokenizer()) is not None:
        counters.insert(0, tiktoken)
    plain, words = article_from(args.page, args.words)
    cited, placed = with_citations(plain, args.per_reference)
    print(
        f"article: {args.page} ({words} words of text, {len(plain.split())} with headings); "
        f"{placed} citations to 4 references in the cited copy"
    )
    print(f"load average: {open('/proc/loadavg').read().split()[:3]}")
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        work, runs = Path(tmp), Path(tmp) / "runs"
        from reflectcli.sources import library

        library.add(runs, [str(DOCS / "library/http.client.html")])  # the title reference's source
        rows = [run("plain", plain, runs, work, work / "config.toml"),
                run("cited", cited, runs, work, work / "config.toml")]  # fmt: skip
    worst = 0.0
    for name, count in counters:
        print(f"\ntokens ({name}); sent = messages + response_format schema")
        print(f"{'run':<6} {'calls':>5} {'article':>8} {'evidence':>8} {'claims':>7} {'messages':>8} "
              f"{'schema':>6} {'sent':>6} {'(sent-evidence)/article':>24}")  # fmt: skip
        for r in rows:
            keys = ("article", "evidence", "claims_list", "messages", "schema")
            n = {k: count(r[k]) if r[k] else 0 for k in keys}
            sent = n["messages"] + n["schema"]
            ratio = (sent - n["evidence"]) / n["article"]
            worst = max(worst, ratio)
            print(f"{r['label']:<6} {r['calls']:>5} {n['article']:>8} {n['evidence']:>8} "
                  f"{n['claims_list']:>7} {n['messages']:>8} {n['schema']:>6} {sent:>6} "
                  f"{ratio:>24.3f}")  # fmt: skip
    cited_row = rows[1]
    print(f"\ncited run: references {cited_row['refs']}; {cited_row['verdicts']} verdicts")
    print(
        f"critic answers used: {[r['source'] for r in rows]}; the article's last line appears "
        f"{rows[0]['copies']} / {cited_row['copies']} time(s) in the prompt"
    )
    once = all(r["calls"] == 1 and r["copies"] == 1 and r["source"] == "llm" for r in rows)
    verdict = "within target" if worst <= TARGET and once else "ABOVE TARGET"
    print(f"worst ratio {worst:.3f} (target ≤ {TARGET}, one call and one copy per review): {verdict}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
