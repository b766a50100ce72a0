"""A package's import graph, read from its source with ``ast``, and the two questions
asked of it: the cycles (Tarjan's strongly connected components) and what a module
reaches. Every ``import`` counts, wherever it stands: in a function or under
``TYPE_CHECKING`` (a type-only arrow is still an arrow a reader must follow).
Used by tests/mcpcast/test_import_graph.py and tests/pacekeeper/_import_graph.py.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator, Mapping
from pathlib import Path


def _module_name(root: Path, path: Path) -> str:
    parts = path.relative_to(root.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imports(root: Path, path: Path, modules: frozenset[str]) -> Iterator[str]:
    """The package's modules ``path`` imports (``from pkg import mod`` names the module)."""
    name = _module_name(root, path)
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


def read_graph(root: Path) -> dict[str, frozenset[str]]:
    """Module -> the modules of the same package (``root``: its folder) it imports."""
    paths = {_module_name(root, p): p for p in root.rglob("*.py")}
    modules = frozenset(paths)
    return {name: frozenset(_imports(root, path, modules)) - {name}
            for name, path in paths.items()}


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


__all__ = ["cycles", "reachable", "read_graph"]
