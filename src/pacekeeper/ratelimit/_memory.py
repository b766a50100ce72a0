"""In-process token buckets (one event loop: each `hit` runs without an await, so atomic).

`hit_now` is the same check as a plain function: callers on a hot path that know the
backend is in memory (the API key check) skip a coroutine per request; such a caller may
also hold a key's `Bucket` and `take` from it directly, skipping the lookup.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable

from pacekeeper.ratelimit._protocol import RateDecision

_SWEEP_EVERY = 4096


class Bucket:
    """One key's bucket, updated in place (no tuple per hit).

    A caller that hits the same key on every request (the API key check) may keep the
    handle from `MemoryRateLimiter.bucket` and call `take` itself, skipping the lookup,
    as long as `live` holds: a swept bucket is no longer the limiter's.
    """

    __slots__ = ("capacity", "live", "rate", "tokens", "updated")

    def __init__(self, tokens: float, updated: float, capacity: int) -> None:
        self.tokens = tokens
        self.updated = updated
        self.capacity = capacity
        self.rate = capacity / 60.0  # tokens per second
        self.live = True

    def resize(self, capacity: int) -> None:
        """A new limit: keep the used share, not the count."""
        self.tokens = self.tokens * capacity / self.capacity
        self.capacity = capacity
        self.rate = capacity / 60.0

    def take(self, now: float, cost: int = 1) -> RateDecision:
        """Refill up to `now`, then take `cost` tokens if there are that many."""
        capacity, rate = self.capacity, self.rate
        tokens = self.tokens
        if now > self.updated:
            tokens += (now - self.updated) * rate
            if tokens > capacity:
                tokens = capacity
        self.updated = now
        # tokens >= 0 throughout, so int() is floor().
        if tokens >= cost:
            tokens -= cost
            self.tokens = tokens
            return RateDecision(True, capacity, int(tokens),
                                math.ceil(now + (capacity - tokens) / rate), 0)
        self.tokens = tokens
        return RateDecision(False, capacity, int(tokens),
                            math.ceil(now + (capacity - tokens) / rate),
                            max(1, math.ceil((cost - tokens) / rate)))


class MemoryRateLimiter:
    def __init__(self, clock: Callable[[], float] = time.time) -> None:
        self.clock = clock
        self._buckets: dict[str, Bucket] = {}
        self._hits = 0

    async def hit(self, key: str, limit_per_minute: int, cost: int = 1) -> RateDecision:
        return self.hit_now(key, limit_per_minute, cost)

    def bucket(self, key: str, limit_per_minute: int) -> Bucket:
        """The live bucket of `key` at this limit, made full if there is none."""
        capacity = limit_per_minute if limit_per_minute > 1 else 1
        bucket = self._buckets.get(key)
        if bucket is None:
            bucket = self._buckets[key] = Bucket(capacity, self.clock(), capacity)
        elif bucket.capacity != capacity:
            bucket.resize(capacity)
        return bucket

    def hit_now(self, key: str, limit_per_minute: int, cost: int = 1) -> RateDecision:
        now = self.clock()
        decision = self.bucket(key, limit_per_minute).take(now, cost)
        self._hits += 1
        if self._hits >= _SWEEP_EVERY:
            self._sweep(now)
        return decision

    def _sweep(self, now: float) -> None:
        # Forget buckets that have refilled completely: they carry no information.
        self._hits = 0
        full = [
            key
            for key, b in self._buckets.items()
            if b.tokens + (now - b.updated) * b.rate >= b.capacity
        ]
        for key in full:
            self._buckets.pop(key).live = False


__all__ = ["Bucket", "MemoryRateLimiter"]
