"""API key storage: records, the async Protocol, and its SQL implementation."""

from __future__ import annotations

import uuid
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Protocol

from sqlalchemy import func, select, update
from sqlalchemy.ext.asyncio import AsyncEngine, AsyncSession, async_sessionmaker

from pacekeeper.apikeys._tables import ApiKeyRow, ApiKeyUsageRow
from pacekeeper.apikeys._tiers import Tier
from pacekeeper.db import Role, UserRow, UserStatus, reading, upsert_insert
from pacekeeper.errors import PacekeeperError


@dataclass(frozen=True, slots=True)
class ApiKey:
    id: str
    user_id: uuid.UUID
    name: str
    tier: Tier
    secret_hash: str
    created_at: datetime
    expires_at: datetime | None
    last_used_at: datetime | None
    deleted_at: datetime | None


@dataclass(frozen=True, slots=True)
class KeyLookup:
    """What each key-authenticated request reads: the key and its owner, one query."""

    key: ApiKey
    owner_status: UserStatus
    owner_email: str
    owner_role: Role
    owner_tenant_id: uuid.UUID
    owner_token_version: int


@dataclass(frozen=True, slots=True)
class KeyCaps:
    """How many keys one user may hold (issue 20, #11: quotas are per key, so keys must
    not be free to multiply). Trial keys count for 30 days from creation, deleted or not:
    deleting one and creating another does not mint a fresh quota."""

    max_live: int
    max_trial: int
    trial_since: datetime  # trial keys created after this count against `max_trial`


class KeyCapReached(PacekeeperError):
    """The new key would exceed a cap; the message says which, for the person."""


class ApiKeyRepository(Protocol):
    async def add(self, key: ApiKey, caps: KeyCaps | None = None) -> None:
        """Store `key`; with `caps`, atomically refuse (KeyCapReached) when it would
        exceed them, also against concurrent creations for the same user."""
    async def get(self, key_id: str) -> ApiKey | None: ...
    async def list_for_user(self, user_id: uuid.UUID) -> Sequence[ApiKey]: ...
    async def mark_deleted(self, key_id: str, at: datetime) -> bool:
        """Set deleted_at once; False when unknown or already deleted."""

    async def lookup(self, key_id: str) -> KeyLookup | None: ...
    async def usage_since(
        self, key_ids: Collection[str], first_day: int
    ) -> dict[str, dict[int, int]]: ...
    async def add_usage(
        self, deltas: Mapping[tuple[str, int], int], last_used: Mapping[str, datetime]
    ) -> None:
        """Add request counts per (key, day) and move last_used_at forward, in one batch."""


_KEY_COLUMNS = (
    ApiKeyRow.id, ApiKeyRow.user_id, ApiKeyRow.name, ApiKeyRow.tier, ApiKeyRow.secret_hash,
    ApiKeyRow.created_at, ApiKeyRow.expires_at, ApiKeyRow.last_used_at, ApiKeyRow.deleted_at,
)


def _key(row: ApiKeyRow) -> ApiKey:
    return ApiKey(
        row.id, row.user_id, row.name, Tier(row.tier), row.secret_hash, row.created_at,
        row.expires_at, row.last_used_at, row.deleted_at,
    )


class SqlApiKeyRepository:
    def __init__(self, sessions: async_sessionmaker[AsyncSession]) -> None:
        self._sessions = sessions
        # The hot path: a bare connection and a prebuilt statement (as auth_state does),
        # in autocommit: its two reads are one round trip each, not three (db.reading).
        self._engine: AsyncEngine = reading(sessions.kw["bind"])
        self._insert = upsert_insert(sessions)
        self._lookup = select(
            *_KEY_COLUMNS, UserRow.status, UserRow.email, UserRow.role, UserRow.tenant_id,
            UserRow.token_version,
        ).join(UserRow, UserRow.id == ApiKeyRow.user_id)

    async def add(self, key: ApiKey, caps: KeyCaps | None = None) -> None:
        async with self._sessions() as session, session.begin():
            if caps is not None:
                # PostgreSQL: concurrent creations for one user queue on the user's row.
                # SQLite: the INSERT below takes the database's write lock first. Either
                # way the counts after the insert see every committed key of this user.
                await session.execute(
                    select(UserRow.id).where(UserRow.id == key.user_id).with_for_update()
                )
            session.add(ApiKeyRow(
                id=key.id, user_id=key.user_id, name=key.name, tier=key.tier.value,
                secret_hash=key.secret_hash, created_at=key.created_at,
                expires_at=key.expires_at, last_used_at=key.last_used_at,
                deleted_at=key.deleted_at,
            ))
            await session.flush()
            if caps is not None:
                problem = await self._over_cap(session, key, caps)
                if problem is not None:
                    await session.rollback()
                    raise KeyCapReached(problem)

    @staticmethod
    async def _over_cap(session: AsyncSession, key: ApiKey, caps: KeyCaps) -> str | None:
        mine = ApiKeyRow.user_id == key.user_id
        live = await session.scalar(select(func.count()).where(
            mine, ApiKeyRow.deleted_at.is_(None),
            (ApiKeyRow.expires_at.is_(None)) | (ApiKeyRow.expires_at > key.created_at),
        ))  # fmt: skip
        if (live or 0) > caps.max_live:
            return (f"you already have {caps.max_live} live API keys, the most allowed: "
                    "delete one first")  # fmt: skip
        if key.tier is Tier.TRIAL:
            trials = await session.scalar(select(func.count()).where(
                mine, ApiKeyRow.tier == Tier.TRIAL.value,
                ApiKeyRow.created_at > caps.trial_since,
            ))  # fmt: skip
            if (trials or 0) > caps.max_trial:
                return (f"at most {caps.max_trial} trial keys per person in 30 days "
                        "(deleted ones count): use an existing key, or ask for a paid tier")
        return None

    async def get(self, key_id: str) -> ApiKey | None:
        async with self._sessions() as session:
            row = await session.get(ApiKeyRow, key_id)
            return None if row is None else _key(row)

    async def list_for_user(self, user_id: uuid.UUID) -> Sequence[ApiKey]:
        async with self._sessions() as session:
            rows = await session.scalars(
                select(ApiKeyRow)
                .where(ApiKeyRow.user_id == user_id, ApiKeyRow.deleted_at.is_(None))
                .order_by(ApiKeyRow.created_at, ApiKeyRow.id)
            )
            return [_key(row) for row in rows]

    async def mark_deleted(self, key_id: str, at: datetime) -> bool:
        async with self._sessions() as session:
            result = await session.execute(
                update(ApiKeyRow)
                .where(ApiKeyRow.id == key_id, ApiKeyRow.deleted_at.is_(None))
                .values(deleted_at=at)
            )
            await session.commit()
            return bool(getattr(result, "rowcount", 0))

    async def lookup(self, key_id: str) -> KeyLookup | None:
        async with self._engine.connect() as connection:
            row = (
                await connection.execute(self._lookup.where(ApiKeyRow.id == key_id))
            ).first()
        if row is None:
            return None
        (key_id, user_id, name, tier, secret_hash, created_at, expires_at, last_used_at,
         deleted_at, status, email, role, tenant_id, version) = tuple(row)
        key = ApiKey(key_id, user_id, name, Tier(tier), secret_hash, created_at, expires_at,
                     last_used_at, deleted_at)
        return KeyLookup(key, UserStatus(status), email, Role(role), tenant_id, int(version))

    async def usage_since(
        self, key_ids: Collection[str], first_day: int
    ) -> dict[str, dict[int, int]]:
        found: dict[str, dict[int, int]] = {key_id: {} for key_id in key_ids}
        if not key_ids:
            return found
        async with self._engine.connect() as connection:
            rows = await connection.execute(
                select(ApiKeyUsageRow.key_id, ApiKeyUsageRow.day, ApiKeyUsageRow.count).where(
                    ApiKeyUsageRow.key_id.in_(list(key_ids)), ApiKeyUsageRow.day >= first_day
                )
            )
            for key_id, day, count in rows:
                found[key_id][int(day)] = int(count)
        return found

    async def add_usage(
        self, deltas: Mapping[tuple[str, int], int], last_used: Mapping[str, datetime]
    ) -> None:
        if not deltas and not last_used:
            return
        async with self._sessions() as session:
            if deltas:
                statement = self._insert(ApiKeyUsageRow).values([
                    {"key_id": key_id, "day": day, "count": count}
                    for (key_id, day), count in deltas.items()
                ])
                # Counts from several processes add up; the upsert is atomic per row.
                statement = statement.on_conflict_do_update(
                    index_elements=["key_id", "day"],
                    set_={"count": ApiKeyUsageRow.count + statement.excluded.count},
                )
                await session.execute(statement)
            for key_id, at in last_used.items():
                await session.execute(
                    update(ApiKeyRow)
                    .where(ApiKeyRow.id == key_id)
                    .values(last_used_at=func.coalesce(ApiKeyRow.last_used_at, at))
                )
                await session.execute(
                    update(ApiKeyRow)
                    .where(ApiKeyRow.id == key_id, ApiKeyRow.last_used_at < at)
                    .values(last_used_at=at)
                )
            await session.commit()


__all__ = ["ApiKey", "ApiKeyRepository", "KeyLookup", "SqlApiKeyRepository"]
