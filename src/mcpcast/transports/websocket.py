"""MCP over WebSocket: an upgrade at the server's path, subprotocol ``mcp``.

One connection is one handshake-era session: the client sends ``initialize`` over the
socket, then any messages; each text frame holds one JSON-RPC message (or a batch where
the negotiated version allows one; binary frames are read as UTF-8 JSON too). Requests
run concurrently and can be cancelled; progress, logs, elicitation/sampling requests and
the session's change notifications are sent as frames.

The upgrade is refused (an HTTP response when the ASGI server supports the
``websocket.http.response`` extension, else close code 1008; ``refuse``) for a bad Host
or Origin, a subprotocol list without ``mcp``, too many open connections (``precheck``),
or an authentication hook that raises ``Unauthorized``: the entry point asks these, and
calls the hook once for the whole connection. A client that offers no subprotocol at all is
accepted: plain clients (``new WebSocket(url)``) send none, and it names no other
protocol. An anonymous client (the hook returned ``None``) may connect; methods outside
``public_methods`` then get a JSON-RPC error, as over HTTP.

Close codes: 1000 idle timeout, 1001 server shutting down or session ended, 1008 dead
peer (no answer to the heartbeat ``ping``) or slow consumer, 1009 message too big.
ASGI exposes no WebSocket ping frames, so the heartbeat is MCP's own ``ping`` request.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from typing import TYPE_CHECKING, Any

from .._errors import InvalidRequest, ProtocolError
from .._jsonrpc import dumps, error, loads
from ..protocol.session import SessionLimit
from ._channel import Channel
from ._http import JSON_HEADERS, Receive, Scope, Send, client_address
from ._port import SessionHost, Streams

if TYPE_CHECKING:
    from .._auth import Caller

log = logging.getLogger("mcpcast.websocket")

SUBPROTOCOL = "mcp"
CLOSE_NORMAL = 1000
CLOSE_GOING_AWAY = 1001
CLOSE_POLICY = 1008
CLOSE_TOO_BIG = 1009
_FLUSH_SECONDS = 1.0  # how long a closing connection may spend sending what is queued


class WebSocketTransport:
    """Serves accepted WebSocket upgrades for one server; ``shutdown`` closes them all.

    The entry point checks the path, Host and Origin, asks ``precheck``, authenticates
    the upgrade once and hands the ``Caller`` to ``serve``.
    """

    def __init__(self, host: SessionHost, streams: Streams) -> None:
        self.host = host
        self.config = host.config
        self.streams = streams
        self.connections: set[Connection] = set()

    def precheck(self, scope: Scope) -> tuple[int, str] | None:
        """Why this upgrade is refused before anyone authenticates, if it is."""
        offered: list[str] = scope.get("subprotocols") or []
        if offered and SUBPROTOCOL not in offered:
            return 400, f"Unsupported WebSocket subprotocol: offer {SUBPROTOCOL!r}"
        if self.streams.full:
            return 503, "Too many open connections"
        return None

    async def serve(self, scope: Scope, receive: Receive, send: Send, caller: Caller) -> None:
        """Accept the upgrade (``websocket.connect`` was received) and run the connection."""
        try:
            channel = Channel(self.host, "websocket", caller, address=client_address(scope))
        except SessionLimit as limited:
            await refuse(scope, send, limited.status, InvalidRequest(limited.message))
            return
        connection = Connection(self, channel, send)
        self.connections.add(connection)
        self.streams.open += 1
        try:
            await connection.run(receive, SUBPROTOCOL if scope.get("subprotocols") else None)
        finally:
            self.streams.open -= 1
            self.connections.discard(connection)

    async def shutdown(self) -> None:
        """Close every connection with 1001 and wait (briefly) until they are gone."""
        connections = list(self.connections)
        for connection in connections:
            connection.close(CLOSE_GOING_AWAY, "server shutting down")
        waiters = [asyncio.ensure_future(c.finished.wait()) for c in connections]
        if waiters:
            await asyncio.wait(waiters, timeout=_FLUSH_SECONDS * 2)
        for waiter in waiters:
            waiter.cancel()


class Connection:
    """One accepted socket: a reader, a writer, the notification pump and the heartbeat."""

    def __init__(self, transport: WebSocketTransport, channel: Channel, send: Send) -> None:
        self.config = transport.config
        self.channel = channel
        self.outbox = channel.outbox
        self.send = send
        self.code = CLOSE_NORMAL
        self.reason = ""
        self.peer_gone = False
        self.finished = asyncio.Event()

    def close(self, code: int, reason: str) -> None:
        """Ask for the connection to end with ``code`` (the first reason given wins)."""
        if not self.outbox.stopped.is_set():
            self.code, self.reason = code, reason
            self.outbox.stopped.set()

    async def run(self, receive: Receive, subprotocol: str | None) -> None:
        await self.send({"type": "websocket.accept", "subprotocol": subprotocol})
        workers = [asyncio.ensure_future(w) for w in (
            self._read(receive), self._write(), self._follow(), self._heartbeat())]
        try:
            await self.outbox.stopped.wait()
        finally:
            # Synchronous clean-up first: the server may cancel this task at any await.
            for worker in workers:
                worker.cancel()
            self.channel.close()
            try:
                await asyncio.wait(workers)
                await self._finish()
            finally:
                self.finished.set()

    async def _finish(self) -> None:
        if self.peer_gone:
            return
        if self.outbox.overflowed:
            self.code, self.reason = CLOSE_POLICY, "slow consumer: messages not read in time"
        with contextlib.suppress(OSError, RuntimeError, TimeoutError):
            async with asyncio.timeout(_FLUSH_SECONDS):
                while not self.outbox.overflowed and not self.outbox.queue.empty():
                    await self._send_text(self.outbox.queue.get_nowait())
                await self.send({"type": "websocket.close", "code": self.code,
                                 "reason": self.reason})

    async def _send_text(self, data: bytes) -> None:
        await self.send({"type": "websocket.send", "text": data.decode()})

    async def _read(self, receive: Receive) -> None:
        limit = self.config.max_body_bytes
        while True:
            message = await receive()
            if message["type"] == "websocket.disconnect":
                self.peer_gone = True
                self.close(message.get("code", 1005), "peer closed the connection")
                return
            if message["type"] != "websocket.receive":
                continue
            text: str | None = message.get("text")
            data: bytes = text.encode() if text is not None else message.get("bytes") or b""
            if len(data) > limit:
                self.close(CLOSE_TOO_BIG, f"message larger than {limit} bytes")
                return
            try:
                payload = loads(data)
            except ProtocolError as exc:
                self.channel.put(error(None, exc))
                continue
            self.channel.feed(payload, self.channel.caller)

    async def _write(self) -> None:
        try:
            while True:
                await self._send_text(await self.outbox.queue.get())
        except (OSError, RuntimeError):  # the peer went away (the server says how)
            self.peer_gone = True
            self.close(1006, "peer went away")

    async def _follow(self) -> None:
        await self.channel.follow()
        self.close(CLOSE_GOING_AWAY, "session ended")

    async def _heartbeat(self) -> None:
        interval = self.config.heartbeat_interval
        while True:
            await asyncio.sleep(interval)
            if self.channel.idle(self.config.idle_timeout):
                self.close(CLOSE_NORMAL, "idle timeout")
                return
            if not await self.channel.ping(self.config.heartbeat_timeout):
                log.info("websocket: peer did not answer ping; closing")
                self.close(CLOSE_POLICY, "heartbeat timeout: no answer to ping")
                return


async def refuse(scope: Scope, send: Send, status: int, exc: ProtocolError,
                 headers: list[tuple[bytes, bytes]] | None = None) -> None:
    """Refuse an upgrade: an HTTP response where the server allows one, else close 1008."""
    extensions: dict[str, Any] = scope.get("extensions") or {}
    if "websocket.http.response" in extensions:
        await send({"type": "websocket.http.response.start", "status": status,
                    "headers": [*JSON_HEADERS, *(headers or [])]})
        await send({"type": "websocket.http.response.body", "body": dumps(error(None, exc))})
    else:
        await send({"type": "websocket.close", "code": CLOSE_POLICY, "reason": exc.message})


__all__ = ["SUBPROTOCOL", "WebSocketTransport", "refuse"]
