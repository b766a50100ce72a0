"""The account-wide statements of the data rights: a new password, every row of a person,
their OAuth grants. Each names the person; the tables are read from the models, so a new
table with a `user_id` column is erased without a change here."""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import delete, func, select, update
from sqlalchemy.ext.asyncio import AsyncEngine

from pacekeeper.db import Base


@dataclass(frozen=True, slots=True)
class Grant:
    client_id: str
    family_id: uuid.UUID
    scope: str
    created_at: datetime


class SqlAccountStore:
    def __init__(self, engine: AsyncEngine) -> None:
        self._engine = engine

    async def set_password(self, user_id: uuid.UUID, password_hash: str) -> None:
        """The new hash, and the token version moves on: every token of the person ends."""
        users = Base.metadata.tables["users"]
        async with self._engine.begin() as conn:
            await conn.execute(update(users).where(users.c.id == user_id).values(
                password_hash=password_hash, token_version=users.c.token_version + 1))

    async def erase(self, user_id: uuid.UUID, tenant_id: uuid.UUID) -> None:
        """Every row of the person in every table (one transaction), then their tenant's
        rows and the tenant when nobody else is in it."""
        tables = [t for t in reversed(Base.metadata.sorted_tables)
                  if "user_id" in t.c and t.name != "users"]  # fmt: skip
        users = Base.metadata.tables["users"]
        tenants = Base.metadata.tables["tenants"]
        async with self._engine.begin() as conn:
            for table in tables:
                await conn.execute(delete(table).where(table.c.user_id == user_id))
            await conn.execute(delete(users).where(users.c.id == user_id))
            others = (await conn.execute(select(func.count()).select_from(users)
                                         .where(users.c.tenant_id == tenant_id))).scalar_one()
            if others == 0:
                for table in reversed(Base.metadata.sorted_tables):
                    if "tenant_id" in table.c and table.name != "users":
                        await conn.execute(delete(table).where(table.c.tenant_id == tenant_id))
                await conn.execute(delete(tenants).where(tenants.c.id == tenant_id))

    async def live_grants(self, user_id: uuid.UUID, now: datetime) -> list[Grant]:
        """The person's OAuth grants that still hold a live refresh token."""
        rt = Base.metadata.tables["oauth_refresh_tokens"]
        async with self._engine.connect() as conn:
            rows = (await conn.execute(
                select(rt.c.client_id, rt.c.family_id, rt.c.scope, rt.c.created_at)
                .where(rt.c.user_id == user_id, rt.c.revoked_at.is_(None),
                       rt.c.expires_at > now))).all()
        return [Grant(str(c), uuid.UUID(str(f)), s or "", t) for c, f, s, t in rows]

    async def client_names(self, client_ids: list[str]) -> dict[str, str | None]:
        clients = Base.metadata.tables["oauth_clients"]
        async with self._engine.connect() as conn:
            rows = (await conn.execute(select(clients.c.client_id, clients.c.client_name)
                                       .where(clients.c.client_id.in_(client_ids)))).all()
        return {str(c): n for c, n in rows}


__all__ = ["Grant", "SqlAccountStore"]
