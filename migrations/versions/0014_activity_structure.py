"""An activity's structure from its file (issue 27): a multisport file's legs, a pool
swim's figures, the device's timer time, and our own figures kept beside the device's
totals where those are shown (docs/import.md, "Multisport, pool swims, device totals").

One JSON column, as laps and device figures are: read only in the single-activity view.

Revision ID: 0014_activity_structure
Revises: 0013_activity_load_index
Create Date: 2026-11-28
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0014_activity_structure"
down_revision = "0013_activity_load_index"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("activities", sa.Column("structure", sa.JSON(), nullable=False,
                                          server_default="{}"))


def downgrade() -> None:
    op.drop_column("activities", "structure")
