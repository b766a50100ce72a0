"""A covering index for the daily load series (issue 15: the fitness chart over years).

The chart reads (start, UTC offset, load) of every activity in a period. Through
`ix_activities_user_start` each of those rows is then fetched from the table, whose rows
are wide (laps and metrics JSON): about 1 us a row on SQLite. This index holds the
three columns, so the read never touches the table (an index-only scan).

Revision ID: 0012_activity_load_index
Revises: 0011_job_queue
Create Date: 2026-11-24
"""

from __future__ import annotations

from alembic import op

revision = "0012_activity_load_index"
down_revision = "0011_job_queue"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_index("ix_activities_user_start_load", "activities",
                    ["user_id", "start_at", "utc_offset_s", "load"])


def downgrade() -> None:
    op.drop_index("ix_activities_user_start_load", table_name="activities")
