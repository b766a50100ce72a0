"""Pacekeeper's import graph, read from its source with `ast`: modules, the top-level
units they belong to (a direct child of ``pacekeeper``: a package or a module), and the
cycles among them. Every ``import`` counts, wherever it stands: in a function or under
``TYPE_CHECKING`` (a type-only arrow is still an arrow a reader must follow), as in
tests/mcpcast/test_import_graph.py.

Run as a script it prints the unit graph and its cycles (what docs/architecture.md shows):
``PYTHONPATH=src python tests/pacekeeper/_import_graph.py``.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator, Mapping
from functools import cache
from pathlib import Path

import pacekeeper

ROOT = Path(pacekeeper.__file__).parent


def _module_name(path: Path) -> str:
    parts = path.relative_to(ROOT.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imports(path: Path, modules: frozenset[str]) -> Iterator[str]:
    """The pacekeeper modules ``path`` imports (``from pkg import mod`` names the module)."""
    name = _module_name(path)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - node.level + 1]
                source = ".".join([*base, node.module] if node.module else base)
            else:
                source = node.module or ""
            targets = [
                f"{source}.{alias.name}" if f"{source}.{alias.name}" in modules else source
                for alias in node.names
            ]
        else:
            continue
        for target in targets:
            if target in modules:
                yield target


@cache
def graph() -> dict[str, frozenset[str]]:
    """Module -> the pacekeeper modules it imports."""
    paths = {_module_name(p): p for p in ROOT.rglob("*.py")}
    modules = frozenset(paths)
    return {name: frozenset(_imports(path, modules)) - {name} for name, path in paths.items()}


def unit(module: str) -> str:
    """The top-level unit of a module: ``pacekeeper.fitness._store`` -> ``fitness``;
    the package's own ``__init__`` is the unit ``pacekeeper``."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "pacekeeper"


@cache
def unit_graph() -> dict[str, frozenset[str]]:
    """Top-level unit -> the other units its modules import."""
    edges: dict[str, set[str]] = {}
    for module, targets in graph().items():
        edges.setdefault(unit(module), set()).update(unit(t) for t in targets)
    return {name: frozenset(found - {name}) for name, found in edges.items()}


def cycles(edges: Mapping[str, frozenset[str]]) -> list[list[str]]:
    """Strongly connected components with more than one node (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in sorted(edges.get(node, ())):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(edges):
        if node not in index:
            visit(node)
    return found


def reachable(edges: Mapping[str, frozenset[str]], start: str) -> set[str]:
    seen: set[str] = set()
    todo = list(edges.get(start, ()))
    while todo:
        node = todo.pop()
        if node not in seen:
            seen.add(node)
            todo.extend(edges.get(node, ()))
    return seen


def _report() -> None:
    units = unit_graph()
    print(f"{len(units)} top-level units")
    for name in sorted(units):
        print(f"  {name:14} -> {', '.join(sorted(units[name])) or '-'}")
    for component in cycles(units):
        print(f"unit cycle ({len(component)}): {', '.join(component)}")
    for component in cycles(graph()):
        print(f"module cycle ({len(component)}): {', '.join(component)}")


if __name__ == "__main__":
    _report()
