"""The package's layers: no import cycles, and a lower layer never imports a higher one.

Imports are read from the source (every `import` and `from ... import`, lazy ones inside functions
included), so a cycle hidden behind a function-level import fails here too."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "reflectcli"

# Each area and the areas it may import (besides itself). The flow reads
# cli → runner → output → graph → models | store, over writing and the base modules: the graph
# decides (its routers' and nodes' rules are in graph/rules.py), output renders what it decided.
ALLOWED = {
    "errors": set(),
    "retry": {"errors"},  # the one retry policy: models, graph (budget) and batch use it
    "pool": set(),
    "jsonl": set(),
    "tasklines": {"jsonl"},  # a line of a task file (batch) or a suite (eval): one pydantic model
    "configfile": {"errors"},
    "config": {"configfile", "errors", "writing"},
    "writing": {"errors"},
    "models": {"writing", "retry", "errors"},
    "store": {"errors"},
    "output": {"graph", "writing", "errors"},
    "sources": {"store", "writing", "errors", "pool"},
    "memory": {"store", "writing", "errors"},
    "eval": {"runner", "models", "output", "store", "config", "writing", "jsonl", "tasklines", "errors"},
    "batch": {"runner", "output", "store", "config", "retry", "jsonl", "tasklines", "errors"},
    "graph": {"models", "writing", "sources", "config", "retry", "errors", "pool"},
    # the runner's driving and recording half: below the runner, above what it records
    "recorder": {"output", "store", "errors"},
    "runner": {
        "recorder",
        "graph",
        "models",
        "writing",
        "output",
        "store",
        "sources",
        "memory",
        "config",
        "retry",
        "errors",
    },  # fmt: skip
    # the MCP server: the commands as tools, above the runner (cli registers it; no layer imports it)
    "mcp": {"runner", "graph", "output", "store", "sources", "writing", "config", "errors", "__init__"},
    "cli": {
        "mcp",
        "runner",
        "graph",
        "models",
        "writing",
        "output",
        "store",
        "sources",
        "memory",
        "eval",
        "batch",
        "config",
        "configfile",
        "retry",
        "errors",
        "__init__",
    },  # fmt: skip
    "__main__": {"cli"},
    "__init__": set(),
}


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts).removesuffix(".__init__")


def imports_of(path: Path, modules: set[str]) -> set[str]:
    """The package modules `path` imports (resolving relative imports and `from pkg import mod`)."""
    name = module_name(path)
    package = name if path.name == "__init__.py" else name.rsplit(".", 1)[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            candidates = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            candidates = [target] + [f"{target}.{alias.name}" for alias in node.names]
        else:
            continue
        for candidate in candidates:
            # `import reflectcli.a.b` loads reflectcli.a too; count the deepest package module
            while candidate and candidate not in modules and "." in candidate:
                candidate = candidate.rsplit(".", 1)[0]
            if candidate in modules and candidate != name:
                found.add(candidate)
    return found


def import_graph() -> dict[str, set[str]]:
    files = sorted(PACKAGE.rglob("*.py"))
    modules = {module_name(p) for p in files}
    return {module_name(p): imports_of(p, modules) for p in files}


def area(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "__init__"


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    state: dict[str, int] = {}  # 1 = on the path, 2 = done

    def visit(node: str, path: list[str]) -> list[str] | None:
        state[node] = 1
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == 1:
                return path[path.index(nxt) :] + [nxt]
            if nxt not in state and (cycle := visit(nxt, [*path, nxt])):
                return cycle
        state[node] = 2
        return None

    for start in sorted(graph):
        if start not in state and (cycle := visit(start, [start])):
            return cycle
    return None


def test_the_package_has_no_import_cycle():
    cycle = find_cycle(import_graph())
    assert cycle is None, "import cycle: " + " -> ".join(cycle or [])


def test_a_lower_layer_never_imports_a_higher_one():
    wrong = []
    for module, targets in import_graph().items():
        mine = area(module)
        assert mine in ALLOWED, f"{module}: area {mine!r} has no entry in ALLOWED"
        for target in targets:
            theirs = area(target)
            if theirs != mine and theirs not in ALLOWED[mine]:
                wrong.append(f"{module} imports {target}")
    assert not wrong, "layer violations:\n" + "\n".join(sorted(wrong))


def test_the_checker_sees_a_cycle_and_a_lazy_import(tmp_path):
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b"}, "b": set()}) is None
    lazy = PACKAGE / "store" / "db.py"
    assert "reflectcli.errors" in imports_of(lazy, set(import_graph()))


@pytest.mark.parametrize("package", sorted(p.parent.name for p in PACKAGE.glob("*/__init__.py")))
def test_every_layer_says_what_it_holds_and_may_import(package):
    doc = ast.get_docstring(ast.parse((PACKAGE / package / "__init__.py").read_text()))
    assert doc and "import" in doc.lower(), f"reflectcli/{package}/__init__.py needs a docstring"


def test_the_graph_does_not_reach_the_store_through_sources():
    """graph may import sources' evidence and verify modules, which never touch the database."""
    import subprocess
    import sys

    code = ("import sys, reflectcli.graph.build, reflectcli.graph.nodes; "
            "print(sorted(m for m in sys.modules if m.startswith('reflectcli.store')))")  # fmt: skip
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_output_reads_only_the_graphs_pure_rules():
    """output may read what the graph decides (graph/rules.py), never build or run the graph:
    the read-only commands that render a run must not load LangGraph."""
    import subprocess
    import sys

    wrong = sorted(f"{m} imports {t}" for m, targets in import_graph().items() if area(m) == "output"
                   for t in targets if area(t) == "graph" and t != "reflectcli.graph.rules")  # fmt: skip
    assert not wrong, "\n".join(wrong)
    code = (
        "import sys, reflectcli.output.views, reflectcli.output.exporters, reflectcli.graph.rules; "
        "print(sorted(m for m in sys.modules if m.startswith(('langgraph', 'reflectcli.graph.'))))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "['reflectcli.graph.rules']"


def test_each_package_docstring_names_what_it_may_import():
    """The `__init__` docstrings are the map a newcomer reads: every layer a package may import
    (ALLOWED) is named in its docstring, and no other layer is."""
    import ast
    import re

    for name, allowed in ALLOWED.items():
        init = PACKAGE / name / "__init__.py"
        if not init.exists() or name == "cli":  # cli may import everything; it says so
            continue
        doc = ast.get_docstring(ast.parse(init.read_text()))
        named = set(re.findall(r"`(\w+)`", doc)) & set(ALLOWED)
        assert named == allowed, f"{name}/__init__.py names {sorted(named)}, may import {sorted(allowed)}"
