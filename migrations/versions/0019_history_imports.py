"""Whole-account exports (issue 31 item 3): the import jobs, and what an export's own
listing says of an activity that no activity file carries.

``history_imports``: one row per uploaded export (its file on disk under the data dir,
its kind, its progress and report); the job that works through it resumes from
``done``. ``activities.description``, ``gear`` and ``commute``: from a Strava export's
``activities.csv``.

Revision ID: 0019_history_imports
Revises: 0018_setting_source
Create Date: 2026-12-07
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0019_history_imports"
down_revision = "0018_setting_source"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "history_imports",
        sa.Column("id", sa.Uuid(), primary_key=True),
        sa.Column("user_id", sa.Uuid(), sa.ForeignKey("users.id", ondelete="CASCADE"),
                  nullable=False),
        sa.Column("tenant_id", sa.Uuid(), sa.ForeignKey("tenants.id", ondelete="CASCADE"),
                  nullable=False),
        sa.Column("filename", sa.String(300), nullable=False),
        sa.Column("path", sa.Text(), nullable=False),
        sa.Column("size", sa.BigInteger(), nullable=False),
        sa.Column("kind", sa.String(10), nullable=True),
        sa.Column("status", sa.String(10), nullable=False),
        sa.Column("done", sa.Integer(), nullable=False),
        sa.Column("total", sa.Integer(), nullable=False),
        sa.Column("report", sa.JSON(), nullable=False),
        sa.Column("error", sa.Text(), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_index("ix_history_imports_user", "history_imports", ["user_id", "created_at"])
    op.add_column("activities", sa.Column("description", sa.Text(), nullable=True))
    op.add_column("activities", sa.Column("gear", sa.String(200), nullable=True))
    op.add_column("activities", sa.Column("commute", sa.Boolean(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("activities") as batch:
        batch.drop_column("commute")
        batch.drop_column("gear")
        batch.drop_column("description")
    op.drop_index("ix_history_imports_user", table_name="history_imports")
    op.drop_table("history_imports")
