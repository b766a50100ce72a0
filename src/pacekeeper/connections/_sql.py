"""SQLAlchemy implementations of the connection-layer Protocols (SQLite and PostgreSQL).

Also the provider layer's storage Protocols: ``EncryptedSecretStore`` (master-key
rotation) and the webhooks' token lookup; ``_sql_states`` has the states and webhook keys.
"""

from __future__ import annotations

import hashlib
import uuid
from collections.abc import AsyncIterator, Collection
from contextlib import asynccontextmanager
from datetime import datetime

from sqlalchemy import delete, select, update
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from pacekeeper.connections._models import ProviderConnectionRow
from pacekeeper.connections._records import (
    ConnectionStatus,
    NewConnection,
    StoredConnection,
    TokenUpdate,
)
from pacekeeper.crypto import Envelope, StoredSecret, TokenContext
from pacekeeper.db import upsert_insert

_Row = ProviderConnectionRow
_TOKEN_SLICE = 1000  # tokens per lookup of a Garmin delivery


def sha256_hex(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def _record(row: ProviderConnectionRow) -> StoredConnection:
    return StoredConnection(
        id=row.id,
        tenant_id=row.tenant_id,
        user_id=row.user_id,
        provider=row.provider,
        token_envelope=row.token_envelope,
        key_version=row.key_version,
        expires_at=row.expires_at,
        status=ConnectionStatus(row.status),
        scopes=row.scopes,
        provider_user_id=row.provider_user_id,
        updated_at=row.updated_at,
    )


class _LockedRow:
    """PostgreSQL: the row is locked (FOR UPDATE) in ``session`` until the block ends.
    SQLite: ``session`` is None; the swap is a compare-and-swap in its own transaction."""

    def __init__(
        self,
        record: StoredConnection | None,
        session: AsyncSession | None,
        sessions: async_sessionmaker[AsyncSession],
    ) -> None:
        self.record = record
        self._session = session
        self._sessions = sessions

    async def _cas(self, **values: object) -> bool:
        if self.record is None:
            return False
        stmt = (
            update(_Row)
            .where(_Row.id == self.record.id, _Row.token_envelope == self.record.token_envelope)
            .values(**values)
        )
        if self._session is not None:
            result = await self._session.execute(stmt)
        else:
            async with self._sessions() as session, session.begin():
                result = await session.execute(stmt)
        return int(result.rowcount) == 1  # type: ignore[attr-defined]

    async def swap(self, update_: TokenUpdate, now: datetime) -> bool:
        return await self._cas(
            token_envelope=update_.token_envelope,
            key_version=update_.key_version,
            expires_at=update_.expires_at,
            token_lookup=update_.token_lookup,
            status=ConnectionStatus.CONNECTED.value,
            updated_at=now,
        )

    async def mark_needs_reconnect(self, now: datetime) -> bool:
        return await self._cas(status=ConnectionStatus.NEEDS_RECONNECT.value, updated_at=now)


class SqlConnectionRepository:
    """Connections, plus ``EncryptedSecretStore`` and the webhooks' token lookup."""

    def __init__(self, sessions: async_sessionmaker[AsyncSession]) -> None:
        self._sessions = sessions
        self.row_locks = sessions.kw["bind"].dialect.name == "postgresql"
        self._insert = upsert_insert(sessions)

    async def get(self, user_id: uuid.UUID, provider: str) -> StoredConnection | None:
        async with self._sessions() as session:
            row = (
                await session.execute(
                    select(_Row).where(_Row.user_id == user_id, _Row.provider == provider)
                )
            ).scalar_one_or_none()
            return None if row is None else _record(row)

    async def for_user(self, user_id: uuid.UUID) -> list[StoredConnection]:
        async with self._sessions() as session:
            rows = (await session.execute(select(_Row).where(_Row.user_id == user_id))).scalars()
            return [_record(row) for row in rows]

    async def save(self, connection: NewConnection, now: datetime) -> StoredConnection:
        values = {
            "tenant_id": connection.tenant_id,
            "token_envelope": connection.token_envelope,
            "key_version": connection.key_version,
            "expires_at": connection.expires_at,
            "status": ConnectionStatus.CONNECTED.value,
            "scopes": connection.scopes,
            "provider_user_id": connection.provider_user_id,
            "token_lookup": connection.token_lookup,
            "updated_at": now,
        }
        stmt = self._insert(_Row).values(
            id=uuid.uuid4(), user_id=connection.user_id, provider=connection.provider,
            created_at=now, **values,
        )  # fmt: skip
        # A reconnect replaces the tokens in place (one row per user and provider).
        stmt = stmt.on_conflict_do_update(index_elements=["user_id", "provider"], set_=values)
        async with self._sessions() as session, session.begin():
            await session.execute(stmt)
        found = await self.get(connection.user_id, connection.provider)
        assert found is not None
        return found

    async def delete(self, user_id: uuid.UUID, provider: str) -> StoredConnection | None:
        stmt = (
            delete(_Row).where(_Row.user_id == user_id, _Row.provider == provider).returning(_Row)
        )
        async with self._sessions() as session, session.begin():
            row = (await session.execute(stmt)).scalar_one_or_none()
            return None if row is None else _record(row)

    @asynccontextmanager
    async def lock(self, user_id: uuid.UUID, provider: str) -> AsyncIterator[_LockedRow]:
        stmt = select(_Row).where(_Row.user_id == user_id, _Row.provider == provider)
        if not self.row_locks:
            yield _LockedRow(await self.get(user_id, provider), None, self._sessions)
            return
        async with self._sessions() as session, session.begin():
            row = (await session.execute(stmt.with_for_update())).scalar_one_or_none()
            yield _LockedRow(None if row is None else _record(row), session, self._sessions)

    # -- background syncs (pacekeeper.jobs) ------------------------------------------

    async def connected(self) -> list[tuple[uuid.UUID, uuid.UUID, str]]:
        """(user, tenant, provider) of every connection in use (the sync schedule)."""
        async with self._sessions() as session:
            rows = (await session.execute(
                select(_Row.user_id, _Row.tenant_id, _Row.provider)
                .where(_Row.status == ConnectionStatus.CONNECTED.value)
                .order_by(_Row.user_id, _Row.provider))).all()
        return [(user, tenant, provider) for user, tenant, provider in rows]

    async def owners_of(self, provider: str, provider_user_id: str
                        ) -> list[tuple[uuid.UUID, uuid.UUID]]:
        """(user, tenant) of the connections of one provider account (a webhook names
        the account by the provider's own id)."""
        async with self._sessions() as session:
            rows = (await session.execute(
                select(_Row.user_id, _Row.tenant_id).where(
                    _Row.provider == provider, _Row.provider_user_id == provider_user_id,
                    _Row.status == ConnectionStatus.CONNECTED.value))).all()
        return [(user, tenant) for user, tenant in rows]

    # -- EncryptedSecretStore (pacekeeper keys rotate-master) ------------------------

    async def iter_secrets(self) -> AsyncIterator[StoredSecret]:
        async with self._sessions() as session:
            rows = (
                await session.execute(
                    select(
                        _Row.id, _Row.tenant_id, _Row.user_id, _Row.provider, _Row.token_envelope
                    )
                )
            ).all()
        for row_id, tenant_id, user_id, provider, envelope in rows:
            context = TokenContext(str(tenant_id), str(user_id), provider)
            yield StoredSecret(str(row_id), context, envelope)

    async def replace_secret(self, record_id: str, old_envelope: str, new_envelope: str) -> bool:
        stmt = (
            update(_Row)
            .where(_Row.id == uuid.UUID(record_id), _Row.token_envelope == old_envelope)
            .values(token_envelope=new_envelope,
                    key_version=Envelope.parse(new_envelope).key_version)
        )  # fmt: skip
        async with self._sessions() as session, session.begin():
            result = await session.execute(stmt)
        return int(result.rowcount) == 1  # type: ignore[attr-defined]

    # -- push webhooks that name the user by access token (Garmin's) -----------------

    async def users_for_tokens(self, provider: str, user_access_tokens: Collection[str]
                               ) -> dict[str, str]:
        by_digest = {sha256_hex(token): token for token in user_access_tokens}
        digests = list(by_digest)
        found: dict[str, str] = {}
        async with self._sessions() as session:
            # In slices, well under the bound parameters SQLite (32,766 since 3.32) and
            # asyncpg (32,767) take: a full delivery is 10 queries, not 10,000.
            for start in range(0, len(digests), _TOKEN_SLICE):
                rows = await session.execute(
                    select(_Row.token_lookup, _Row.user_id).where(
                        _Row.provider == provider,
                        _Row.token_lookup.in_(digests[start:start + _TOKEN_SLICE]),
                        _Row.status == ConnectionStatus.CONNECTED.value,
                    )
                )
                for digest, user_id in rows:
                    if digest is not None:  # matched by IN: never None, but typed so
                        found[by_digest[digest]] = str(user_id)
        return found


__all__ = ["SqlConnectionRepository", "sha256_hex"]
