"""In-process token buckets (one event loop: each `hit` runs without an await, so atomic).

`hit_now` is the same check as a plain function: callers on a hot path that know the
backend is in memory (the API key check) skip a coroutine per request.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable

from pacekeeper.ratelimit._protocol import RateDecision

_SWEEP_EVERY = 4096


class _Bucket:
    """One key's bucket, updated in place (no tuple per hit)."""

    __slots__ = ("capacity", "tokens", "updated")

    def __init__(self, tokens: float, updated: float, capacity: int) -> None:
        self.tokens = tokens
        self.updated = updated
        self.capacity = capacity


class MemoryRateLimiter:
    def __init__(self, clock: Callable[[], float] = time.time) -> None:
        self._clock = clock
        self._buckets: dict[str, _Bucket] = {}
        self._hits = 0

    async def hit(self, key: str, limit_per_minute: int, cost: int = 1) -> RateDecision:
        return self.hit_now(key, limit_per_minute, cost)

    def hit_now(self, key: str, limit_per_minute: int, cost: int = 1) -> RateDecision:
        now = self._clock()
        capacity = limit_per_minute if limit_per_minute > 1 else 1
        rate = capacity / 60.0
        bucket = self._buckets.get(key)
        if bucket is None:
            bucket = self._buckets[key] = _Bucket(capacity, now, capacity)
        elif bucket.capacity != capacity:  # limit changed: keep the used share, not the count
            bucket.tokens = bucket.tokens * capacity / bucket.capacity
            bucket.capacity = capacity
        tokens = bucket.tokens
        if now > bucket.updated:
            tokens += (now - bucket.updated) * rate
            if tokens > capacity:
                tokens = capacity
        allowed = tokens >= cost
        if allowed:
            tokens -= cost
        bucket.tokens = tokens
        bucket.updated = now
        self._hits += 1
        if self._hits >= _SWEEP_EVERY:
            self._sweep(now)
        # tokens >= 0 here, so int() is floor().
        if allowed:
            return RateDecision(True, capacity, int(tokens),
                                math.ceil(now + (capacity - tokens) / rate), 0)
        return RateDecision(False, capacity, int(tokens),
                            math.ceil(now + (capacity - tokens) / rate),
                            max(1, math.ceil((cost - tokens) / rate)))

    def _sweep(self, now: float) -> None:
        # Forget buckets that have refilled completely: they carry no information.
        self._hits = 0
        full = [
            key
            for key, b in self._buckets.items()
            if b.tokens + (now - b.updated) * b.capacity / 60.0 >= b.capacity
        ]
        for key in full:
            del self._buckets[key]


__all__ = ["MemoryRateLimiter"]
