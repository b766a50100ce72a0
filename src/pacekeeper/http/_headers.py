"""Security headers on every response of the service, added in one place (finding 15).

Pure ASGI and outermost (around Starlette's own error middleware, see `app.py`), so
routes, `/mcp`, 404/405 and even unhandled 500s get the same headers without a copy per
route and without building a Starlette `Request` on the hot path: the only work per
response is one pass over the header list it already has.

- `X-Content-Type-Options: nosniff` everywhere.
- `Referrer-Policy: no-referrer` everywhere: no URL of ours (which may carry an OAuth
  `code`, `state` or a provider callback query) ever leaves in a `Referer`.
- HTML pages: `Content-Security-Policy: frame-ancestors 'none'` unless the page already
  sends a policy with `frame-ancestors` (the login/consent pages send a fuller one).
- `Strict-Transport-Security` in production only (development runs on plain http).

A header the response already sets is left alone (a route may know better).
"""

from __future__ import annotations

from starlette.types import ASGIApp, Message, Receive, Scope, Send

_NOSNIFF = (b"x-content-type-options", b"nosniff")
_REFERRER = (b"referrer-policy", b"no-referrer")
_FRAMES = (b"content-security-policy", b"frame-ancestors 'none'")
# One year; no includeSubDomains/preload: the service may share a parent domain with
# hosts that are not ours to force onto https.
HSTS_VALUE = b"max-age=31536000"
_STARTS = frozenset({"http.response.start", "websocket.http.response.start"})


class SecurityHeadersMiddleware:
    def __init__(self, app: ASGIApp, *, production: bool) -> None:
        self.app = app
        always = [_NOSNIFF, _REFERRER]
        if production:
            always.append((b"strict-transport-security", HSTS_VALUE))
        self.always = tuple(always)  # every answer; also the /mcp edge's (pacekeeper.mcp._edge)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":
            await self.app(scope, receive, send)
            return

        async def send_with_headers(message: Message) -> None:
            if message["type"] in _STARTS:
                message["headers"] = self._add(message.get("headers") or [])
            await send(message)

        await self.app(scope, receive, send_with_headers)

    def _add(self, headers: list[tuple[bytes, bytes]]) -> list[tuple[bytes, bytes]]:
        present: set[bytes] = set()
        html = framed = False
        for name, value in headers:
            lower = name.lower()
            present.add(lower)
            if lower == b"content-type":
                html = value[:9].lower() == b"text/html"
            elif lower == b"content-security-policy" and b"frame-ancestors" in value:
                framed = True
        out = list(headers)
        out.extend(h for h in self.always if h[0] not in present)
        if html and not framed:
            out.append(_FRAMES)
        return out


__all__ = ["HSTS_VALUE", "SecurityHeadersMiddleware"]
