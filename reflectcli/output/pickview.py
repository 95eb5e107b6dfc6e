"""The writer's side of picking (graph/pick.py), at a terminal: the round's improvements to
strike from or add to, then each proposed change as a diff of its section with the critique
that asked for it, answered like `git add -p`. Part of the renderer: it prints and asks. Every
text from a model or a file is drawn as a Rich `Text` (never parsed as markup)."""

from __future__ import annotations

import re
from typing import Any

from rich.text import Text

from reflectcli.output import rows
from reflectcli.output.diffs import section_diff

PICK_KEYS = {"y": "accept", "n": "reject", "e": "edit", "a": "all", "q": "quit"}
PICK_PROMPT = "accept this change? \\[y]es, \\[n]o, \\[e]dit, \\[a]ll the rest, \\[q]uit"
STEER_PROMPT = "strike N (s 2), add one (a TEXT, or a 2: TEXT for section 2), Enter to revise"
_STRIKE = re.compile(r"^(?:s|strike)\s*((?:\d+[\s,]*)+)$", re.I)
_UNSTRIKE = re.compile(r"^(?:u|unstrike)\s*((?:\d+[\s,]*)+)$", re.I)
_ADD = re.compile(r"^(?:a|add)\s+(?:(\d+)\s*:\s*)?(.+)$", re.I | re.S)


def ask_gate(renderer, question: dict[str, Any]) -> dict[str, Any]:
    """The answer to a steer or pick question, asked on the renderer's console."""
    if question["gate"] == "steer":
        return ask_steer(renderer.console, question)
    return ask_pick(renderer.console, question)


def _item_line(number: int, item: dict[str, Any], struck: bool = False) -> Text:
    line = Text(f"  {number}. ")
    colour = "red" if item.get("severity") == "major" else "yellow"
    body = Text(rows.improvement(item, with_id=True), style="strike dim" if struck else colour)
    return line.append_text(body)


def ask_steer(console, question: dict[str, Any]) -> dict[str, Any]:
    """The critic's list for the coming round, numbered: strike some, add your own, go."""
    from rich.prompt import Prompt

    items, titles = question["items"], question.get("sections") or []
    struck: set[int] = set()
    added: list[dict[str, str]] = []

    def show() -> None:
        console.print(Text(f"round {question['round']}: the revision will apply these improvements",
                           style="bold"))  # fmt: skip
        if not items and not added:
            console.print(Text("  (none yet: add one, or Enter to stop here)", style="dim"))
        for n, item in enumerate(items, 1):
            console.print(_item_line(n, item, n in struck))
        for n, item in enumerate(added, len(items) + 1):
            where = f"{item['section']}: " if item["section"] else ""
            console.print(Text(f"  {n}. [yours] {where}{item['issue']}", style="magenta"))

    show()
    while True:
        said = Prompt.ask(STEER_PROMPT, default="", show_default=False, console=console).strip()
        if not said:
            return {"action": "go", "strike": [items[n - 1].get("id") for n in sorted(struck)],
                    "add": added}  # fmt: skip
        if match := _STRIKE.match(said) or _UNSTRIKE.match(said):
            numbers = {int(x) for x in re.findall(r"\d+", match.group(1))}
            bad = sorted(n for n in numbers if not 1 <= n <= len(items))
            if bad:
                console.print(Text(f"no improvement {bad[0]}: choose 1 to {len(items)}", style="yellow"))
                continue
            struck = struck | numbers if match.re is _STRIKE else struck - numbers
        elif match := _ADD.match(said):
            number, issue = match.group(1), " ".join(match.group(2).split())
            section = ""
            if number is not None:
                if not 1 <= int(number) <= len(titles):
                    console.print(Text(f"no section {number}: the sections are 1 to {len(titles)}",
                                       style="yellow"))  # fmt: skip
                    continue
                section = titles[int(number) - 1]
            added.append({"issue": issue, "section": section})
        else:
            console.print(Text(f"not understood: {said!r}; {STEER_PROMPT}", style="yellow"))
            continue
        show()


WORD_MARKS = {"=": ("", ""), "-": ("[-", "-]"), "+": ("{+", "+}")}  # git's --word-diff=plain


def diff_text(old: str, new: str) -> Text:
    """A section's change, red for what goes and green for what comes; on long lines word by
    word, each change also marked as git marks it (`[-gone-]{+come+}`: readable without colour)."""
    out = Text()
    for op, payload in section_diff(old, new):
        if op == "~":
            out.append("~ ", style="cyan")
            for kind, chunk in payload:
                core = chunk.strip()
                if kind == "=" or not core:
                    out.append(chunk if kind != "-" else "")
                    continue
                lead, trail = chunk[: len(chunk) - len(chunk.lstrip())], chunk[len(chunk.rstrip()) :]
                start, end = WORD_MARKS[kind]
                out.append(lead)
                out.append(f"{start}{core}{end}", style={"-": "red strike", "+": "green underline"}[kind])
                out.append(trail)
        else:
            out.append(f"{op if op != '=' else ' '} {payload}",
                       style={"=": "dim", "-": "red", "+": "green"}[op])  # fmt: skip
        out.append("\n")
    return out


def ask_pick(console, question: dict[str, Any]) -> dict[str, Any]:
    """One proposed change: its section's diff and the improvements that asked for it; the
    writer's answer (an edit opens the proposed text in $VISUAL / $EDITOR)."""
    from rich.prompt import Prompt

    head = (f"change {question['index']} of {question['count']} · {question['title']} "
            f"(round {question['round']})")  # fmt: skip
    console.print(Text(head, style="bold"))
    for item in question.get("items") or []:
        console.print(Text(f"  asked for: {rows.improvement(item, with_id=True)}", style="cyan"))
    if not question.get("items"):
        console.print(Text("  asked for: (the critic's general feedback)", style="cyan"))
    console.print(diff_text(question["old"], question["new"]), end="")
    key = Prompt.ask(PICK_PROMPT, choices=list(PICK_KEYS), console=console)
    action = PICK_KEYS[key]
    if action != "edit":
        return {"action": action}
    from reflectcli.writing.editing import edit_text

    body = edit_text(question["new"], "change.md").strip()
    if not body:
        console.print(Text("the edit is empty: the change is rejected", style="yellow"))
        return {"action": "reject"}
    return {"action": "edit", "body": body}


def waiting_words(question: dict[str, Any]) -> str:
    """What a run left waiting at a pick gate waits for."""
    if question["gate"] == "steer":
        return f"your steering of round {question['round']}'s revision"
    return f"your answer on change {question['index']} of {question['count']}"
