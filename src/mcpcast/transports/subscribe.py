"""Browser subscriptions to broadcaster topics: WebSocket and SSE at ``/<topic>``.

A plain ASGI app (mount it under e.g. ``/mcp/topics``). Both transports send the same
JSON frames (DECL-6, MCP-6)::

    {"type":"subscribed","topic":"t","seq":41,"heartbeat":15.0}   # first; seq = resume point
    {"type":"message","topic":"t","seq":42,"data":<message>}
    {"type":"heartbeat","seq":42}                                  # WebSocket only
    {"type":"close","reason":"shutdown"}                           # last, then the close

SSE frames carry ``id: <seq>``, so ``Last-Event-ID`` resumes; heartbeats there are
comment lines. ``?after=<seq>`` resumes either transport from the topic's history.

Credentials: browsers cannot set headers on a WebSocket, and a token in the query string
ends up in access logs. So a WebSocket client may offer the subprotocols
``["mcpcast", "bearer.<token>"]``; the server answers ``mcpcast`` and ``authorize`` sees
``Authorization: Bearer <token>`` exactly as it does for SSE.

Credentials can end while a stream is open (a logout, a disabled account, a revoked
grant). With ``recheck`` (seconds) the hook is asked again, with ``SubscriberInfo.recheck``
true, before the next frame or heartbeat once that long has passed since its last yes;
a no drops that frame and ends the stream with reason ``unauthorized``.

Pages on another origin: WebSockets need nothing, but the SSE fallback is a ``fetch`` and
needs CORS. With ``allow_origin`` an allowed ``Origin`` is echoed in
``Access-Control-Allow-Origin`` and preflights (a token header) are answered.
"""

from __future__ import annotations

import asyncio
import contextlib
import inspect
import logging
import re
import time
from collections.abc import Awaitable, Callable, MutableMapping
from dataclasses import dataclass, replace
from typing import Any
from urllib.parse import parse_qsl

import orjson

from mcpcast._errors import McpcastError
from mcpcast.broadcast import (
    BroadcasterFactory,
    CloseReason,
    Frame,
    Subscription,
    TopicLimitError,
    validate_topic,
)

from ._http import serve_lifespan

__all__ = [
    "SUBPROTOCOL",
    "AllowOrigin",
    "Authorize",
    "SubscriberInfo",
    "SubscriptionApp",
    "subscription_app",
]

log = logging.getLogger("mcpcast.transports.subscribe")

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]

SUBPROTOCOL = "mcpcast"
_TOKEN_PREFIX = "bearer."  # noqa: S105 - a prefix, not a secret

# Preflights may ask for these request headers (mcpcast.js sends the first two).
_CORS_HEADERS = b"authorization, last-event-id"
_HEADER_LIST_RE = re.compile(r"[A-Za-z0-9-]+(\s*,\s*[A-Za-z0-9-]+)*")

# WebSocket close codes per end reason (RFC 6455 section 7.4.1).
_WS_CODES = {CloseReason.OVERFLOW: 1013, CloseReason.SHUTDOWN: 1001,
             CloseReason.UNAUTHORIZED: 1008}


@dataclass(frozen=True, slots=True)
class SubscriberInfo:
    """What ``authorize`` sees (the fields of mcpcast's ``RequestInfo`` plus the query)."""

    headers: dict[str, str]
    method: str  # "GET" for SSE, "WEBSOCKET" for WebSocket
    path: str
    client: tuple[str, int] | None
    query: dict[str, str]
    query_string: str = ""
    # True when asked again for a stream already open (``recheck``), not for a new one.
    recheck: bool = False


Authorize = Callable[[SubscriberInfo, str], bool | Awaitable[bool]]
#: Whether a page on this ``Origin`` (e.g. ``"http://localhost:3000"``) may read SSE.
AllowOrigin = Callable[[str], bool]


class TopicRefused(McpcastError):
    """A browser subscription refused: ``status`` is the HTTP status to answer with."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


def _route_path(scope: Scope) -> str:
    # Starlette's Mount keeps the full path and sets root_path: strip it (as it does).
    path: str = scope.get("path", "/")
    root: str = scope.get("root_path", "")
    return path[len(root) :] if root and path.startswith(root) else path


def _info(scope: Scope, method: str) -> SubscriberInfo:
    headers: dict[str, str] = {}
    for raw_name, raw_value in scope.get("headers", ()):
        name, value = raw_name.decode("latin-1").lower(), raw_value.decode("latin-1")
        headers[name] = f"{headers[name]}, {value}" if name in headers else value
    if method == "WEBSOCKET" and "authorization" not in headers:
        token = _subprotocol_token(scope)
        if token:
            headers["authorization"] = f"Bearer {token}"
    query_string = scope.get("query_string", b"").decode("latin-1")
    client = scope.get("client")
    return SubscriberInfo(
        headers,
        method,
        _route_path(scope),
        tuple(client) if client else None,
        dict(parse_qsl(query_string)),
        query_string,
    )


def _subprotocol_token(scope: Scope) -> str | None:
    for offered in scope.get("subprotocols", ()):
        if offered.startswith(_TOKEN_PREFIX):
            return str(offered[len(_TOKEN_PREFIX) :])
    return None


def _resume_point(info: SubscriberInfo) -> int | None:
    raw = info.query.get("after") or info.headers.get("last-event-id")
    if raw is None or raw == "":
        return None
    if not raw.isdigit() or len(raw) > 18:
        raise TopicRefused(400, "after / Last-Event-ID must be a non-negative integer")
    return int(raw)


async def _allowed(authorize: Authorize, info: SubscriberInfo, topic: str) -> bool:
    """The hook's verdict; a failing hook denies (fail closed), without details. A hook
    may refuse with a status of its own (e.g. 429) by raising ``TopicRefused``."""
    try:
        verdict = authorize(info, topic)
        if inspect.isawaitable(verdict):
            verdict = await verdict
    except TopicRefused:
        raise
    except Exception as exc:
        log.warning("authorize hook failed for %r: %s", topic, type(exc).__name__)
        return False
    return verdict is True


class _Recheck:
    """Asks the hook again for an open stream, ``every`` seconds apart at most."""

    __slots__ = ("authorize", "due", "every", "info", "topic")

    def __init__(self, authorize: Authorize, info: SubscriberInfo, topic: str,
                 every: float) -> None:
        self.authorize = authorize
        self.info = replace(info, recheck=True)
        self.topic = topic
        self.every = every
        self.due = time.monotonic() + every

    async def allowed(self) -> bool:
        now = time.monotonic()
        if now < self.due:
            return True
        try:
            if not await _allowed(self.authorize, self.info, self.topic):
                return False
        except TopicRefused:
            return False
        self.due = time.monotonic() + self.every
        return True


class SubscriptionApp:
    """The ASGI app; ``await app.close()`` ends every stream with a close reason."""

    def __init__(
        self,
        factory: BroadcasterFactory,
        *,
        authorize: Authorize | None = None,
        heartbeat: float | None = 15.0,
        max_connections: int = 10_000,
        allow_origin: AllowOrigin | None = None,
        recheck: float | None = None,
        max_per_topic: int | None = None,
    ) -> None:
        self.factory = factory
        self.max_per_topic = max_per_topic
        # Streams open (or opening) per topic, counted before the first await of the
        # subscription, so concurrent opens cannot all pass the check.
        self._per_topic: dict[str, int] = {}
        self.authorize = authorize
        self.recheck = recheck if recheck is None else max(recheck, 0.0)
        self.allow_origin = allow_origin
        self.heartbeat = heartbeat if heartbeat and heartbeat > 0 else None
        self.max_connections = max_connections
        self._active: set[Subscription] = set()
        self._idle = asyncio.Event()
        self._idle.set()
        self._closing = False

    @property
    def connection_count(self) -> int:
        return len(self._active)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        kind = scope["type"]
        if kind == "http":
            await self._serve_sse(scope, receive, send)
        elif kind == "websocket":
            await self._serve_websocket(scope, receive, send)
        elif kind == "lifespan":
            await serve_lifespan(receive, send, self.close)

    async def _open(self, info: SubscriberInfo
                    ) -> tuple[str, Subscription, int, _Recheck | None]:
        """Check the request and subscribe; raises ``TopicRefused`` with an HTTP status."""
        topic = info.path.removeprefix("/")
        try:
            validate_topic(topic)
        except ValueError:
            raise TopicRefused(404, "no such topic") from None
        after = _resume_point(info)
        if self._closing or len(self._active) >= self.max_connections:
            raise TopicRefused(
                503, "too many subscribers" if not self._closing else "shutting down")
        guard = None
        if self.authorize is not None:
            if not await _allowed(self.authorize, info, topic):
                raise TopicRefused(403, "forbidden")
            if self.recheck is not None:
                guard = _Recheck(self.authorize, info, topic, self.recheck)
        limit = self.max_per_topic
        held = self._per_topic.get(topic, 0)
        if limit is not None and held >= limit:
            raise TopicRefused(
                429, f"too many open streams on this topic (at most {limit}); close one first")
        self._per_topic[topic] = held + 1
        try:
            return await self._subscribe(topic, after, guard)
        except BaseException:
            self._release(topic)
            raise

    def _release(self, topic: str) -> None:
        left = self._per_topic.get(topic, 1) - 1
        if left > 0:
            self._per_topic[topic] = left
        else:
            self._per_topic.pop(topic, None)

    async def _subscribe(self, topic: str, after: int | None, guard: _Recheck | None
                         ) -> tuple[str, Subscription, int, _Recheck | None]:
        try:
            broadcaster = self.factory.lookup(topic)
        except TopicLimitError:
            raise TopicRefused(503, "too many topics") from None
        try:
            # Without a resume point, start from "now" so a reconnect can resume from it.
            start = after if after is not None else await broadcaster.last_seq()
            sub = await broadcaster.subscribe(after_seq=start)
            # The effective resume point: lower than ``after`` when the topic lost its
            # count (a restart on the memory backend), so clients stop deduplicating by
            # their old seq and accept the new numbers.
            start = sub.last_seq
        except Exception as exc:
            # A backend outage (e.g. Redis down) is the server's trouble: 503, no details.
            log.warning("cannot subscribe to %r: %s", topic, type(exc).__name__)
            raise TopicRefused(503, "broadcast backend unavailable") from None
        self._active.add(sub)
        self._idle.clear()
        if self._closing:  # close() ran while we were subscribing
            sub.close(CloseReason.SHUTDOWN)
        return topic, sub, start, guard

    async def _next(self, sub: Subscription, guard: _Recheck | None) -> Frame | None:
        """The next frame (None: time for a heartbeat), if the subscriber may still have
        it; StopAsyncIteration once the subscription ends (``unauthorized`` if not)."""
        frame = await sub.next(self.heartbeat)
        if guard is not None and not await guard.allowed():
            sub.close(CloseReason.UNAUTHORIZED)
            raise StopAsyncIteration
        return frame

    def _done(self, sub: Subscription) -> None:
        sub.close()
        if sub in self._active:
            self._active.discard(sub)
            self._release(sub.topic)
        if not self._active:
            self._idle.set()

    def _hello(self, topic: str, seq: int) -> bytes:
        return orjson.dumps(
            {"type": "subscribed", "topic": topic, "seq": seq, "heartbeat": self.heartbeat}
        )

    def _cors(self, scope: Scope) -> list[tuple[bytes, bytes]]:
        """CORS response headers for an allowed page origin, else none."""
        if self.allow_origin is None:
            return []
        origin = next((v for k, v in scope.get("headers", ()) if k == b"origin"), None)
        if origin is None or not self.allow_origin(origin.decode("latin-1")):
            return []
        return [(b"access-control-allow-origin", origin), (b"vary", b"origin")]

    async def _serve_sse(self, scope: Scope, receive: Receive, send: Send) -> None:
        cors = self._cors(scope)
        if scope.get("method") == "OPTIONS" and cors:
            await _preflight(scope, send, cors)
            return
        if scope.get("method") != "GET":
            await _plain(send, 405, "use GET (SSE) or a WebSocket", [(b"allow", b"GET"), *cors])
            return
        try:
            topic, sub, start, guard = await self._open(_info(scope, "GET"))
        except TopicRefused as refused:
            await _plain(send, refused.status, refused.message, cors)
            return
        watcher = asyncio.get_running_loop().create_task(_until_disconnect(receive, sub))
        try:
            await send(
                {
                    "type": "http.response.start",
                    "status": 200,
                    "headers": [
                        (b"content-type", b"text/event-stream; charset=utf-8"),
                        (b"cache-control", b"no-cache, no-transform"),
                        (b"x-accel-buffering", b"no"),
                        *cors,
                    ],
                }
            )
            hello = b"retry: 2000\nevent: subscribed\ndata: " + self._hello(topic, start)
            await _chunk(send, hello + b"\n\n")
            while True:
                try:
                    frame = await self._next(sub, guard)
                except StopAsyncIteration:
                    break
                if frame is None:
                    await _chunk(send, b": heartbeat\n\n")
                else:
                    data = frame.to_json(topic).encode()
                    await _chunk(send, b"id: %d\nevent: message\ndata: %s\n\n" % (frame.seq, data))
            if sub.reason != CloseReason.CLOSED:  # not the client leaving: tell it why
                reason = orjson.dumps({"type": "close", "reason": sub.reason})
                await _chunk(send, b"event: close\ndata: " + reason + b"\n\n")
            await send({"type": "http.response.body", "body": b"", "more_body": False})
        except OSError:  # the client went away while we were writing
            pass
        finally:
            watcher.cancel()
            self._done(sub)

    async def _serve_websocket(self, scope: Scope, receive: Receive, send: Send) -> None:
        if (await receive())["type"] != "websocket.connect":
            return
        try:
            topic, sub, start, guard = await self._open(_info(scope, "WEBSOCKET"))
        except TopicRefused as refused:
            await _deny_websocket(scope, send, refused)
            return
        watcher = asyncio.get_running_loop().create_task(_until_disconnect(receive, sub))
        try:
            accept: dict[str, Any] = {"type": "websocket.accept"}
            if SUBPROTOCOL in scope.get("subprotocols", ()):
                # A browser that offered subprotocols fails unless one is chosen.
                accept["subprotocol"] = SUBPROTOCOL
            await send(accept)
            await send({"type": "websocket.send", "text": self._hello(topic, start).decode()})
            while True:
                try:
                    frame = await self._next(sub, guard)
                except StopAsyncIteration:
                    break
                text = (
                    f'{{"type":"heartbeat","seq":{sub.last_seq}}}'
                    if frame is None
                    else frame.to_json(topic)
                )
                await send({"type": "websocket.send", "text": text})
            reason = sub.reason or CloseReason.CLOSED
            if reason != CloseReason.CLOSED:
                close_text = orjson.dumps({"type": "close", "reason": reason}).decode()
                await send({"type": "websocket.send", "text": close_text})
                code = _WS_CODES.get(reason, 1000)
                await send({"type": "websocket.close", "code": code, "reason": reason})
        except OSError:
            pass
        finally:
            watcher.cancel()
            self._done(sub)

    async def close(self, reason: str = CloseReason.SHUTDOWN, grace: float = 5.0) -> None:
        """Refuse new subscribers, end every stream with ``reason``, wait up to ``grace``."""
        self._closing = True
        for sub in list(self._active):
            sub.close(reason)
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(grace):
                await self._idle.wait()


async def _until_disconnect(receive: Receive, sub: Subscription) -> None:
    # Client messages carry nothing we need: only watch for the peer leaving.
    with contextlib.suppress(OSError):
        while True:
            message = await receive()
            if message["type"] in ("http.disconnect", "websocket.disconnect"):
                break
    sub.close(CloseReason.CLOSED)


async def _chunk(send: Send, body: bytes) -> None:
    await send({"type": "http.response.body", "body": body, "more_body": True})


async def _plain(
    send: Send, status: int, message: str, extra: list[tuple[bytes, bytes]] | None = None
) -> None:
    body = orjson.dumps({"error": message})
    headers = [(b"content-type", b"application/json"), (b"content-length", b"%d" % len(body))]
    await send(
        {"type": "http.response.start", "status": status, "headers": headers + (extra or [])}
    )
    await send({"type": "http.response.body", "body": body})


async def _preflight(scope: Scope, send: Send, cors: list[tuple[bytes, bytes]]) -> None:
    asked = next((v for k, v in scope.get("headers", ())
                  if k == b"access-control-request-headers"), b"")
    # Echo a well-formed list (mcpcast.js's `headers` option may add any); else the default.
    allowed = asked if _HEADER_LIST_RE.fullmatch(asked.decode("latin-1")) else _CORS_HEADERS
    headers = [*cors, (b"access-control-allow-methods", b"GET"),
               (b"access-control-allow-headers", allowed),
               (b"access-control-max-age", b"600"), (b"content-length", b"0")]
    await send({"type": "http.response.start", "status": 204, "headers": headers})
    await send({"type": "http.response.body", "body": b""})


async def _deny_websocket(scope: Scope, send: Send, refused: TopicRefused) -> None:
    if "websocket.http.response" in scope.get("extensions", {}):
        body = orjson.dumps({"error": refused.message})
        await send(
            {
                "type": "websocket.http.response.start",
                "status": refused.status,
                "headers": [(b"content-type", b"application/json")],
            }
        )
        await send({"type": "websocket.http.response.body", "body": body})
    else:  # closing before accept makes the server answer 403
        await send({"type": "websocket.close", "code": 1008})


def subscription_app(
    factory: BroadcasterFactory,
    *,
    authorize: Authorize | None = None,
    heartbeat: float | None = 15.0,
    max_connections: int = 10_000,
    allow_origin: AllowOrigin | None = None,
    recheck: float | None = None,
    max_per_topic: int | None = None,
) -> SubscriptionApp:
    """Serve ``factory``'s topics to browsers: WebSocket and SSE at ``/<topic>``.

    ``authorize(info, topic)`` (sync or async) returning anything but ``True`` gives 403.
    ``heartbeat`` seconds of silence produce a heartbeat (``None`` turns them off).
    ``allow_origin(origin)`` returning true lets pages on that origin read SSE (CORS).
    ``recheck`` seconds: how stale the hook's yes may get on an open stream (None: it is
    asked only when the stream opens; 0: before every frame and heartbeat).
    ``max_per_topic``: at most this many open streams per topic in this process (the
    next one: 429); None: no such bound.
    """
    return SubscriptionApp(
        factory,
        authorize=authorize,
        heartbeat=heartbeat,
        max_connections=max_connections,
        allow_origin=allow_origin,
        recheck=recheck,
        max_per_topic=max_per_topic,
    )
