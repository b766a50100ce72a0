"""Revoked JWT ids (logout, finding 13): one row per ended token, kept until its `exp`."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import delete, select
from sqlalchemy.ext.asyncio import AsyncEngine, AsyncSession, async_sessionmaker

from pacekeeper.db._engine import reading, upsert_insert
from pacekeeper.db._models import RevokedTokenRow

MAX_JTI_CHARS = 64


class SqlRevokedTokens:
    def __init__(self, sessions: async_sessionmaker[AsyncSession]) -> None:
        self._sessions = sessions
        self._insert = upsert_insert(sessions)
        # Read on requests of login JWTs when nothing is cached: a bare connection, in
        # autocommit (one round trip, not three).
        self._engine: AsyncEngine = reading(sessions.kw["bind"])
        self._lookup = select(RevokedTokenRow.jti)

    async def revoke(self, jti: str, expires_at: datetime, now: datetime) -> None:
        """Record `jti` until `expires_at`; records of tokens expired by `now` go."""
        async with self._sessions.begin() as session:
            await session.execute(delete(RevokedTokenRow).where(RevokedTokenRow.expires_at <= now))
            await session.execute(
                self._insert(RevokedTokenRow)
                .values(jti=jti, expires_at=expires_at)
                .on_conflict_do_nothing(index_elements=["jti"])
            )

    async def token_revoked(self, jti: str) -> bool:
        if len(jti) > MAX_JTI_CHARS:
            return False  # never recorded (revoke refuses such ids too)
        async with self._engine.connect() as connection:
            row = (await connection.execute(
                self._lookup.where(RevokedTokenRow.jti == jti))).first()
        return row is not None


__all__ = ["MAX_JTI_CHARS", "SqlRevokedTokens"]
