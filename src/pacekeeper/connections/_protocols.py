"""Storage Protocols of the connection layer (SQL implementations in ``_sql``)."""

from __future__ import annotations

import uuid
from contextlib import AbstractAsyncContextManager
from datetime import datetime
from typing import Protocol

from pacekeeper.connections._records import (
    NewConnection,
    PendingState,
    StoredConnection,
    TokenUpdate,
)


class OAuthStateRepository(Protocol):
    async def add(self, state: PendingState, now: datetime) -> None: ...

    async def bind(
        self, nonce_hash: str, provider: str, user_id: uuid.UUID, binding_hash: str,
        secret_envelope: str | None, request_token: str | None, now: datetime,
    ) -> PendingState | None:
        """Bind an unbound, unused, unexpired state to a browser and store what the
        provider's start left (sealed secret, request token), in ONE atomic statement."""
        ...

    async def consume(
        self, nonce_hash: str, provider: str, user_id: uuid.UUID, binding_hash: str,
        now: datetime,
    ) -> PendingState | None:
        """Mark used and return it, in ONE atomic statement; None unless it was unused,
        unexpired, for this provider, issued to this user (PROV-3) and bound to the
        browser presenting ``binding_hash``."""
        ...

    async def explain(self, nonce_hash: str) -> PendingState | None:
        """The record whatever its state (only to word a refusal, never to accept)."""
        ...

    async def used(self, nonce_hash: str) -> bool: ...

    async def purge(self, now: datetime) -> int: ...


class LockedConnection(Protocol):
    """A connection read for a refresh; on PostgreSQL its row stays locked until exit."""

    record: StoredConnection | None

    async def swap(self, update: TokenUpdate, now: datetime) -> bool:
        """Store refreshed tokens if the row still holds the envelope that was read."""
        ...

    async def mark_needs_reconnect(self, now: datetime) -> bool: ...


class ConnectionRepository(Protocol):
    async def get(self, user_id: uuid.UUID, provider: str) -> StoredConnection | None: ...

    async def for_user(self, user_id: uuid.UUID) -> list[StoredConnection]: ...

    async def save(self, connection: NewConnection, now: datetime) -> StoredConnection:
        """Insert, or replace the tokens of an existing (user, provider) connection."""
        ...

    async def delete(self, user_id: uuid.UUID, provider: str) -> StoredConnection | None: ...

    def lock(
        self, user_id: uuid.UUID, provider: str
    ) -> AbstractAsyncContextManager[LockedConnection]: ...


__all__ = ["ConnectionRepository", "LockedConnection", "OAuthStateRepository"]
