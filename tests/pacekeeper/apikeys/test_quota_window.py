"""The 30-day quota on both counters (memory, Redis) and both databases (KEY-6)."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator, Callable
from typing import Any

import pytest
from redis.asyncio import Redis

from pacekeeper.apikeys import (
    QUOTAS,
    MemoryUsageCounter,
    RedisUsageCounter,
    Tier,
    UsageCounter,
    day_of,
)
from tests.pacekeeper.conftest import FakeClock, Harness

Factory = Callable[[], UsageCounter]


@pytest.fixture(params=["memory", "redis"])
async def counters(
    request: pytest.FixtureRequest, harness: Harness
) -> AsyncIterator[Factory]:
    """Makes counters over the harness's database; Redis ones share one server."""
    store = harness.services.api_keys.store
    clients: list[Redis] = []

    def make() -> UsageCounter:
        if request.param == "memory":
            return MemoryUsageCounter(store, harness.clock)
        client = Redis.from_url(request.getfixturevalue("redis_url"))
        clients.append(client)
        return RedisUsageCounter(client, store, harness.clock)

    yield make
    for client in clients:
        await client.aclose()


async def _key_id(h: Harness, tier: Tier = Tier.TRIAL) -> str:
    user = await h.services.accounts.register(f"{uuid.uuid4().hex[:8]}@example.com",
                                              "s3cret-Passw0rd")
    return (await h.services.api_keys.create(user.id, "k", tier)).key.id


async def _spend(counter: UsageCounter, key_id: str, n: int, clock: FakeClock,
                 quota: int | None = 1000) -> list[Any]:
    return [await counter.consume(key_id, quota, clock()) for _ in range(n)]


async def test_trial_quota_is_1000_over_a_rolling_30_days(
    harness: Harness, counters: Factory
) -> None:
    """KEY-6: 1,000 per rolling 30 days; Retry-After points at the day the oldest leave."""
    assert QUOTAS[Tier.TRIAL] == 1000
    clock = harness.clock
    counter = counters()
    key_id = await _key_id(harness)
    start_day = day_of(clock())
    assert all(d.allowed for d in await _spend(counter, key_id, 400, clock))
    clock.advance(days=10)
    decisions = await _spend(counter, key_id, 600, clock)
    assert all(d.allowed for d in decisions)
    assert decisions[-1].remaining == 0
    refused = await counter.consume(key_id, 1000, clock())
    assert not refused.allowed and refused.used == 1000
    frees_at = (start_day + 30) * 86400
    assert refused.retry_after == pytest.approx(frees_at - clock().timestamp(), abs=1)
    clock.advance(seconds=refused.retry_after - 2)
    assert not (await counter.consume(key_id, 1000, clock())).allowed
    clock.advance(seconds=2)
    # Day 0's 400 have left the window: exactly 400 more pass.
    again = await _spend(counter, key_id, 401, clock)
    assert [d.allowed for d in again].count(True) == 400
    assert not again[-1].allowed


async def test_quotas_per_tier(harness: Harness, counters: Factory) -> None:
    """KEY-6: starter 10,000 and professional 100,000 are enforced as such; enterprise never."""
    assert (QUOTAS[Tier.STARTER], QUOTAS[Tier.PROFESSIONAL]) == (10_000, 100_000)
    counter = counters()
    key_id = await _key_id(harness, Tier.ENTERPRISE)
    decisions = await _spend(counter, key_id, 50, harness.clock, quota=None)
    assert all(d.allowed and d.limit is None for d in decisions)
    assert decisions[-1].used == 50
    starter = await _key_id(harness, Tier.STARTER)
    first = await counter.consume(starter, QUOTAS[Tier.STARTER], harness.clock())
    assert first.limit == 10_000 and first.remaining == 9_999


async def test_counts_survive_a_restart_through_the_database(
    harness: Harness, counters: Factory
) -> None:
    """KEY-6: flushed counts seed a new process (memory) or a Redis that lost its data."""
    key_id = await _key_id(harness)
    first = counters()
    await _spend(first, key_id, 7, harness.clock)
    await first.flush()
    second = counters()
    if isinstance(second, RedisUsageCounter):
        await second._redis.delete(f"pk:usage:{key_id}")  # Redis restarted empty
    decision = await second.consume(key_id, 1000, harness.clock())
    assert decision.used == 8
    assert (await second.used([key_id], harness.clock()))[key_id] == 8


async def test_two_counters_share_one_quota_only_with_redis(harness: Harness,
                                                            counters: Factory) -> None:
    """With Redis, two processes' counters enforce one quota together."""
    key_id = await _key_id(harness)
    a, b = counters(), counters()
    if not isinstance(a, RedisUsageCounter):
        pytest.skip("memory counters are per process by design")
    results = []
    for i in range(10):
        counter = a if i % 2 else b
        results.append((await counter.consume(key_id, 6, harness.clock())).allowed)
    assert results.count(True) == 6


async def test_window_sum_follows_the_clock_back_and_forth(harness: Harness,
                                                            counters: Factory) -> None:
    """KEY-6: the kept window sum (Redis: per day in the hash) is recounted when the day
    moves either way, as two processes a few ms apart around midnight would see it."""
    key_id = await _key_id(harness)
    counter = counters()
    clock = harness.clock
    assert (await _spend(counter, key_id, 5, clock))[-1].used == 5
    clock.advance(days=1)
    assert (await _spend(counter, key_id, 3, clock))[-1].used == 8
    clock.advance(days=-1)  # the other process is still on yesterday
    assert (await _spend(counter, key_id, 2, clock))[-1].used == 7  # today's 3 not in it
    clock.advance(days=1)
    last = (await _spend(counter, key_id, 1, clock))[-1]
    assert last.used == 11
    assert last.reset_at == (day_of(clock()) - 1 + 30) * 86400
    assert (await counter.used([key_id], clock()))[key_id] == 11
    clock.advance(days=29)  # the first day (7) has left the window; the second (4) not
    assert (await counter.consume(key_id, 1000, clock())).used == 5
