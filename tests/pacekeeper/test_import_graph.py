"""The shape of pacekeeper, read from its source (docs/architecture.md, "Layers"): no
cycle between its top-level units (a direct child of ``pacekeeper``: a package or a
module), and the arrows point one way, HTTP and MCP -> services -> storage.

Every ``import`` counts, wherever it stands (in a function, under ``TYPE_CHECKING``):
`_import_graph.py` reads them with ``ast``, as tests/mcpcast/test_import_graph.py does
for mcpcast. Run that helper as a script to print the unit graph.
"""

from __future__ import annotations

from tests._import_graph import cycles, reachable
from tests.pacekeeper._import_graph import graph, unit, unit_graph

# The layers, top down. A unit may import units of its own layer or below, never above
# (within a layer the no-cycle rule holds). `app` and `cli` are the entry points and
# may import anything; the leaves (errors, config, owner, pages, metrics...) any layer
# may import.
ENTRY = {"app", "cli"}
EDGE = {"http", "web", "tools", "mcp", "ops"}  # HTTP, pages, MCP, running the service
WIRING = {"services"}  # the container: builds every service, handed to the edge
SERVICES = {"account", "admin", "apikeys", "auth", "connections", "fitness", "jobs",
            "oauth2", "providers", "sync", "live", "crypto", "cpu", "masterkey",
            "ratelimit", "backing", "workouts"}
STORAGE = {"db"}
LEAVES = {"pacekeeper", "errors", "config", "owner", "pages", "metrics", "logredact", "memory",
          "values", "confusables", "_openapi_parts", "spans"}
LAYERS = [ENTRY, EDGE, WIRING, SERVICES, STORAGE, LEAVES]

# Unit cycles not broken yet: each entry is one strongly connected set of units, with
# why it is left. This list may only shrink (a new cycle fails the test; a broken one
# must be taken off it).
ALLOWED_CYCLES: list[list[str]] = []


def _layer(name: str) -> int:
    for depth, members in enumerate(LAYERS):
        if name in members:
            return depth
    raise AssertionError(f"unit {name!r} is in no layer: add it to LAYERS")


def test_the_graph_is_read() -> None:
    modules = graph()
    assert "pacekeeper.http.fitness" in modules["pacekeeper.app"]
    assert "pacekeeper.owner" in modules["pacekeeper.fitness._records"]
    units = unit_graph()
    assert {"http", "services", "fitness", "db"} <= units.keys()
    assert "services" in units["http"] and "db" in units["fitness"]


def test_every_unit_has_a_layer() -> None:
    assert sorted(u for u in unit_graph() if not any(u in layer for layer in LAYERS)) == []


def test_no_cycle_between_top_level_units() -> None:
    assert cycles(unit_graph()) == ALLOWED_CYCLES


def test_arrows_point_down_the_layers() -> None:
    # HTTP/MCP -> services -> storage: a service never imports a handler, a tool, a page
    # or the container that builds it; storage imports no service.
    upward = sorted(
        f"{source} -> {target}"
        for source, targets in unit_graph().items()
        for target in targets
        if _layer(target) < _layer(source)
    )
    assert upward == []


def test_no_service_reaches_the_edge() -> None:
    # The same, by any path (an arrow by proxy through a leaf would still be one).
    edge = EDGE | WIRING | ENTRY
    strays = {s: sorted(reachable(unit_graph(), s) & edge) for s in sorted(SERVICES | STORAGE)}
    assert {s: found for s, found in strays.items() if found} == {}


def test_unit_names_a_module_by_its_top_level_child() -> None:
    assert unit("pacekeeper.fitness.analytics._power") == "fitness"
    assert unit("pacekeeper.owner") == "owner"
    assert unit("pacekeeper") == "pacekeeper"
