"""Redis: revocations, burst and quota of a key request in one round trip (KEY-6, KEY-7)."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
from redis.asyncio import Redis

from pacekeeper.apikeys import (
    ApiKeyService,
    RedisKeyMeter,
    RedisRevocationSignal,
    RedisUsageCounter,
    Tier,
)
from pacekeeper.errors import ApiError, Unauthenticated
from pacekeeper.ratelimit import MemoryRateLimiter
from tests.pacekeeper.conftest import PASSWORD, Harness


@pytest.fixture
async def redis(redis_url: str) -> AsyncIterator[Redis]:
    client = Redis.from_url(redis_url)
    yield client
    await client.aclose()


def _service(h: Harness, redis: Redis, **kw: object) -> ApiKeyService:
    store = h.services.api_keys.store
    usage = RedisUsageCounter(redis, store, h.clock)
    return ApiKeyService(store, usage, MemoryRateLimiter(), h.clock,
                         RedisRevocationSignal(redis), meter=RedisKeyMeter(redis, usage),
                         **kw)  # type: ignore[arg-type]


async def test_meter_counts_and_refuses_like_the_separate_checks(
    harness: Harness, redis: Redis
) -> None:
    user = await harness.services.accounts.register("m@example.com", PASSWORD)
    service = _service(harness, redis, burst_overrides={"trial": 3})
    made = await service.create(user.id, "k", Tier.TRIAL)
    callers = [await service.authenticate(made.plaintext) for _ in range(3)]
    assert [c.rate.remaining for c in callers] == [2, 1, 0]
    assert [c.quota.used for c in callers] == [1, 2, 3]
    assert callers[0].principal.email == "m@example.com"
    with pytest.raises(ApiError) as refused:
        await service.authenticate(made.plaintext)
    assert refused.value.code == "rate_limited" and "Retry-After" in refused.value.headers
    # The refused request spent no quota.
    assert (await service.usage.used([made.key.id], harness.clock()))[made.key.id] == 3
    harness.clock.advance(seconds=20)  # one token back at 3 per minute
    assert (await service.authenticate(made.plaintext)).quota.used == 4


async def test_meter_sees_a_deletion_made_by_another_process(
    harness: Harness, redis: Redis
) -> None:
    """KEY-7: the version returned by the one round trip invalidates the cached copy."""
    user = await harness.services.accounts.register("n@example.com", PASSWORD)
    a, b = _service(harness, redis), _service(harness, redis)
    made = await a.create(user.id, "k", Tier.TRIAL)
    await a.authenticate(made.plaintext)
    await a.authenticate(made.plaintext)  # served from A's cache
    assert await b.delete(made.key.id)
    with pytest.raises(Unauthenticated, match="API key deleted"):
        await a.authenticate(made.plaintext)


async def test_wrong_secret_never_touches_the_keys_limits(
    harness: Harness, redis: Redis
) -> None:
    """Knowing a key's public id is not enough to drain its bucket or quota."""
    user = await harness.services.accounts.register("o@example.com", PASSWORD)
    service = _service(harness, redis)
    made = await service.create(user.id, "k", Tier.TRIAL)
    await service.authenticate(made.plaintext)
    forged = made.plaintext[:-4] + ("AAAA" if not made.plaintext.endswith("AAAA") else "BBBB")
    for _ in range(5):
        with pytest.raises(Unauthenticated, match="unknown API key"):
            await service.authenticate(forged)
    assert (await service.authenticate(made.plaintext)).quota.used == 2
