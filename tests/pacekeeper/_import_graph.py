"""Pacekeeper's import graph, read from its source with `ast`: modules, the top-level
units they belong to (a direct child of ``pacekeeper``: a package or a module), and the
cycles among them. Every ``import`` counts, wherever it stands: in a function or under
``TYPE_CHECKING`` (a type-only arrow is still an arrow a reader must follow), as in
tests/mcpcast/test_import_graph.py (both read it with tests/_import_graph.py).

Run as a script it prints the unit graph and its cycles (what docs/architecture.md shows):
``PYTHONPATH=src python tests/pacekeeper/_import_graph.py``.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

import pacekeeper
from tests._import_graph import cycles, read_graph

ROOT = Path(pacekeeper.__file__).parent


@cache
def graph() -> dict[str, frozenset[str]]:
    """Module -> the pacekeeper modules it imports."""
    return read_graph(ROOT)


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
