"""Gear (issue 33): a person's bikes and shoes, and the one an activity used.

`gear.default_for` is the sport a new activity of which takes this gear (one per sport,
not retired); `alert_m` the distance at which it is due for a look (a chain, shoes).
`activities.gear_id` names the gear; deleting gear clears it (the service does, in the
same transaction: no foreign key, so SQLite needs no table rebuild for the column).

Revision ID: 0023_gear
Revises: 0022_activity_notes
Create Date: 2026-12-07
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0023_gear"
down_revision = "0022_activity_notes"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "gear",
        sa.Column("id", sa.Uuid(), primary_key=True),
        sa.Column("user_id", sa.Uuid(), sa.ForeignKey("users.id", ondelete="CASCADE"),
                  nullable=False),
        sa.Column("tenant_id", sa.Uuid(), sa.ForeignKey("tenants.id", ondelete="CASCADE"),
                  nullable=False),
        sa.Column("kind", sa.String(20), nullable=False),
        sa.Column("name", sa.String(200), nullable=False),
        sa.Column("default_for", sa.String(20), nullable=True),
        sa.Column("retired", sa.Boolean(), nullable=False, server_default=sa.false()),
        sa.Column("alert_m", sa.Float(), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_index("ix_gear_user_id", "gear", ["user_id"])
    with op.batch_alter_table("activities") as batch:
        batch.add_column(sa.Column("gear_id", sa.Uuid(), nullable=True))
        batch.create_index("ix_activities_gear_id", ["gear_id"])


def downgrade() -> None:
    with op.batch_alter_table("activities") as batch:
        batch.drop_index("ix_activities_gear_id")
        batch.drop_column("gear_id")
    op.drop_index("ix_gear_user_id", table_name="gear")
    op.drop_table("gear")
