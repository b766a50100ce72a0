"""Revoked OAuth grants: access tokens naming a revoked family (`fid`) are refused.

Revision ID: 0005_oauth_revoked_families
Revises: 0004_connections
Create Date: 2026-11-23
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0005_oauth_revoked_families"
down_revision = "0004_connections"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "oauth_revoked_families",
        sa.Column("family_id", sa.Uuid(), primary_key=True),
        sa.Column("revoked_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_index(
        "ix_oauth_revoked_families_revoked_at", "oauth_revoked_families", ["revoked_at"]
    )


def downgrade() -> None:
    op.drop_index("ix_oauth_revoked_families_revoked_at", "oauth_revoked_families")
    op.drop_table("oauth_revoked_families")
