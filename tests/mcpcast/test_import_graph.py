"""The shape of mcpcast, read from its source: the import graph has no cycle, no
transport reaches another transport, the server or the entry point, and the protocol
core reaches no transport (docs/architecture.md, "Rules").

Every ``import`` counts, wherever it stands: in a function, or under ``TYPE_CHECKING``
(a type-only arrow is still an arrow a reader must follow).
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from functools import cache
from pathlib import Path

import mcpcast

ROOT = Path(mcpcast.__file__).parent
SERVER = "mcpcast._server"
ENTRY = "mcpcast._asgi"


def _module_name(path: Path) -> str:
    parts = path.relative_to(ROOT.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imports(path: Path, modules: frozenset[str]) -> Iterator[str]:
    """The mcpcast modules ``path`` imports (``from pkg import mod`` names the module)."""
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
            targets = [f"{source}.{alias.name}" if f"{source}.{alias.name}" in modules
                       else source for alias in node.names]
        else:
            continue
        for target in targets:
            if target in modules:
                yield target


@cache
def graph() -> dict[str, frozenset[str]]:
    paths = {_module_name(p): p for p in ROOT.rglob("*.py")}
    modules = frozenset(paths)
    return {name: frozenset(_imports(path, modules)) - {name} for name, path in paths.items()}


def _reachable(start: str) -> set[str]:
    edges = graph()
    seen: set[str] = set()
    todo = list(edges[start])
    while todo:
        module = todo.pop()
        if module not in seen:
            seen.add(module)
            todo.extend(edges[module])
    return seen


def _cycles() -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan)."""
    edges = graph()
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in sorted(edges[node]):
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


def transports() -> set[str]:
    """A transport is a public module of ``mcpcast.transports``; its ``_private`` modules
    are plumbing they share (bodies, replies, the Protocols the entry point hands them)."""
    return {m for m in graph() if m.startswith("mcpcast.transports.")
            and not m.rpartition(".")[2].startswith("_")}


def test_the_graph_is_read() -> None:
    edges = graph()
    assert {SERVER, ENTRY, "mcpcast.protocol.legacy"} <= set(edges)
    assert ENTRY in edges[SERVER]
    assert "mcpcast.transports.websocket" in edges[ENTRY]
    assert transports() >= {"mcpcast.transports.streamable_http", "mcpcast.transports.sse",
                            "mcpcast.transports.websocket", "mcpcast.transports.current_http"}


def test_no_cycle_inside_mcpcast() -> None:
    assert _cycles() == []


def test_a_transport_reaches_no_other_transport_nor_the_server() -> None:
    forbidden = transports() | {SERVER, ENTRY, "mcpcast"}
    strays = {t: sorted(_reachable(t) & (forbidden - {t})) for t in sorted(transports())}
    assert {t: found for t, found in strays.items() if found} == {}
    # Their shared plumbing may not lead there either (that would be an arrow by proxy).
    plumbing = {m for m in graph() if m.startswith("mcpcast.transports._")}
    assert {m: sorted(_reachable(m) & forbidden) for m in plumbing
            if _reachable(m) & forbidden} == {}


def test_the_protocol_core_reaches_no_transport() -> None:
    core = {m for m in graph() if m.startswith("mcpcast.protocol")}
    outward = {m: sorted(r for r in _reachable(m) if r.startswith("mcpcast.transports")
                         or r in (SERVER, ENTRY)) for m in core}
    assert {m: found for m, found in outward.items() if found} == {}
