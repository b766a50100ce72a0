"""Storage seen by the services: small async Protocols (SQL today, anything tomorrow)."""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from datetime import datetime
from typing import Protocol

from pacekeeper.db._records import AuthState, CsrfRecord, SigningKey, Tenant, User


class UserRepository(Protocol):
    async def create_with_tenant(self, user: User, tenant: Tenant | None) -> None:
        """Insert the user (and its new tenant, if given) in one transaction.

        Raises DuplicateEmailError when the email is taken.
        """

    async def get(self, user_id: uuid.UUID) -> User | None: ...
    async def get_by_email(self, email: str) -> User | None: ...
    async def count(self) -> int: ...
    async def get_tenant(self, tenant_id: uuid.UUID) -> Tenant | None: ...
    async def record_login(
        self, user_id: uuid.UUID, at: datetime, new_password_hash: str | None
    ) -> None: ...
    async def disable(self, user_id: uuid.UUID) -> bool:
        """Set status disabled and bump token_version; False when no such user."""

    async def enable(self, user_id: uuid.UUID) -> bool:
        """Set status active (tokens from before the disable stay invalid)."""

    async def auth_state(self, user_id: uuid.UUID) -> AuthState | None: ...


class SigningKeyRepository(Protocol):
    async def add(self, key: SigningKey) -> None: ...
    async def list_all(self) -> Sequence[SigningKey]: ...
    async def retire(self, kid: str, retired_at: datetime, expires_at: datetime) -> None: ...
    async def reseal(self, kid: str, private_key_sealed: bytes) -> None: ...
    async def delete_expired(self, now: datetime) -> int: ...


class CsrfTokenRepository(Protocol):
    async def add(self, token_hash: str, record: CsrfRecord) -> None: ...
    async def get(self, token_hash: str) -> CsrfRecord | None: ...
    async def delete(self, token_hash: str) -> None: ...
    async def purge_expired(self, now: datetime) -> int: ...


__all__ = ["CsrfTokenRepository", "SigningKeyRepository", "UserRepository"]
