"""Service-wide settings an admin changes at run time (issue 17: the admin page).

`site_settings` holds one row per named setting; today only `registration` (open, admin,
closed). Without a row the environment's `PACEKEEPER_REGISTRATION` holds.

Revision ID: 0012_site_settings
Revises: 0011_job_queue
Create Date: 2026-11-24
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0012_site_settings"
down_revision = "0011_job_queue"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "site_settings",
        sa.Column("name", sa.String(64), primary_key=True),
        sa.Column("value", sa.String(200), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
    )


def downgrade() -> None:
    op.drop_table("site_settings")
