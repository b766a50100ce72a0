"""A cheap "something was revoked" signal, so verified keys can be cached safely.

Each process caches key lookups (key row + owner status) tagged with the signal's
version read *before* the database read. Deleting a key or disabling a user bumps the
version; the next request in any process sees a new version and re-reads the database.
So revocation stays immediate (KEY-7, ACC-8) while a request costs no database read.

Backends: a counter in a file in the data directory (one host: every process and the
CLI map it; reading it is a memory read), or a Redis counter (several hosts; it rides
in the one round trip the key meter makes per request anyway).
A change made behind the service's back (hand-written SQL) is not signalled.
"""

from __future__ import annotations

import contextlib
import fcntl
import mmap
import os
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Protocol

from redis.asyncio import Redis
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from pacekeeper.db import SqlUserRepository


class RevocationSignal(Protocol):
    async def version(self) -> str: ...
    async def bump(self) -> None: ...


class FileRevocationSignal:
    """An 8-byte counter at the start of a shared file, read through a shared mapping.

    Every process (servers and the CLI) maps the same file: reading the version is a
    memory read, no system call, and a bump in one process is visible to every other at
    once (one page cache). Writers add one under an exclusive `flock`, so concurrent
    bumps never lose an increment; the counter only grows, so no version repeats. A
    read racing with a write can only give a value never seen before: a cache miss,
    harmless. The file must stay in place while the service runs (replacing it by hand
    is a change behind the service's back, like hand-written SQL).
    """

    SIZE = 8

    def __init__(self, path: Path) -> None:
        self._path = path
        path.parent.mkdir(parents=True, exist_ok=True)
        with self._locked() as fd:
            if os.fstat(fd).st_size < self.SIZE:  # a new file (or one of an older format)
                os.ftruncate(fd, self.SIZE)
        # MAP_SHARED: one copy per host. The mapping keeps a duplicate of its descriptor,
        # so it gets one of its own: a duplicate of the locked one would keep the lock.
        fd = os.open(path, os.O_RDWR)
        try:
            self._map = mmap.mmap(fd, self.SIZE)
        finally:
            os.close(fd)

    @contextlib.contextmanager
    def _locked(self) -> Iterator[int]:
        fd = os.open(self._path, os.O_RDWR | os.O_CREAT, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            yield fd
        finally:
            os.close(fd)  # releases the lock

    def peek(self) -> bytes:
        """The version now, as raw bytes: the per-request check (no system call)."""
        return self._map[:8]

    @property
    def mapping(self) -> mmap.mmap:
        """The shared mapping itself: `mapping[:8]` is `peek()` without a call."""
        return self._map

    async def version(self) -> str:
        return self.version_now()

    def version_now(self) -> str:
        """The version without a coroutine: a memory read (`CachedCallerStates`)."""
        return self._map[:8].hex()

    async def bump(self) -> None:
        with self._locked():
            count = int.from_bytes(self._map[:8], "little")
            self._map[:8] = ((count + 1) % 2**64).to_bytes(8, "little")


class RedisRevocationSignal:
    KEY = "pk:apikeys:revocations"

    def __init__(self, redis: Redis) -> None:
        self._redis = redis

    async def version(self) -> str:
        value = await self._redis.get(self.KEY)
        if value is None:
            return "0"
        return value.decode() if isinstance(value, bytes) else str(value)

    async def bump(self) -> None:
        await self._redis.incr(self.KEY)


class SignallingUserRepository(SqlUserRepository):
    """The users repository whose `disable` also bumps the signal (ACC-8 for cached keys).

    The app and the CLI both build it (services.py), so `pacekeeper user disable`
    reaches the cached keys of every running process too.
    """

    def __init__(
        self, sessions: async_sessionmaker[AsyncSession], signal: RevocationSignal
    ) -> None:
        super().__init__(sessions)
        self._signal = signal

    async def disable(self, user_id: uuid.UUID) -> bool:
        changed = await super().disable(user_id)
        await self._signal.bump()
        return changed

    async def enable(self, user_id: uuid.UUID) -> bool:
        # Caches hold the disabled state (and the keys' "unusable") until the signal moves.
        changed = await super().enable(user_id)
        await self._signal.bump()
        return changed


__all__ = [
    "FileRevocationSignal",
    "RedisRevocationSignal",
    "RevocationSignal",
    "SignallingUserRepository",
]
