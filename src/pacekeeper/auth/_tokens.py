"""Issuing and verifying the service's JWTs (JWT-1, JWT-2, JWT-3, JWT-5).

Verification trusts nothing from the token header except to *look up* a key: the
algorithm must be the configured one (so `none` and HS256-with-the-RSA-public-key are
refused), the `kid` must name a key that is still usable, and only then does PyJWT check
the signature. Time checks use the service clock (one source of time for tests).

Verified tokens are cached by SHA-256 digest until they expire, so the hot path skips
the RSA work; a cache hit still re-checks expiry and that its key is still usable. The
cache never holds a raw token: its key is the digest, its value the claims (`Verified`)
plus what the principal resolver keeps beside them (the tenant's bucket handle). The
user's status is NOT cached here: the principal resolver asks for it on every request
(`_state_cache`: cached only while the revocation signal stands still).
"""

from __future__ import annotations

import logging
import secrets
import uuid
from collections import OrderedDict
from collections.abc import Callable, Collection
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from hashlib import sha256
from typing import Any

import jwt

from pacekeeper.auth._keystore import KeyStore
from pacekeeper.config import Settings
from pacekeeper.db import Role, User
from pacekeeper.errors import PacekeeperError

log = logging.getLogger("pacekeeper.tokens")
_MAX_TOKEN_CHARS = 8192
_IAT_LEEWAY_SECONDS = 60


class TokenInvalid(PacekeeperError):
    """The token failed verification; the reason is for logs, never for the client."""


@dataclass(frozen=True, slots=True)
class Claims:
    sub: uuid.UUID
    tenant_id: uuid.UUID
    email: str
    role: Role
    iat: int
    exp: int
    jti: str
    ver: int
    kid: str
    aud: tuple[str, ...]
    # OAuth 2.0 access tokens carry the granted scopes; login JWTs carry none (None).
    scope: tuple[str, ...] | None = None
    # OAuth 2.0 access tokens also name their grant: `fid` (the refresh-token family, so
    # revoking the grant refuses its access tokens too) and `client_id` (RFC 9068).
    fid: uuid.UUID | None = None
    client_id: str | None = None

    @property
    def expires_at(self) -> datetime:
        return datetime.fromtimestamp(self.exp, UTC)


class Verified:
    """One verified token's cache entry: its claims, and a slot the principal resolver
    fills with its own per-token state (the tenant bucket's handle), so a request of a
    known token looks nothing up twice. Lives as long as the entry: expiry, an unusable
    key or eviction drops both."""

    __slots__ = ("audiences", "claims", "extra")

    def __init__(self, claims: Claims) -> None:
        self.claims = claims
        self.extra: Any = None
        # The last `audiences` this token was found to be for (the resolver passes the
        # same tuple every time): the audience check is then an identity test.
        self.audiences: Collection[str] | None = None


@dataclass(frozen=True, slots=True)
class IssuedToken:
    token: str
    expires_at: datetime
    jti: str


class TokenService:
    def __init__(
        self,
        keystore: KeyStore,
        settings: Settings,
        clock: Callable[[], datetime],
        cache_size: int = 10_000,
        seconds: Callable[[], float] | None = None,
    ) -> None:
        """`seconds`: the same time as `clock`, in Unix seconds (e.g. `time.time` for the
        real clock): the hot path (`cached`) then makes no datetime. Default:
        `clock().timestamp()`."""
        self._keys = keystore
        self._issuer = settings.issuer
        self._lifetime = timedelta(seconds=settings.jwt_lifetime_seconds)
        self._clock = clock
        self._seconds = seconds or (lambda: clock().timestamp())
        self._cache: OrderedDict[bytes, Verified] = OrderedDict()
        self._cache_size = cache_size

    def issue(
        self,
        user: User,
        audience: str | None = None,
        *,
        scope: str | None = None,
        lifetime: timedelta | None = None,
        family: uuid.UUID | None = None,
        client_id: str | None = None,
    ) -> IssuedToken:
        """A signed JWT; `scope`, a shorter `lifetime`, the grant's `family` (claim `fid`)
        and `client_id` are for OAuth access tokens."""
        now = self._clock()
        expires_at = now + (lifetime or self._lifetime)
        key = self._keys.signing_key()
        jti = secrets.token_urlsafe(16)
        payload: dict[str, Any] = {
            "iss": self._issuer,
            "sub": str(user.id),
            "tenant_id": str(user.tenant_id),
            "email": user.email,
            "role": user.role.value,
            "iat": int(now.timestamp()),
            "exp": int(expires_at.timestamp()),
            "jti": jti,
            "ver": user.token_version,
        }
        if audience is not None:
            payload["aud"] = audience
        if scope is not None:
            payload["scope"] = scope
        if family is not None:
            payload["fid"] = str(family)
        if client_id is not None:
            payload["client_id"] = client_id
        token = jwt.encode(
            payload, key.signing_key, algorithm=key.alg, headers={"kid": key.kid, "typ": "JWT"}
        )
        return IssuedToken(token, datetime.fromtimestamp(payload["exp"], UTC), jti)

    async def verify(self, token: str, audiences: Collection[str] = ()) -> Claims:
        """Claims of a valid token; TokenInvalid otherwise.

        A token with an `aud` claim is accepted only when one of its audiences is in
        `audiences` (RFC 8707: a token for another resource is refused).
        """
        return (await self.verified(token, audiences)).claims

    def cached(self, token: str, audiences: Collection[str] = ()) -> Verified | None:
        """The hot path of `verified`, without a coroutine: the cache entry of a token
        verified before, still unexpired, signed by a usable key and for one of
        `audiences`; None otherwise (then `verified` decides, and says why)."""
        if not token or len(token) > _MAX_TOKEN_CHARS:
            return None
        digest = sha256(token.encode("utf-8", "surrogatepass")).digest()
        entry = self._cache.get(digest)
        if entry is None:
            return None
        claims = entry.claims
        now = self._seconds()
        if claims.exp <= now or self._keys.kid_usable_until(claims.kid) <= now:
            return None
        if claims.aud and entry.audiences is not audiences:
            if not set(claims.aud) & set(audiences):
                return None
            entry.audiences = audiences
        self._cache.move_to_end(digest)
        return entry

    async def verified(self, token: str, audiences: Collection[str] = ()) -> Verified:
        """`verify`, giving the cache entry (claims and the resolver's slot)."""
        if not token or len(token) > _MAX_TOKEN_CHARS:
            raise TokenInvalid("empty or oversized token")
        digest = sha256(token.encode("utf-8", "surrogatepass")).digest()
        now = int(self._clock().timestamp())
        entry = self._cache.get(digest)
        if entry is not None and entry.claims.exp > now and self._keys.kid_usable(
                entry.claims.kid):
            self._cache.move_to_end(digest)
        else:
            self._cache.pop(digest, None)
            entry = Verified(await self._verify_uncached(token, now))
            self._cache[digest] = entry
            if len(self._cache) > self._cache_size:
                self._cache.popitem(last=False)
        claims = entry.claims
        if claims.aud and not set(claims.aud) & set(audiences):
            raise TokenInvalid("audience not accepted")
        return entry

    async def _verify_uncached(self, token: str, now: int) -> Claims:
        try:
            header = jwt.get_unverified_header(token)
        except (jwt.PyJWTError, UnicodeEncodeError) as exc:  # a lone surrogate: not UTF-8
            raise TokenInvalid(f"malformed header: {type(exc).__name__}") from None
        alg, kid = header.get("alg"), header.get("kid")
        if alg != self._keys.algorithm:
            raise TokenInvalid(f"algorithm {alg!r} not accepted")
        if not isinstance(kid, str) or not kid:
            raise TokenInvalid("missing kid")
        key = await self._keys.verifying_key(kid)
        if key is None:
            raise TokenInvalid("unknown or expired kid")
        try:
            payload = jwt.decode(
                token,
                key.verifying_key,
                algorithms=[key.alg],
                issuer=self._issuer,
                options={
                    "require": ["exp", "iat", "sub", "jti", "iss"],
                    "verify_exp": False,
                    "verify_iat": False,
                    "verify_nbf": False,
                    "verify_aud": False,
                },
            )
        except jwt.PyJWTError as exc:
            raise TokenInvalid(f"rejected: {type(exc).__name__}") from None
        claims = _claims(payload, kid)
        if claims.exp <= now:
            raise TokenInvalid("expired")
        if claims.iat > now + _IAT_LEEWAY_SECONDS:
            raise TokenInvalid("issued in the future")
        return claims


def _claims(payload: dict[str, Any], kid: str) -> Claims:
    try:
        aud = payload.get("aud", ())
        audiences = (aud,) if isinstance(aud, str) else tuple(str(a) for a in aud)
        exp, iat, ver = payload["exp"], payload["iat"], payload.get("ver", 0)
        scope = payload.get("scope")
        if scope is not None and not isinstance(scope, str):
            raise TypeError("scope must be a string")
        fid, client_id = payload.get("fid"), payload.get("client_id")
        if fid is not None and not isinstance(fid, str):
            raise TypeError("fid must be a string")
        if client_id is not None and not isinstance(client_id, str):
            raise TypeError("client_id must be a string")
        if not all(type(v) is int for v in (exp, iat, ver)):
            raise TypeError("numeric claims must be integers")
        return Claims(
            sub=uuid.UUID(str(payload["sub"])),
            tenant_id=uuid.UUID(str(payload["tenant_id"])),
            email=str(payload["email"]),
            role=Role(payload["role"]),
            iat=iat,
            exp=exp,
            jti=str(payload["jti"]),
            ver=ver,
            kid=kid,
            aud=audiences,
            scope=tuple(scope.split()) if scope is not None else None,
            fid=uuid.UUID(fid) if fid is not None else None,
            client_id=client_id,
        )
    except (KeyError, TypeError, ValueError):
        raise TokenInvalid("claims missing or malformed") from None


__all__ = ["Claims", "IssuedToken", "TokenInvalid", "TokenService", "Verified"]
