"""SQLAlchemy implementations of the storage Protocols (SQLite and PostgreSQL alike)."""

from __future__ import annotations

import contextlib
import uuid
from collections.abc import AsyncIterator, Sequence
from datetime import datetime

from sqlalchemy import delete, func, select, text, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncEngine, AsyncSession, async_sessionmaker

from pacekeeper.confusables import skeleton
from pacekeeper.db._engine import reading
from pacekeeper.db._models import CsrfTokenRow, SigningKeyRow, TenantRow, UserRow
from pacekeeper.db._records import (
    AuthState,
    CsrfRecord,
    DuplicateEmailError,
    Role,
    SigningKey,
    Tenant,
    User,
    UserStatus,
)


def _user(row: UserRow) -> User:
    return User(
        id=row.id,
        email=row.email,
        password_hash=row.password_hash,
        display_name=row.display_name,
        role=Role(row.role),
        status=UserStatus(row.status),
        tenant_id=row.tenant_id,
        created_at=row.created_at,
        last_login_at=row.last_login_at,
        token_version=row.token_version,
    )


def _tenant(row: TenantRow) -> Tenant:
    return Tenant(
        id=row.id,
        name=row.name,
        slug=row.slug,
        plan=row.plan,
        rate_limit_per_minute=row.rate_limit_per_minute,
        created_at=row.created_at,
    )


class SqlUserRepository:
    def __init__(self, sessions: async_sessionmaker[AsyncSession]) -> None:
        self._sessions = sessions
        # auth_state runs on every authenticated request: a bare connection skips the
        # ORM session's bookkeeping (about a quarter of the query's cost); in autocommit,
        # one round trip instead of three.
        self._engine: AsyncEngine = reading(sessions.kw["bind"])
        self._auth_state = (
            select(UserRow.status, UserRow.token_version, TenantRow.rate_limit_per_minute)
            .join(TenantRow, TenantRow.id == UserRow.tenant_id)
        )

    async def create_with_tenant(self, user: User, tenant: Tenant | None) -> None:
        async with self._sessions() as session:
            if tenant is not None:
                session.add(
                    TenantRow(
                        id=tenant.id,
                        name=tenant.name,
                        slug=tenant.slug,
                        plan=tenant.plan,
                        rate_limit_per_minute=tenant.rate_limit_per_minute,
                        created_at=tenant.created_at,
                    )
                )
                # The tenant must exist before the user row that references it.
                await session.flush()
            session.add(
                UserRow(
                    id=user.id,
                    email=user.email,
                    email_skeleton=skeleton(user.email),
                    password_hash=user.password_hash,
                    display_name=user.display_name,
                    role=user.role.value,
                    status=user.status.value,
                    tenant_id=user.tenant_id,
                    created_at=user.created_at,
                    last_login_at=user.last_login_at,
                    token_version=user.token_version,
                )
            )
            try:
                await session.commit()
            except IntegrityError:
                # The unique indexes on the normalised email and on its skeleton decide
                # races atomically: a twin is a duplicate like the same address.
                await session.rollback()
                raise DuplicateEmailError(user.email) from None

    async def get(self, user_id: uuid.UUID) -> User | None:
        async with self._sessions() as session:
            row = await session.get(UserRow, user_id)
            return None if row is None else _user(row)

    async def get_by_email(self, email: str) -> User | None:
        async with self._sessions() as session:
            row = await session.scalar(select(UserRow).where(UserRow.email == email))
            return None if row is None else _user(row)

    async def count(self) -> int:
        async with self._sessions() as session:
            return int(await session.scalar(select(func.count()).select_from(UserRow)) or 0)

    async def get_tenant(self, tenant_id: uuid.UUID) -> Tenant | None:
        async with self._sessions() as session:
            row = await session.get(TenantRow, tenant_id)
            return None if row is None else _tenant(row)

    async def record_login(
        self, user_id: uuid.UUID, at: datetime, new_password_hash: str | None
    ) -> None:
        values: dict[str, object] = {"last_login_at": at}
        if new_password_hash is not None:
            values["password_hash"] = new_password_hash
        async with self._sessions() as session:
            await session.execute(update(UserRow).where(UserRow.id == user_id).values(**values))
            await session.commit()

    async def disable(self, user_id: uuid.UUID) -> bool:
        async with self._sessions() as session:
            result = await session.execute(
                update(UserRow)
                .where(UserRow.id == user_id)
                .values(
                    status=UserStatus.DISABLED.value, token_version=UserRow.token_version + 1
                )
            )
            await session.commit()
            return bool(getattr(result, "rowcount", 0))

    async def enable(self, user_id: uuid.UUID) -> bool:
        # The token version stays where disabling moved it: tokens issued before the
        # disable stay dead; the person signs in again.
        async with self._sessions() as session:
            result = await session.execute(
                update(UserRow).where(UserRow.id == user_id)
                .values(status=UserStatus.ACTIVE.value)
            )
            await session.commit()
            return bool(getattr(result, "rowcount", 0))

    async def auth_state(self, user_id: uuid.UUID) -> AuthState | None:
        async with self._engine.connect() as connection:
            row = (
                await connection.execute(self._auth_state.where(UserRow.id == user_id))
            ).first()
        if row is None:
            return None
        return AuthState(UserStatus(row[0]), int(row[1]), row[2])


# Processes starting together (a cluster, `serve --workers N`) must not each create a
# first signing key: on PostgreSQL the check and the creation take turns under this lock.
_SIGNING_KEY_LOCK = 0x706B6B79  # "pkky"


class SqlSigningKeyRepository:
    def __init__(self, sessions: async_sessionmaker[AsyncSession]) -> None:
        self._sessions = sessions

    @contextlib.asynccontextmanager
    async def exclusive(self) -> AsyncIterator[None]:
        """One process at a time in the block: a PostgreSQL session advisory lock, held on
        a connection of its own. SQLite serves one process (`serve --workers` needs
        PostgreSQL), so there it is a plain block."""
        engine = self._sessions.kw.get("bind")
        if not isinstance(engine, AsyncEngine) or engine.dialect.name != "postgresql":
            yield
            return
        async with engine.connect() as connection:
            await connection.execute(text("SELECT pg_advisory_lock(:key)"),
                                     {"key": _SIGNING_KEY_LOCK})
            try:
                yield
            finally:
                await connection.execute(text("SELECT pg_advisory_unlock(:key)"),
                                         {"key": _SIGNING_KEY_LOCK})

    async def add(self, key: SigningKey) -> None:
        async with self._sessions() as session:
            session.add(
                SigningKeyRow(
                    kid=key.kid,
                    alg=key.alg,
                    private_key_sealed=key.private_key_sealed,
                    public_jwk=key.public_jwk,
                    created_at=key.created_at,
                    retired_at=key.retired_at,
                    expires_at=key.expires_at,
                )
            )
            await session.commit()

    async def list_all(self) -> Sequence[SigningKey]:
        async with self._sessions() as session:
            rows = await session.scalars(select(SigningKeyRow).order_by(SigningKeyRow.created_at))
            return [
                SigningKey(
                    kid=r.kid,
                    alg=r.alg,
                    private_key_sealed=r.private_key_sealed,
                    public_jwk=r.public_jwk,
                    created_at=r.created_at,
                    retired_at=r.retired_at,
                    expires_at=r.expires_at,
                )
                for r in rows
            ]

    async def reseal(self, kid: str, private_key_sealed: bytes) -> None:
        async with self._sessions() as session:
            await session.execute(update(SigningKeyRow).where(SigningKeyRow.kid == kid)
                                  .values(private_key_sealed=private_key_sealed))
            await session.commit()

    async def retire(self, kid: str, retired_at: datetime, expires_at: datetime) -> None:
        async with self._sessions() as session:
            await session.execute(
                update(SigningKeyRow)
                .where(SigningKeyRow.kid == kid, SigningKeyRow.retired_at.is_(None))
                .values(retired_at=retired_at, expires_at=expires_at)
            )
            await session.commit()

    async def delete_expired(self, now: datetime) -> int:
        async with self._sessions() as session:
            result = await session.execute(
                delete(SigningKeyRow).where(
                    SigningKeyRow.expires_at.is_not(None), SigningKeyRow.expires_at <= now
                )
            )
            await session.commit()
            return int(getattr(result, "rowcount", 0))


class SqlCsrfTokenRepository:
    def __init__(self, sessions: async_sessionmaker[AsyncSession]) -> None:
        self._sessions = sessions

    async def add(self, token_hash: str, record: CsrfRecord) -> None:
        async with self._sessions() as session:
            session.add(
                CsrfTokenRow(
                    token_hash=token_hash, user_id=record.user_id, expires_at=record.expires_at
                )
            )
            await session.commit()

    async def get(self, token_hash: str) -> CsrfRecord | None:
        async with self._sessions() as session:
            row = await session.get(CsrfTokenRow, token_hash)
            return None if row is None else CsrfRecord(row.user_id, row.expires_at)

    async def delete(self, token_hash: str) -> None:
        async with self._sessions() as session:
            await session.execute(delete(CsrfTokenRow).where(CsrfTokenRow.token_hash == token_hash))
            await session.commit()

    async def purge_expired(self, now: datetime) -> int:
        async with self._sessions() as session:
            result = await session.execute(
                delete(CsrfTokenRow).where(CsrfTokenRow.expires_at <= now)
            )
            await session.commit()
            return int(getattr(result, "rowcount", 0))


__all__ = ["SqlCsrfTokenRepository", "SqlSigningKeyRepository", "SqlUserRepository"]
