"""Streamable HTTP (the recommended MCP transport) as a plain ASGI application.

POST carries client messages and is answered with JSON or, when the call sends
something before its result, an SSE stream; in the handshake era GET opens the session's
server stream and DELETE ends the session. Everything protocol-shaped happens in
``mcpcast.protocol``; this module only moves bytes and applies the HTTP rules
(versions, sessions, Host/Origin, sizes, authentication).
"""

from __future__ import annotations

import asyncio
import logging
from typing import TYPE_CHECKING, Any

from .._auth import Verdict, judge
from .._errors import InvalidRequest, ProtocolError, Unauthorized, UnsupportedVersion
from .._jsonrpc import Kind, Message, classify, dumps, error, id_of, loads
from ..protocol.current import META_VERSION
from ..protocol.session import Session, SessionLimit, StreamLog
from ..protocol.versions import (
    BATCH_VERSIONS,
    CURRENT_VERSIONS,
    DEFAULT_HEADERLESS_VERSION,
    LEGACY_VERSIONS,
)
from ._extras import serve_extras
from ._http import (
    JSON_HEADERS,
    SSE_HEADERS,
    Receive,
    Scope,
    Send,
    accepts,
    client_address,
    host_name,
    origin_base,
    pump,
    read_json_body,
    refusal_headers,
    reply,
    reply_error,
    reply_session_limit,
    trace_headers,
    until_disconnect,
)
from ._modern import ModernHTTP
from ._responder import Responder
from .sse import SseTransport, query_session_id
from .subscribe import subscription_app
from .websocket import WebSocketTransport

if TYPE_CHECKING:
    from .._server import Server

log = logging.getLogger("mcpcast.http")


class SessionMissing(ProtocolError):
    code = -32600
    http_status = 400


class SessionNotFound(ProtocolError):
    code = -32001
    http_status = 404


class AuthRequired(ProtocolError):
    code = -32001
    http_status = 401


class StreamableHTTP:
    """The ASGI app for one server at its path."""

    def __init__(self, server: Server) -> None:
        self.server = server
        self.config = server.config
        self.path = server.path
        self.legacy = server.legacy
        self.sessions = server.sessions
        self._hosts = {h.lower() for h in self.config.allowed_hosts}
        self._origins = {o.lower().rstrip("/") for o in self.config.allowed_origins}
        self.open_streams = 0
        self._verdicts: dict[tuple[bytes | None, bytes | None], tuple[int, str] | None] = {}
        self._accepts: dict[bytes | None, tuple[bool, bool]] = {}
        self.modern = ModernHTTP(self)
        self.websocket = WebSocketTransport(self)
        self.sse = SseTransport(self)
        self.topics = subscription_app(server.broadcasters, authorize=server.authorize_topic,
                                       heartbeat=self.config.heartbeat_interval,
                                       max_connections=self.config.max_streams,
                                       allow_origin=lambda o: True)  # _extras checked it

    # ------------------------------------------------------------------ ASGI entry

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        kind = scope["type"]
        if kind == "lifespan":
            await self._lifespan(receive, send)
            return
        # The exact path (the hot path) is never one of the extras below it.
        ours = scope["path"] == self.path
        if not ours and await serve_extras(self, scope, receive, send):
            return
        if kind != "http":
            if kind == "websocket":
                await self.websocket(scope, receive, send)
            return
        if not ours and not self._ours(scope):
            await reply(send, 404, b"Not Found", [(b"content-type", b"text/plain")])
            return
        headers = dict(scope["headers"])
        refusal = self.check_host_origin(headers)
        if refusal is not None:
            status, text = refusal
            await reply_error(send, status, InvalidRequest(text))
            return
        method = scope["method"]
        if method == "POST":
            await self._post(scope, receive, send, headers)
        elif method == "GET":
            await self._get(scope, receive, send, headers)
        elif method == "DELETE":
            await self._delete(scope, send, headers)
        else:
            allow = b"POST" if self.config.stateless else b"GET, POST, DELETE"
            await reply_error(send, 405, InvalidRequest("Method not allowed"),
                              headers=[(b"allow", allow)])

    def _ours(self, scope: Scope) -> bool:
        path: str = scope["path"]
        if path == self.path or path == self.path + "/":
            return True
        root = scope.get("root_path", "")
        # Mounted inside another app (Starlette Mount): the mount point is our path.
        return bool(root) and path in (root, root + "/")

    def _accepted(self, accept: bytes | None) -> tuple[bool, bool]:
        """(JSON acceptable, SSE acceptable); clients send the same few Accept values."""
        try:
            return self._accepts[accept]
        except KeyError:
            pass
        verdict = (accepts(accept, b"application/json"), accepts(accept, b"text/event-stream"))
        if len(self._accepts) >= 256:  # bounded: hostile clients can vary the header
            self._accepts.clear()
        self._accepts[accept] = verdict
        return verdict

    def check_host_origin(self, headers: dict[bytes, bytes]) -> tuple[int, str] | None:
        """DNS-rebinding protection: a browser page on another origin must not reach us."""
        key = (headers.get(b"host"), headers.get(b"origin"))
        try:
            return self._verdicts[key]
        except KeyError:
            pass
        verdict = self._judge_host_origin(headers)
        if len(self._verdicts) >= 1024:  # bounded: hostile clients can vary the headers
            self._verdicts.clear()
        self._verdicts[key] = verdict
        return verdict

    def _judge_host_origin(self, headers: dict[bytes, bytes]) -> tuple[int, str] | None:
        if "*" not in self._hosts:
            host = headers.get(b"host")
            if host is None or host_name(host.decode("latin-1")) not in self._hosts:
                return 421, "Invalid Host header"
        origin = headers.get(b"origin")
        if origin is not None and "*" not in self._origins:
            base = origin_base(origin.decode("latin-1"))
            if base is None or base not in self._origins:
                return 403, "Invalid Origin header"
        return None

    async def _lifespan(self, receive: Receive, send: Send) -> None:
        while True:
            message = await receive()
            if message["type"] == "lifespan.startup":
                await send({"type": "lifespan.startup.complete"})
            elif message["type"] == "lifespan.shutdown":
                await self.drain()
                await send({"type": "lifespan.shutdown.complete"})
                return

    async def drain(self) -> None:
        """End every long-lived connection with a reconnect hint (shutdown): WebSockets
        close with 1001 "server shutting down", topic subscribers get their "shutdown"
        frame, SSE streams end after the `retry:` they began with (a client resumes
        with Last-Event-ID, on this process or, without a session, on any)."""
        await self.websocket.shutdown()
        await self.topics.close(grace=1.0)
        self.server.end_streams()

    # ------------------------------------------------------------------ POST

    async def _post(self, scope: Scope, receive: Receive, send: Send,
                    headers: dict[bytes, bytes]) -> None:
        if scope.get("query_string"):
            sse_session = query_session_id(scope)
            if sse_session is not None:  # a message for an HTTP+SSE stream (older transport)
                await self.sse.post(scope, receive, send, headers, sse_session)
                return
        ctype = headers.get(b"content-type", b"")
        if not ctype.startswith(b"application/json"):
            await reply_error(send, 415, InvalidRequest(
                "Unsupported Media Type: Content-Type must be application/json"))
            return
        json_ok, sse_ok = self._accepted(headers.get(b"accept"))
        if not (json_ok or sse_ok) or (self.config.response_mode == "sse" and not sse_ok):
            await reply_error(send, 406, InvalidRequest(
                "Not Acceptable: Accept must include application/json and text/event-stream"))
            return
        body = await read_json_body(receive, send, headers, self.config.max_body_bytes,
                                    checked_type=True)
        if body is None:
            return
        try:
            payload = loads(body)
        except ProtocolError as exc:
            await reply_error(send, 400, exc)
            return
        version_header = headers.get(b"mcp-protocol-version")
        known = _KNOWN_VERSIONS.get(version_header)  # no decoding for the versions we speak
        if known is None and version_header is not None:
            # Field values exclude the whitespace around them (RFC 9110, section 5.5).
            version_header = version_header.strip(b" \t")
            known = _KNOWN_VERSIONS.get(version_header)
        if known is not None:
            version, modern = known
        elif version_header is None:
            version, modern = None, _has_modern_envelope(payload)
        elif _has_modern_envelope(payload):
            # An unknown header version on an enveloped request goes to the current era,
            # which checks header against body first (-32020) and then the version (-32022).
            version, modern = version_header.decode("latin-1"), True
        else:
            version = version_header.decode("latin-1")
            await reply_error(send, 400, UnsupportedVersion(
                "Unsupported protocol version",
                {"supported": [*CURRENT_VERSIONS, *LEGACY_VERSIONS], "requested": version}),
                id_of(payload))
            return
        if modern:
            await self.modern.post(scope, receive, send, payload, headers, version, json_ok,
                                   sse_ok)
        else:
            await self._post_legacy(scope, send, headers, payload, json_ok, sse_ok)

    async def _post_legacy(self, scope: Scope, send: Send, headers: dict[bytes, bytes],
                           payload: Any, json_ok: bool, sse_ok: bool) -> None:
        """One request (the common case, kept short: it is the hot path), else the rest."""
        if not isinstance(payload, dict):
            await self._post_many(scope, send, headers, payload, json_ok, sse_ok)
            return
        try:
            kind = classify(payload)
        except ProtocolError as exc:
            await reply_error(send, 400, exc, id_of(payload))
            return
        if kind is not Kind.REQUEST or payload["method"] == "initialize":
            await self._post_many(scope, send, headers, payload, json_ok, sse_ok)
            return
        principal = None
        if self.server.authenticate is not None:
            verdict = await self.authorize(scope, send, [payload])
            if verdict is None:
                return
            principal = verdict.principal
        mode = self.config.response_mode
        if self.config.stateless and json_ok and mode != "sse":
            entry = self.legacy.plain_tool(payload)
            if entry is not None:  # says nothing before its result: no session, plain JSON
                response = self.legacy.answer_plain(payload, entry)
                if not isinstance(response, dict):
                    response = await response  # the tool waits for something
                await reply(send, 200, dumps(response), JSON_HEADERS)
                return
        found = self._session_for(headers, principal)
        if isinstance(found, ProtocolError):
            await reply_error(send, found.http_status, found, payload["id"])
            return
        responder = Responder(
            send, found, sse_allowed=sse_ok and mode != "json",
            streaming=mode == "sse" or not json_ok, extra_headers=[],
            retry_ms=self.config.sse_retry_ms,
            store=(self.config.event_store_size, self.config.event_store_streams))
        carrier = trace_headers(headers)
        if self.config.stateless:  # no session to cancel through: run inline, no task
            response = await self.legacy.handle_request(
                payload, found, principal=principal, send=responder.emit, http_headers=carrier)
        else:
            response = await self.legacy.run_cancellable(
                payload, found, principal=principal, send=responder.emit, http_headers=carrier,
                close_stream=responder.close_stream)
        await responder.finish([response], False)

    async def _post_many(self, scope: Scope, send: Send, headers: dict[bytes, bytes],
                         payload: Any, json_ok: bool, sse_ok: bool) -> None:
        """Batches, notifications, responses and initialize."""
        batch = isinstance(payload, list)
        messages: list[Any] = payload if batch else [payload]
        if batch and not messages:
            await reply_error(send, 400, InvalidRequest("Invalid Request: empty batch"))
            return
        if batch and len(messages) > self.config.max_batch:
            await reply_error(send, 400, InvalidRequest(
                f"Invalid Request: batch of {len(messages)} messages (limit "
                f"{self.config.max_batch})"))
            return
        # Classify first: invalid messages are answered, the rest are handled.
        responses: list[Message] = []
        requests: list[Message] = []
        others: list[tuple[Kind, Message]] = []
        for message in messages:
            try:
                kind = classify(message)
            except ProtocolError as exc:
                responses.append(error(id_of(message), exc))
                continue
            if kind is Kind.REQUEST:
                requests.append(message)
            else:
                others.append((kind, message))
        if not batch and responses:
            await reply_error(send, 400, InvalidRequest(responses[0]["error"]["message"]),
                              id_of(payload))
            return
        is_init = any(m["method"] == "initialize" for m in requests)
        if is_init and batch:
            await reply_error(send, 400, InvalidRequest(
                "Invalid Request: initialize must not be part of a batch"))
            return

        verdict = await self.authorize(scope, send, requests)
        if verdict is None:
            return

        extra: list[tuple[bytes, bytes]] = []
        if is_init:
            if self.config.stateless:
                session = Session(None, DEFAULT_HEADERLESS_VERSION)
            else:
                try:
                    session = self.sessions.new(DEFAULT_HEADERLESS_VERSION,
                                                self.server.owner(verdict.principal),
                                                client_address(scope))
                except SessionLimit as refused:
                    await reply_session_limit(send, refused)
                    return
        else:
            found = self._session_for(headers, verdict.principal)
            if isinstance(found, ProtocolError):
                await reply_error(send, found.http_status, found, id_of(payload))
                return
            session = found
        if batch and session.version not in BATCH_VERSIONS:
            await reply_error(send, 400, InvalidRequest(
                f"Invalid Request: protocol version {session.version} does not allow batches"))
            return

        for kind, message in others:
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
                requests[0], session, principal=verdict.principal, send=responder.emit,
                http_headers=http_headers))
        else:
            calls = [self.legacy.run_cancellable(m, session, principal=verdict.principal,
                                                 send=responder.emit, http_headers=http_headers,
                                                 close_stream=responder.close_stream)
                     for m in requests]
            responses.extend([await calls[0]] if len(calls) == 1 else await asyncio.gather(*calls))
        await responder.finish(responses, batch)

    async def authorize(self, scope: Scope, send: Send, requests: list[Message]) -> Verdict | None:
        """Run the authentication hook; None when the request was refused (already answered)."""
        if self.server.authenticate is None:
            return Verdict()
        public = self.config.public_methods
        guarded = [m for m in requests if m["method"] not in public]
        # The hook hears how many requests need a principal: a batch is that many calls.
        verdict = await judge(self.server.authenticate, scope, len(guarded))
        if guarded:
            refusal = verdict.refusal() if verdict.principal is None else \
                self.server.refuse_scopes(verdict.principal, guarded)
            if refusal is not None:
                await self._refuse(send, refusal, guarded[0]["id"])
                return None
        return verdict

    def _session_for(self, headers: dict[bytes, bytes],
                     principal: Any = None) -> Session | ProtocolError:
        """The session the request names, if it exists and belongs to ``principal``."""
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
        owner = self.server.owner(principal)
        # Someone else's session is "not found" too, so ids cannot be probed; an anonymous
        # one becomes the first principal's that uses it (it authenticated after initialize).
        if session.owner != owner and (
                principal is None or not self.sessions.claim(session, owner)):
            return SessionNotFound("Session not found (it ended or expired): initialize again")
        return session

    async def _refuse(self, send: Send, exc: Unauthorized, request_id: Any) -> None:
        await reply_error(send, exc.status, AuthRequired(exc.message, exc.data), request_id,
                          refusal_headers(exc))

    async def _caller(self, scope: Scope, send: Send) -> tuple[bool, Any]:
        """GET and DELETE: the caller's principal (None: anonymous), or (False, None) when
        a bad credential was refused (answered with 401 and ``WWW-Authenticate``)."""
        if self.server.authenticate is None:
            return True, None
        verdict = await judge(self.server.authenticate, scope)
        if verdict.rejection is not None:
            await self._refuse(send, verdict.rejection, None)
            return False, None
        return True, verdict.principal

    # ------------------------------------------------------------------ GET / DELETE

    async def _get(self, scope: Scope, receive: Receive, send: Send,
                   headers: dict[bytes, bytes]) -> None:
        if self.config.stateless or _current_era(headers):
            await reply_error(send, 405, InvalidRequest(
                "Method not allowed: stateless requests use POST only"),
                headers=[(b"allow", b"POST")])
            return
        if not accepts(headers.get(b"accept"), b"text/event-stream"):
            await reply_error(send, 406, InvalidRequest(
                "Not Acceptable: Accept must include text/event-stream"))
            return
        if b"mcp-session-id" not in headers:
            # The older HTTP+SSE transport opens a stream, but only for a client that asks
            # for one by name: a plain GET (Accept: */*) must not hang on an endless stream.
            if b"text/event-stream" not in headers.get(b"accept", b""):
                await reply_error(send, 400, InvalidRequest(
                    "Bad Request: Mcp-Session-Id header is required"))
                return
            await self.sse.open(scope, receive, send)
            return
        known, principal = await self._caller(scope, send)
        if not known:
            return
        found = self._session_for(headers, principal)
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
        if self.open_streams >= self.config.max_streams:
            await reply_error(send, 503, InvalidRequest("Too many open streams"))
            return
        await self._stream(receive, send, session, stream, after)

    async def _stream(self, receive: Receive, send: Send, session: Session, stream: StreamLog,
                      after: int) -> None:
        """Write ``stream``'s events after ``after`` until it ends or the client leaves."""
        is_server_stream = stream is session.server_log
        if is_server_stream:
            session.get_open = True
        self.open_streams += 1
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
            self.open_streams -= 1
            gone.cancel()
            if is_server_stream:
                session.get_open = False

    async def _delete(self, scope: Scope, send: Send, headers: dict[bytes, bytes]) -> None:
        if self.config.stateless or _current_era(headers):
            await reply_error(send, 405, InvalidRequest(
                "Method not allowed: stateless requests use POST only"),
                headers=[(b"allow", b"POST")])
            return
        sid = headers.get(b"mcp-session-id")
        if sid is None:
            await reply_error(send, 400, SessionMissing(
                "Bad Request: Mcp-Session-Id header is required"))
            return
        known, principal = await self._caller(scope, send)
        if not known:
            return
        found = self._session_for(headers, principal)
        if isinstance(found, ProtocolError):
            await reply_error(send, 404, SessionNotFound("Session not found"))
            return
        assert found.id is not None
        self.sessions.remove(found.id)
        await reply(send, 200)


# The MCP-Protocol-Version header of each version spoken, as sent: (version, current era).
_KNOWN_VERSIONS: dict[bytes | None, tuple[str, bool]] = {
    **{v.encode("latin-1"): (v, False) for v in LEGACY_VERSIONS},
    **{v.encode("latin-1"): (v, True) for v in CURRENT_VERSIONS},
}


def _current_era(headers: dict[bytes, bytes]) -> bool:
    """GET/DELETE from a 2026-07-28 client: that era has no GET stream and no sessions."""
    version = headers.get(b"mcp-protocol-version")
    return version is not None and version.decode("latin-1").strip(" \t") in CURRENT_VERSIONS


def _has_modern_envelope(payload: Any) -> bool:
    if not isinstance(payload, dict):
        return False
    params = payload.get("params")
    meta = params.get("_meta") if isinstance(params, dict) else None
    return isinstance(meta, dict) and META_VERSION in meta
