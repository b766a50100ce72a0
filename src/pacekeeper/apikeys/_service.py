"""API keys: create, list, delete, and authenticate a request's key (KEY-1..7, ACC-8).

A request reads the key and its owner (one indexed query) only when this process has
no entry tagged with the current revocation version (`_revocation.py`): deleting a key
or disabling a user bumps it, so both are still seen at once by every process and by
the CLI. The secret's SHA-256 is compared in constant time on every request. Then the
tier's burst bucket (the shared `RateLimiter`) and the 30-day quota (a `UsageCounter`,
no DB write); with Redis both, and the revocation version, in one round trip.

The default configuration (file signal, memory limiter and counter) has a synchronous
hot path: a warm entry, a memory read of the version, the hash, the bucket, the count,
all without an await or a system call (in `authenticate`). Everything else takes the general
path, with the same checks in the same order.
"""

from __future__ import annotations

import asyncio
import contextlib
import hmac
import mmap
import uuid
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import datetime, timedelta
from hashlib import sha256

from pacekeeper.apikeys import _secret
from pacekeeper.apikeys._cached import CHALLENGE, CachedKey, rejected
from pacekeeper.apikeys._meter import RedisKeyMeter
from pacekeeper.apikeys._revocation import FileRevocationSignal, RevocationSignal
from pacekeeper.apikeys._secret import key_id_of, new_key
from pacekeeper.apikeys._store import ApiKey, ApiKeyRepository, KeyCapReached, KeyCaps
from pacekeeper.apikeys._tiers import (
    BURST_PER_MINUTE,
    QUOTA_WINDOW_DAYS,
    QUOTAS,
    TRIAL_LIFETIME,
    Tier,
)
from pacekeeper.apikeys._usage import MemoryUsageCounter, UsageCounter
from pacekeeper.apikeys._window import DAY_SECONDS, QuotaDecision, day_of
from pacekeeper.auth import Principal
from pacekeeper.errors import ApiError
from pacekeeper.ratelimit import MemoryRateLimiter, RateDecision, RateLimiter

API_KEY_HEADER = "x-api-key"
# Where the public id sits in a well-formed key, `pk_live_<16 hex>_<secret>`: a cheap
# cache probe; the digest comparison then covers the whole text.
_ID = slice(8, 24)
# An id the database did not know is remembered this long (issue 28): a second probe of
# it answers from memory, as a cached known id does, so timing does not tell which ids
# exist. Bounded by `unknown_cache_size` (oldest first out), so probing random ids
# costs memory no more than that.
UNKNOWN_ID_SECONDS = 60.0


class KeyLimitReached(ApiError):
    status = 409
    code = "conflict"


class QuotaExceeded(ApiError):
    status = 429
    code = "quota_exceeded"


@dataclass(frozen=True, slots=True)
class CreatedKey:
    key: ApiKey
    plaintext: str  # shown once, in the creation response only


# Not frozen: one is built per request (a frozen dataclass's __init__ costs about four
# times as much). Treat it as a value.
@dataclass(slots=True)
class KeyCaller:
    """A key-authenticated caller: the key, its owner as a `Principal`, and the limits."""

    key: ApiKey
    principal: Principal
    rate: RateDecision
    quota: QuotaDecision

    def headers(self) -> dict[str, str]:
        values = self.rate.headers()
        values.update(self.quota.headers())
        return values


def _unknown(plaintext: str) -> ApiError:
    """An unknown id is refused after the same verification a wrong secret gets, so the
    answer's timing does not tell which ids exist (finding 15)."""
    _secret.refuse_unknown(plaintext)
    return rejected("unknown API key")


def _rate_limited(key: ApiKey, rate: RateDecision) -> ApiError:
    return ApiError(
        f"rate limit exceeded for this key (tier {key.tier.value}: {rate.limit} per minute)",
        code="rate_limited", status=429, headers=rate.headers(),
    )


def _quota_exceeded(key: ApiKey, rate: RateDecision, quota: QuotaDecision) -> QuotaExceeded:
    return QuotaExceeded(
        f"quota exhausted: {quota.limit} requests per 30 days for tier {key.tier.value}",
        headers={**rate.headers(), **quota.headers(), "Retry-After": str(quota.retry_after)},
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
        unknown_cache_size: int = 10_000,
        meter: RedisKeyMeter | None = None,
        seconds: Callable[[], float] | None = None,
        max_live_keys: int = 10,
        max_trial_keys: int = 2,
    ) -> None:
        """`seconds`: the same time as `clock`, in Unix seconds (e.g. `time.time` for the
        real clock): the hot path then makes no datetime. Default: `clock().timestamp()`."""
        self._meter = meter
        self.max_live_keys = max_live_keys
        self.max_trial_keys = max_trial_keys
        self.store = store
        self.revocations = revocations
        self._cache: dict[str, CachedKey] = {}
        self._cache_size = cache_size
        self._unknown: dict[str, float] = {}  # key id -> until (Unix seconds)
        self._unknown_size = unknown_cache_size
        self.usage = usage
        self._limiter = limiter
        self._clock = clock
        self._seconds = seconds or (lambda: clock().timestamp())
        self._flush_seconds = flush_seconds
        self._flusher: asyncio.Task[None] | None = None
        overrides = dict(burst_overrides or {})
        unknown = set(overrides) - {t.value for t in Tier}
        if unknown:
            raise ValueError(f"burst limits for unknown tiers: {sorted(unknown)}")
        self._burst_overrides = {Tier(name): max(1, n) for name, n in overrides.items()}
        # The synchronous hot path needs a version readable without I/O and in-memory
        # limits; with anything else every request takes the general path.
        self._peek: Callable[[], bytes] | None = None
        self._fast: tuple[mmap.mmap, MemoryRateLimiter, MemoryUsageCounter] | None = None
        if isinstance(revocations, FileRevocationSignal) and meter is None:
            self._peek = revocations.peek
            if isinstance(limiter, MemoryRateLimiter) and isinstance(usage, MemoryUsageCounter):
                self._fast = (revocations.mapping, limiter, usage)
        self._day = (-1, 0.0, 0.0)  # today's number, its first second, the next day's

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
        # Every creation goes through the caps (issue 20, #11), whoever asks.
        caps = KeyCaps(self.max_live_keys, self.max_trial_keys,
                       now - timedelta(days=QUOTA_WINDOW_DAYS))  # fmt: skip
        try:
            await self.store.add(key, caps)
        except KeyCapReached as exc:
            raise KeyLimitReached(str(exc)) from None
        self._unknown.pop(made.key_id, None)  # a random id: known as unknown only by chance
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

    async def _lookup(self, key_id: str, version: str | bytes | None = None
                      ) -> CachedKey | None:
        # The version is read before the database: a bump racing with the read leaves
        # this entry tagged with the old version, so the next request reads again.
        if version is None:
            version = self._peek() if self._peek is not None else await self.revocations.version()
        entry = self._cache.get(key_id)
        if entry is not None and entry.version == version:
            return entry
        until = self._unknown.get(key_id)
        if until is not None:
            if self._seconds() < until:
                return None
            del self._unknown[key_id]
        found = await self.store.lookup(key_id)
        if found is None:
            self._cache.pop(key_id, None)
            if len(self._unknown) >= self._unknown_size:
                self._unknown.pop(next(iter(self._unknown)))  # oldest first
            self._unknown[key_id] = self._seconds() + UNKNOWN_ID_SECONDS
            return None
        if len(self._cache) >= self._cache_size:
            self._cache.pop(next(iter(self._cache)))  # oldest entry first
        tier = found.key.tier
        entry = CachedKey(version, found, self.burst(tier), QUOTAS[tier])
        self._cache[key_id] = entry
        return entry

    def _today(self, now: datetime) -> int:
        """`day_of(now)`; remembers the day's bounds for the hot path."""
        today = day_of(now)
        self._day = (today, float(today * DAY_SECONDS), float((today + 1) * DAY_SECONDS))
        return today

    async def authenticate(self, plaintext: str | None) -> KeyCaller:
        """The caller of this key, or 401 / 429 (KEY-3..7, ACC-8)."""
        if not plaintext:
            raise rejected(None)
        text = plaintext.strip()
        entry = self._cache.get(text[_ID])
        if entry is not None:
            fast = self._fast
            meter = entry.meter
            if fast is not None and meter is not None and entry.version == fast[0][:8]:
                # The hot path, inline on purpose (each call layer costs here): a current
                # entry, the constant-time digest check, then the entry's own bucket and
                # quota window (live handles, no lookups); no await, so check and count
                # are atomic. Anything unusual (a refusal, a new day, a swept bucket)
                # falls through to the general path below, which checks everything
                # again, counts nothing twice and renews the handles.
                seconds = self._seconds()
                if (hmac.compare_digest(sha256(text.encode()).digest(), entry.digest)
                        and entry.usable and seconds < entry.expires):
                    today, start, end = self._day
                    bucket, window = meter
                    if start <= seconds < end and bucket.live:
                        rate = bucket.take(fast[1].clock())
                        key = entry.key
                        if not rate.allowed:
                            raise _rate_limited(key, rate)
                        counted = window.consume(entry.quota, seconds, today)
                        if not counted.allowed:
                            raise _quota_exceeded(key, rate, counted)
                        return KeyCaller(key, entry.principal, rate, counted)
            key_id = entry.key.id
        else:
            found_id = key_id_of(text)
            if found_id is None:  # malformed: no lookup, nothing to time
                raise rejected("unknown API key")
            key_id = found_id
        now = self._clock()
        quota: QuotaDecision | None = None
        if self._meter is not None:
            entry, rate, quota = await self._metered(key_id, text, now)
        else:
            entry = await self._lookup(key_id)
            if entry is None:
                raise _unknown(text)
            entry.check(text, now)
            rate = await self._limiter.hit(entry.bucket, entry.burst)
        key = entry.key
        if not rate.allowed:
            raise _rate_limited(key, rate)
        if quota is None:
            quota = await self.usage.consume(key.id, entry.quota, now)
            if self._fast is not None:
                # Its bucket and quota window exist now: the hot path may count on them.
                entry.meter = (self._fast[1].bucket(entry.bucket, entry.burst),
                               self._fast[2].window(key.id))
                self._today(now)  # and the hot path knows today's bounds
        if not quota.allowed:
            raise _quota_exceeded(key, rate, quota)
        return KeyCaller(key, entry.principal, rate, quota)

    async def _metered(self, key_id: str, plaintext: str, now: datetime
                       ) -> tuple[CachedKey, RateDecision, QuotaDecision | None]:
        """Redis: check against this process's entry, then one round trip for the rest."""
        assert self._meter is not None
        cached = self._cache.get(key_id)
        entry = cached if cached is not None else await self._lookup(key_id)
        if entry is None:
            raise _unknown(plaintext)
        entry.check(plaintext, now)
        metered = await self._meter.meter(key_id, entry.burst, entry.quota, now)
        if cached is not None and metered.version != cached.version:
            # Something was revoked since this entry was read: read again, check again.
            entry = await self._lookup(key_id, metered.version)
            if entry is None:
                raise _unknown(plaintext)
            entry.check(plaintext, now)
        return entry, metered.rate, metered.quota



__all__ = [
    "API_KEY_HEADER",
    "CHALLENGE",
    "ApiKeyService",
    "CreatedKey",
    "KeyCaller",
    "KeyLimitReached",
    "QuotaExceeded",
    "rejected",
]
