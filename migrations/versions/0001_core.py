"""Core tables: tenants, users, signing keys, CSRF tokens.

Revision ID: 0001_core
Revises:
Create Date: 2026-11-21
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0001_core"
down_revision = None
branch_labels = None
depends_on = None

_TS = sa.DateTime(timezone=True)


def upgrade() -> None:
    op.create_table(
        "tenants",
        sa.Column("id", sa.Uuid(), primary_key=True),
        sa.Column("name", sa.String(200), nullable=False),
        sa.Column("slug", sa.String(100), nullable=False, unique=True),
        sa.Column("plan", sa.String(50), nullable=False),
        sa.Column("rate_limit_per_minute", sa.Integer(), nullable=True),
        sa.Column("created_at", _TS, nullable=False),
    )
    op.create_table(
        "users",
        sa.Column("id", sa.Uuid(), primary_key=True),
        sa.Column("email", sa.String(320), nullable=False, unique=True),
        sa.Column("password_hash", sa.String(255), nullable=False),
        sa.Column("display_name", sa.String(200), nullable=True),
        sa.Column("role", sa.String(20), nullable=False),
        sa.Column("status", sa.String(20), nullable=False),
        sa.Column("tenant_id", sa.Uuid(), sa.ForeignKey("tenants.id"), nullable=False),
        sa.Column("created_at", _TS, nullable=False),
        sa.Column("last_login_at", _TS, nullable=True),
        sa.Column("token_version", sa.Integer(), nullable=False, server_default="0"),
    )
    op.create_index("ix_users_tenant_id", "users", ["tenant_id"])
    op.create_table(
        "signing_keys",
        sa.Column("kid", sa.String(64), primary_key=True),
        sa.Column("alg", sa.String(10), nullable=False),
        sa.Column("private_key_sealed", sa.LargeBinary(), nullable=False),
        sa.Column("public_jwk", sa.Text(), nullable=False),
        sa.Column("created_at", _TS, nullable=False),
        sa.Column("retired_at", _TS, nullable=True),
        sa.Column("expires_at", _TS, nullable=True),
    )
    op.create_table(
        "csrf_tokens",
        sa.Column("token_hash", sa.String(64), primary_key=True),
        sa.Column(
            "user_id", sa.Uuid(), sa.ForeignKey("users.id", ondelete="CASCADE"), nullable=False
        ),
        sa.Column("expires_at", _TS, nullable=False),
    )
    op.create_index("ix_csrf_tokens_user_id", "csrf_tokens", ["user_id"])
    op.create_index("ix_csrf_tokens_expires_at", "csrf_tokens", ["expires_at"])


def downgrade() -> None:
    op.drop_table("csrf_tokens")
    op.drop_table("signing_keys")
    op.drop_index("ix_users_tenant_id", table_name="users")
    op.drop_table("users")
    op.drop_table("tenants")
