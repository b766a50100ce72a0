"""SQL storage of pending authorizations and of webhook idempotency keys."""

from __future__ import annotations

import uuid
from collections.abc import Callable
from datetime import datetime, timedelta

from sqlalchemy import delete, update
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from pacekeeper.connections._models import OAuthStateRow, WebhookKeyRow
from pacekeeper.connections._records import PendingState
from pacekeeper.connections._sql import sha256_hex
from pacekeeper.db import upsert_insert


def _state(row: OAuthStateRow) -> PendingState:
    return PendingState(
        row.nonce_hash, row.tenant_id, row.user_id, row.provider,
        row.secret_envelope, row.request_token, row.expires_at, row.binding_hash,
    )  # fmt: skip


class SqlOAuthStateRepository:
    def __init__(self, sessions: async_sessionmaker[AsyncSession]) -> None:
        self._sessions = sessions

    async def add(self, state: PendingState, now: datetime) -> None:
        async with self._sessions() as session, session.begin():
            session.add(
                OAuthStateRow(
                    nonce_hash=state.nonce_hash,
                    tenant_id=state.tenant_id,
                    user_id=state.user_id,
                    provider=state.provider,
                    secret_envelope=state.secret_envelope,
                    request_token=state.request_token,
                    expires_at=state.expires_at,
                    created_at=now,
                )
            )

    async def bind(
        self, nonce_hash: str, provider: str, user_id: uuid.UUID, binding_hash: str,
        secret_envelope: str | None, request_token: str | None, now: datetime,
    ) -> PendingState | None:
        # One UPDATE ... RETURNING: of several browsers pressing Continue exactly one binds.
        stmt = (
            update(OAuthStateRow)
            .where(
                OAuthStateRow.nonce_hash == nonce_hash,
                OAuthStateRow.provider == provider,
                OAuthStateRow.user_id == user_id,
                OAuthStateRow.binding_hash.is_(None),
                OAuthStateRow.used_at.is_(None),
                OAuthStateRow.expires_at > now,
            )
            .values(binding_hash=binding_hash, secret_envelope=secret_envelope,
                    request_token=request_token)
            .returning(OAuthStateRow)
        )  # fmt: skip
        async with self._sessions() as session, session.begin():
            row = (await session.execute(stmt)).scalar_one_or_none()
            return None if row is None else _state(row)

    async def consume(
        self, nonce_hash: str, provider: str, user_id: uuid.UUID, binding_hash: str,
        now: datetime,
    ) -> PendingState | None:
        # One UPDATE ... RETURNING: of several concurrent callbacks exactly one sees a row.
        # A callback from a browser without the binding matches nothing and uses nothing up.
        stmt = (
            update(OAuthStateRow)
            .where(
                OAuthStateRow.nonce_hash == nonce_hash,
                OAuthStateRow.provider == provider,
                OAuthStateRow.user_id == user_id,
                OAuthStateRow.binding_hash == binding_hash,
                OAuthStateRow.used_at.is_(None),
                OAuthStateRow.expires_at > now,
            )
            .values(used_at=now)
            .returning(OAuthStateRow)
        )
        async with self._sessions() as session, session.begin():
            row = (await session.execute(stmt)).scalar_one_or_none()
            return None if row is None else _state(row)

    async def explain(self, nonce_hash: str) -> PendingState | None:
        async with self._sessions() as session:
            row = await session.get(OAuthStateRow, nonce_hash)
            return None if row is None else _state(row)

    async def used(self, nonce_hash: str) -> bool:
        async with self._sessions() as session:
            row = await session.get(OAuthStateRow, nonce_hash)
            return row is not None and row.used_at is not None

    async def purge(self, now: datetime) -> int:
        # Used states are kept a day so a replay is still recognised as one.
        async with self._sessions() as session, session.begin():
            result = await session.execute(
                delete(OAuthStateRow).where(OAuthStateRow.expires_at < now - timedelta(days=1))
            )
            return int(result.rowcount)  # type: ignore[attr-defined]


class SqlIdempotencyStore:
    """``IdempotencyStore`` on the database: one INSERT ... ON CONFLICT DO NOTHING."""

    def __init__(
        self, sessions: async_sessionmaker[AsyncSession], clock: Callable[[], datetime]
    ) -> None:
        self._sessions = sessions
        self._clock = clock
        self._insert = upsert_insert(sessions)

    async def claim(self, key: str, ttl_s: float) -> bool:
        now = self._clock()
        key_hash = sha256_hex(key)
        stmt = (
            self._insert(WebhookKeyRow)
            .values(key_hash=key_hash, expires_at=now + timedelta(seconds=ttl_s))
            .on_conflict_do_nothing(index_elements=["key_hash"])
        )
        async with self._sessions() as session, session.begin():
            # An expired key may be claimed again: drop it first, in the same transaction.
            await session.execute(
                delete(WebhookKeyRow).where(
                    WebhookKeyRow.key_hash == key_hash, WebhookKeyRow.expires_at <= now
                )
            )
            result = await session.execute(stmt)
        return int(result.rowcount) == 1  # type: ignore[attr-defined]


__all__ = ["SqlIdempotencyStore", "SqlOAuthStateRepository"]
