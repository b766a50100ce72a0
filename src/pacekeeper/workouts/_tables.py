"""Tables of the plans (migration 0021 mirrors them): workouts, and each person's calendar
feed token.

As every fitness table, each row carries ``user_id`` (and ``tenant_id``): the store
filters on the user first, deleting a user cascades, and the account's erasure reaches
them by that column.
"""

from __future__ import annotations

import uuid
from datetime import date, datetime
from typing import Any

from sqlalchemy import JSON, Date, ForeignKey, Index, String, Text, Uuid
from sqlalchemy.orm import Mapped, mapped_column

from pacekeeper.db import Base
from pacekeeper.db._models import UtcDateTime


class WorkoutRow(Base):
    """A structured workout (the shape of ``_steps``), planned on ``day`` or unscheduled."""

    __tablename__ = "workouts"

    id: Mapped[uuid.UUID] = mapped_column(Uuid, primary_key=True)
    user_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"))
    tenant_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("tenants.id", ondelete="CASCADE"))
    name: Mapped[str] = mapped_column(String(200))
    sport: Mapped[str] = mapped_column(String(20))
    description: Mapped[str | None] = mapped_column(Text, nullable=True)
    steps: Mapped[list[dict[str, Any]]] = mapped_column(JSON)
    day: Mapped[date | None] = mapped_column(Date, nullable=True)
    created_at: Mapped[datetime] = mapped_column(UtcDateTime)
    updated_at: Mapped[datetime] = mapped_column(UtcDateTime)


Index("ix_workouts_user_day", WorkoutRow.user_id, WorkoutRow.day)


class CalendarTokenRow(Base):
    """The person's calendar feed secret (PLAN-4): its SHA-256 only, one per person;
    deleting the row revokes the feed."""

    __tablename__ = "calendar_tokens"

    user_id: Mapped[uuid.UUID] = mapped_column(
        ForeignKey("users.id", ondelete="CASCADE"), primary_key=True)
    tenant_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("tenants.id", ondelete="CASCADE"))
    token_hash: Mapped[str] = mapped_column(String(64), unique=True)
    created_at: Mapped[datetime] = mapped_column(UtcDateTime)


__all__ = ["CalendarTokenRow", "WorkoutRow"]
