"""Tables of the core service (SQLAlchemy 2 declarative; migrations/ mirrors them)."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import (
    JSON,
    DateTime,
    ForeignKey,
    Index,
    Integer,
    LargeBinary,
    String,
    Text,
    TypeDecorator,
    Uuid,
)
from sqlalchemy.engine import Dialect
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column


class UtcDateTime(TypeDecorator[datetime]):
    """Timezone-aware UTC on the way in and out (SQLite drops the offset otherwise)."""

    impl = DateTime(timezone=True)
    cache_ok = True

    def process_bind_param(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        if value.tzinfo is None:
            raise ValueError("naive datetime given to a UTC column")
        return value.astimezone(UTC)

    def process_result_value(self, value: Any, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        assert isinstance(value, datetime)
        return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)


class Base(DeclarativeBase):
    pass


class TenantRow(Base):
    __tablename__ = "tenants"

    id: Mapped[uuid.UUID] = mapped_column(Uuid, primary_key=True)
    name: Mapped[str] = mapped_column(String(200))
    slug: Mapped[str] = mapped_column(String(100), unique=True)
    plan: Mapped[str] = mapped_column(String(50))
    rate_limit_per_minute: Mapped[int | None] = mapped_column(Integer, nullable=True)
    created_at: Mapped[datetime] = mapped_column(UtcDateTime)


class UserRow(Base):
    __tablename__ = "users"

    id: Mapped[uuid.UUID] = mapped_column(Uuid, primary_key=True)
    # Stored lower-cased, so the unique index makes emails unique case-insensitively.
    email: Mapped[str] = mapped_column(String(320), unique=True)
    # TS #39 skeleton of the email (`pacekeeper.confusables`), unique: a look-alike
    # twin of an existing address is refused by the same atomic insert (finding 12).
    # NULL only for rows older than the column whose skeleton an earlier row had.
    email_skeleton: Mapped[str | None] = mapped_column(String(1280), nullable=True)
    password_hash: Mapped[str] = mapped_column(String(255))
    display_name: Mapped[str | None] = mapped_column(String(200), nullable=True)
    role: Mapped[str] = mapped_column(String(20))
    status: Mapped[str] = mapped_column(String(20))
    tenant_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("tenants.id"), index=True)
    created_at: Mapped[datetime] = mapped_column(UtcDateTime)
    last_login_at: Mapped[datetime | None] = mapped_column(UtcDateTime, nullable=True)
    # Bumped when a user is disabled: tokens carry it as `ver`, old ones stop matching.
    token_version: Mapped[int] = mapped_column(Integer, default=0)


Index("ix_users_email_skeleton", UserRow.email_skeleton, unique=True)


class SigningKeyRow(Base):
    __tablename__ = "signing_keys"

    kid: Mapped[str] = mapped_column(String(64), primary_key=True)
    alg: Mapped[str] = mapped_column(String(10))
    # PKCS#8 DER sealed with AES-256-GCM under a master-key-derived key (AAD = kid).
    private_key_sealed: Mapped[bytes] = mapped_column(LargeBinary)
    public_jwk: Mapped[str] = mapped_column(Text)
    created_at: Mapped[datetime] = mapped_column(UtcDateTime)
    retired_at: Mapped[datetime | None] = mapped_column(UtcDateTime, nullable=True)
    expires_at: Mapped[datetime | None] = mapped_column(UtcDateTime, nullable=True)


class CsrfTokenRow(Base):
    __tablename__ = "csrf_tokens"

    # SHA-256 of the token: the random value itself is never stored.
    token_hash: Mapped[str] = mapped_column(String(64), primary_key=True)
    user_id: Mapped[uuid.UUID] = mapped_column(
        ForeignKey("users.id", ondelete="CASCADE"), index=True
    )
    expires_at: Mapped[datetime] = mapped_column(UtcDateTime)


Index("ix_csrf_tokens_expires_at", CsrfTokenRow.expires_at)


class RevokedTokenRow(Base):
    """A JWT ended before its `exp` (logout): refused until it would have expired anyway,
    then purged (finding 13)."""

    __tablename__ = "revoked_tokens"

    jti: Mapped[str] = mapped_column(String(64), primary_key=True)
    expires_at: Mapped[datetime] = mapped_column(UtcDateTime)


Index("ix_revoked_tokens_expires_at", RevokedTokenRow.expires_at)


class QueuedJobRow(Base):
    """A background job of the embedded (SQLite) queue, kept so that it outlives the
    process (pacekeeper.jobs._durable). Unused on PostgreSQL: procrastinate's own tables
    hold the queue there."""

    __tablename__ = "queued_jobs"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=False)
    queue_name: Mapped[str] = mapped_column(String(128))
    task_name: Mapped[str] = mapped_column(String(128))
    priority: Mapped[int] = mapped_column(Integer)
    lock: Mapped[str | None] = mapped_column(Text, nullable=True)
    queueing_lock: Mapped[str | None] = mapped_column(Text, nullable=True)
    args: Mapped[dict[str, Any]] = mapped_column(JSON)
    # todo, doing (running when last written), failed, cancelled; a success is deleted.
    status: Mapped[str] = mapped_column(String(16))
    scheduled_at: Mapped[datetime | None] = mapped_column(UtcDateTime, nullable=True)
    attempts: Mapped[int] = mapped_column(Integer)


__all__ = ["Base", "CsrfTokenRow", "QueuedJobRow", "SigningKeyRow", "TenantRow", "UserRow",
           "UtcDateTime"]
