"""Small raw-ASGI helpers shared by the HTTP transports: headers, bodies, replies.

mcpcast answers HTTP without framework Request/Response objects: on the hot path every
allocation shows up in requests per second.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Iterable, Mapping
from typing import Any
from urllib.parse import urlsplit

from .._errors import InvalidRequest, McpcastError, ProtocolError, Unauthorized
from .._jsonrpc import dumps, error
from ..protocol.session import SessionLimit, StreamLog

Scope = dict[str, Any]
Receive = Callable[[], Awaitable[dict[str, Any]]]
Send = Callable[[dict[str, Any]], Awaitable[None]]
Headers = list[tuple[bytes, bytes]]

JSON_HEADERS: Headers = [(b"content-type", b"application/json")]
SSE_HEADERS: Headers = [(b"content-type", b"text/event-stream"),
                        (b"cache-control", b"no-cache, no-transform"),
                        (b"x-accel-buffering", b"no")]


class BodyTooLarge(McpcastError):
    """A request body over the limit (answered 413)."""


class Disconnected(McpcastError):
    """The client left while its body was being read."""


def _declared_size(declared: bytes | None) -> int:
    """Content-Length as a number; 0 when absent or unreadable (the real size is checked
    as the body arrives)."""
    try:
        return int(declared) if declared is not None else 0
    except ValueError:
        return 0


async def _rest_of_body(receive: Receive, first: bytes, limit: int) -> bytes:
    """The remaining chunks of a body that came in several messages."""
    chunks = [first]
    size = len(first)
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            raise Disconnected
        chunk = message.get("body", b"")
        size += len(chunk)
        if size > limit:
            raise BodyTooLarge
        chunks.append(chunk)
        if not message.get("more_body"):
            return b"".join(chunks)


async def serve_lifespan(receive: Callable[[], Awaitable[Mapping[str, Any]]],
                         send: Callable[[dict[str, Any]], Awaitable[None]],
                         on_shutdown: Callable[[], Awaitable[None]]) -> None:
    """An ASGI lifespan: start-up completes at once, shutdown runs ``on_shutdown`` first."""
    while True:
        message = await receive()
        if message["type"] == "lifespan.startup":
            await send({"type": "lifespan.startup.complete"})
        elif message["type"] == "lifespan.shutdown":
            await on_shutdown()
            await send({"type": "lifespan.shutdown.complete"})
            return


async def reply(send: Send, status: int, body: bytes = b"",
                headers: Iterable[tuple[bytes, bytes]] = ()) -> None:
    """A whole response; with its Content-Length, so the server need not chunk it."""
    head = [(b"content-length", str(len(body)).encode()), *headers]
    await send({"type": "http.response.start", "status": status, "headers": head})
    await send({"type": "http.response.body", "body": body})


async def reply_error(send: Send, status: int, exc: ProtocolError, request_id: Any = None,
                      headers: Iterable[tuple[bytes, bytes]] = ()) -> None:
    await reply(send, status, dumps(error(request_id, exc)), [*JSON_HEADERS, *headers])


def client_address(scope: Scope) -> str | None:
    client = scope.get("client")
    return str(client[0]) if client else None


def refusal_headers(exc: Unauthorized) -> list[tuple[bytes, bytes]]:
    """``WWW-Authenticate`` on a 401 or 403, plus the refusal's own headers."""
    headers = [(k.lower().encode("latin-1"), v.encode("latin-1")) for k, v in exc.headers]
    if exc.status in (401, 403):
        headers.append((b"www-authenticate", exc.www_authenticate.encode("latin-1")))
    return headers


async def reply_session_limit(send: Send, refused: SessionLimit) -> None:
    extra = [] if refused.retry_after is None else \
        [(b"retry-after", str(refused.retry_after).encode())]
    await reply_error(send, refused.status, InvalidRequest(refused.message), headers=extra)


def host_name(host: str) -> str:
    """``example.com:8080`` -> ``example.com``; ``[::1]:8080`` -> ``[::1]``."""
    host = host.strip().lower()
    if host.startswith("["):
        end = host.find("]")
        return host[: end + 1] if end > 0 else host
    return host.rsplit(":", 1)[0] if host.count(":") == 1 else host


def origin_base(origin: str) -> str | None:
    """``http://localhost:3000`` -> ``http://localhost``; None when it is no origin."""
    try:
        parts = urlsplit(origin.strip().lower())
    except ValueError:
        return None
    if parts.scheme not in ("http", "https") or not parts.hostname:
        return None
    host = f"[{parts.hostname}]" if ":" in parts.hostname else parts.hostname
    return f"{parts.scheme}://{host}"


def sse_event(data: bytes, event_id: str | None = None) -> bytes:
    head = b"event: message\n" if event_id is None else (
        b"id: " + event_id.encode() + b"\nevent: message\n")
    return head + b"data: " + data + b"\n\n"


def accepts(accept: bytes | None, media: bytes) -> bool:
    if accept is None:
        return False
    return media in accept or b"*/*" in accept


async def until_disconnect(receive: Receive) -> None:
    """Return when the client goes away (the request body was already read)."""
    while (await receive())["type"] != "http.disconnect":
        pass


def trace_headers(headers: dict[bytes, bytes]) -> dict[str, str] | None:
    parent = headers.get(b"traceparent")
    if parent is None:
        return None
    carrier = {"traceparent": parent.decode("latin-1")}
    state = headers.get(b"tracestate")
    if state is not None:
        carrier["tracestate"] = state.decode("latin-1")
    return carrier


async def read_json_body(receive: Receive, send: Send, headers: dict[bytes, bytes],
                         limit: int, *, checked_type: bool = False) -> bytes | None:
    """Check the Content-Type and read the body within ``limit``.

    Returns None when the request was already answered (415, 413) or the client left.
    """
    if not checked_type and not headers.get(b"content-type", b"").startswith(b"application/json"):
        await reply_error(send, 415, InvalidRequest(
            "Unsupported Media Type: Content-Type must be application/json"))
        return None
    try:
        if _declared_size(headers.get(b"content-length")) > limit:
            raise BodyTooLarge  # refused before reading a byte of it
        message = await receive()
        if message["type"] == "http.disconnect":
            return None
        body: bytes = message.get("body", b"")
        if message.get("more_body"):
            body = await _rest_of_body(receive, body, limit)
        if len(body) > limit:
            raise BodyTooLarge
        return body
    except BodyTooLarge:
        await reply_error(send, 413, InvalidRequest(f"Request body larger than {limit} bytes"))
    except Disconnected:
        pass
    return None


async def chunk(send: Send, data: bytes) -> None:
    await send({"type": "http.response.body", "body": data, "more_body": True})


async def pump(send: Send, stream: StreamLog, after: int, gone: asyncio.Future[None],
               heartbeat: float, *, ids: bool = True,
               comment: bytes = b": ping\n\n") -> bool:
    """Write ``stream``'s events after ``after`` as SSE until it ends (True) or the client
    leaves (False); a comment line goes out whenever ``heartbeat`` seconds pass quietly."""
    while not gone.done():
        for seq, payload in stream.after(after):
            await chunk(send, sse_event(payload, stream.event_id(seq) if ids else None))
            after = seq
        if stream.done:
            return True
        waiter = asyncio.ensure_future(stream.wait(heartbeat))
        await asyncio.wait((waiter, gone), return_when=asyncio.FIRST_COMPLETED)
        if not waiter.done():
            waiter.cancel()
        elif waiter.exception() is not None:  # the wait timed out: a heartbeat is due
            await chunk(send, comment)
    return False
