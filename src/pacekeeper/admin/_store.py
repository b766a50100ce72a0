"""Reads and writes of the admin pages: users across tenants, tenants with their head
count, the stored site settings. Status changes of a user are not here: they go through
the users repository, which moves the revocation signal (one home for that)."""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import func, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from pacekeeper.admin._tables import SiteSettingRow
from pacekeeper.db import Tenant, TenantRow, UserRow, upsert_insert
from pacekeeper.errors import PacekeeperError


@dataclass(frozen=True, slots=True)
class UserListing:
    id: uuid.UUID
    email: str
    display_name: str | None
    role: str
    status: str
    tenant_id: uuid.UUID
    tenant_name: str
    created_at: datetime
    last_login_at: datetime | None


@dataclass(frozen=True, slots=True)
class TenantListing:
    tenant: Tenant
    users: int


class SlugTaken(PacekeeperError):
    """Another tenant has this slug."""


def _escape_like(text: str) -> str:
    return text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")


class SqlAdminStore:
    def __init__(self, sessions: async_sessionmaker[AsyncSession]) -> None:
        self._sessions = sessions
        self._insert = upsert_insert(sessions)

    async def users(self, query: str | None, tenant_id: uuid.UUID | None, after: str | None,
                    limit: int, user_id: uuid.UUID | None = None) -> list[UserListing]:
        """Users by email (emails are stored lower-cased and unique: a stable cursor)."""
        stmt = (select(UserRow, TenantRow.name).join(TenantRow, TenantRow.id == UserRow.tenant_id)
                .order_by(UserRow.email).limit(limit))
        if query:
            stmt = stmt.where(UserRow.email.like(f"%{_escape_like(query.lower())}%", escape="\\"))
        if tenant_id is not None:
            stmt = stmt.where(UserRow.tenant_id == tenant_id)
        if user_id is not None:
            stmt = stmt.where(UserRow.id == user_id)
        if after is not None:
            stmt = stmt.where(UserRow.email > after)
        async with self._sessions() as session:
            rows = (await session.execute(stmt)).all()
        return [UserListing(u.id, u.email, u.display_name, u.role, u.status, u.tenant_id,
                            name, u.created_at, u.last_login_at) for u, name in rows]

    async def tenants(self) -> list[TenantListing]:
        counts = (select(UserRow.tenant_id, func.count().label("n"))
                  .group_by(UserRow.tenant_id).subquery())
        stmt = (select(TenantRow, func.coalesce(counts.c.n, 0))
                .outerjoin(counts, counts.c.tenant_id == TenantRow.id)
                .order_by(TenantRow.created_at, TenantRow.slug))
        async with self._sessions() as session:
            rows = (await session.execute(stmt)).all()
        return [TenantListing(_tenant(t), int(n)) for t, n in rows]

    async def tenant(self, tenant_id: uuid.UUID) -> TenantListing | None:
        found = [t for t in await self.tenants() if t.tenant.id == tenant_id]
        return found[0] if found else None

    async def add_tenant(self, tenant: Tenant) -> None:
        async with self._sessions() as session:
            session.add(TenantRow(
                id=tenant.id, name=tenant.name, slug=tenant.slug, plan=tenant.plan,
                rate_limit_per_minute=tenant.rate_limit_per_minute,
                created_at=tenant.created_at))
            try:
                await session.commit()
            except IntegrityError:  # the unique slug decides races atomically
                await session.rollback()
                raise SlugTaken(tenant.slug) from None

    async def update_tenant(self, tenant_id: uuid.UUID, values: dict[str, object]) -> bool:
        async with self._sessions() as session:
            result = await session.execute(
                update(TenantRow).where(TenantRow.id == tenant_id).values(**values))
            await session.commit()
        return bool(getattr(result, "rowcount", 0))

    async def setting(self, name: str) -> str | None:
        async with self._sessions() as session:
            found: str | None = await session.scalar(
                select(SiteSettingRow.value).where(SiteSettingRow.name == name))
        return found

    async def set_setting(self, name: str, value: str, at: datetime) -> None:
        stmt = self._insert(SiteSettingRow).values(
            name=name, value=value, updated_at=at
        ).on_conflict_do_update(index_elements=["name"], set_={"value": value, "updated_at": at})
        async with self._sessions() as session:
            await session.execute(stmt)
            await session.commit()


def _tenant(t: TenantRow) -> Tenant:
    return Tenant(id=t.id, name=t.name, slug=t.slug, plan=t.plan,
                  rate_limit_per_minute=t.rate_limit_per_minute, created_at=t.created_at)


__all__ = ["SlugTaken", "SqlAdminStore", "TenantListing", "UserListing"]
