"""The per-request user-status read, cached until something is revoked.

Every authenticated request must see a disabled user at once (ACC-8), so the resolver
reads the user's status and token version on each request: a primary-key query that
costs far more than the cached token check itself. A revocation signal (a version that
moves on every disable, shared by all processes through Redis or a file in the data
dir) lets that read be cached: the cache holds only while the version is unchanged.

The same holds for OAuth grants: an access token names its grant (claim `fid`), and a
revoked grant's tokens fail at once (RFC 7009 2.1). "Is this family revoked?" is a
primary-key read, cached the same way (`CachedRevokedFamilies`): revoking a family
moves the same signal.
"""

from __future__ import annotations

import uuid
from collections.abc import Awaitable, Callable
from typing import Generic, Protocol, TypeVar

from pacekeeper.db import AuthState


class ChangeSignal(Protocol):
    async def version(self) -> str: ...


class AuthStateSource(Protocol):
    async def auth_state(self, user_id: uuid.UUID) -> AuthState | None: ...


class RevokedFamilies(Protocol):
    async def family_revoked(self, family_id: uuid.UUID) -> bool: ...


K = TypeVar("K")
V = TypeVar("V")


class _SignalCache(Generic[K, V]):
    """Values read from the database, kept while the signal's version stands still.

    A value read while the version moved is returned but not kept: a concurrent request
    may already have seen the newer version, and this read may predate that revocation.
    `None` (nothing found) is never kept.
    """

    def __init__(self, signal: ChangeSignal, limit: int) -> None:
        self._signal = signal
        self._limit = limit
        self.entries: dict[K, V] = {}
        self._version: str | None = None

    async def get(self, key: K, load: Callable[[K], Awaitable[V | None]]) -> V | None:
        version = await self._signal.version()
        if version != self._version:
            self.entries.clear()
            self._version = version
        found = self.entries.get(key)
        if found is not None:
            return found
        found = await load(key)
        if found is not None and self._version == version:
            if len(self.entries) >= self._limit:
                self.entries.clear()
            self.entries[key] = found
        return found


class CachedAuthStates:
    def __init__(self, source: AuthStateSource, signal: ChangeSignal,
                 limit: int = 10_000) -> None:
        self._load = source.auth_state
        self._cache: _SignalCache[uuid.UUID, AuthState] = _SignalCache(signal, limit)

    async def auth_state(self, user_id: uuid.UUID) -> AuthState | None:
        return await self._cache.get(user_id, self._load)


class CachedRevokedFamilies:
    """Whether an OAuth grant (family) is revoked, cached while the signal stands still.

    Both answers are kept: "not revoked" is the one every request of a live grant asks.
    """

    def __init__(self, source: RevokedFamilies, signal: ChangeSignal,
                 limit: int = 10_000) -> None:
        self._load = source.family_revoked
        self._cache: _SignalCache[uuid.UUID, bool] = _SignalCache(signal, limit)

    async def family_revoked(self, family_id: uuid.UUID) -> bool:
        return bool(await self._cache.get(family_id, self._load))


__all__ = [
    "AuthStateSource",
    "CachedAuthStates",
    "CachedRevokedFamilies",
    "ChangeSignal",
    "RevokedFamilies",
]
