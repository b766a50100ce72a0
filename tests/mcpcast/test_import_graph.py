"""The shape of mcpcast, read from its source: the import graph has no cycle, no
transport reaches another transport, the server or the entry point, and the protocol
core reaches no transport (docs/architecture.md, "Rules").

Every ``import`` counts, wherever it stands: in a function, or under ``TYPE_CHECKING``
(a type-only arrow is still an arrow a reader must follow).
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

import mcpcast
from tests._import_graph import cycles, reachable, read_graph

ROOT = Path(mcpcast.__file__).parent
SERVER = "mcpcast._server"
ENTRY = "mcpcast._asgi"


@cache
def graph() -> dict[str, frozenset[str]]:
    return read_graph(ROOT)


def _reachable(start: str) -> set[str]:
    return reachable(graph(), start)


def _cycles() -> list[list[str]]:
    return cycles(graph())


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
