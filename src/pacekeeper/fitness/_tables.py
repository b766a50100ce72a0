"""Tables of the fitness data (SQLAlchemy 2 declarative; migration 0006 mirrors them).

Every row carries ``user_id`` (and ``tenant_id``): every query of the store filters on the
user first, so no path can return another person's rows. Deleting a user cascades.
Streams live in their own table, one compressed binary value per activity
(``StreamSet.to_bytes``), so listing activities never reads a sample.
"""

from __future__ import annotations

import uuid
from datetime import date, datetime
from typing import Any

from sqlalchemy import (
    JSON,
    BigInteger,
    Boolean,
    Date,
    Float,
    ForeignKey,
    Index,
    Integer,
    LargeBinary,
    String,
    Text,
    UniqueConstraint,
    Uuid,
)
from sqlalchemy.orm import Mapped, mapped_column
from sqlalchemy.sql.expression import false

from pacekeeper.db import Base
from pacekeeper.db._models import UtcDateTime


def _user_fk() -> Mapped[uuid.UUID]:
    return mapped_column(ForeignKey("users.id", ondelete="CASCADE"))


def _tenant_fk() -> Mapped[uuid.UUID]:
    return mapped_column(ForeignKey("tenants.id", ondelete="CASCADE"))


class ActivityRow(Base):
    __tablename__ = "activities"

    id: Mapped[uuid.UUID] = mapped_column(Uuid, primary_key=True)
    user_id: Mapped[uuid.UUID] = _user_fk()
    tenant_id: Mapped[uuid.UUID] = _tenant_fk()
    sport: Mapped[str] = mapped_column(String(20))
    source_sport: Mapped[str | None] = mapped_column(String(100), nullable=True)
    name: Mapped[str | None] = mapped_column(String(300), nullable=True)
    start_at: Mapped[datetime] = mapped_column(UtcDateTime)
    utc_offset_s: Mapped[int | None] = mapped_column(Integer, nullable=True)
    elapsed_s: Mapped[float] = mapped_column(Float)
    moving_s: Mapped[float | None] = mapped_column(Float, nullable=True)
    distance_m: Mapped[float | None] = mapped_column(Float, nullable=True)
    elevation_gain_m: Mapped[float | None] = mapped_column(Float, nullable=True)
    avg_speed_mps: Mapped[float | None] = mapped_column(Float, nullable=True)
    max_speed_mps: Mapped[float | None] = mapped_column(Float, nullable=True)
    avg_heartrate: Mapped[float | None] = mapped_column(Float, nullable=True)
    max_heartrate: Mapped[float | None] = mapped_column(Float, nullable=True)
    avg_watts: Mapped[float | None] = mapped_column(Float, nullable=True)
    max_watts: Mapped[float | None] = mapped_column(Float, nullable=True)
    avg_cadence: Mapped[float | None] = mapped_column(Float, nullable=True)
    calories: Mapped[float | None] = mapped_column(Float, nullable=True)
    device_name: Mapped[str | None] = mapped_column(String(200), nullable=True)
    laps: Mapped[list[dict[str, Any]]] = mapped_column(JSON, default=list)
    # Figures computed from the streams (pacekeeper.fitness.analytics) and the settings
    # they used; recomputed when a setting valid on the activity's day changes.
    metrics: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)
    # What the recording device wrote about itself (FIT session figures), for reference.
    device_metrics: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)
    # What the file says of its own structure (migration 0014): a multisport file's legs,
    # a pool swim's figures, the timer time, and our figures beside the device's totals.
    structure: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict, server_default="{}")
    created_at: Mapped[datetime] = mapped_column(UtcDateTime)
    updated_at: Mapped[datetime] = mapped_column(UtcDateTime)
    # metrics["load"] as a plain column (migration 0010), written with the metrics: period
    # questions (the fitness chart over years) read it without parsing each metrics JSON.
    load: Mapped[float | None] = mapped_column(Float, nullable=True)
    # The ENGINE_VERSION that computed the figures (migration 0016; NULL: before the
    # stamp), and why the last re-derivation could not read the original file again.
    engine_version: Mapped[int | None] = mapped_column(Integer, nullable=True)
    rederive_error: Mapped[str | None] = mapped_column(String(300), nullable=True)
    # What a Strava export's activities.csv says that no activity file does (0019).
    description: Mapped[str | None] = mapped_column(Text, nullable=True)
    gear: Mapped[str | None] = mapped_column(String(200), nullable=True)
    commute: Mapped[bool | None] = mapped_column(Boolean, nullable=True)
    # The person's private notes and the fields they set themselves (["name", "sport"]),
    # which no later source overwrites (migration 0022; the description is 0019's).
    notes: Mapped[str | None] = mapped_column(Text, nullable=True)
    edited: Mapped[list[str] | None] = mapped_column(JSON, nullable=True)
    gear_id: Mapped[uuid.UUID | None] = mapped_column(Uuid, nullable=True, index=True)


# Newest first, per person: the list's order and its cursor.
Index("ix_activities_user_start", ActivityRow.user_id, ActivityRow.start_at, ActivityRow.id)
# Covering the daily load series (migration 0013): the chart over years reads these
# columns of thousands of activities from the index alone, never the wide table rows.
Index("ix_activities_user_start_load", ActivityRow.user_id, ActivityRow.start_at,
      ActivityRow.utc_offset_s, ActivityRow.load)
# The stale count (metrics older than a newer setting) visits only those activities.
Index("ix_activities_user_updated", ActivityRow.user_id, ActivityRow.updated_at)
# The re-derivation after an upgrade finds the rows of an older engine (migration 0016).
Index("ix_activities_user_engine", ActivityRow.user_id, ActivityRow.engine_version)


class ActivitySourceRow(Base):
    """Where an activity came from: a provider's activity, or an imported file."""

    __tablename__ = "activity_sources"
    __table_args__ = (
        UniqueConstraint("user_id", "provider", "provider_activity_id",
                         name="uq_activity_sources_provider"),
        UniqueConstraint("user_id", "file_sha256", name="uq_activity_sources_file"),
    )

    id: Mapped[uuid.UUID] = mapped_column(Uuid, primary_key=True)
    activity_id: Mapped[uuid.UUID] = mapped_column(
        ForeignKey("activities.id", ondelete="CASCADE"), index=True
    )
    user_id: Mapped[uuid.UUID] = _user_fk()
    kind: Mapped[str] = mapped_column(String(10))  # "provider" or "file"
    provider: Mapped[str | None] = mapped_column(String(20), nullable=True)
    provider_activity_id: Mapped[str | None] = mapped_column(String(100), nullable=True)
    file_sha256: Mapped[str | None] = mapped_column(String(64), nullable=True)
    file_format: Mapped[str | None] = mapped_column(String(10), nullable=True)
    file_name: Mapped[str | None] = mapped_column(String(300), nullable=True)
    channels: Mapped[int] = mapped_column(Integer, default=0)  # streams it brought
    # The import's warnings for a file read in part (a truncated FIT file), or None.
    warnings: Mapped[list[str] | None] = mapped_column(JSON, nullable=True)
    created_at: Mapped[datetime] = mapped_column(UtcDateTime)


class ActivityFileRow(Base):
    """An imported file's original bytes (for the person's data export)."""

    __tablename__ = "activity_files"

    source_id: Mapped[uuid.UUID] = mapped_column(
        ForeignKey("activity_sources.id", ondelete="CASCADE"), primary_key=True
    )
    user_id: Mapped[uuid.UUID] = _user_fk()
    data: Mapped[bytes] = mapped_column(LargeBinary)


class ActivityStreamRow(Base):
    __tablename__ = "activity_streams"

    activity_id: Mapped[uuid.UUID] = mapped_column(
        ForeignKey("activities.id", ondelete="CASCADE"), primary_key=True
    )
    user_id: Mapped[uuid.UUID] = _user_fk()
    samples: Mapped[int] = mapped_column(Integer)
    channels: Mapped[str] = mapped_column(String(200))  # comma-separated channel names
    data: Mapped[bytes] = mapped_column(LargeBinary)


class DailyHealthRow(Base):
    """One day of health figures from one source (a provider)."""

    __tablename__ = "daily_health"

    user_id: Mapped[uuid.UUID] = mapped_column(
        ForeignKey("users.id", ondelete="CASCADE"), primary_key=True
    )
    day: Mapped[date] = mapped_column(Date, primary_key=True)
    source: Mapped[str] = mapped_column(String(20), primary_key=True)
    tenant_id: Mapped[uuid.UUID] = _tenant_fk()
    resting_hr: Mapped[float | None] = mapped_column(Float, nullable=True)
    hrv_rmssd_ms: Mapped[float | None] = mapped_column(Float, nullable=True)
    sleep_s: Mapped[float | None] = mapped_column(Float, nullable=True)
    sleep_score: Mapped[float | None] = mapped_column(Float, nullable=True)
    sleep_deep_min: Mapped[float | None] = mapped_column(Float, nullable=True)
    sleep_light_min: Mapped[float | None] = mapped_column(Float, nullable=True)
    sleep_rem_min: Mapped[float | None] = mapped_column(Float, nullable=True)
    sleep_awake_min: Mapped[float | None] = mapped_column(Float, nullable=True)
    steps: Mapped[int | None] = mapped_column(Integer, nullable=True)
    weight_kg: Mapped[float | None] = mapped_column(Float, nullable=True)
    updated_at: Mapped[datetime] = mapped_column(UtcDateTime)


class AthleteSettingRow(Base):
    """One setting's value from a day on (history: the value valid on a day is the
    latest ``valid_from`` on or before it)."""

    __tablename__ = "athlete_settings"

    user_id: Mapped[uuid.UUID] = mapped_column(
        ForeignKey("users.id", ondelete="CASCADE"), primary_key=True
    )
    field: Mapped[str] = mapped_column(String(40), primary_key=True)
    valid_from: Mapped[date] = mapped_column(Date, primary_key=True)
    tenant_id: Mapped[uuid.UUID] = _tenant_fk()
    value: Mapped[Any] = mapped_column(JSON, nullable=True)
    created_at: Mapped[datetime] = mapped_column(UtcDateTime)
    # The provider whose athlete API gave the value (imported on sync); None: the person's.
    source: Mapped[str | None] = mapped_column(String(40), nullable=True)


class SyncStateRow(Base):
    """A person's sync with one provider: the cursor it resumes from, and its progress."""

    __tablename__ = "sync_states"

    user_id: Mapped[uuid.UUID] = mapped_column(
        ForeignKey("users.id", ondelete="CASCADE"), primary_key=True
    )
    provider: Mapped[str] = mapped_column(String(20), primary_key=True)
    tenant_id: Mapped[uuid.UUID] = _tenant_fk()
    # Activities up to this start time are stored (the incremental cursor).
    cursor_at: Mapped[datetime | None] = mapped_column(UtcDateTime, nullable=True)
    status: Mapped[str] = mapped_column(String(20), default="idle")
    detail: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)
    started_at: Mapped[datetime | None] = mapped_column(UtcDateTime, nullable=True)
    finished_at: Mapped[datetime | None] = mapped_column(UtcDateTime, nullable=True)
    updated_at: Mapped[datetime] = mapped_column(UtcDateTime)


class GearRow(Base):
    """A person's bike or shoes (migration 0023): what an activity used, its distance."""

    __tablename__ = "gear"

    id: Mapped[uuid.UUID] = mapped_column(Uuid, primary_key=True)
    user_id: Mapped[uuid.UUID] = mapped_column(
        ForeignKey("users.id", ondelete="CASCADE"), index=True)
    tenant_id: Mapped[uuid.UUID] = _tenant_fk()
    kind: Mapped[str] = mapped_column(String(20))  # bike, shoes, other
    name: Mapped[str] = mapped_column(String(200))
    default_for: Mapped[str | None] = mapped_column(String(20), nullable=True)  # a sport
    retired: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())
    alert_m: Mapped[float | None] = mapped_column(Float, nullable=True)
    created_at: Mapped[datetime] = mapped_column(UtcDateTime)
    updated_at: Mapped[datetime] = mapped_column(UtcDateTime)


class GoalRow(Base):
    """A person's goal (migration 0010): a race, an FTP, a weight or a weekly volume."""

    __tablename__ = "goals"

    id: Mapped[uuid.UUID] = mapped_column(Uuid, primary_key=True)
    user_id: Mapped[uuid.UUID] = _user_fk()
    tenant_id: Mapped[uuid.UUID] = _tenant_fk()
    kind: Mapped[str] = mapped_column(String(10))  # race, ftp, weight, volume
    name: Mapped[str | None] = mapped_column(String(200), nullable=True)
    target_date: Mapped[date | None] = mapped_column(Date, nullable=True)
    sport: Mapped[str | None] = mapped_column(String(20), nullable=True)
    distance_m: Mapped[float | None] = mapped_column(Float, nullable=True)
    time_s: Mapped[float | None] = mapped_column(Float, nullable=True)
    value: Mapped[float | None] = mapped_column(Float, nullable=True)  # W, kg or h/week
    created_at: Mapped[datetime] = mapped_column(UtcDateTime)


Index("ix_goals_user", GoalRow.user_id, GoalRow.created_at)


class HistoryImportRow(Base):
    """An uploaded whole-account export and the job working through it (migration
    0019): ``done`` of ``total`` units are in, so a restarted job goes on from there."""

    __tablename__ = "history_imports"

    id: Mapped[uuid.UUID] = mapped_column(Uuid, primary_key=True)
    user_id: Mapped[uuid.UUID] = _user_fk()
    tenant_id: Mapped[uuid.UUID] = _tenant_fk()
    filename: Mapped[str] = mapped_column(String(300))
    path: Mapped[str] = mapped_column(Text)
    size: Mapped[int] = mapped_column(BigInteger)
    kind: Mapped[str | None] = mapped_column(String(10), nullable=True)
    status: Mapped[str] = mapped_column(String(10))  # queued, running, done, failed
    done: Mapped[int] = mapped_column(Integer)
    total: Mapped[int] = mapped_column(Integer)
    report: Mapped[dict[str, Any]] = mapped_column(JSON)
    error: Mapped[str | None] = mapped_column(Text, nullable=True)
    created_at: Mapped[datetime] = mapped_column(UtcDateTime)
    updated_at: Mapped[datetime] = mapped_column(UtcDateTime)


Index("ix_history_imports_user", HistoryImportRow.user_id, HistoryImportRow.created_at)


TABLES = (
    "activities",
    "activity_sources",
    "activity_files",
    "activity_streams",
    "daily_health",
    "athlete_settings",
    "sync_states",
)

__all__ = [
    "TABLES",
    "ActivityFileRow",
    "ActivityRow",
    "ActivitySourceRow",
    "ActivityStreamRow",
    "AthleteSettingRow",
    "DailyHealthRow",
    "GearRow",
    "GoalRow",
    "HistoryImportRow",
    "SyncStateRow",
]
