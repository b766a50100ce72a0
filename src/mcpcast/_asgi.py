"""The one ASGI entry point of a server: everything a request meets before a transport.

``Entry`` runs the lifespan, serves the extras below the path (browser topics, the
browser client), checks Host and Origin once for every request and upgrade, routes by
scope type, method and era, applies the HTTP and JSON-RPC rules a body must pass, and
authenticates once (``Gate``: the ``authenticate`` hook is called once per request or
connection). Each transport then gets what it needs: the parts of the server it may use
(a Protocol from ``transports._port``), the shared stream count and the ``Caller``. No
transport knows this module, the server or another transport.
"""

from __future__ import annotations

import functools
from importlib import resources
from typing import TYPE_CHECKING, Any, Protocol

from ._auth import Caller, Gate
from ._errors import (
    AuthRequired,
    InvalidRequest,
    ProtocolError,
    SessionMissing,
    SessionNotFound,
    Unauthorized,
    UnsupportedVersion,
)
from ._jsonrpc import Kind, Message, classify, id_of, loads
from ._origin import OriginCheck
from .protocol.current import META_VERSION
from .protocol.inbound import NO_BATCHES_NOW, Inbound, batch_refusal
from .protocol.versions import CURRENT_VERSIONS, LEGACY_VERSIONS
from .transports._http import (
    Receive,
    Scope,
    Send,
    accepts,
    read_json_body,
    refusal_headers,
    reply,
    reply_error,
    serve_lifespan,
)
from .transports._port import CurrentHost, SessionHost, Streams
from .transports.current_http import CurrentHTTP
from .transports.sse import UNKNOWN, SseTransport, query_session_id
from .transports.streamable_http import StreamableHTTP
from .transports.subscribe import subscription_app
from .transports.websocket import WebSocketTransport, refuse

if TYPE_CHECKING:
    from .broadcast import BroadcasterFactory
    from .transports.subscribe import Authorize


class Served(SessionHost, CurrentHost, Protocol):
    """What the entry point needs of the server it serves (``mcpcast.Server`` is one)."""

    path: str
    gate: Gate
    broadcasters: BroadcasterFactory
    authorize_topic: Authorize | None

    def end_streams(self) -> None: ...


class Entry:
    """The ASGI app for one server at its path."""

    def __init__(self, server: Served) -> None:
        self.server = server
        self.config = config = server.config
        self.path = server.path
        self.gate = server.gate
        self.origins = OriginCheck(config.allowed_hosts, config.allowed_origins)
        self.streams = Streams(config.max_streams)
        self.http = StreamableHTTP(server, self.streams)
        self.current = CurrentHTTP(server, self.streams)
        self.websocket = WebSocketTransport(server, self.streams)
        self.sse = SseTransport(server, self.streams)
        self.topics = subscription_app(server.broadcasters, authorize=server.authorize_topic,
                                       heartbeat=config.heartbeat_interval,
                                       max_connections=config.max_streams,
                                       recheck=config.topic_recheck,
                                       max_per_topic=config.max_streams_per_topic,
                                       allow_origin=lambda o: True)  # checked here first
        self._accepts: dict[bytes | None, tuple[bool, bool]] = {}

    # ------------------------------------------------------------------ routing

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        kind = scope["type"]
        if kind == "lifespan":
            await serve_lifespan(receive, send, self.drain)
            return
        # The exact path (the hot path) is never one of the extras below it.
        ours = scope["path"] == self.path
        if not ours and await self._extras(scope, receive, send):
            return
        if kind != "http":
            if kind == "websocket":
                await self._websocket(scope, receive, send)
            return
        if not ours and not self._ours(scope):
            await reply(send, 404, b"Not Found", [(b"content-type", b"text/plain")])
            return
        headers = dict(scope["headers"])
        refusal = self.origins.refusal(headers)
        if refusal is not None:
            await reply_error(send, refusal[0], InvalidRequest(refusal[1]))
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

    async def _extras(self, scope: Scope, receive: Receive, send: Send) -> bool:
        """Browser topics at ``<path>/topics/<topic>``, the client at ``<path>/mcpcast.js``."""
        path: str = scope["path"]
        prefix: str = scope.get("root_path") or self.path
        if not path.startswith(prefix + "/"):
            return False
        rest = path[len(prefix):]
        if rest.startswith("/topics/"):
            refusal = self.origins.refusal(dict(scope["headers"]))
            if refusal is None:
                await self.topics(scope | {"root_path": prefix + "/topics"},
                                  receive, send)  # type: ignore[arg-type]
            elif scope["type"] == "websocket":
                await send({"type": "websocket.close", "code": 1008})
            else:
                await reply_error(send, refusal[0], InvalidRequest(refusal[1]))
            return True
        if rest == "/mcpcast.js" and scope["type"] == "http":
            await reply(send, 200, _browser_client(), [
                (b"content-type", b"text/javascript; charset=utf-8"),
                (b"cache-control", b"public, max-age=300"),
                (b"x-content-type-options", b"nosniff")])
            return True
        return False

    # ------------------------------------------------------------------ authentication


    @property
    def open_streams(self) -> int:
        """Long-lived streams open now, across every transport (a gauge for metrics)."""
        return self.streams.open

    async def drain(self) -> None:
        """End every long-lived connection with a reconnect hint (shutdown): WebSockets
        close with 1001 "server shutting down", topic subscribers get their "shutdown"
        frame, SSE streams end after the `retry:` they began with (a client resumes
        with Last-Event-ID, on this process or, without a session, on any)."""
        await self.websocket.shutdown()
        await self.topics.close(grace=1.0)
        self.server.end_streams()
    async def _admit(self, scope: Scope, send: Send, requests: list[Message]) -> Caller | None:
        """The caller of a POST's ``requests``; None when refused (already answered)."""
        caller = await self.gate.admit(scope, requests)
        if isinstance(caller, Caller):
            return caller
        public = self.gate.public
        await _refuse(send, caller, next(m["id"] for m in requests if m["method"] not in public))
        return None

    async def _connect(self, scope: Scope, send: Send) -> Caller | None:
        """The caller opening a stream or ending a session; None when refused."""
        caller = await self.gate.connect(scope)
        if isinstance(caller, Caller):
            return caller
        await _refuse(send, caller, None)
        return None

    # ------------------------------------------------------------------ WebSocket

    async def _websocket(self, scope: Scope, receive: Receive, send: Send) -> None:
        if (await receive())["type"] != "websocket.connect":
            return
        if not self._ours(scope):
            await refuse(scope, send, 404, InvalidRequest("Not Found"))
            return
        problem = self.origins.refusal(dict(scope["headers"])) or self.websocket.precheck(scope)
        if problem is not None:
            await refuse(scope, send, problem[0], InvalidRequest(problem[1]))
            return
        caller = await self.gate.connect(scope)
        if not isinstance(caller, Caller):
            await refuse(scope, send, caller.status, AuthRequired(caller.message),
                         [(b"www-authenticate", caller.www_authenticate.encode("latin-1"))])
            return
        await self.websocket.serve(scope, receive, send, caller)

    # ------------------------------------------------------------------ POST

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

    async def _post(self, scope: Scope, receive: Receive, send: Send,
                    headers: dict[bytes, bytes]) -> None:
        if scope.get("query_string"):
            sse_session = query_session_id(scope)
            if sse_session is not None:  # a message for an HTTP+SSE stream (older transport)
                await self._post_sse(scope, receive, send, headers, sse_session)
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
        # The two hot paths (one request in either era) call their transport from here:
        # every coroutine level costs each request its allocation.
        if modern:
            try:
                meta = self._envelope(scope, headers, payload, version)
            except ProtocolError as exc:
                await reply_error(send, exc.http_status, exc, id_of(payload))
                return
            if meta is None:
                await reply(send, 202)  # no client notifications or responses in this era
                return
            principal = None
            if self.gate.hook is not None:
                caller = await self._admit(scope, send, [payload])
                if caller is None:
                    return
                principal = caller.principal
            await self.current.post(receive, send, headers, payload, meta, principal, json_ok,
                                    sse_ok)
            return
        if isinstance(payload, dict):
            try:
                kind = classify(payload)
            except ProtocolError as exc:
                await reply_error(send, 400, exc, id_of(payload))
                return
            if kind is Kind.REQUEST and payload["method"] != "initialize":
                if self.gate.hook is None:
                    caller = self.gate.nobody
                else:
                    caller = await self._admit(scope, send, [payload])
                    if caller is None:
                        return
                await self.http.post_one(send, headers, payload, caller, json_ok, sse_ok)
                return
        await self._post_many(scope, send, headers, payload, json_ok, sse_ok)

    def _envelope(self, scope: Scope, headers: dict[bytes, bytes], payload: Any,
                  version: str | None) -> dict[str, Any] | None:
        """The checked ``_meta`` of a 2026-07-28 request (``version`` is the
        MCP-Protocol-Version header, decoded); None for a notification or a response,
        which this era accepts and ignores. Raises the ``ProtocolError`` to answer with."""
        if isinstance(payload, list):
            raise InvalidRequest(NO_BATCHES_NOW)
        if classify(payload) is not Kind.REQUEST:
            return None
        return self.server.current.check_envelope(payload, headers, scope["headers"], version)

    async def _post_many(self, scope: Scope, send: Send, headers: dict[bytes, bytes],
                         payload: Any, json_ok: bool, sse_ok: bool) -> None:
        """Handshake era: batches, notifications, responses and initialize."""
        refused = batch_refusal(payload, self.config.max_batch) \
            if isinstance(payload, list) else None
        inbound = Inbound(payload)
        refused = refused or inbound.refusal()
        if refused is not None:
            await reply_error(send, 400, refused, id_of(payload))
            return
        caller = await self._admit(scope, send, inbound.requests)
        if caller is not None:
            await self.http.post_many(scope, send, headers, inbound, caller, json_ok, sse_ok,
                                      id_of(payload))

    async def _post_sse(self, scope: Scope, receive: Receive, send: Send,
                        headers: dict[bytes, bytes], sid: str) -> None:
        """POST ``<path>?session_id=<id>``: messages for an HTTP+SSE stream."""
        body = await read_json_body(receive, send, headers, self.config.max_body_bytes)
        if body is None:
            return
        channel = self.sse.channel(sid)
        if channel is None:
            await reply_error(send, 404, SessionNotFound(UNKNOWN))
            return
        try:
            payload = loads(body)
        except ProtocolError as exc:
            await reply_error(send, 400, exc)
            return
        inbound = Inbound(payload)
        caller = await self._admit(scope, send, inbound.requests)
        if caller is not None:
            await self.sse.post(send, channel, payload, inbound, caller)

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
            if self.streams.full:
                await reply_error(send, 503, InvalidRequest("Too many open streams"))
                return
            caller = await self._connect(scope, send)
            if caller is not None:
                await self.sse.open(scope, receive, send, caller)
            return
        caller = await self._connect(scope, send)
        if caller is not None:
            await self.http.get(receive, send, headers, caller)

    async def _delete(self, scope: Scope, send: Send, headers: dict[bytes, bytes]) -> None:
        if self.config.stateless or _current_era(headers):
            await reply_error(send, 405, InvalidRequest(
                "Method not allowed: stateless requests use POST only"),
                headers=[(b"allow", b"POST")])
            return
        if b"mcp-session-id" not in headers:
            await reply_error(send, 400, SessionMissing(
                "Bad Request: Mcp-Session-Id header is required"))
            return
        caller = await self._connect(scope, send)
        if caller is not None:
            await self.http.delete(send, headers, caller)


async def _refuse(send: Send, exc: Unauthorized, request_id: Any) -> None:
    await reply_error(send, exc.status, AuthRequired(exc.message, exc.data), request_id,
                      refusal_headers(exc))


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


@functools.cache
def _browser_client() -> bytes:
    return (resources.files("mcpcast") / "static" / "mcpcast.js").read_bytes()
