"""An activity's private notes, and which fields the person edited (issue 33: edit an
activity; its description is 0019_history_imports' column).

`edited` lists the fields the person set themselves (``name``, ``sport``): a richer
source merged later or a re-derivation after an upgrade keeps them.

Revision ID: 0022_activity_notes
Revises: 0021_workouts
Create Date: 2026-12-07
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0022_activity_notes"
down_revision = "0021_workouts"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("activities") as batch:
        batch.add_column(sa.Column("notes", sa.Text(), nullable=True))
        batch.add_column(sa.Column("edited", sa.JSON(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("activities") as batch:
        batch.drop_column("edited")
        batch.drop_column("notes")
