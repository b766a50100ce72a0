"""Fitness data: activities, their sources, original files and streams; daily health;
athlete settings with history; sync state per provider.

Revision ID: 0006_fitness
Revises: 0005_oauth_revoked_families
Create Date: 2026-11-24
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0006_fitness"
down_revision = "0005_oauth_revoked_families"
branch_labels = None
depends_on = None


def _user() -> sa.Column[object]:
    return sa.Column("user_id", sa.Uuid(), sa.ForeignKey("users.id", ondelete="CASCADE"),
                     nullable=False)


def _tenant() -> sa.Column[object]:
    return sa.Column("tenant_id", sa.Uuid(), sa.ForeignKey("tenants.id", ondelete="CASCADE"),
                     nullable=False)


def _time(name: str, nullable: bool = False) -> sa.Column[object]:
    return sa.Column(name, sa.DateTime(timezone=True), nullable=nullable)


def _floats(*names: str) -> list[sa.Column[object]]:
    return [sa.Column(n, sa.Float(), nullable=True) for n in names]


def upgrade() -> None:
    op.create_table(
        "activities",
        sa.Column("id", sa.Uuid(), primary_key=True),
        _user(),
        _tenant(),
        sa.Column("sport", sa.String(20), nullable=False),
        sa.Column("source_sport", sa.String(100), nullable=True),
        sa.Column("name", sa.String(300), nullable=True),
        _time("start_at"),
        sa.Column("utc_offset_s", sa.Integer(), nullable=True),
        sa.Column("elapsed_s", sa.Float(), nullable=False),
        *_floats("moving_s", "distance_m", "elevation_gain_m", "avg_speed_mps",
                 "max_speed_mps", "avg_heartrate", "max_heartrate", "avg_watts", "max_watts",
                 "avg_cadence", "calories"),
        sa.Column("device_name", sa.String(200), nullable=True),
        sa.Column("laps", sa.JSON(), nullable=False),
        sa.Column("metrics", sa.JSON(), nullable=False),
        sa.Column("device_metrics", sa.JSON(), nullable=False),
        _time("created_at"),
        _time("updated_at"),
    )
    op.create_index("ix_activities_user_start", "activities", ["user_id", "start_at", "id"])
    op.create_table(
        "activity_sources",
        sa.Column("id", sa.Uuid(), primary_key=True),
        sa.Column("activity_id", sa.Uuid(),
                  sa.ForeignKey("activities.id", ondelete="CASCADE"), nullable=False),
        _user(),
        sa.Column("kind", sa.String(10), nullable=False),
        sa.Column("provider", sa.String(20), nullable=True),
        sa.Column("provider_activity_id", sa.String(100), nullable=True),
        sa.Column("file_sha256", sa.String(64), nullable=True),
        sa.Column("file_format", sa.String(10), nullable=True),
        sa.Column("file_name", sa.String(300), nullable=True),
        sa.Column("channels", sa.Integer(), nullable=False),
        _time("created_at"),
        sa.UniqueConstraint("user_id", "provider", "provider_activity_id",
                            name="uq_activity_sources_provider"),
        sa.UniqueConstraint("user_id", "file_sha256", name="uq_activity_sources_file"),
    )
    op.create_index("ix_activity_sources_activity_id", "activity_sources", ["activity_id"])
    op.create_table(
        "activity_files",
        sa.Column("source_id", sa.Uuid(),
                  sa.ForeignKey("activity_sources.id", ondelete="CASCADE"), primary_key=True),
        _user(),
        sa.Column("data", sa.LargeBinary(), nullable=False),
    )
    op.create_table(
        "activity_streams",
        sa.Column("activity_id", sa.Uuid(),
                  sa.ForeignKey("activities.id", ondelete="CASCADE"), primary_key=True),
        _user(),
        sa.Column("samples", sa.Integer(), nullable=False),
        sa.Column("channels", sa.String(200), nullable=False),
        sa.Column("data", sa.LargeBinary(), nullable=False),
    )
    op.create_table(
        "daily_health",
        sa.Column("user_id", sa.Uuid(), sa.ForeignKey("users.id", ondelete="CASCADE"),
                  primary_key=True),
        sa.Column("day", sa.Date(), primary_key=True),
        sa.Column("source", sa.String(20), primary_key=True),
        _tenant(),
        *_floats("resting_hr", "hrv_rmssd_ms", "sleep_s", "sleep_score", "sleep_deep_min",
                 "sleep_light_min", "sleep_rem_min", "sleep_awake_min"),
        sa.Column("steps", sa.Integer(), nullable=True),
        sa.Column("weight_kg", sa.Float(), nullable=True),
        _time("updated_at"),
    )
    op.create_table(
        "athlete_settings",
        sa.Column("user_id", sa.Uuid(), sa.ForeignKey("users.id", ondelete="CASCADE"),
                  primary_key=True),
        sa.Column("field", sa.String(40), primary_key=True),
        sa.Column("valid_from", sa.Date(), primary_key=True),
        _tenant(),
        sa.Column("value", sa.JSON(), nullable=True),
        _time("created_at"),
    )
    op.create_table(
        "sync_states",
        sa.Column("user_id", sa.Uuid(), sa.ForeignKey("users.id", ondelete="CASCADE"),
                  primary_key=True),
        sa.Column("provider", sa.String(20), primary_key=True),
        _tenant(),
        _time("cursor_at", nullable=True),
        sa.Column("status", sa.String(20), nullable=False),
        sa.Column("detail", sa.JSON(), nullable=False),
        _time("started_at", nullable=True),
        _time("finished_at", nullable=True),
        _time("updated_at"),
    )


def downgrade() -> None:
    for table in ("sync_states", "athlete_settings", "daily_health", "activity_streams",
                  "activity_files", "activity_sources", "activities"):
        op.drop_table(table)
