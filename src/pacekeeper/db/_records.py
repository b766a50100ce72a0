"""Plain records passed between storage and services (no ORM objects leak out)."""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum

from pacekeeper.errors import PacekeeperError


class Role(StrEnum):
    USER = "user"
    ADMIN = "admin"


class UserStatus(StrEnum):
    ACTIVE = "active"
    DISABLED = "disabled"


@dataclass(frozen=True, slots=True)
class Tenant:
    id: uuid.UUID
    name: str
    slug: str
    plan: str
    rate_limit_per_minute: int | None
    created_at: datetime


@dataclass(frozen=True, slots=True)
class User:
    id: uuid.UUID
    email: str
    password_hash: str
    display_name: str | None
    role: Role
    status: UserStatus
    tenant_id: uuid.UUID
    created_at: datetime
    last_login_at: datetime | None
    token_version: int


@dataclass(frozen=True, slots=True)
class AuthState:
    """What each authenticated request re-reads: cheap, one primary-key lookup."""

    status: UserStatus
    token_version: int
    tenant_rate_limit_per_minute: int | None


@dataclass(frozen=True, slots=True)
class SigningKey:
    kid: str
    alg: str
    private_key_sealed: bytes
    public_jwk: str
    created_at: datetime
    retired_at: datetime | None
    expires_at: datetime | None


@dataclass(frozen=True, slots=True)
class CsrfRecord:
    user_id: uuid.UUID
    expires_at: datetime


class DuplicateEmailError(PacekeeperError):
    """A user with this email (compared case-insensitively) already exists."""


__all__ = [
    "AuthState",
    "CsrfRecord",
    "DuplicateEmailError",
    "Role",
    "SigningKey",
    "Tenant",
    "User",
    "UserStatus",
]
