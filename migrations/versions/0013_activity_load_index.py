"""Indexes for the analysis answers over years (issue 15: the fitness chart).

The chart reads (start, UTC offset, load) of every activity in a period. Through
`ix_activities_user_start` each of those rows is then fetched from the table, whose rows
are wide (laps and metrics JSON): about 1 us a row on SQLite. This index holds the
three columns, so the read never touches the table (an index-only scan).

`ix_activities_user_updated`: every analysis answer counts the activities whose metrics
predate a newer setting (`updated_at` before it); with this index that count visits only
those (usually none, once recomputation has run) instead of every activity's row.

Revision ID: 0013_activity_load_index
Revises: 0012_site_settings
Create Date: 2026-11-24
"""

from __future__ import annotations

from alembic import op

revision = "0013_activity_load_index"
down_revision = "0012_site_settings"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_index("ix_activities_user_start_load", "activities",
                    ["user_id", "start_at", "utc_offset_s", "load"])
    op.create_index("ix_activities_user_updated", "activities", ["user_id", "updated_at"])


def downgrade() -> None:
    op.drop_index("ix_activities_user_updated", table_name="activities")
    op.drop_index("ix_activities_user_start_load", table_name="activities")
