"""413 for request bodies over the limit (ERR-4), answered with the service's error body.

Checked on `Content-Length` before reading and again while streaming (chunked bodies).
Paths that enforce their own limit (the MCP endpoint) are passed through untouched;
paths with a larger limit of their own (file import) are named in ``overrides``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import orjson
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from pacekeeper.errors import PacekeeperError

_BODY = orjson.dumps({"error": "payload_too_large", "message": "request body too large"})


class _TooLarge(PacekeeperError):
    pass


class BodyLimitMiddleware:
    def __init__(self, app: ASGIApp, max_bytes: int, exempt: Sequence[str] = (),
                 overrides: Mapping[str, int] | None = None) -> None:
        self.app = app
        self.max_bytes = max_bytes
        self.exempt = tuple(exempt)
        self.overrides = dict(overrides or {})

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        path = str(scope.get("path", ""))
        if scope["type"] != "http" or path.startswith(self.exempt):
            await self.app(scope, receive, send)
            return
        limit = self.overrides.get(path, self.max_bytes)
        for name, value in scope.get("headers", []):
            if name == b"content-length":
                try:
                    declared = int(value)
                except ValueError:
                    declared = 0
                if declared > limit:
                    await _reject(send)
                    return
        seen = 0
        started = False

        async def limited_receive() -> Message:
            nonlocal seen
            message = await receive()
            if message["type"] == "http.request":
                seen += len(message.get("body", b""))
                if seen > limit:
                    raise _TooLarge
            return message

        async def tracking_send(message: Message) -> None:
            nonlocal started
            if message["type"] == "http.response.start":
                started = True
            await send(message)

        try:
            await self.app(scope, limited_receive, tracking_send)
        except _TooLarge:
            if started:
                raise
            await _reject(send)


async def _reject(send: Send) -> None:
    await send(
        {
            "type": "http.response.start",
            "status": 413,
            "headers": [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(_BODY)).encode()),
                (b"connection", b"close"),
            ],
        }
    )
    await send({"type": "http.response.body", "body": _BODY})


__all__ = ["BodyLimitMiddleware"]
