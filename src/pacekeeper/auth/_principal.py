"""The one principal resolver (JWT-4, JWT-10, ACC-8) used by every HTTP route and /mcp.

Order: the `auth_token` cookie when present, else `Authorization: Bearer`. A cookie
caller on a state-changing method must then pass the one CSRF check.

Disabling is immediate (ACC-8), also across processes and from the CLI: the token
itself comes from the verified-token cache, and the user's status and token version
(one primary-key lookup, joined with the tenant's rate limit which that request needs
anyway) are read from the database, or from a cache that holds only while the
cross-process revocation signal stands still (`_state_cache`). A disable commits, then
moves the signal, before it returns, so every later request in every process sees it.
A TTL cache of the status would leave a window; an in-memory flag would miss other
processes.

OAuth access tokens name their grant (claim `fid`): when the grant has been revoked
(RFC 7009, refresh-token reuse, a replayed code, a disabled user's grant) the token is
"invalid token" like any other, at once and in every process. The question is answered
by the same kind of signal-versioned cache (no database read while nothing changes);
tokens without `fid` (login JWTs) skip it. A token ended by logout (`end_session`)
is refused by its `jti` the same way (finding 13).

The hot path of a known token (issue 19) repeats no work it can keep: the verified
token's cache entry (keyed by the token's SHA-256, never the token) also holds the
tenant bucket's handle, so a request takes from the bucket without building its key or
looking it up; what may change per request (status, revocations, the tenant's limit, the
bucket's tokens) is still asked every time, exactly as above.
"""

from __future__ import annotations

import uuid
from collections.abc import Collection, Mapping
from typing import Literal, NamedTuple

from starlette.requests import cookie_parser

from pacekeeper.auth._cookies import AUTH_COOKIE, CSRF_COOKIE
from pacekeeper.auth._csrf import CSRF_HEADER, CsrfService
from pacekeeper.auth._state_cache import (
    CachedCallerStates,
    CallerStates,
    DirectCallerStates,
    TokenRevocations,
)
from pacekeeper.auth._tokens import Claims, TokenInvalid, TokenService, Verified
from pacekeeper.db import Role, UserRepository, UserStatus
from pacekeeper.errors import (
    AUTHENTICATION_REQUIRED,
    INVALID_TOKEN,
    RateLimited,
    Unauthenticated,
)
from pacekeeper.ratelimit import Bucket, MemoryRateLimiter, RateDecision, RateLimiter


class Principal(NamedTuple):
    """Who is calling, as the one resolver found them; immutable.

    A named tuple rather than a frozen dataclass: one is built per authenticated request,
    and a frozen dataclass's `__init__` (a guarded `object.__setattr__` per field) cost
    three times as much (issue 19). Build it with keywords or positions; change a copy
    with `_replace`.
    """

    user_id: uuid.UUID
    tenant_id: uuid.UUID
    email: str
    role: Role
    via: Literal["cookie", "bearer", "api_key"]
    claims: Claims
    token: str
    rate: RateDecision | None = None
    # True when resolved as a WebSocket or SSE stream opened: every call on the stream
    # re-checks it (pacekeeper.mcp._caller). A POST's principal is this request's own.
    stream: bool = False
    # True for the person's own HTTP API calling a tool in process (an analysis twin):
    # they see all of their data; any other tool call is an assistant's (issue 31).
    direct: bool = False

    @property
    def is_admin(self) -> bool:
        return self.role is Role.ADMIN

    @property
    def mcp_subject(self) -> str:
        """Whose MCP tasks and round-trip states these are (mcpcast's `principal_key`):
        the person and, for an OAuth access token, its client. Two assistants of one
        person do not see each other's tasks (issue 28: keyed by the person alone, one
        assistant's read token read and cancelled another's write task)."""
        client = self.claims.client_id
        return str(self.user_id) if client is None else f"{self.user_id}:{client}"


class PrincipalResolver:
    def __init__(
        self,
        tokens: TokenService,
        users: UserRepository,
        csrf: CsrfService,
        limiter: RateLimiter,
        default_tenant_limit: int,
        resource_metadata_url: str,
        audiences: Collection[str] = (),
        states: CallerStates | None = None,
        revocations: TokenRevocations | None = None,
    ) -> None:
        self._tokens = tokens
        self._users = users
        self._states: CallerStates = states or DirectCallerStates(users)
        # The cached states' synchronous answer, tried first (no coroutine per request).
        self._known = self._states.known_state if isinstance(
            self._states, CachedCallerStates) else None
        self._revocations = revocations
        self._csrf = csrf
        self._limiter = limiter
        # In-process buckets can be held as handles (`_take`); Redis is asked each time.
        self._memory = limiter if isinstance(limiter, MemoryRateLimiter) else None
        self._default_limit = default_tenant_limit
        self._audiences = tuple(audiences)
        self._challenge = f'Bearer resource_metadata="{resource_metadata_url}"'

    def unauthenticated(self, invalid: bool) -> Unauthenticated:
        """The 401 for missing (`invalid=False`) or rejected credentials (ERR-2)."""
        if invalid:
            return Unauthenticated(
                INVALID_TOKEN,
                code="invalid_token",
                www_authenticate=f'{self._challenge}, error="invalid_token", '
                'error_description="invalid token"',
            )
        return Unauthenticated(
            AUTHENTICATION_REQUIRED,
            code="authentication_required",
            www_authenticate=self._challenge,
        )

    @staticmethod
    def credential(headers: Mapping[str, str]) -> tuple[str, Literal["cookie", "bearer"]] | None:
        """The token to check and where it came from (cookie first), or None."""
        cookie = headers.get("cookie")
        if cookie:
            cookie_token = cookie_parser(cookie).get(AUTH_COOKIE, "")
            if cookie_token:
                return cookie_token, "cookie"
        scheme, _, value = headers.get("authorization", "").strip().partition(" ")
        if scheme.lower() == "bearer" and value.strip():
            return value.strip(), "bearer"
        return None

    async def resolve(self, headers: Mapping[str, str], *, delegated: bool = False,
                      charge: bool = True) -> Principal | None:
        """The caller's principal; None without credentials; 401 invalid token otherwise.

        OAuth 2.0 access tokens (they carry ``scope``) were delegated to an MCP client
        for the MCP endpoint only: elsewhere (``delegated=False``) they are invalid, so
        a client can never trade one for a full session (``/api/auth/refresh``).
        ``charge=False`` takes nothing from the tenant's bucket (``rate`` is None): the
        checks of a credential already in use, e.g. an open live feed's (no request).
        """
        found = self.credential(headers)
        if found is None:
            return None
        token, via = found
        entry = self._tokens.cached(token, self._audiences)
        if entry is None:
            try:
                entry = await self._tokens.verified(token, self._audiences)
            except TokenInvalid:
                raise self.unauthenticated(invalid=True) from None
        claims = entry.claims
        if claims.scope is not None and not delegated:
            raise self.unauthenticated(invalid=True)
        known = self._known(claims.sub, claims.fid, claims.jti) if self._known else None
        if known is None:
            known = await self._states.caller_state(claims.sub, claims.fid, claims.jti)
        state, revoked = known
        if (
            revoked
            or state is None
            or state.status is not UserStatus.ACTIVE
            or state.token_version != claims.ver
        ):
            raise self.unauthenticated(invalid=True)
        limit = state.tenant_rate_limit_per_minute or self._default_limit
        if not charge:
            rate = None
        elif self._memory is not None:
            rate = self._take(entry, self._memory, limit)
        else:
            rate = await self._limiter.hit(_tenant_bucket(claims.tenant_id), limit)
        return Principal(
            claims.sub, claims.tenant_id, claims.email, claims.role, via, claims, token, rate
        )

    @staticmethod
    def _take(entry: Verified, memory: MemoryRateLimiter, limit: int) -> RateDecision:
        """One token from the tenant's in-process bucket, through the handle kept on the
        token's cache entry; the limiter's own lookup when there is none yet, or the
        limiter swept it, or the tenant's limit changed (it resizes the bucket)."""
        bucket: Bucket | None = entry.extra
        if bucket is None or not bucket.live or bucket.capacity != max(limit, 1):
            bucket = entry.extra = memory.bucket(_tenant_bucket(entry.claims.tenant_id), limit)
        return bucket.take(memory.clock())

    async def end_session(self, headers: Mapping[str, str]) -> None:
        """Logout: revoke the token this request carries (cookie first, else bearer), so it
        is "invalid token" from now on in every process (finding 13). A token that does
        not verify is left alone: it is refused anyway, and only our own valid tokens
        are recorded (nobody can fill the table with made-up ids)."""
        found = self.credential(headers)
        if found is None or self._revocations is None:
            return
        try:
            claims = await self._tokens.verify(found[0], self._audiences)
        except TokenInvalid:
            return
        await self._revocations.revoke(claims.jti, claims.expires_at)

    async def charge(self, principal: Principal, cost: int) -> RateDecision:
        """Take `cost` more tokens from the tenant's bucket (a batch's further requests)."""
        limit = principal.rate.limit if principal.rate is not None else self._default_limit
        return await self._limiter.hit(_tenant_bucket(principal.tenant_id), limit, cost)

    async def require(self, method: str, headers: Mapping[str, str]) -> Principal:
        """Resolve, insist on credentials, enforce CSRF for cookies, then the tenant limit."""
        principal = await self.resolve(headers)
        if principal is None:
            raise self.unauthenticated(invalid=False)
        await self.enforce(method, headers, principal)
        return principal

    async def check_csrf(
        self, method: str, headers: Mapping[str, str], principal: Principal
    ) -> None:
        """The one CSRF check, for cookie callers (bearer callers are not exposed to CSRF)."""
        if principal.via == "cookie":
            cookies = cookie_parser(headers.get("cookie", ""))
            await self._csrf.check(
                method, cookies.get(CSRF_COOKIE), headers.get(CSRF_HEADER), principal.user_id
            )

    async def enforce(self, method: str, headers: Mapping[str, str], principal: Principal) -> None:
        """CSRF for cookie callers, then the tenant's rate limit."""
        await self.check_csrf(method, headers, principal)
        if principal.rate is not None and not principal.rate.allowed:
            raise RateLimited(
                "rate limit exceeded for this tenant", headers=principal.rate.headers()
            )


def _tenant_bucket(tenant_id: uuid.UUID) -> str:
    return f"tenant:{tenant_id}"


__all__ = ["Principal", "PrincipalResolver"]
