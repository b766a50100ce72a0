"""Provider authorizations are bound to the browser that continued them (issue 20, #4).

`oauth_states.binding_hash` holds the SHA-256 of a random secret kept in an HttpOnly
cookie of the browser that pressed Continue on our connect page; the callback needs it.

Revision ID: 0009_provider_state_binding
Revises: 0008_revoked_tokens
Create Date: 2026-11-24
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0009_provider_state_binding"
down_revision = "0008_revoked_tokens"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("oauth_states") as batch:
        batch.add_column(sa.Column("binding_hash", sa.String(64), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("oauth_states") as batch:
        batch.drop_column("binding_hash")
