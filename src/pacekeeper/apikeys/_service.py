"""API keys: create, list, delete, and authenticate a request's key (KEY-1..7, ACC-8).

A request reads the key and its owner (one indexed query) only when this process has
no copy tagged with the current revocation version (`_revocation.py`): deleting a key
or disabling a user bumps it, so both are still seen at once by every process and by
the CLI. The secret's SHA-256 is compared in constant time on every request. Then the
tier's burst bucket (the shared `RateLimiter`) and the 30-day quota (a `UsageCounter`,
no DB write).
"""

from __future__ import annotations

import asyncio
import contextlib
import uuid
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import datetime

from pacekeeper.apikeys._meter import RedisKeyMeter
from pacekeeper.apikeys._revocation import RevocationSignal
from pacekeeper.apikeys._secret import key_id_of, matches, new_key
from pacekeeper.apikeys._store import ApiKey, ApiKeyRepository, KeyLookup
from pacekeeper.apikeys._tiers import BURST_PER_MINUTE, QUOTAS, TRIAL_LIFETIME, Tier
from pacekeeper.apikeys._usage import UsageCounter
from pacekeeper.apikeys._window import QuotaDecision
from pacekeeper.auth import Claims, Principal
from pacekeeper.db import UserStatus
from pacekeeper.errors import AUTHENTICATION_REQUIRED, INVALID_TOKEN, ApiError, Unauthenticated
from pacekeeper.ratelimit import RateDecision, RateLimiter

API_KEY_HEADER = "x-api-key"
CHALLENGE = 'ApiKey realm="pacekeeper", header="X-API-Key"'


class QuotaExceeded(ApiError):
    status = 429
    code = "quota_exceeded"


@dataclass(frozen=True, slots=True)
class CreatedKey:
    key: ApiKey
    plaintext: str  # shown once, in the creation response only


@dataclass(frozen=True, slots=True)
class KeyCaller:
    """A key-authenticated caller: the key, its owner as a `Principal`, and the limits."""

    key: ApiKey
    principal: Principal
    rate: RateDecision
    quota: QuotaDecision

    def headers(self) -> dict[str, str]:
        return {**self.rate.headers(), **self.quota.headers()}


def rejected(reason: str | None) -> Unauthenticated:
    """401 with `WWW-Authenticate: ApiKey ...` (ERR-2); no reason: no key was sent."""
    if reason is None:
        return Unauthenticated(
            AUTHENTICATION_REQUIRED, code="authentication_required", www_authenticate=CHALLENGE
        )
    return Unauthenticated(
        f"{INVALID_TOKEN}: {reason}",
        code="invalid_token",
        www_authenticate=f'{CHALLENGE}, error="invalid_token"',
    )


def _claims(found: KeyLookup) -> Claims:
    """JWT-shaped claims for a key's owner, so tools see one `Principal` type.

    `jti` names the key; `exp` is the key's expiry (0: none); `kid` is empty (no token).
    """
    key = found.key
    return Claims(
        sub=key.user_id, tenant_id=found.owner_tenant_id, email=found.owner_email,
        role=found.owner_role, iat=int(key.created_at.timestamp()),
        exp=int(key.expires_at.timestamp()) if key.expires_at else 0,
        jti=f"apikey:{key.id}", ver=found.owner_token_version, kid="", aud=(),
    )


class ApiKeyService:
    def __init__(
        self,
        store: ApiKeyRepository,
        usage: UsageCounter,
        limiter: RateLimiter,
        clock: Callable[[], datetime],
        revocations: RevocationSignal,
        flush_seconds: float = 5.0,
        burst_overrides: Mapping[str, int] | None = None,
        cache_size: int = 10_000,
        meter: RedisKeyMeter | None = None,
    ) -> None:
        self._meter = meter
        self.store = store
        self.revocations = revocations
        self._cache: dict[str, tuple[str, KeyLookup, Claims]] = {}
        self._cache_size = cache_size
        self.usage = usage
        self._limiter = limiter
        self._clock = clock
        self._flush_seconds = flush_seconds
        self._flusher: asyncio.Task[None] | None = None
        overrides = dict(burst_overrides or {})
        unknown = set(overrides) - {t.value for t in Tier}
        if unknown:
            raise ValueError(f"burst limits for unknown tiers: {sorted(unknown)}")
        self._burst_overrides = {Tier(name): max(1, n) for name, n in overrides.items()}

    def burst(self, tier: Tier) -> int:
        """Token-bucket capacity per minute for keys of `tier` (configurable per tier)."""
        return self._burst_overrides.get(tier, BURST_PER_MINUTE[tier])

    async def start(self) -> None:
        self._flusher = asyncio.create_task(self._flush_loop())

    async def _flush_loop(self) -> None:
        while True:
            await asyncio.sleep(self._flush_seconds)
            with contextlib.suppress(Exception):  # PendingUsage keeps the deltas; retried
                await self.usage.flush()

    async def close(self) -> None:
        if self._flusher is not None:
            self._flusher.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._flusher
        await self.usage.flush()

    async def create(self, user_id: uuid.UUID, name: str, tier: Tier) -> CreatedKey:
        now = self._clock()
        made = new_key()
        expires_at = now + TRIAL_LIFETIME if tier is Tier.TRIAL else None
        key = ApiKey(made.key_id, user_id, name, tier, made.digest, now, expires_at, None, None)
        await self.store.add(key)
        return CreatedKey(key, made.plaintext)

    async def list_for(self, user_id: uuid.UUID) -> list[tuple[ApiKey, int]]:
        keys = await self.store.list_for_user(user_id)
        used = await self.usage.used([k.id for k in keys], self._clock())
        return [(key, used[key.id]) for key in keys]

    async def get(self, key_id: str) -> ApiKey | None:
        return await self.store.get(key_id)

    async def delete(self, key_id: str) -> bool:
        deleted = await self.store.mark_deleted(key_id, self._clock())
        await self.revocations.bump()  # every process drops its cached copies
        return deleted

    async def _lookup(self, key_id: str, version: str | None = None
                      ) -> tuple[KeyLookup, Claims] | None:
        # The version is read before the database: a bump racing with the read leaves
        # this copy tagged with the old version, so the next request reads again.
        if version is None:
            version = await self.revocations.version()
        cached = self._cache.get(key_id)
        if cached is not None and cached[0] == version:
            return cached[1], cached[2]
        found = await self.store.lookup(key_id)
        if found is None:
            self._cache.pop(key_id, None)  # unknown ids are never cached (no flooding)
            return None
        if len(self._cache) >= self._cache_size:
            self._cache.pop(next(iter(self._cache)))  # oldest entry first
        claims = _claims(found)
        self._cache[key_id] = (version, found, claims)
        return found, claims

    def _check(self, looked_up: tuple[KeyLookup, Claims] | None, plaintext: str,
               now: datetime) -> tuple[KeyLookup, Claims]:
        """401 unless the secret matches and key and owner are usable (KEY-3/5/7, ACC-8)."""
        if looked_up is None or not matches(plaintext, looked_up[0].key.secret_hash):
            raise rejected("unknown API key")
        found, key = looked_up[0], looked_up[0].key
        if key.deleted_at is not None:
            raise rejected("API key deleted")
        if key.expires_at is not None and now >= key.expires_at:
            raise rejected("API key expired (trial keys last 14 days)")
        if found.owner_status is not UserStatus.ACTIVE:
            raise rejected("the key's user is disabled")
        return looked_up

    async def _metered(self, key_id: str, plaintext: str, now: datetime
                       ) -> tuple[KeyLookup, Claims, RateDecision, QuotaDecision | None]:
        """Redis: check against this process's copy, then one round trip for the rest."""
        assert self._meter is not None
        cached = self._cache.get(key_id)
        if cached is None:
            found, claims = self._check(await self._lookup(key_id), plaintext, now)
        else:
            found, claims = self._check((cached[1], cached[2]), plaintext, now)
        tier = found.key.tier
        metered = await self._meter.meter(key_id, self.burst(tier), QUOTAS[tier], now)
        if cached is not None and metered.version != cached[0]:
            # Something was revoked since this copy was read: read again, check again.
            found, claims = self._check(
                await self._lookup(key_id, metered.version), plaintext, now
            )
        return found, claims, metered.rate, metered.quota

    async def authenticate(self, plaintext: str | None) -> KeyCaller:
        """The caller of this key, or 401 / 429 (KEY-3..7, ACC-8)."""
        if not plaintext:
            raise rejected(None)
        text = plaintext.strip()
        key_id = key_id_of(text)
        if key_id is None:
            raise rejected("unknown API key")
        now = self._clock()
        quota: QuotaDecision | None = None
        if self._meter is not None:
            found, claims, rate, quota = await self._metered(key_id, text, now)
        else:
            found, claims = self._check(await self._lookup(key_id), text, now)
            rate = await self._limiter.hit(f"apikey:{key_id}", self.burst(found.key.tier))
        key = found.key
        if not rate.allowed:
            raise ApiError(
                f"rate limit exceeded for this key (tier {key.tier.value}: "
                f"{rate.limit} per minute)",
                code="rate_limited", status=429, headers=rate.headers(),
            )
        if quota is None:
            quota = await self.usage.consume(key.id, QUOTAS[key.tier], now)
        if not quota.allowed:
            raise QuotaExceeded(
                f"quota exhausted: {quota.limit} requests per 30 days for tier "
                f"{key.tier.value}",
                headers={**rate.headers(), **quota.headers(),
                         "Retry-After": str(quota.retry_after)},
            )
        principal = Principal(
            key.user_id, found.owner_tenant_id, found.owner_email, found.owner_role,
            "api_key", claims, "", rate,
        )
        return KeyCaller(key, principal, rate, quota)


__all__ = [
    "API_KEY_HEADER",
    "CHALLENGE",
    "ApiKeyService",
    "CreatedKey",
    "KeyCaller",
    "QuotaExceeded",
    "rejected",
]
