"""The cached per-request user-status read (ACC-8 stays immediate)."""

from __future__ import annotations

import asyncio
import uuid

from pacekeeper.auth import CachedCallerStates
from pacekeeper.db import AuthState, UserStatus

ACTIVE = AuthState(UserStatus.ACTIVE, 0, None)
DISABLED = AuthState(UserStatus.DISABLED, 1, None)


class Signal:
    def __init__(self) -> None:
        self.value = 0

    async def version(self) -> str:
        return str(self.value)


class Reads:
    """The cache's two answers, each through the one per-request `caller_state`."""

    def __init__(self, cache: CachedCallerStates) -> None:
        self.cache = cache

    async def auth_state(self, user_id: uuid.UUID) -> AuthState | None:
        return (await self.cache.caller_state(user_id, None))[0]

    async def family_revoked(self, family_id: uuid.UUID) -> bool:
        return (await self.cache.caller_state(uuid.uuid4(), family_id))[1]


class Source:
    def __init__(self) -> None:
        self.state = ACTIVE
        self.reads = 0
        self.gate: asyncio.Event | None = None
        self.waiting = asyncio.Event()  # set once a gated read has read and waits

    async def auth_state(self, user_id: uuid.UUID) -> AuthState | None:
        self.reads += 1
        state, gate = self.state, self.gate
        if gate is not None:
            self.waiting.set()
            await gate.wait()
        return state


async def test_reads_once_until_the_signal_moves() -> None:
    """ACC-8: a disable (which moves the signal) is seen by the very next request."""
    source, signal = Source(), Signal()
    cache = Reads(CachedCallerStates(signal, source))
    user = uuid.uuid4()
    assert await cache.auth_state(user) == ACTIVE
    assert await cache.auth_state(user) == ACTIVE
    assert source.reads == 1
    source.state, signal.value = DISABLED, 1  # the disable: database first, then the signal
    assert await cache.auth_state(user) == DISABLED
    assert source.reads == 2


async def test_a_read_that_straddles_a_revocation_is_not_kept() -> None:
    """ACC-8 under concurrency: a read started before a disable never lands in the cache."""
    source, signal = Source(), Signal()
    cache = Reads(CachedCallerStates(signal, source))
    user = uuid.uuid4()
    gate = source.gate = asyncio.Event()
    slow = asyncio.create_task(cache.auth_state(user))  # reads ACTIVE, then waits
    await asyncio.wait_for(source.waiting.wait(), 5)
    source.state, signal.value, source.gate = DISABLED, 1, None
    assert await cache.auth_state(user) == DISABLED  # a newer request sees the disable
    gate.set()
    assert await slow == ACTIVE  # the stale read answers what it read...
    assert await cache.auth_state(user) == DISABLED  # ...but did not replace the cache
    assert source.reads == 2


class Families:
    def __init__(self) -> None:
        self.revoked: set[uuid.UUID] = set()
        self.reads = 0
        self.gate: asyncio.Event | None = None
        self.waiting = asyncio.Event()  # set once a gated read has read and waits

    async def family_revoked(self, family_id: uuid.UUID) -> bool:
        self.reads += 1
        answer, gate = family_id in self.revoked, self.gate
        if gate is not None:
            self.waiting.set()
            await gate.wait()
        return answer


async def test_family_check_reads_once_until_the_signal_moves() -> None:
    """RFC 7009 2.1: a revoked grant (which moves the signal) is seen by the next request;
    while nothing moves, a live grant's requests read nothing."""
    source, signal = Families(), Signal()
    cache = Reads(CachedCallerStates(signal, Source(), source))
    family = uuid.uuid4()
    assert not await cache.family_revoked(family)
    assert not await cache.family_revoked(family)
    assert source.reads == 1
    source.revoked.add(family)
    signal.value = 1  # the revocation: database first, then the signal
    assert await cache.family_revoked(family)
    assert await cache.family_revoked(family)
    assert source.reads == 2


async def test_a_family_read_that_straddles_a_revocation_is_not_kept() -> None:
    """A "not revoked" read started before a revocation never lands in the cache."""
    source, signal = Families(), Signal()
    cache = Reads(CachedCallerStates(signal, Source(), source))
    family = uuid.uuid4()
    gate = source.gate = asyncio.Event()
    slow = asyncio.create_task(cache.family_revoked(family))  # reads "live", then waits
    await asyncio.wait_for(source.waiting.wait(), 5)
    source.revoked.add(family)
    signal.value, source.gate = 1, None
    assert await cache.family_revoked(family)  # a newer request sees the revocation
    gate.set()
    assert not await slow  # the stale read answers what it read...
    assert await cache.family_revoked(family)  # ...but did not replace the cache
    assert source.reads == 2


async def test_family_cache_is_bounded() -> None:
    source, signal = Families(), Signal()
    cache = CachedCallerStates(signal, Source(), source, limit=2)
    for _ in range(3):
        await Reads(cache).family_revoked(uuid.uuid4())
    assert len(cache._revoked) <= 2


class CountingSignal(Signal):
    def __init__(self) -> None:
        super().__init__()
        self.reads = 0

    async def version(self) -> str:
        self.reads += 1
        return await super().version()


async def test_one_version_read_answers_both_questions() -> None:
    """An OAuth request asks about its grant and its user under one read of the signal
    (with Redis, one GET per request, not two); a revoked grant skips the user read."""
    users, families, signal = Source(), Families(), CountingSignal()
    cache = CachedCallerStates(signal, users, families)
    user, family = uuid.uuid4(), uuid.uuid4()
    assert await cache.caller_state(user, family) == (ACTIVE, False)
    assert await cache.caller_state(user, family) == (ACTIVE, False)
    assert signal.reads == 2
    assert (users.reads, families.reads) == (1, 1)
    families.revoked.add(family)
    signal.value = 1
    assert await cache.caller_state(user, family) == (None, True)
    assert (users.reads, families.reads) == (1, 2)


class MemorySignal(Signal):
    """A signal that also reads without I/O, as the file mapping does."""

    def version_now(self) -> str:
        return str(self.value)


class Revoked:
    def __init__(self) -> None:
        self.families: set[uuid.UUID] = set()
        self.jtis: set[str] = set()

    async def family_revoked(self, family_id: uuid.UUID) -> bool:
        return family_id in self.families

    async def token_revoked(self, jti: str) -> bool:
        return jti in self.jtis


async def test_the_synchronous_answer_never_outlives_the_signal() -> None:
    """ACC-8, finding 13, RFC 7009 2.1 on the coroutine-free path: `known_state` answers
    only from what `caller_state` kept under the signal's current version; a move of the
    signal (a disable, a revoked grant, a logout) sends the next request to the source."""
    source, signal, revoked = Source(), MemorySignal(), Revoked()
    cache = CachedCallerStates(signal, source, revoked, tokens=revoked)
    user, family = uuid.uuid4(), uuid.uuid4()
    assert cache.known_state(user, family, "j1") is None  # nothing kept yet
    assert await cache.caller_state(user, family, "j1") == (ACTIVE, False)
    assert cache.known_state(user, family, "j1") == (ACTIVE, False)
    assert cache.known_state(user, family, "j2") is None  # another token: not kept
    assert cache.known_state(user, None) == (ACTIVE, False)
    revoked.jtis.add("j1")
    signal.value += 1  # a logout: the record, then the signal
    assert cache.known_state(user, family, "j1") is None
    assert await cache.caller_state(user, family, "j1") == (None, True)
    assert cache.known_state(user, family, "j1") == (None, True)
    revoked.families.add(family)
    source.state = DISABLED
    signal.value += 1  # a revoked grant and a disable
    assert cache.known_state(user, None) is None
    assert await cache.caller_state(user, None) == (DISABLED, False)
    assert cache.known_state(user, None) == (DISABLED, False)
    assert await cache.caller_state(user, family, "j3") == (None, True)
    assert cache.known_state(user, family, "j3") == (None, True)


async def test_a_signal_read_only_through_a_coroutine_gives_no_synchronous_answer() -> None:
    source, signal = Source(), Signal()  # e.g. Redis: one GET per request
    cache = CachedCallerStates(signal, source)
    user = uuid.uuid4()
    assert await cache.caller_state(user, None) == (ACTIVE, False)
    assert cache.known_state(user, None) is None
