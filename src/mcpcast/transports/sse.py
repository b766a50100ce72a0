"""The older HTTP+SSE transport (protocol 2024-11-05 style), at the server's one path.

``GET <path>`` with ``Accept: text/event-stream`` and no ``Mcp-Session-Id`` opens a
stream whose first event is ``event: endpoint`` with ``data: <path>?session_id=<id>``.
The client POSTs its JSON-RPC messages to that URL; each POST is answered
``202 Accepted`` and everything the server says (responses, progress, logs, server
requests, change notifications) goes out on the stream as ``event: message``. The
stream carries a comment-line heartbeat, its queue is bounded (a client that does not
read is dropped), and the session ends with the stream.

Malformed bodies are answered on the POST itself (400, 413, 415, by the entry point), as
are requests the authentication hook refuses (401 with ``WWW-Authenticate``); invalid
messages inside a well-formed body get their JSON-RPC error on the stream.
"""

from __future__ import annotations

import asyncio
import time
from typing import TYPE_CHECKING, Any
from urllib.parse import parse_qs

from .._errors import SessionNotFound
from ..protocol.session import SessionLimit
from ._channel import Channel
from ._http import (
    SSE_HEADERS,
    Receive,
    Scope,
    Send,
    chunk,
    client_address,
    reply,
    reply_error,
    reply_session_limit,
    sse_event,
    until_disconnect,
)
from ._port import SessionHost, Streams

if TYPE_CHECKING:
    from .._auth import Caller
    from ..protocol.inbound import Inbound

QUERY_KEY = "session_id"
UNKNOWN = "Unknown session_id: the SSE stream ended; open a new one"


def query_session_id(scope: Scope) -> str | None:
    """The ``session_id`` query parameter of a POST to the SSE transport, if any."""
    query: bytes = scope.get("query_string", b"")
    if b"session_id=" not in query:
        return None
    values = parse_qs(query.decode("latin-1")).get(QUERY_KEY)
    return values[0] if values else ""


class SseTransport:
    """Open HTTP+SSE streams of one server, by session id."""

    def __init__(self, host: SessionHost, streams: Streams) -> None:
        self.host = host
        self.config = host.config
        self.streams = streams
        self.channels: dict[str, Channel] = {}

    async def open(self, scope: Scope, receive: Receive, send: Send, caller: Caller) -> None:
        """GET: open the stream, name the POST endpoint, then relay until the end.

        The stream belongs to ``caller`` (the entry point refused a bad credential), and
        later POSTs must come from the same owner (anyone else gets 404).
        """
        try:
            channel = Channel(self.host, "sse", caller, address=client_address(scope))
        except SessionLimit as limited:
            await reply_session_limit(send, limited)
            return
        sid = channel.session.id
        assert sid is not None
        self.channels[sid] = channel
        self.streams.open += 1
        gone = asyncio.ensure_future(until_disconnect(receive))
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
            self.streams.open -= 1
            self.channels.pop(sid, None)
            channel.close()

    async def _relay(self, scope: Scope, send: Send, channel: Channel,
                     gone: asyncio.Future[None], follower: asyncio.Future[None]) -> None:
        """Name the endpoint, then write queued messages and heartbeats until the end."""
        outbox = channel.outbox
        try:
            await send({"type": "http.response.start", "status": 200, "headers": SSE_HEADERS})
            endpoint = f"{scope['path']}?{QUERY_KEY}={channel.session.id}".encode()
            await chunk(send, b"event: endpoint\ndata: " + endpoint + b"\n\n")
            while True:
                get = asyncio.ensure_future(outbox.queue.get())
                done, _ = await asyncio.wait(
                    (get, gone, follower), timeout=self.config.heartbeat_interval,
                    return_when=asyncio.FIRST_COMPLETED)
                if get.done():
                    await chunk(send, sse_event(get.result()))
                else:
                    get.cancel()
                if gone.done():
                    return
                if follower.done():
                    # The session ended (server shutdown, expiry): flush, then end the stream.
                    while not outbox.queue.empty():
                        await chunk(send, sse_event(outbox.queue.get_nowait()))
                    break
                if not done:
                    if channel.idle(self.config.idle_timeout):
                        break
                    await chunk(send, b": ping\n\n")
                    channel.session.last_used = time.monotonic()  # an open stream keeps it
            await send({"type": "http.response.body", "body": b"", "more_body": False})
        except OSError:
            pass  # the client went away

    def channel(self, sid: str) -> Channel | None:
        """The open stream's channel named by a POST's ``session_id``."""
        return self.channels.get(sid)

    async def post(self, send: Send, channel: Channel, payload: Any, inbound: Inbound,
                   caller: Caller) -> None:
        """POST ``<path>?session_id=<id>`` (authenticated): hand the messages to the
        stream's session, if ``caller`` owns it."""
        if caller.owner() != channel.session.owner:
            await reply_error(send, 404, SessionNotFound(UNKNOWN))  # ids cannot be probed
            return
        await reply(send, 202, b"Accepted", [(b"content-type", b"text/plain")])
        channel.feed(payload, caller, inbound)


__all__ = ["UNKNOWN", "SseTransport", "query_session_id"]
