"""What the connection layer stores and hands around (no ORM types leak out)."""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from datetime import datetime
from enum import StrEnum


class ConnectionStatus(StrEnum):
    CONNECTED = "connected"
    # The provider refused our refresh token: only a new authorization helps.
    NEEDS_RECONNECT = "needs_reconnect"


@dataclass(frozen=True, slots=True)
class StoredConnection:
    id: uuid.UUID
    tenant_id: uuid.UUID
    user_id: uuid.UUID
    provider: str
    token_envelope: str = field(repr=False)
    key_version: int
    expires_at: datetime | None
    status: ConnectionStatus
    scopes: str | None
    provider_user_id: str | None
    updated_at: datetime


@dataclass(frozen=True, slots=True)
class NewConnection:
    tenant_id: uuid.UUID
    user_id: uuid.UUID
    provider: str
    token_envelope: str = field(repr=False)
    key_version: int
    expires_at: datetime | None
    scopes: str | None
    provider_user_id: str | None
    token_lookup: str | None = field(default=None, repr=False)


@dataclass(frozen=True, slots=True)
class TokenUpdate:
    """A refreshed token set, sealed, with the columns derived from it."""

    token_envelope: str = field(repr=False)
    key_version: int
    expires_at: datetime | None
    token_lookup: str | None = field(default=None, repr=False)


@dataclass(frozen=True, slots=True)
class PendingState:
    """A provider authorization in flight: what the callback needs besides the code."""

    nonce_hash: str
    tenant_id: uuid.UUID
    user_id: uuid.UUID
    provider: str
    secret_envelope: str | None = field(repr=False)
    request_token: str | None
    expires_at: datetime
    # SHA-256 of the browser binding secret; None until the flow is continued.
    binding_hash: str | None = field(default=None, repr=False)


__all__ = [
    "ConnectionStatus",
    "NewConnection",
    "PendingState",
    "StoredConnection",
    "TokenUpdate",
]
