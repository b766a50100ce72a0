"""POST /mcp behind the service's one principal resolver (SMCP-1..4).

The gate (`judge`, which the `/mcp` edge runs before mcpcast on every POST: Streamable
HTTP and the older HTTP+SSE transport's message endpoint) resolves the caller, the one
resolution of this request (JWT from cookie or header, user status, CSRF for cookie
callers), counts the request against the tenant's token bucket (429 with `Retry-After`
and `X-RateLimit-*` when empty; the headers are added to every other answer), and leaves
its verdict in the request's ASGI scope (`GATED`). mcpcast's `authenticate` hook hands
that verdict on, resolving nothing, so public methods (initialize, tools/list, ...)
pass without credentials and guarded ones (tools/call, ...) get 401 with `WWW-Authenticate: Bearer
resource_metadata="..."` and "authentication required" or "invalid token"; mcpcast
carries the principal to the tool, which receives it as an injected argument
(`_caller`). WebSocket upgrades and SSE GETs reach the hook directly, which then
resolves the caller itself and marks it `stream`: each call on the stream re-checks it
once (`_caller`).

A batch costs one token per request that needs credentials (issue 20, finding 5): the
gate takes one for the POST and the hook, which mcpcast tells how many such requests the
body holds (`RequestInfo.calls`), takes the rest at once; a batch the bucket cannot pay
in full is refused whole with 429, as a single request would be, and nothing in it runs.

Tools declare the OAuth scopes they need (`@tool(scopes=...)`); mcpcast asks
`check_scopes` before such a call runs. Login JWTs carry no scopes and act with the
user's full rights; an OAuth token lacking one gets MCP's step-up answer: 403 with
`WWW-Authenticate: Bearer error="insufficient_scope", scope="..."` on a POST, a JSON-RPC
error naming the scopes on a WebSocket.
"""

from __future__ import annotations

from collections.abc import Callable, Coroutine, Mapping
from typing import Any
from urllib.parse import urlsplit

import orjson
from starlette.types import Message, Send

from mcpcast import RequestInfo, Unauthorized
from pacekeeper.auth import CSRF_HEADER, Principal, PrincipalResolver
from pacekeeper.errors import AUTHENTICATION_REQUIRED, CsrfFailed, Unauthenticated
from pacekeeper.oauth2 import MCP_REQUIRED, missing
from pacekeeper.ratelimit import RateDecision
from pacekeeper.services import Services

Verdict = Principal | Unauthorized


class _Gated:
    """What the gate knows of the POST in progress: its verdict, the tenant bucket's
    `decision` for it, and the bucket's state after a batch paid for its further requests
    (whose headers then win). The edge leaves it in the request's ASGI scope under
    `GATED`, where mcpcast's hook reads it (`RequestInfo.scope`)."""

    __slots__ = ("charged", "decision", "verdict")

    def __init__(self, verdict: Verdict) -> None:
        self.verdict = verdict
        self.decision = verdict.rate if isinstance(verdict, Principal) else None
        self.charged: RateDecision | None = None

    @property
    def limited(self) -> bool:
        return self.decision is not None and not self.decision.allowed

    async def refuse(self, send: Send, extra: tuple[tuple[bytes, bytes], ...] = ()) -> None:
        """429 for an empty bucket, with its `X-RateLimit-*` and `Retry-After`."""
        assert self.decision is not None
        headers, body = _rate_limited(self.decision)
        await send({"type": "http.response.start", "status": 429,
                    "headers": [*headers, *extra]})
        await send({"type": "http.response.body", "body": body})

    def started(self, message: Message, extra: tuple[tuple[bytes, bytes], ...] = ()
                ) -> Message:
        """The answer's start with `extra` headers and the bucket's latest state (a
        batch's further charge is newer than the POST's own decision)."""
        headers = [*message.get("headers", ()), *extra]
        if self.decision is not None:
            headers += (self.charged or self.decision).raw_headers()
        message["headers"] = headers  # the app's own message, as Starlette's middleware do
        return message


# The scope key (an ASGI extension key of this service) of a POST's `_Gated`: the edge
# sets it, mcpcast's hook reads it, nothing else carries the verdict.
GATED = "pacekeeper.gated"


# The only headers the gate reads (credentials, CSRF, Origin): the others stay bytes.
_READ = tuple((name.decode(), name) for name in (
    b"authorization", b"cookie", b"origin", CSRF_HEADER.lower().encode()))


def _headers(raw: Mapping[bytes, bytes]) -> dict[str, str]:
    """The headers the gate reads, decoded, from the request's raw ones by name. ASGI
    servers send names in lower case (the spec requires it; mcpcast, behind the gate,
    reads them the same way), so four look-ups replace a pass over every header."""
    return {name: value.decode("latin-1") for name, key in _READ
            if (value := raw.get(key)) is not None}


def _insufficient_scope(services: Services, granted: tuple[str, ...],
                        required: tuple[str, ...] = ()) -> Unauthorized | None:
    """403 naming every scope the operation needs (MCP: one challenge, all scopes)."""
    needed = tuple(dict.fromkeys((*MCP_REQUIRED, *required)))
    if not missing(granted, needed):
        return None
    scope = " ".join(needed)
    challenge = services.resolver.unauthenticated(invalid=False).headers["WWW-Authenticate"]
    return Unauthorized(
        f"insufficient scope: this call needs {scope}",
        www_authenticate=f'{challenge}, error="insufficient_scope", scope="{scope}", '
        'error_description="the token lacks a required scope"',
        status=403,
        data={"error": "insufficient_scope", "scope": scope},
    )


def make_check_scopes(
    services: Callable[[], Services],
) -> Callable[[Any, tuple[str, ...]], Unauthorized | None]:
    """mcpcast's per-call scope check: the tool's declared scopes against the token's."""

    def check_scopes(principal: Any, required: tuple[str, ...]) -> Unauthorized | None:
        if not isinstance(principal, Principal) or principal.claims.scope is None:
            return None  # login JWTs carry no scopes: the user's full rights
        return _insufficient_scope(services(), principal.claims.scope, required)

    return check_scopes


def origin_key(value: str) -> str | None:
    """`scheme://host[:port]` as a browser sends it (default port left out), or None."""
    try:
        parts = urlsplit(value.strip().lower())
        port = parts.port
    except ValueError:
        return None
    if parts.scheme not in ("http", "https") or not parts.hostname:
        return None
    host = f"[{parts.hostname}]" if ":" in parts.hostname else parts.hostname
    default = 443 if parts.scheme == "https" else 80
    return f"{parts.scheme}://{host}" + ("" if port in (None, default) else f":{port}")


def _same_origin(headers: Mapping[str, str], origins: frozenset[str]) -> bool:
    # No Origin: not a cross-origin browser request (browsers send one on every
    # WebSocket and cross-origin request); a non-browser client has no ambient cookies.
    origin = headers.get("origin")
    return origin is None or origin_key(origin) in origins


async def judge(services: Services, method: str, headers: Mapping[str, str],
                same_origins: frozenset[str] | None = None, *,
                charge: bool = True) -> Verdict:
    """The caller's principal, or the refusal to give if a guarded method is called.

    OAuth 2.0 access tokens carry `scope` and must hold the MCP scopes (else 403
    insufficient_scope); login JWTs carry none and act with the user's full rights.
    Tokens for another audience never get here: the validator refuses them (AS-14).

    A cookie is ambient: a browser attaches it to requests from any page on the same
    host, whatever the port. So a cookie caller that sends an Origin must send exactly
    one of `same_origins` (scheme, host and port), else 403; WebSockets and GET streams
    have no CSRF token to stop a page on another port (issue 20, finding 8).

    `charge=False`: the same checks without taking from the tenant's bucket.
    """
    resolver = services.resolver
    try:
        principal = await resolver.resolve(headers, delegated=True, charge=charge)
    except Unauthenticated as exc:
        return Unauthorized(exc.message, www_authenticate=exc.headers["WWW-Authenticate"])
    if principal is None:
        # No scope= here: clients take the starting scopes from the resource metadata.
        challenge = resolver.unauthenticated(invalid=False).headers["WWW-Authenticate"]
        return Unauthorized(AUTHENTICATION_REQUIRED, www_authenticate=challenge)
    if principal.claims.scope is not None:
        refused = _insufficient_scope(services, principal.claims.scope)
        if refused is not None:
            return refused
    if principal.via == "cookie" and same_origins is not None \
            and not _same_origin(headers, same_origins):
        challenge = resolver.unauthenticated(invalid=False).headers["WWW-Authenticate"]
        return Unauthorized("cross-origin request refused: the Origin is not this service",
                            www_authenticate=challenge, status=403)
    if principal.via != "cookie":
        return principal  # bearer callers are not exposed to CSRF (no ambient credential)
    try:
        await resolver.check_csrf(method, headers, principal)
    except CsrfFailed as exc:
        challenge = resolver.unauthenticated(invalid=False).headers["WWW-Authenticate"]
        return Unauthorized(exc.message, www_authenticate=challenge, status=403)
    return principal


def make_authenticate(
    services: Callable[[], Services], same_origins: frozenset[str] = frozenset(),
) -> Callable[[RequestInfo], Any]:
    """mcpcast's hook: the gate's verdict, or a fresh one outside the gate.

    A POST through the gate is answered at once, without a coroutine (the verdict is
    this request's); only a batch's further charge and a stream's own resolution wait.
    """

    def authenticate(info: RequestInfo) -> Principal | Coroutine[Any, Any, Any] | None:
        gated: _Gated | None = info.scope.get(GATED)
        if gated is None:
            # Not a POST through the gate: a WebSocket upgrade or an SSE GET.
            return _connecting(services(), info, same_origins)
        verdict = gated.verdict
        if isinstance(verdict, Unauthorized):
            raise verdict
        if info.calls > 1:
            return _charge_batch(services(), gated, verdict, info.calls - 1)
        return verdict

    return authenticate


async def _connecting(services: Services, info: RequestInfo,
                      same_origins: frozenset[str]) -> Principal | None:
    """A stream's caller: no credentials means an anonymous connection (public methods
    only, each guarded call refused by mcpcast); a bad token refuses the connection."""
    if not _has_credentials(info.headers):
        return None
    verdict = await judge(services, info.method, info.headers, same_origins)
    if isinstance(verdict, Unauthorized):
        raise verdict
    return verdict._replace(stream=True)  # each call on it re-checks it


async def _charge_batch(services: Services, gated: _Gated, verdict: Principal,
                        further: int) -> Principal:
    """The gate took one token for the POST; a batch pays for each further call."""
    decision = await services.resolver.charge(verdict, further)
    gated.charged = decision
    if not decision.allowed:
        raise Unauthorized("rate limit exceeded", status=429, data={"error": "rate_limited"})
    return verdict


def _has_credentials(headers: Mapping[str, str]) -> bool:
    return PrincipalResolver.credential(headers) is not None


def _rate_limited(decision: RateDecision) -> tuple[list[tuple[bytes, bytes]], bytes]:
    body = orjson.dumps({
        "jsonrpc": "2.0",
        "id": None,
        "error": {"code": -32000, "message": "rate limit exceeded",
                  "data": {"error": "rate_limited"}},
    })
    headers = decision.raw_headers()
    headers += [(b"content-type", b"application/json"),
                (b"content-length", str(len(body)).encode())]
    return headers, body


__all__ = [
    "judge",
    "make_authenticate",
    "make_check_scopes",
    "origin_key",
]
