"""Goals, and each activity's load as a plain column (issue 15: analysis tools).

`goals` holds a person's goals (race, FTP, weight, weekly volume), one row each.
`activities.load` copies `metrics["load"]` (the figure the load model sums per day), so
the fitness chart over years reads one float per activity instead of parsing every
metrics JSON; existing rows are filled here.

Revision ID: 0010_goals
Revises: 0009_provider_state_binding
Create Date: 2026-11-25
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0010_goals"
down_revision = "0009_provider_state_binding"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "goals",
        sa.Column("id", sa.Uuid(), primary_key=True),
        sa.Column("user_id", sa.Uuid(), sa.ForeignKey("users.id", ondelete="CASCADE"),
                  nullable=False),
        sa.Column("tenant_id", sa.Uuid(), sa.ForeignKey("tenants.id", ondelete="CASCADE"),
                  nullable=False),
        sa.Column("kind", sa.String(10), nullable=False),
        sa.Column("name", sa.String(200), nullable=True),
        sa.Column("target_date", sa.Date(), nullable=True),
        sa.Column("sport", sa.String(20), nullable=True),
        sa.Column("distance_m", sa.Float(), nullable=True),
        sa.Column("time_s", sa.Float(), nullable=True),
        sa.Column("value", sa.Float(), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_index("ix_goals_user", "goals", ["user_id", "created_at"])
    with op.batch_alter_table("activities") as batch:
        batch.add_column(sa.Column("load", sa.Float(), nullable=True))
    activities = sa.table("activities", sa.column("id", sa.Uuid()),
                          sa.column("metrics", sa.JSON()), sa.column("load", sa.Float()))
    bind = op.get_bind()
    rows = bind.execute(sa.select(activities.c.id, activities.c.metrics)).all()
    for ident, metrics in rows:
        load = (metrics or {}).get("load")
        if isinstance(load, int | float):
            bind.execute(activities.update().where(activities.c.id == ident)
                         .values(load=float(load)))


def downgrade() -> None:
    with op.batch_alter_table("activities") as batch:
        batch.drop_column("load")
    op.drop_index("ix_goals_user", table_name="goals")
    op.drop_table("goals")
