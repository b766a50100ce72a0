"""Tables of the API keys (on the service's one metadata; migration 0003 mirrors them)."""

from __future__ import annotations

import uuid
from datetime import datetime

from sqlalchemy import ForeignKey, Integer, String
from sqlalchemy.orm import Mapped, mapped_column

from pacekeeper.db import Base
from pacekeeper.db._models import UtcDateTime


class ApiKeyRow(Base):
    __tablename__ = "api_keys"

    # The public id inside the key text (`pk_live_<id>_...`): the indexed lookup.
    id: Mapped[str] = mapped_column(String(16), primary_key=True)
    user_id: Mapped[uuid.UUID] = mapped_column(
        ForeignKey("users.id", ondelete="CASCADE"), index=True
    )
    name: Mapped[str] = mapped_column(String(100))
    tier: Mapped[str] = mapped_column(String(20))
    # SHA-256 of the whole key text (hex); the key itself is never stored.
    secret_hash: Mapped[str] = mapped_column(String(64))
    created_at: Mapped[datetime] = mapped_column(UtcDateTime)
    expires_at: Mapped[datetime | None] = mapped_column(UtcDateTime, nullable=True)
    last_used_at: Mapped[datetime | None] = mapped_column(UtcDateTime, nullable=True)
    # Soft delete: a deleted key is refused with its own message, and its usage stays.
    deleted_at: Mapped[datetime | None] = mapped_column(UtcDateTime, nullable=True)


class ApiKeyUsageRow(Base):
    """Requests per key per UTC day (days since the Unix epoch): the rolling window."""

    __tablename__ = "api_key_usage"

    key_id: Mapped[str] = mapped_column(
        ForeignKey("api_keys.id", ondelete="CASCADE"), primary_key=True
    )
    day: Mapped[int] = mapped_column(Integer, primary_key=True)
    count: Mapped[int] = mapped_column(Integer)


__all__ = ["ApiKeyRow", "ApiKeyUsageRow"]
