"""What the entry point hands a transport: the parts of the server it may use.

A transport types against these Protocols, never against ``Server`` or the entry point
(``mcpcast.Server`` satisfies both), so it cannot reach the hooks, the other transports
or anything else it has no business with. The caller of each request comes separately,
as the ``Caller`` the entry point's one authentication pass made.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from .._config import ServerConfig
    from ..protocol.current import CurrentProtocol
    from ..protocol.exchange import PendingRequests
    from ..protocol.legacy import LegacyProtocol
    from ..protocol.listeners import Listener
    from ..protocol.session import SessionStore


class SessionHost(Protocol):
    """For the handshake-era transports (Streamable HTTP sessions, WebSocket, HTTP+SSE)."""

    config: ServerConfig
    legacy: LegacyProtocol
    sessions: SessionStore
    pending: PendingRequests


class CurrentHost(Protocol):
    """For 2026-07-28 Streamable HTTP: one request per POST, listen streams."""

    config: ServerConfig
    current: CurrentProtocol
    listeners: set[Listener]


class Streams:
    """The long-lived streams open across every transport, against one limit."""

    __slots__ = ("limit", "open")

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.open = 0

    @property
    def full(self) -> bool:
        return self.open >= self.limit
