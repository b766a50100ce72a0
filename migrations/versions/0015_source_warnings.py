"""What an activity's file source says about its import (issue 27 item 9, FIG-11).

A truncated FIT file is imported as far as it reads; the activity must say so after
the import answer is gone: the file source (one row per file an activity came from)
keeps the import's warnings as a JSON list of sentences. Nullable: no warnings.

Revision ID: 0015_source_warnings
Revises: 0014_activity_structure
Create Date: 2026-11-28
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0015_source_warnings"
down_revision = "0014_activity_structure"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("activity_sources", sa.Column("warnings", sa.JSON(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("activity_sources") as batch:
        batch.drop_column("warnings")
