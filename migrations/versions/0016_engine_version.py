"""Which engine computed an activity's figures (pacekeeper.fitness._engine).

``engine_version``: the ``ENGINE_VERSION`` whose importer and analytics computed the
row's figures; existing rows get NULL (before the stamp: re-derived at the next start).
``rederive_error``: why the last re-derivation could not read the original file again
(the row keeps its figures and is stamped, so it is not retried until the next bump).

Revision ID: 0016_engine_version
Revises: 0015_source_warnings
Create Date: 2026-11-28
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0016_engine_version"
down_revision = "0015_source_warnings"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("activities", sa.Column("engine_version", sa.Integer(), nullable=True))
    op.add_column("activities", sa.Column("rederive_error", sa.String(300), nullable=True))
    op.create_index("ix_activities_user_engine", "activities", ["user_id", "engine_version"])


def downgrade() -> None:
    op.drop_index("ix_activities_user_engine", table_name="activities")
    with op.batch_alter_table("activities") as batch:
        batch.drop_column("rederive_error")
        batch.drop_column("engine_version")
