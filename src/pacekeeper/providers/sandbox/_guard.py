"""What every emulated data endpoint does first: failures, quota, credentials."""

from __future__ import annotations

import asyncio
import hmac
import math
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from authlib.oauth1.rfc5849.errors import OAuth1Error  # type: ignore[import-untyped]
from authlib.oauth1.rfc5849.signature import verify_hmac_sha1  # type: ignore[import-untyped]
from authlib.oauth1.rfc5849.wrapper import OAuth1Request  # type: ignore[import-untyped]
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from ._state import Grant, SandboxState, Window

ErrorBody = Callable[[int, str], dict[str, Any]]
Handler = Callable[[Request, Grant], Awaitable[Any]]
OAUTH1_CLOCK_SKEW_S = 300


@dataclass(frozen=True, slots=True)
class Flavor:
    """How one provider words its errors and announces its quota."""

    provider: str
    error_body: ErrorBody
    quota_headers: Callable[[list[Window], float], dict[str, str]]


def generic_quota_headers(windows: list[Window], now: float) -> dict[str, str]:
    w = windows[0]
    return {
        "X-RateLimit-Limit": str(w.limit),
        "X-RateLimit-Remaining": str(max(0, w.limit - w.used)),
        "X-RateLimit-Reset": str(math.ceil(w.resets_at())),
    }


def bearer_of(request: Request) -> str | None:
    header = request.headers.get("authorization", "")
    scheme, _, value = header.partition(" ")
    return value.strip() or None if scheme.lower() == "bearer" else None


class _Secret:
    """Adapts our secrets to what Authlib's verifier asks of client and credential."""

    def __init__(self, secret: str | None) -> None:
        self._secret = secret

    def get_client_secret(self) -> str | None:
        return self._secret

    def get_oauth_token_secret(self) -> str | None:
        return self._secret


async def verify_oauth1(
    state: SandboxState, request: Request, token_secret_of: Callable[[str | None], str | None]
) -> OAuth1Request | None:
    """An RFC 5849 HMAC-SHA1 check of the request, with timestamp window and nonce replay."""
    body = await request.body()
    headers = {"Authorization": request.headers.get("authorization", "")}
    if request.headers.get("content-type", "").startswith("application/x-www-form-urlencoded"):
        headers["Content-Type"] = "application/x-www-form-urlencoded"
    headers["Host"] = request.headers.get("host", "")
    try:
        oauth = OAuth1Request(request.method, str(request.url), body.decode() or None, headers)
    except (ValueError, OAuth1Error):  # malformed or duplicated parameters: not signed
        return None
    client_secret = state.clients.get(oauth.client_id or "")
    if client_secret is None or oauth.signature_method != "HMAC-SHA1":
        return None
    oauth.client = _Secret(client_secret)
    oauth.credential = _Secret(token_secret_of(oauth.token))
    try:
        timestamp = int(oauth.timestamp or "")
    except ValueError:
        return None
    nonce = oauth.oauth_params.get("oauth_nonce", "")
    if abs(state.clock() - timestamp) > OAUTH1_CLOCK_SKEW_S or not nonce:
        return None
    if (oauth.client_id, nonce) in state.seen_nonces or not verify_hmac_sha1(oauth):
        return None
    state.seen_nonces.add((oauth.client_id, nonce))
    return oauth


async def guard(
    state: SandboxState, flavor: Flavor, request: Request, *, authenticate: bool = True
) -> Grant | Response:
    """Apply injected failures, count the quota, then check the credentials."""
    provider = flavor.provider
    if authenticate and state.latency_s > 0:
        await asyncio.sleep(state.latency_s)
    failure = state.next_failure(provider)
    flag = request.query_params.get("sandbox_fail")
    mode = flag if flag else (failure.mode if failure else None)
    retry_after = failure.retry_after if failure else 1.0
    token = bearer_of(request)
    if mode == "timeout":
        await asyncio.sleep(state.timeout_delay_s)
        return JSONResponse(flavor.error_body(504, "Gateway Timeout"), status_code=504)
    if mode in ("500", "502", "503", "504"):
        status = int(mode)
        return JSONResponse(flavor.error_body(status, "Server Error"), status_code=status)
    if mode == "revoke" and token:
        state.revoke_token(token)
    now = state.clock()
    exhausted = state.consume(provider) if authenticate else None
    quota = flavor.quota_headers(state.windows[provider], now) if authenticate else {}
    if mode == "429" or exhausted is not None:
        wait = retry_after if exhausted is None else max(1, math.ceil(exhausted.resets_at() - now))
        headers = {**quota, "Retry-After": str(math.ceil(wait))}
        return JSONResponse(
            flavor.error_body(429, "Rate Limit Exceeded"), status_code=429, headers=headers
        )
    if not authenticate:
        return Grant(provider, 0, "", "", None, math.inf)
    grant = await _credentials(state, provider, request, token)
    if grant is None:
        return JSONResponse(flavor.error_body(401, "invalid_token"), status_code=401, headers=quota)
    if grant.expires_at <= now:
        return JSONResponse(flavor.error_body(401, "expired_token"), status_code=401, headers=quota)
    request.state.quota_headers = quota
    return grant


async def _credentials(
    state: SandboxState, provider: str, request: Request, token: str | None
) -> Grant | None:
    if token is not None:
        return state.lookup(provider, token)
    if not request.headers.get("authorization", "").lower().startswith("oauth "):
        return None

    def secret_of(oauth_token: str | None) -> str | None:
        grant = state.lookup(provider, oauth_token or "")
        return grant.token_secret if grant and grant.token_secret else None

    oauth = await verify_oauth1(state, request, secret_of)
    if oauth is None:
        return None
    grant = state.lookup(provider, oauth.token or "")
    # The signature check used this grant's secret; compare anyway, in constant time.
    if grant is None or not hmac.compare_digest(grant.access_token, oauth.token or ""):
        return None
    return grant


def endpoint(
    state: SandboxState, flavor: Flavor, handler: Handler
) -> Callable[[Request], Awaitable[Response]]:
    """A Starlette endpoint that guards, runs ``handler`` and serializes its result."""

    async def run(request: Request) -> Response:
        checked = await guard(state, flavor, request)
        if isinstance(checked, Response):
            return checked
        result = await handler(request, checked)
        if isinstance(result, Response):
            result.headers.update(request.state.quota_headers)
            return result
        return JSONResponse(result, headers=request.state.quota_headers)

    return run


def api_getter(state: SandboxState, flavor: Flavor) -> Callable[[str, Handler], Route]:
    """`get(path, handler)`: a guarded GET route of one provider's emulated API."""

    def get(path: str, handler: Handler) -> Route:
        return Route(path, endpoint(state, flavor, handler), methods=["GET"])

    return get

