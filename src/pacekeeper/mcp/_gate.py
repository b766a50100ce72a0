"""POST /mcp behind the service's one principal resolver (SMCP-1..4).

The gate runs before mcpcast on every POST (Streamable HTTP and the older HTTP+SSE
transport's message endpoint): it resolves the caller once (JWT from cookie or header,
user status, CSRF for cookie callers), counts the request against the tenant's token
bucket (429 with `Retry-After` and `X-RateLimit-*` when empty; the headers are added to
every other answer), and leaves its verdict in a context variable. mcpcast's
`authenticate` hook reads that verdict, so public methods (initialize, tools/list, ...)
pass without credentials and guarded ones (tools/call, ...) get 401 with
`WWW-Authenticate: Bearer resource_metadata="..."` and "authentication required" or
"invalid token". WebSocket upgrades and SSE GETs reach the hook directly, which then
resolves the caller itself (no rate limit on the upgrade).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from contextvars import ContextVar
from typing import Any

import orjson
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from mcpcast import RequestInfo, Unauthorized
from pacekeeper.auth import Principal, PrincipalResolver
from pacekeeper.errors import AUTHENTICATION_REQUIRED, CsrfFailed, Unauthenticated
from pacekeeper.ratelimit import RateDecision
from pacekeeper.services import Services

Verdict = Principal | Unauthorized
_verdict: ContextVar[Verdict | None] = ContextVar("pacekeeper_mcp_verdict", default=None)


def _headers(scope: Scope) -> dict[str, str]:
    return {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope["headers"]}


async def judge(services: Services, method: str, headers: Mapping[str, str]) -> Verdict:
    """The caller's principal, or the refusal to give if a guarded method is called."""
    resolver = services.resolver
    try:
        principal = await resolver.resolve(headers)
    except Unauthenticated as exc:
        return Unauthorized(exc.message, www_authenticate=exc.headers["WWW-Authenticate"])
    if principal is None:
        challenge = resolver.unauthenticated(invalid=False).headers["WWW-Authenticate"]
        return Unauthorized(AUTHENTICATION_REQUIRED, www_authenticate=challenge)
    try:
        await resolver.check_csrf(method, headers, principal)
    except CsrfFailed as exc:
        challenge = resolver.unauthenticated(invalid=False).headers["WWW-Authenticate"]
        return Unauthorized(exc.message, www_authenticate=challenge, status=403)
    return principal


def make_authenticate(
    services: Callable[[], Services],
) -> Callable[[RequestInfo], Any]:
    """mcpcast's hook: the gate's verdict, or a fresh one outside the gate."""

    async def authenticate(info: RequestInfo) -> Principal | None:
        verdict = _verdict.get()
        if verdict is None:
            # Not a POST through the gate: a WebSocket upgrade or an SSE GET. No
            # credentials means an anonymous connection (public methods only, each
            # guarded call refused by mcpcast); a bad token refuses the connection.
            if not _has_credentials(info.headers):
                return None
            verdict = await judge(services(), info.method, info.headers)
        if isinstance(verdict, Unauthorized):
            raise verdict
        return verdict

    return authenticate


def checked_by_gate(principal: Principal) -> bool:
    """True when this very request was resolved by the gate (a POST, checked just now)."""
    return _verdict.get() is principal


def _has_credentials(headers: Mapping[str, str]) -> bool:
    return PrincipalResolver.credential(headers) is not None


def _rate_limited(decision: RateDecision) -> tuple[list[tuple[bytes, bytes]], bytes]:
    body = orjson.dumps({
        "jsonrpc": "2.0",
        "id": None,
        "error": {"code": -32000, "message": "rate limit exceeded",
                  "data": {"error": "rate_limited"}},
    })
    headers = [(k.lower().encode(), v.encode()) for k, v in decision.headers().items()]
    headers += [(b"content-type", b"application/json"),
                (b"content-length", str(len(body)).encode())]
    return headers, body


class McpGate:
    def __init__(self, app: ASGIApp, services: Callable[[], Services]) -> None:
        self.app = app
        self.services = services

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] != "POST":
            await self.app(scope, receive, send)
            return
        verdict = await judge(self.services(), "POST", _headers(scope))
        decision = verdict.rate if isinstance(verdict, Principal) else None
        if decision is not None and not decision.allowed:
            headers, body = _rate_limited(decision)
            await send({"type": "http.response.start", "status": 429, "headers": headers})
            await send({"type": "http.response.body", "body": body})
            return
        extra = (
            [(k.lower().encode(), v.encode()) for k, v in decision.headers().items()]
            if decision is not None
            else []
        )

        async def send_with_limits(message: Message) -> None:
            if message["type"] == "http.response.start" and extra:
                message = {**message, "headers": [*message.get("headers", []), *extra]}
            await send(message)

        token = _verdict.set(verdict)
        try:
            await self.app(scope, receive, send_with_limits)
        finally:
            _verdict.reset(token)


__all__ = ["McpGate", "checked_by_gate", "judge", "make_authenticate"]
