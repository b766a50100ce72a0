"""A cheap "something was revoked" signal, so verified keys can be cached safely.

Each process caches key lookups (key row + owner status) tagged with the signal's
version read *before* the database read. Deleting a key or disabling a user bumps the
version; the next request in any process sees a new version and re-reads the database.
So revocation stays immediate (KEY-7, ACC-8) while a request costs no database read.

Backends: a file in the data directory (one host: every process and the CLI share it;
reading it is one `stat`), or a Redis counter (several hosts; one GET per request).
A change made behind the service's back (hand-written SQL) is not signalled.
"""

from __future__ import annotations

import os
import uuid
from pathlib import Path
from typing import Protocol

from redis.asyncio import Redis
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from pacekeeper.db import SqlUserRepository


class RevocationSignal(Protocol):
    async def version(self) -> str: ...
    async def bump(self) -> None: ...


class FileRevocationSignal:
    """A file that grows by one byte per revocation: its size is the version.

    Appends (O_APPEND) from any number of processes each add exactly one byte, so the
    size only ever grows and no two versions look alike (timestamps can repeat within
    a clock tick, and inode numbers get reused, so neither is used alone).
    """

    def __init__(self, path: Path) -> None:
        self._path = path
        path.parent.mkdir(parents=True, exist_ok=True)
        path.touch(exist_ok=True)

    async def version(self) -> str:
        try:
            found = os.stat(self._path)
        except FileNotFoundError:
            return "missing"
        return f"{found.st_ino}:{found.st_size}"

    async def bump(self) -> None:
        fd = os.open(self._path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
        try:
            os.write(fd, b".")
        finally:
            os.close(fd)


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


__all__ = [
    "FileRevocationSignal",
    "RedisRevocationSignal",
    "RevocationSignal",
    "SignallingUserRepository",
]
