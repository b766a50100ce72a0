"""Tables of provider connections, pending authorizations and webhook deliveries.

They share the core's declarative ``Base`` so one metadata (and the test fixtures that
empty it) covers them; migrations/versions/0004_connections.py mirrors them.
"""

from __future__ import annotations

import uuid
from datetime import datetime

from sqlalchemy import ForeignKey, Index, Integer, String, Text, UniqueConstraint, Uuid
from sqlalchemy.orm import Mapped, mapped_column

from pacekeeper.db import Base
from pacekeeper.db._models import UtcDateTime


class ProviderConnectionRow(Base):
    __tablename__ = "provider_connections"
    __table_args__ = (UniqueConstraint("user_id", "provider", name="uq_connection_user_provider"),)

    id: Mapped[uuid.UUID] = mapped_column(Uuid, primary_key=True)
    tenant_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("tenants.id", ondelete="CASCADE"))
    user_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"))
    provider: Mapped[str] = mapped_column(String(20))
    # The whole TokenSet as one AES-256-GCM envelope (PROV-5); AAD = tenant, user, provider.
    token_envelope: Mapped[str] = mapped_column(Text)
    key_version: Mapped[int] = mapped_column(Integer)
    expires_at: Mapped[datetime | None] = mapped_column(UtcDateTime, nullable=True)
    status: Mapped[str] = mapped_column(String(20))
    scopes: Mapped[str | None] = mapped_column(String(500), nullable=True)
    provider_user_id: Mapped[str | None] = mapped_column(String(100), nullable=True)
    # SHA-256 of the access token, only for Garmin: its webhooks name the user by token.
    token_lookup: Mapped[str | None] = mapped_column(String(64), nullable=True, index=True)
    created_at: Mapped[datetime] = mapped_column(UtcDateTime)
    updated_at: Mapped[datetime] = mapped_column(UtcDateTime)


class OAuthStateRow(Base):
    __tablename__ = "oauth_states"

    # SHA-256 of the nonce: the value in the browser's URL is never stored.
    nonce_hash: Mapped[str] = mapped_column(String(64), primary_key=True)
    tenant_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("tenants.id", ondelete="CASCADE"))
    user_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"))
    provider: Mapped[str] = mapped_column(String(20))
    # PKCE verifier or OAuth 1.0a request-token secret, sealed like provider tokens.
    secret_envelope: Mapped[str | None] = mapped_column(Text, nullable=True)
    request_token: Mapped[str | None] = mapped_column(String(200), nullable=True)
    expires_at: Mapped[datetime] = mapped_column(UtcDateTime)
    used_at: Mapped[datetime | None] = mapped_column(UtcDateTime, nullable=True)
    created_at: Mapped[datetime] = mapped_column(UtcDateTime)
    # SHA-256 of the browser binding secret (an HttpOnly cookie of the browser that
    # continued the flow); None until our connect page's Continue (issue 20, #4).
    binding_hash: Mapped[str | None] = mapped_column(String(64), nullable=True)


class WebhookKeyRow(Base):
    __tablename__ = "webhook_keys"

    key_hash: Mapped[str] = mapped_column(String(64), primary_key=True)
    expires_at: Mapped[datetime] = mapped_column(UtcDateTime)


Index("ix_oauth_states_expires_at", OAuthStateRow.expires_at)
Index("ix_webhook_keys_expires_at", WebhookKeyRow.expires_at)

__all__ = ["OAuthStateRow", "ProviderConnectionRow", "WebhookKeyRow"]
