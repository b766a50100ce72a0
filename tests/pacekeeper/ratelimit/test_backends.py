"""The token bucket on both backends, memory and Redis, with a movable clock (SMCP-4)."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator, Callable

import pytest
from redis.asyncio import Redis

from pacekeeper.ratelimit import MemoryRateLimiter, RateLimiter, RedisRateLimiter


class Clock:
    def __init__(self) -> None:
        self.now = 1_800_000_000.0

    def __call__(self) -> float:
        return self.now


Make = Callable[[Clock], RateLimiter]


@pytest.fixture(params=["memory", "redis"])
async def make(request: pytest.FixtureRequest) -> AsyncIterator[Make]:
    if request.param == "memory":
        yield lambda clock: MemoryRateLimiter(clock)
        return
    client = Redis.from_url(request.getfixturevalue("redis_url"))
    prefix = f"test:{uuid.uuid4().hex}:"  # each test its own buckets on the shared server
    yield lambda clock: RedisRateLimiter(client, clock, prefix=prefix)
    await client.aclose()


async def test_capacity_then_refusal_then_refill(make: Make) -> None:
    clock = Clock()
    limiter = make(clock)
    decisions = [await limiter.hit("t", 60) for _ in range(61)]
    assert all(d.allowed for d in decisions[:60])
    assert [d.remaining for d in decisions[:3]] == [59, 58, 57]
    refused = decisions[60]
    assert not refused.allowed and refused.remaining == 0
    assert refused.retry_after == 1
    assert refused.reset_at == 1_800_000_000 + 60
    assert refused.headers()["Retry-After"] == "1"
    clock.now += 1.0  # one token per second at 60/min
    assert (await limiter.hit("t", 60)).allowed
    assert not (await limiter.hit("t", 60)).allowed
    clock.now += 60
    after_idle = await limiter.hit("t", 60)
    assert after_idle.allowed and after_idle.remaining == 59  # never above capacity


async def test_keys_are_independent_and_limit_changes_keep_the_share(make: Make) -> None:
    clock = Clock()
    limiter = make(clock)
    for _ in range(3):
        await limiter.hit("a", 4)
    assert (await limiter.hit("b", 4)).remaining == 3
    raised = await limiter.hit("a", 40)  # a quarter left: 10 of 40, minus this hit
    assert raised.limit == 40 and raised.remaining == 9


async def test_cost_larger_than_one(make: Make) -> None:
    limiter = make(Clock())
    assert (await limiter.hit("c", 10, cost=7)).remaining == 3
    refused = await limiter.hit("c", 10, cost=7)
    assert not refused.allowed and refused.retry_after == 24  # 4 tokens at 1 per 6 s


async def test_two_limiters_on_one_redis_share_the_bucket(redis_url: str) -> None:
    """N processes, one limit: two limiter objects (two clients) on one Redis."""
    clock = Clock()
    prefix = f"test:{uuid.uuid4().hex}:"
    clients = [Redis.from_url(redis_url) for _ in range(2)]
    try:
        limiters = [RedisRateLimiter(c, clock, prefix=prefix) for c in clients]
        decisions = await asyncio.gather(
            *(limiters[i % 2].hit("shared", 10) for i in range(30))
        )
        assert sum(d.allowed for d in decisions) == 10
    finally:
        for client in clients:
            await client.aclose()
