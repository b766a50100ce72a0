"""Streamable HTTP in the handshake era: sessions, POST answers, the GET stream, DELETE.

A POST is answered with JSON or, when the call sends something before its result, an
SSE stream; GET opens (or resumes) the session's server stream and DELETE ends the
session. The entry point (``mcpcast._asgi``) has already routed the request, checked
Host, Origin, media types and the JSON-RPC rules, and authenticated the caller; this
module finds or creates the session and moves the bytes.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any

from .._errors import InvalidRequest, ProtocolError, SessionMissing, SessionNotFound
from .._jsonrpc import Kind, Message, dumps
from ..protocol.inbound import version_refusal
from ..protocol.session import Session, SessionLimit, StreamLog
from ..protocol.versions import DEFAULT_HEADERLESS_VERSION
from ._http import (
    JSON_HEADERS,
    SSE_HEADERS,
    Receive,
    Scope,
    Send,
    client_address,
    pump,
    reply,
    reply_error,
    reply_session_limit,
    trace_headers,
    until_disconnect,
)
from ._port import SessionHost, Streams
from ._responder import Responder

if TYPE_CHECKING:
    from .._auth import Caller
    from ..protocol.inbound import Inbound


class StreamableHTTP:
    """The handshake era's Streamable HTTP for one server."""

    def __init__(self, host: SessionHost, streams: Streams) -> None:
        self.config = host.config
        self.legacy = host.legacy
        self.sessions = host.sessions
        self.streams = streams

    # ------------------------------------------------------------------ POST

    async def post_one(self, send: Send, headers: dict[bytes, bytes], payload: Message,
                       caller: Caller, json_ok: bool, sse_ok: bool) -> None:
        """One request other than initialize (the common case, kept short: the hot path)."""
        mode = self.config.response_mode
        # A plain tool says nothing before its result: no exchange or responder, plain JSON.
        entry = self.legacy.plain_tool(payload) if json_ok and mode != "sse" else None
        if entry is not None and self.config.stateless:
            response = self.legacy.answer_plain(payload, entry, caller.principal)
            if not isinstance(response, dict):
                response = await response  # the tool waits for something
            await reply(send, 200, dumps(response), JSON_HEADERS)
            return
        found = self._session_for(headers, caller)
        if isinstance(found, ProtocolError):
            await reply_error(send, found.http_status, found, payload["id"])
            return
        if entry is not None:  # on the caller's session, which may cancel it meanwhile
            response = self.legacy.answer_plain(payload, entry, caller.principal)
            if not isinstance(response, dict):
                response = await self.legacy.cancellable(payload, found, response)
            await reply(send, 200, dumps(response), JSON_HEADERS)
            return
        responder = Responder(
            send, found, sse_allowed=sse_ok and mode != "json",
            streaming=mode == "sse" or not json_ok, extra_headers=[],
            retry_ms=self.config.sse_retry_ms,
            store=(self.config.event_store_size, self.config.event_store_streams))
        carrier = trace_headers(headers)
        if self.config.stateless:  # no session to cancel through: run inline, no task
            response = await self.legacy.handle_request(
                payload, found, principal=caller.principal, send=responder.emit,
                http_headers=carrier)
        else:
            response = await self.legacy.run_cancellable(
                payload, found, principal=caller.principal, send=responder.emit,
                http_headers=carrier, close_stream=responder.close_stream)
        await responder.finish([response], False)

    async def post_many(self, scope: Scope, send: Send, headers: dict[bytes, bytes],
                        inbound: Inbound, caller: Caller, json_ok: bool, sse_ok: bool,
                        reply_id: Any) -> None:
        """Batches, notifications, responses and initialize (``inbound`` passed the rules);
        ``reply_id`` answers a refusal of the whole body."""
        batch = inbound.batch
        requests = inbound.requests
        responses = inbound.answers
        is_init = inbound.initializes
        principal = caller.principal
        if is_init:
            if self.config.stateless:
                session = Session(None, DEFAULT_HEADERLESS_VERSION)
            else:
                try:
                    session = self.sessions.new(DEFAULT_HEADERLESS_VERSION, caller.owner(),
                                                client_address(scope))
                except SessionLimit as refused:
                    await reply_session_limit(send, refused)
                    return
        else:
            found = self._session_for(headers, caller)
            if isinstance(found, ProtocolError):
                await reply_error(send, found.http_status, found, reply_id)
                return
            session = found
        if batch:
            no_batch = version_refusal(session.version)
            if no_batch is not None:
                await reply_error(send, 400, no_batch)
                return

        for kind, message in inbound.others:
            if kind is Kind.NOTIFICATION:
                self.legacy.handle_notification(message, session)
            else:
                self.legacy.handle_response(message, session)
        if not requests:
            if responses:
                await reply(send, 200, dumps(responses), JSON_HEADERS)
            else:
                await reply(send, 202)
            return

        extra: list[tuple[bytes, bytes]] = []
        if is_init:
            response = self.legacy.initialize(requests[0], session)
            if "result" in response and session.id is not None:
                self.sessions.add(session)
                extra.append((b"mcp-session-id", session.id.encode()))
            await reply(send, 200, dumps(response), [*JSON_HEADERS, *extra])
            return

        streaming = self.config.response_mode == "sse" or not json_ok
        responder = Responder(
            send, session, sse_allowed=sse_ok and self.config.response_mode != "json",
            streaming=streaming, extra_headers=extra, retry_ms=self.config.sse_retry_ms,
            store=(self.config.event_store_size, self.config.event_store_streams))
        http_headers = trace_headers(headers)
        if self.config.stateless and not batch:
            # No session to cancel through: run inline, no task.
            responses.append(await self.legacy.handle_request(
                requests[0], session, principal=principal, send=responder.emit,
                http_headers=http_headers))
        else:
            calls = [self.legacy.run_cancellable(m, session, principal=principal,
                                                 send=responder.emit, http_headers=http_headers,
                                                 close_stream=responder.close_stream)
                     for m in requests]
            responses.extend([await calls[0]] if len(calls) == 1 else await asyncio.gather(*calls))
        await responder.finish(responses, batch)

    def _session_for(self, headers: dict[bytes, bytes], caller: Caller
                     ) -> Session | ProtocolError:
        """The session the request names, if it exists and belongs to ``caller``."""
        sid = headers.get(b"mcp-session-id")
        if self.config.stateless:
            version = headers.get(b"mcp-protocol-version")
            return Session(None, version.decode("latin-1").strip(" \t") if version
                           else DEFAULT_HEADERLESS_VERSION)
        if sid is None:
            return SessionMissing("Bad Request: Mcp-Session-Id header is required")
        session = self.sessions.get(sid.decode("latin-1"))
        if session is None:
            return SessionNotFound("Session not found (it ended or expired): initialize again")
        owner = caller.owner()
        # Someone else's session is "not found" too, so ids cannot be probed; an anonymous
        # one becomes the first principal's that uses it (it authenticated after initialize).
        if session.owner != owner and (
                caller.principal is None or not self.sessions.claim(session, owner)):
            return SessionNotFound("Session not found (it ended or expired): initialize again")
        return session

    # ------------------------------------------------------------------ GET / DELETE

    async def get(self, receive: Receive, send: Send, headers: dict[bytes, bytes],
                  caller: Caller) -> None:
        """GET with ``Mcp-Session-Id``: the session's server stream, or a resumed one."""
        found = self._session_for(headers, caller)
        if isinstance(found, ProtocolError):
            await reply_error(send, found.http_status, found)
            return
        session = found
        last_event = headers.get(b"last-event-id")
        stream: StreamLog | None = None
        after = 0
        if last_event is not None:
            stream_id, _, seq = last_event.decode("latin-1").rpartition(".")
            stream = session.find_stream(stream_id)
            after = int(seq) if seq.isdigit() else 0
        if stream is None:
            if session.get_open:
                await reply_error(send, 409, InvalidRequest(
                    "Conflict: this session already has a server stream open"))
                return
            if session.server_log is None:
                session.server_log = StreamLog("g", self.config.event_store_size)
            stream = session.server_log
            after = stream.seq
        if self.streams.full:
            await reply_error(send, 503, InvalidRequest("Too many open streams"))
            return
        await self._stream(receive, send, session, stream, after)

    async def _stream(self, receive: Receive, send: Send, session: Session, stream: StreamLog,
                      after: int) -> None:
        """Write ``stream``'s events after ``after`` until it ends or the client leaves."""
        is_server_stream = stream is session.server_log
        if is_server_stream:
            session.get_open = True
        self.streams.open += 1
        gone = asyncio.ensure_future(until_disconnect(receive))
        try:
            await send({"type": "http.response.start", "status": 200, "headers": SSE_HEADERS})
            await send({"type": "http.response.body", "more_body": True, "body":
                        b"retry: " + str(self.config.sse_retry_ms).encode() + b"\n\n"})
            await pump(send, stream, after, gone, self.config.heartbeat_interval)
            if not gone.done():
                await send({"type": "http.response.body", "body": b"", "more_body": False})
        except OSError:
            pass  # the client went away
        finally:
            self.streams.open -= 1
            gone.cancel()
            if is_server_stream:
                session.get_open = False

    async def delete(self, send: Send, headers: dict[bytes, bytes], caller: Caller) -> None:
        """DELETE with ``Mcp-Session-Id``: end the caller's session."""
        found = self._session_for(headers, caller)
        if isinstance(found, ProtocolError):
            await reply_error(send, 404, SessionNotFound("Session not found"))
            return
        assert found.id is not None
        self.sessions.remove(found.id)
        await reply(send, 200)

