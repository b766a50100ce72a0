"""Provider connections, pending provider authorizations, webhook idempotency keys.

Revision ID: 0004_connections
Revises: 0001_core
Create Date: 2026-11-21
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0004_connections"
down_revision = "0003_apikeys"
branch_labels = None
depends_on = None

_TS = sa.DateTime(timezone=True)


def upgrade() -> None:
    op.create_table(
        "provider_connections",
        sa.Column("id", sa.Uuid(), primary_key=True),
        sa.Column(
            "tenant_id", sa.Uuid(), sa.ForeignKey("tenants.id", ondelete="CASCADE"), nullable=False
        ),
        sa.Column(
            "user_id", sa.Uuid(), sa.ForeignKey("users.id", ondelete="CASCADE"), nullable=False
        ),
        sa.Column("provider", sa.String(20), nullable=False),
        sa.Column("token_envelope", sa.Text(), nullable=False),
        sa.Column("key_version", sa.Integer(), nullable=False),
        sa.Column("expires_at", _TS, nullable=True),
        sa.Column("status", sa.String(20), nullable=False),
        sa.Column("scopes", sa.String(500), nullable=True),
        sa.Column("provider_user_id", sa.String(100), nullable=True),
        sa.Column("token_lookup", sa.String(64), nullable=True),
        sa.Column("created_at", _TS, nullable=False),
        sa.Column("updated_at", _TS, nullable=False),
        sa.UniqueConstraint("user_id", "provider", name="uq_connection_user_provider"),
    )
    op.create_index(
        "ix_provider_connections_token_lookup", "provider_connections", ["token_lookup"]
    )
    op.create_table(
        "oauth_states",
        sa.Column("nonce_hash", sa.String(64), primary_key=True),
        sa.Column(
            "tenant_id", sa.Uuid(), sa.ForeignKey("tenants.id", ondelete="CASCADE"), nullable=False
        ),
        sa.Column(
            "user_id", sa.Uuid(), sa.ForeignKey("users.id", ondelete="CASCADE"), nullable=False
        ),
        sa.Column("provider", sa.String(20), nullable=False),
        sa.Column("secret_envelope", sa.Text(), nullable=True),
        sa.Column("request_token", sa.String(200), nullable=True),
        sa.Column("expires_at", _TS, nullable=False),
        sa.Column("used_at", _TS, nullable=True),
        sa.Column("created_at", _TS, nullable=False),
    )
    op.create_index("ix_oauth_states_expires_at", "oauth_states", ["expires_at"])
    op.create_table(
        "webhook_keys",
        sa.Column("key_hash", sa.String(64), primary_key=True),
        sa.Column("expires_at", _TS, nullable=False),
    )
    op.create_index("ix_webhook_keys_expires_at", "webhook_keys", ["expires_at"])


def downgrade() -> None:
    op.drop_index("ix_webhook_keys_expires_at", "webhook_keys")
    op.drop_table("webhook_keys")
    op.drop_index("ix_oauth_states_expires_at", "oauth_states")
    op.drop_table("oauth_states")
    op.drop_index("ix_provider_connections_token_lookup", "provider_connections")
    op.drop_table("provider_connections")
