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
from typing import Protocol

from pacekeeper.db import AuthState


class ChangeSignal(Protocol):
    async def version(self) -> str: ...


class AuthStateSource(Protocol):
    async def auth_state(self, user_id: uuid.UUID) -> AuthState | None: ...


class RevokedFamilies(Protocol):
    async def family_revoked(self, family_id: uuid.UUID) -> bool: ...


class CachedAuthStates:
    def __init__(self, source: AuthStateSource, signal: ChangeSignal,
                 limit: int = 10_000) -> None:
        self._source = source
        self._signal = signal
        self._limit = limit
        self._states: dict[uuid.UUID, AuthState] = {}
        self._version: str | None = None

    async def auth_state(self, user_id: uuid.UUID) -> AuthState | None:
        version = await self._signal.version()
        if version != self._version:
            self._states.clear()
            self._version = version
        state = self._states.get(user_id)
        if state is not None:
            return state
        state = await self._source.auth_state(user_id)
        # Keep it only if nothing was revoked meanwhile: a concurrent request may already
        # have seen a newer version, and this read may predate that revocation.
        if state is not None and self._version == version:
            if len(self._states) >= self._limit:
                self._states.clear()
            self._states[user_id] = state
        return state


class CachedRevokedFamilies:
    """Whether an OAuth grant (family) is revoked, cached while the signal stands still.

    Both answers are kept: "not revoked" is the one every request of a live grant asks.
    """

    def __init__(self, source: RevokedFamilies, signal: ChangeSignal,
                 limit: int = 10_000) -> None:
        self._source = source
        self._signal = signal
        self._limit = limit
        self._revoked: dict[uuid.UUID, bool] = {}
        self._version: str | None = None

    async def family_revoked(self, family_id: uuid.UUID) -> bool:
        version = await self._signal.version()
        if version != self._version:
            self._revoked.clear()
            self._version = version
        found = self._revoked.get(family_id)
        if found is not None:
            return found
        found = await self._source.family_revoked(family_id)
        # As in CachedAuthStates: a read that may predate a revocation is not kept.
        if self._version == version:
            if len(self._revoked) >= self._limit:
                self._revoked.clear()
            self._revoked[family_id] = found
        return found


__all__ = [
    "AuthStateSource",
    "CachedAuthStates",
    "CachedRevokedFamilies",
    "ChangeSignal",
    "RevokedFamilies",
]
