"""The older HTTP+SSE transport (protocol 2024-11-05 style), at the server's one path.

``GET <path>`` with ``Accept: text/event-stream`` and no ``Mcp-Session-Id`` opens a
stream whose first event is ``event: endpoint`` with ``data: <path>?session_id=<id>``.
The client POSTs its JSON-RPC messages to that URL; each POST is answered
``202 Accepted`` and everything the server says (responses, progress, logs, server
requests, change notifications) goes out on the stream as ``event: message``. The
stream carries a comment-line heartbeat, its queue is bounded (a client that does not
read is dropped), and the session ends with the stream.

Malformed bodies are answered on the POST itself (400, 413, 415), as are requests the
authentication hook refuses (401 with ``WWW-Authenticate``); invalid messages inside a
well-formed body get their JSON-RPC error on the stream.
"""

from __future__ import annotations

import asyncio
import time
from typing import TYPE_CHECKING, Any
from urllib.parse import parse_qs

from .._auth import judge
from .._errors import AuthRequired, InvalidRequest, ProtocolError, SessionNotFound
from .._jsonrpc import Message, loads
from ..protocol.session import SessionLimit
from ._channel import Channel
from ._http import (
    SSE_HEADERS,
    Receive,
    Scope,
    Send,
    client_address,
    read_json_body,
    refusal_headers,
    reply,
    reply_error,
    reply_session_limit,
    sse_event,
)

if TYPE_CHECKING:
    from .streamable_http import StreamableHTTP

QUERY_KEY = "session_id"


def query_session_id(scope: Scope) -> str | None:
    """The ``session_id`` query parameter of a POST to the SSE transport, if any."""
    query: bytes = scope.get("query_string", b"")
    if b"session_id=" not in query:
        return None
    values = parse_qs(query.decode("latin-1")).get(QUERY_KEY)
    return values[0] if values else ""


class SseTransport:
    """Open HTTP+SSE streams of one server, by session id."""

    def __init__(self, http: StreamableHTTP) -> None:
        self.http = http
        self.server = http.server
        self.config = http.config
        self.channels: dict[str, Channel] = {}

    async def open(self, scope: Scope, receive: Receive, send: Send) -> None:
        """GET: open the stream, name the POST endpoint, then relay until the end.

        The stream belongs to the GET's caller: a bad credential is refused here (401),
        and later POSTs must come from the same principal (anyone else gets 404).
        """
        if self.http.open_streams >= self.config.max_streams:
            await reply_error(send, 503, InvalidRequest("Too many open streams"))
            return
        verdict = await judge(self.server.authenticate, scope)
        if verdict.rejection is not None:
            exc = verdict.rejection
            await reply_error(send, exc.status, AuthRequired(exc.message, exc.data),
                              headers=refusal_headers(exc))
            return
        try:
            channel = Channel(self.server, "sse", principal=verdict.principal,
                              address=client_address(scope))
        except SessionLimit as limited:
            await reply_session_limit(send, limited)
            return
        sid = channel.session.id
        assert sid is not None
        self.channels[sid] = channel
        self.http.open_streams += 1
        gone = asyncio.ensure_future(_until_disconnect(receive))
        follower = asyncio.ensure_future(channel.follow())
        relay = asyncio.ensure_future(self._relay(scope, send, channel, gone, follower))
        overflow = asyncio.ensure_future(channel.outbox.stopped.wait())
        try:
            # A client that does not read leaves the relay blocked in send: drop it.
            await asyncio.wait((relay, overflow), return_when=asyncio.FIRST_COMPLETED)
            if relay.done():
                relay.result()  # surface a bug in the relay instead of losing it
        finally:
            for task in (relay, overflow, gone, follower):
                task.cancel()
            self.http.open_streams -= 1
            self.channels.pop(sid, None)
            channel.close()

    async def _relay(self, scope: Scope, send: Send, channel: Channel,
                     gone: asyncio.Future[None], follower: asyncio.Future[None]) -> None:
        """Name the endpoint, then write queued messages and heartbeats until the end."""
        outbox = channel.outbox
        try:
            await send({"type": "http.response.start", "status": 200, "headers": SSE_HEADERS})
            endpoint = f"{scope['path']}?{QUERY_KEY}={channel.session.id}".encode()
            await _chunk(send, b"event: endpoint\ndata: " + endpoint + b"\n\n")
            while True:
                get = asyncio.ensure_future(outbox.queue.get())
                done, _ = await asyncio.wait(
                    (get, gone, follower), timeout=self.config.heartbeat_interval,
                    return_when=asyncio.FIRST_COMPLETED)
                if get.done():
                    await _chunk(send, sse_event(get.result()))
                else:
                    get.cancel()
                if gone.done():
                    return
                if follower.done():
                    # The session ended (server shutdown, expiry): flush, then end the stream.
                    while not outbox.queue.empty():
                        await _chunk(send, sse_event(outbox.queue.get_nowait()))
                    break
                if not done:
                    if channel.idle(self.config.idle_timeout):
                        break
                    await _chunk(send, b": ping\n\n")
                    channel.session.last_used = time.monotonic()  # an open stream keeps it
            await send({"type": "http.response.body", "body": b"", "more_body": False})
        except OSError:
            pass  # the client went away

    async def post(self, scope: Scope, receive: Receive, send: Send,
                   headers: dict[bytes, bytes], sid: str) -> None:
        """POST ``<path>?session_id=<id>``: hand the messages to the stream's session."""
        body = await read_json_body(receive, send, headers, self.config.max_body_bytes)
        if body is None:
            return
        channel = self.channels.get(sid)
        if channel is None:
            await reply_error(send, 404, SessionNotFound(
                "Unknown session_id: the SSE stream ended; open a new one"))
            return
        try:
            payload = loads(body)
        except ProtocolError as exc:
            await reply_error(send, 400, exc)
            return
        verdict = await self.http.authorize(scope, send, _requests_in(payload))
        if verdict is None:
            return
        if self.server.owner(verdict.principal) != channel.session.owner:
            await reply_error(send, 404, SessionNotFound(  # as unknown: ids cannot be probed
                "Unknown session_id: the SSE stream ended; open a new one"))
            return
        await reply(send, 202, b"Accepted", [(b"content-type", b"text/plain")])
        channel.feed(payload, verdict.principal)


def _requests_in(payload: Any) -> list[Message]:
    messages = payload if isinstance(payload, list) else [payload]
    return [m for m in messages if isinstance(m, dict) and "id" in m
            and isinstance(m.get("method"), str)]


async def _chunk(send: Send, data: bytes) -> None:
    await send({"type": "http.response.body", "body": data, "more_body": True})


async def _until_disconnect(receive: Receive) -> None:
    while (await receive())["type"] != "http.disconnect":
        pass


__all__ = ["SseTransport", "query_session_id"]
