"""Cached key checks stay immediate: revocation signals across "processes" (KEY-7, ACC-8).

Two `ApiKeyService` objects on one database stand for two processes; they share only
the revocation signal (a file in the data directory, or a Redis counter).
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pytest
from redis.asyncio import Redis

from pacekeeper.apikeys import (
    ApiKeyService,
    FileRevocationSignal,
    MemoryUsageCounter,
    RedisRevocationSignal,
    RevocationSignal,
    SignallingUserRepository,
    Tier,
)
from pacekeeper.apikeys._service import UNKNOWN_ID_SECONDS
from pacekeeper.db import session_factory
from pacekeeper.errors import Unauthenticated
from pacekeeper.ratelimit import MemoryRateLimiter
from tests.pacekeeper.conftest import PASSWORD, Harness


@pytest.fixture(params=["file", "redis"])
async def signals(
    request: pytest.FixtureRequest, tmp_path: Path
) -> AsyncIterator[Callable[[], RevocationSignal]]:
    clients: list[Redis] = []
    prefix = tmp_path / "revocations"

    def make() -> RevocationSignal:
        if request.param == "file":
            return FileRevocationSignal(prefix)
        client = Redis.from_url(request.getfixturevalue("redis_url"))
        clients.append(client)
        return RedisRevocationSignal(client)

    yield make
    for client in clients:
        await client.aclose()


class CountingStore:
    """The real repository, counting lookups (database reads on the hot path)."""

    def __init__(self, real: Any) -> None:
        self.real = real
        self.lookups = 0

    def __getattr__(self, name: str) -> Any:
        return getattr(self.real, name)

    async def lookup(self, key_id: str) -> Any:
        self.lookups += 1
        return await self.real.lookup(key_id)


def _service(h: Harness, signal: RevocationSignal) -> tuple[ApiKeyService, CountingStore]:
    store = CountingStore(h.services.api_keys.store)
    service = ApiKeyService(store, MemoryUsageCounter(store, h.clock),
                            MemoryRateLimiter(), h.clock, signal)
    return service, store


async def test_warm_cache_reads_no_database(harness: Harness, signals: Any) -> None:
    user = await harness.services.accounts.register("c@example.com", PASSWORD)
    service, store = _service(harness, signals())
    created = await service.create(user.id, "k", Tier.TRIAL)
    for _ in range(5):
        await service.authenticate(created.plaintext)
    assert store.lookups == 1


async def test_delete_in_one_process_refuses_in_the_other(harness: Harness,
                                                          signals: Any) -> None:
    """KEY-7: B deletes; A's very next check misses its cache and refuses."""
    user = await harness.services.accounts.register("d@example.com", PASSWORD)
    a, _ = _service(harness, signals())
    b, _ = _service(harness, signals())
    created = await a.create(user.id, "k", Tier.TRIAL)
    await a.authenticate(created.plaintext)  # cached in A
    assert await b.delete(created.key.id)
    with pytest.raises(Unauthenticated, match="API key deleted"):
        await a.authenticate(created.plaintext)


async def test_disable_elsewhere_refuses_cached_keys(harness: Harness, signals: Any) -> None:
    """ACC-8: disabling through the repository every entry point uses bumps the signal."""
    user = await harness.services.accounts.register("e@example.com", PASSWORD)
    signal = signals()
    a, _ = _service(harness, signal)
    created = await a.create(user.id, "k", Tier.TRIAL)
    await a.authenticate(created.plaintext)
    other_users = SignallingUserRepository(session_factory(harness.services.engine), signals())
    assert await other_users.disable(user.id)
    with pytest.raises(Unauthenticated, match="invalid token"):
        await a.authenticate(created.plaintext)


async def test_unknown_ids_are_remembered_briefly(harness: Harness, signals: Any) -> None:
    """Issue 28: an unknown id is read once, then answered from memory for
    `UNKNOWN_ID_SECONDS` (as a known id is; the bound: tests/security/
    test_headers_and_key_timing.py), and read again after that."""
    service, store = _service(harness, signals())
    fake = "pk_live_0123456789abcdef_" + "A" * 43
    for _ in range(3):
        with pytest.raises(Unauthenticated):
            await service.authenticate(fake)
    assert store.lookups == 1
    harness.clock.advance(seconds=UNKNOWN_ID_SECONDS + 1)
    with pytest.raises(Unauthenticated):
        await service.authenticate(fake)
    assert store.lookups == 2


async def test_file_signal_versions_never_repeat(tmp_path: Path) -> None:
    """Bumps in quick succession (one clock tick) still give new versions every time."""
    a = FileRevocationSignal(tmp_path / "sig")
    b = FileRevocationSignal(tmp_path / "sig")  # another process on the same file
    seen = [await a.version()]
    for signal in (a, b, a, b, a):
        await signal.bump()
        seen.append(await b.version())
    assert len(set(seen)) == len(seen)


async def test_swept_bucket_is_not_counted_on_by_the_hot_path(
    harness: Harness, tmp_path: Path
) -> None:
    """The per-tier burst (spec section 8; no ID of its own, the nearest is SMCP-4's
    token bucket with 429): the hot path keeps a handle on its key's bucket. When the limiter
    sweeps that bucket (full again), the next request renews the handle, so the key
    check and the limiter keep counting in one bucket: the burst stays exact."""
    from pacekeeper.errors import ApiError

    now = [1_000.0]
    limiter = MemoryRateLimiter(clock=lambda: now[0])
    user = await harness.services.accounts.register("s@example.com", PASSWORD)
    store = harness.services.api_keys.store
    service = ApiKeyService(store, MemoryUsageCounter(store, harness.clock), limiter,
                            harness.clock, FileRevocationSignal(tmp_path / "rev"),
                            burst_overrides={"trial": 3})
    created = await service.create(user.id, "k", Tier.TRIAL)
    name = f"apikey:{created.key.id}"
    for _ in range(3):
        await service.authenticate(created.plaintext)
    with pytest.raises(ApiError) as refused:
        await service.authenticate(created.plaintext)
    assert refused.value.status == 429

    now[0] += 60.0  # full again, so the next sweep forgets the bucket
    for i in range(4096):
        limiter.hit_now(f"other:{i}", 10)
    assert name not in limiter._buckets

    for _ in range(3):
        await service.authenticate(created.plaintext)
    with pytest.raises(ApiError):
        await service.authenticate(created.plaintext)
    # The limiter's own bucket for the key is the one the key check drained.
    assert limiter.hit_now(name, 3).allowed is False
