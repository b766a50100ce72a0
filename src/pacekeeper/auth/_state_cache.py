"""The per-request user-status read, cached until something is revoked.

Every authenticated request must see a disabled user at once (ACC-8), so the resolver
reads the user's status and token version on each request: a primary-key query that
costs far more than the cached token check itself. A revocation signal (a version that
moves on every disable, shared by all processes through Redis or a file in the data
dir) lets that read be cached: the cache holds only while the version is unchanged.

The same holds for OAuth grants: an access token names its grant (claim `fid`), and a
revoked grant's tokens fail at once (RFC 7009 2.1). "Is this family revoked?" is a
primary-key read, cached the same way and under the same version read
(`CachedCallerStates`): revoking a family moves the same signal. And so for single
tokens ended by logout (`jti`, table `revoked_tokens`, finding 13): the record is
written, then the signal moves, so "is this jti revoked?" is cached like the rest.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Hashable
from datetime import datetime
from typing import Protocol, TypeVar

from pacekeeper.db import AuthState


class ChangeSignal(Protocol):
    async def version(self) -> str: ...


class AuthStateSource(Protocol):
    async def auth_state(self, user_id: uuid.UUID) -> AuthState | None: ...


class RevokedFamilies(Protocol):
    async def family_revoked(self, family_id: uuid.UUID) -> bool: ...


class RevokedTokens(Protocol):
    async def token_revoked(self, jti: str) -> bool: ...


class TokenRevocationStore(RevokedTokens, Protocol):
    async def revoke(self, jti: str, expires_at: datetime, now: datetime) -> None: ...


class BumpingSignal(Protocol):
    async def bump(self) -> None: ...


class TokenRevocations:
    """Ending one token (logout): the record first, then the signal moves, so every
    process's cached "not revoked" answer is dropped before its next request."""

    def __init__(self, store: TokenRevocationStore, signal: BumpingSignal,
                 clock: Callable[[], datetime]) -> None:
        self._store = store
        self._signal = signal
        self._clock = clock

    async def revoke(self, jti: str, expires_at: datetime) -> None:
        await self._store.revoke(jti, expires_at, self._clock())
        await self._signal.bump()


V = TypeVar("V")
K = TypeVar("K", bound=Hashable)


class CallerStates(Protocol):
    """What the resolver asks per request: the user's state and, for an OAuth access
    token (`family_id`), whether its grant was revoked, and whether the token itself
    (`jti`) was revoked by a logout; when revoked, the state is not read."""

    async def caller_state(self, user_id: uuid.UUID, family_id: uuid.UUID | None,
                           jti: str | None = None) -> tuple[AuthState | None, bool]: ...


class DirectCallerStates:
    """Every request reads the database (PostgreSQL without Redis: processes may run on
    several hosts, where the file signal does not reach)."""

    def __init__(self, users: AuthStateSource, families: RevokedFamilies | None = None,
                 tokens: RevokedTokens | None = None) -> None:
        self._users = users
        self._families = families
        self._tokens = tokens

    async def caller_state(self, user_id: uuid.UUID, family_id: uuid.UUID | None,
                           jti: str | None = None) -> tuple[AuthState | None, bool]:
        if (family_id is not None and self._families is not None
                and await self._families.family_revoked(family_id)):
            return None, True
        if jti is not None and self._tokens is not None and await self._tokens.token_revoked(jti):
            return None, True
        return await self._users.auth_state(user_id), False


class CachedCallerStates:
    """User states and revoked grants, kept while the signal's version stands still.

    `caller_state` reads the version once for both questions (with Redis, one GET per
    request). A value read while the version moved is returned but not kept: a
    concurrent request may already have seen the newer version, and this read may
    predate that revocation. A missing user (`None`) is never kept; both answers about a
    family are ("not revoked" is the one every request of a live grant asks).
    """

    def __init__(self, signal: ChangeSignal, users: AuthStateSource,
                 families: RevokedFamilies | None = None, limit: int = 10_000,
                 tokens: RevokedTokens | None = None) -> None:
        self._signal = signal
        self._users = users
        self._families = families
        self._tokens = tokens
        self._limit = limit
        self._states: dict[uuid.UUID, AuthState] = {}
        self._revoked: dict[uuid.UUID, bool] = {}
        self._revoked_jtis: dict[str, bool] = {}
        self._version: str | None = None
        # A signal that reads without I/O (the file mapping) can be read synchronously.
        self._read_now: Callable[[], str] | None = getattr(signal, "version_now", None)

    def known_state(self, user_id: uuid.UUID, family_id: uuid.UUID | None,
                    jti: str | None = None) -> tuple[AuthState | None, bool] | None:
        """`caller_state`'s answer without a coroutine, when the signal reads without I/O
        and has not moved and every answer it needs is kept; None otherwise (then ask
        `caller_state`). The signal is read here as there: once per request."""
        if self._read_now is None or self._read_now() != self._version:
            return None
        if family_id is not None and self._families is not None:
            family = self._revoked.get(family_id)
            if family is None:
                return None
            if family:
                return None, True
        if jti is not None and self._tokens is not None:
            token = self._revoked_jtis.get(jti)
            if token is None:
                return None
            if token:
                return None, True
        state = self._states.get(user_id)
        return None if state is None else (state, False)

    async def caller_state(self, user_id: uuid.UUID, family_id: uuid.UUID | None,
                           jti: str | None = None) -> tuple[AuthState | None, bool]:
        version = await self._current()
        if family_id is not None and self._families is not None and await self._family(
                family_id, version):
            return None, True
        if jti is not None and self._tokens is not None and await self._token(jti, version):
            return None, True
        return await self._user(user_id, version), False

    async def _current(self) -> str:
        version = await self._signal.version()
        if version != self._version:
            self._states.clear()
            self._revoked.clear()
            self._revoked_jtis.clear()
            self._version = version
        return version

    async def _token(self, jti: str, version: str) -> bool:
        assert self._tokens is not None  # caller_state asks only when there is a source
        revoked = self._revoked_jtis.get(jti)
        if revoked is None:
            revoked = await self._tokens.token_revoked(jti)
            self._keep(self._revoked_jtis, jti, revoked, version)
        return revoked

    async def _user(self, user_id: uuid.UUID, version: str) -> AuthState | None:
        state = self._states.get(user_id)
        if state is None:
            state = await self._users.auth_state(user_id)
            if state is not None:
                self._keep(self._states, user_id, state, version)
        return state

    async def _family(self, family_id: uuid.UUID, version: str) -> bool:
        assert self._families is not None  # caller_state asks only when there is a source
        revoked = self._revoked.get(family_id)
        if revoked is None:
            revoked = await self._families.family_revoked(family_id)
            self._keep(self._revoked, family_id, revoked, version)
        return revoked

    def _keep(self, table: dict[K, V], key: K, value: V, version: str) -> None:
        if self._version == version:
            if len(table) >= self._limit:
                table.clear()
            table[key] = value


__all__ = [
    "AuthStateSource",
    "CachedCallerStates",
    "CallerStates",
    "ChangeSignal",
    "DirectCallerStates",
    "RevokedFamilies",
    "RevokedTokens",
    "TokenRevocations",
]
