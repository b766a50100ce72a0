"""The embedded queue's jobs, kept in the service's SQLite file (issue 30).

With SQLite the background jobs run on procrastinate's in-memory queue inside
`pacekeeper serve`; each job is also written here, so the jobs queued (or running) when
the process dies run after it starts again (pacekeeper.jobs._durable). Created on
PostgreSQL too, where it stays empty, so that the models match one schema.

Revision ID: 0017_queued_jobs
Revises: 0016_engine_version
Create Date: 2026-11-28
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0017_queued_jobs"
down_revision = "0016_engine_version"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "queued_jobs",
        sa.Column("id", sa.Integer(), primary_key=True, autoincrement=False),
        sa.Column("queue_name", sa.String(128), nullable=False),
        sa.Column("task_name", sa.String(128), nullable=False),
        sa.Column("priority", sa.Integer(), nullable=False),
        sa.Column("lock", sa.Text(), nullable=True),
        sa.Column("queueing_lock", sa.Text(), nullable=True),
        sa.Column("args", sa.JSON(), nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("scheduled_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("attempts", sa.Integer(), nullable=False),
    )


def downgrade() -> None:
    op.drop_table("queued_jobs")
