"""Revoked JWT ids: a token ended by logout is refused until its `exp` (finding 13).

Revision ID: 0008_revoked_tokens
Revises: 0007_email_skeleton
Create Date: 2026-11-24
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0008_revoked_tokens"
down_revision = "0007_email_skeleton"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "revoked_tokens",
        sa.Column("jti", sa.String(64), primary_key=True),
        sa.Column("expires_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_index("ix_revoked_tokens_expires_at", "revoked_tokens", ["expires_at"])


def downgrade() -> None:
    op.drop_index("ix_revoked_tokens_expires_at", "revoked_tokens")
    op.drop_table("revoked_tokens")
