"""OAuth 2.0 authorization server: clients, authorization codes, refresh tokens.

Revision ID: 0002_oauth2
Revises: 0001_core
Create Date: 2026-11-21
"""

from __future__ import annotations

from typing import Any

import sqlalchemy as sa
from alembic import op

revision = "0002_oauth2"
down_revision = "0001_core"
branch_labels = None
depends_on = None

_TS = sa.DateTime(timezone=True)


def _user_fk() -> sa.Column[Any]:
    return sa.Column(
        "user_id", sa.Uuid(), sa.ForeignKey("users.id", ondelete="CASCADE"), nullable=False
    )


def upgrade() -> None:
    op.create_table(
        "oauth_clients",
        sa.Column("client_id", sa.String(255), primary_key=True),
        sa.Column("client_secret_hash", sa.String(64), nullable=True),
        sa.Column("client_name", sa.String(200), nullable=False),
        sa.Column("token_endpoint_auth_method", sa.String(40), nullable=False),
        sa.Column("metadata_json", sa.Text(), nullable=False),
        sa.Column("client_id_issued_at", _TS, nullable=False),
    )
    op.create_table(
        "oauth_codes",
        sa.Column("code_hash", sa.String(64), primary_key=True),
        sa.Column("client_id", sa.String(255), nullable=False),
        _user_fk(),
        sa.Column("redirect_uri", sa.Text(), nullable=False),
        sa.Column("scope", sa.Text(), nullable=False),
        sa.Column("resource", sa.Text(), nullable=False),
        sa.Column("code_challenge", sa.String(128), nullable=False),
        sa.Column("family_id", sa.Uuid(), nullable=False),
        sa.Column("created_at", _TS, nullable=False),
        sa.Column("expires_at", _TS, nullable=False),
        sa.Column("used_at", _TS, nullable=True),
    )
    op.create_index("ix_oauth_codes_user_id", "oauth_codes", ["user_id"])
    op.create_index("ix_oauth_codes_expires_at", "oauth_codes", ["expires_at"])
    op.create_table(
        "oauth_refresh_tokens",
        sa.Column("token_hash", sa.String(64), primary_key=True),
        sa.Column("family_id", sa.Uuid(), nullable=False),
        sa.Column("parent_hash", sa.String(64), nullable=True),
        sa.Column("client_id", sa.String(255), nullable=False),
        _user_fk(),
        sa.Column("scope", sa.Text(), nullable=False),
        sa.Column("resource", sa.Text(), nullable=False),
        sa.Column("created_at", _TS, nullable=False),
        sa.Column("expires_at", _TS, nullable=False),
        sa.Column("revoked_at", _TS, nullable=True),
    )
    op.create_index(
        "ix_oauth_refresh_tokens_family_id", "oauth_refresh_tokens", ["family_id"]
    )
    op.create_index("ix_oauth_refresh_tokens_user_id", "oauth_refresh_tokens", ["user_id"])


def downgrade() -> None:
    op.drop_table("oauth_refresh_tokens")
    op.drop_table("oauth_codes")
    op.drop_table("oauth_clients")
