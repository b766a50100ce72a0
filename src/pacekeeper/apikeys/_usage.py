"""Usage counting without a database write per request (KEY-6).

Each process counts in memory (or in Redis, shared: `_usage_redis.py`) and remembers
its own increments; a background task adds them to `api_key_usage` in one batch every
few seconds (and at shutdown), together with `last_used_at`. A crash loses at most the
increments of the last flush interval. A failed flush keeps its deltas for the next one.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Collection
from datetime import UTC, datetime
from typing import Protocol

from pacekeeper.apikeys._store import ApiKeyRepository
from pacekeeper.apikeys._tiers import QUOTA_WINDOW_DAYS
from pacekeeper.apikeys._window import (
    DAY_SECONDS,
    QuotaDecision,
    day_of,
    decide,
    first_day,
    window_total,
)

log = logging.getLogger("pacekeeper.apikeys")


class UsageCounter(Protocol):
    """Counts requests per key per day; `consume` checks the quota and counts atomically."""

    async def consume(self, key_id: str, quota: int | None, now: datetime) -> QuotaDecision: ...
    async def used(self, key_ids: Collection[str], now: datetime) -> dict[str, int]: ...
    async def flush(self) -> None: ...


class PendingUsage:
    """This process's increments not yet in the database, and the flush loop."""

    def __init__(self, store: ApiKeyRepository) -> None:
        self.store = store
        self._deltas: dict[tuple[str, int], int] = {}
        self._last_used: dict[str, float] = {}  # Unix seconds; datetimes at flush time
        self._lock = asyncio.Lock()

    def record(self, key_id: str, now: datetime) -> None:
        self.record_at(key_id, now.timestamp(), day_of(now))

    def record_at(self, key_id: str, seconds: float, today: int) -> None:
        """`record` in Unix seconds, `today` its day: the per-request path (no datetime)."""
        slot = (key_id, today)
        self._deltas[slot] = self._deltas.get(slot, 0) + 1
        self._last_used[key_id] = seconds

    def pending(self, key_id: str) -> dict[int, int]:
        return {day: n for (kid, day), n in self._deltas.items() if kid == key_id}

    async def flush(self) -> None:
        async with self._lock:  # one flush at a time; new hits go to fresh dicts
            deltas, self._deltas = self._deltas, {}
            last_used, self._last_used = self._last_used, {}
            try:
                await self.store.add_usage(deltas, {
                    key_id: datetime.fromtimestamp(at, UTC) for key_id, at in last_used.items()})
            except Exception:
                # Put them back (adding to what came meanwhile): nothing is lost.
                for slot, n in deltas.items():
                    self._deltas[slot] = self._deltas.get(slot, 0) + n
                for key_id, at in last_used.items():
                    self._last_used[key_id] = max(at, self._last_used.get(key_id, at))
                raise

    async def run(self, interval: float) -> None:
        while True:
            await asyncio.sleep(interval)
            try:
                await self.flush()
            except Exception as exc:  # the next round retries with the same deltas
                log.error("usage flush failed: %s", type(exc).__name__)


class KeyWindow:
    """One key's day buckets, their total for `today` and the oldest day with a count
    (all kept, not re-computed per hit). The API key check keeps a handle on it
    (`MemoryUsageCounter.window`): windows stay for the life of the counter."""

    __slots__ = ("buckets", "key_id", "oldest", "pending", "today", "total")

    def __init__(self, key_id: str, buckets: dict[int, int], pending: PendingUsage) -> None:
        self.key_id = key_id
        self.buckets = buckets
        self.pending = pending
        self.today = -1
        self.total = 0
        self.oldest = -1  # -1: no day has a count

    def roll(self, today: int) -> None:
        if today == self.today:
            return
        start = first_day(today)
        for day in [d for d in self.buckets if d < start]:
            del self.buckets[day]
        self.total = window_total(self.buckets, today)
        self.oldest = min(self.buckets, default=-1)
        self.today = today

    def consume(self, quota: int | None, now: float, today: int) -> QuotaDecision:
        """Check the quota and count one request; `now` in Unix seconds, `today` its day.

        No await: check and count are atomic within the event loop.
        """
        if self.today != today:
            self.roll(today)
        if quota is not None and self.total >= quota:
            return decide(self.buckets, quota, datetime.fromtimestamp(now, UTC),
                          counted=False)
        buckets = self.buckets
        buckets[today] = buckets.get(today, 0) + 1
        self.total += 1
        if self.oldest < 0 or today < self.oldest:
            self.oldest = today
        self.pending.record_at(self.key_id, now, today)
        return QuotaDecision(True, quota, self.total,
                             (self.oldest + QUOTA_WINDOW_DAYS) * DAY_SECONDS, 0)


class MemoryUsageCounter:
    """Buckets in this process, seeded from the database the first time a key is seen."""

    def __init__(self, store: ApiKeyRepository, clock: Callable[[], datetime]) -> None:
        self.pending = PendingUsage(store)
        self._store = store
        self._clock = clock
        self._windows: dict[str, KeyWindow] = {}

    async def _load(self, key_id: str, today: int) -> KeyWindow:
        window = self._windows.get(key_id)
        if window is None:
            loaded = (await self._store.usage_since([key_id], first_day(today)))[key_id]
            # Another request may have loaded it during the await: keep the first copy.
            window = self._windows.setdefault(key_id, KeyWindow(key_id, loaded, self.pending))
        window.roll(today)
        return window

    async def consume(self, key_id: str, quota: int | None, now: datetime) -> QuotaDecision:
        today = day_of(now)
        return (await self._load(key_id, today)).consume(quota, now.timestamp(), today)

    def window(self, key_id: str) -> KeyWindow:
        """The window of a key already seen by `consume`, to call `consume` on directly."""
        return self._windows[key_id]

    async def used(self, key_ids: Collection[str], now: datetime) -> dict[str, int]:
        today = day_of(now)
        return {key_id: (await self._load(key_id, today)).total for key_id in key_ids}

    async def flush(self) -> None:
        await self.pending.flush()


__all__ = ["KeyWindow", "MemoryUsageCounter", "PendingUsage", "UsageCounter"]
