"""In-process token buckets (one event loop: each `hit` runs without an await, so atomic)."""

from __future__ import annotations

import math
import time
from collections.abc import Callable

from pacekeeper.ratelimit._protocol import RateDecision

_SWEEP_EVERY = 4096


class MemoryRateLimiter:
    def __init__(self, clock: Callable[[], float] = time.time) -> None:
        self._clock = clock
        # key -> (tokens left, time of last update, capacity)
        self._buckets: dict[str, tuple[float, float, int]] = {}
        self._hits = 0

    async def hit(self, key: str, limit_per_minute: int, cost: int = 1) -> RateDecision:
        now = self._clock()
        capacity = max(1, limit_per_minute)
        rate = capacity / 60.0
        tokens, updated, old_capacity = self._buckets.get(key, (capacity, now, capacity))
        if old_capacity != capacity:  # limit changed: keep the used share, not the count
            tokens = tokens * capacity / old_capacity
        tokens = min(capacity, tokens + max(0.0, now - updated) * rate)
        allowed = tokens >= cost
        if allowed:
            tokens -= cost
        self._buckets[key] = (tokens, now, capacity)
        self._maybe_sweep(now)
        return RateDecision(
            allowed=allowed,
            limit=capacity,
            remaining=max(0, math.floor(tokens)),
            reset_at=math.ceil(now + (capacity - tokens) / rate),
            retry_after=0 if allowed else max(1, math.ceil((cost - tokens) / rate)),
        )

    def _maybe_sweep(self, now: float) -> None:
        # Forget buckets that have refilled completely: they carry no information.
        self._hits += 1
        if self._hits % _SWEEP_EVERY:
            return
        full = [
            key
            for key, (tokens, updated, cap) in self._buckets.items()
            if tokens + (now - updated) * cap / 60.0 >= cap
        ]
        for key in full:
            del self._buckets[key]


__all__ = ["MemoryRateLimiter"]
