"""Tables of the authorization server (migrations 0002_oauth2 and 0005 mirror them).

Every secret is stored as its SHA-256 digest (client secrets, codes, refresh tokens):
they are 256-bit random values, so a fast hash is enough and lookups stay indexed.
"""

from __future__ import annotations

import uuid
from datetime import datetime

from sqlalchemy import ForeignKey, Index, String, Text, Uuid
from sqlalchemy.orm import Mapped, mapped_column

from pacekeeper.db._models import Base, UtcDateTime


class OAuthClientRow(Base):
    __tablename__ = "oauth_clients"

    client_id: Mapped[str] = mapped_column(String(255), primary_key=True)
    client_secret_hash: Mapped[str | None] = mapped_column(String(64), nullable=True)
    client_name: Mapped[str] = mapped_column(String(200))
    token_endpoint_auth_method: Mapped[str] = mapped_column(String(40))
    # The registered metadata as sent back by RFC 7591 (redirect_uris, grant_types, ...).
    metadata_json: Mapped[str] = mapped_column(Text)
    client_id_issued_at: Mapped[datetime] = mapped_column(UtcDateTime())


class OAuthCodeRow(Base):
    __tablename__ = "oauth_codes"

    code_hash: Mapped[str] = mapped_column(String(64), primary_key=True)
    client_id: Mapped[str] = mapped_column(String(255))
    user_id: Mapped[uuid.UUID] = mapped_column(
        Uuid(), ForeignKey("users.id", ondelete="CASCADE"), index=True
    )
    redirect_uri: Mapped[str] = mapped_column(Text)
    scope: Mapped[str] = mapped_column(Text)
    resource: Mapped[str] = mapped_column(Text)
    code_challenge: Mapped[str] = mapped_column(String(128))
    # Refresh tokens issued from this code join this family, so a replayed code can
    # revoke what the first exchange produced (RFC 6749 section 4.1.2).
    family_id: Mapped[uuid.UUID] = mapped_column(Uuid())
    created_at: Mapped[datetime] = mapped_column(UtcDateTime())
    expires_at: Mapped[datetime] = mapped_column(UtcDateTime(), index=True)
    used_at: Mapped[datetime | None] = mapped_column(UtcDateTime(), nullable=True)


class OAuthRefreshTokenRow(Base):
    __tablename__ = "oauth_refresh_tokens"
    __table_args__ = (Index("ix_oauth_refresh_tokens_family_id", "family_id"),)

    token_hash: Mapped[str] = mapped_column(String(64), primary_key=True)
    family_id: Mapped[uuid.UUID] = mapped_column(Uuid())
    parent_hash: Mapped[str | None] = mapped_column(String(64), nullable=True)
    client_id: Mapped[str] = mapped_column(String(255))
    user_id: Mapped[uuid.UUID] = mapped_column(
        Uuid(), ForeignKey("users.id", ondelete="CASCADE"), index=True
    )
    scope: Mapped[str] = mapped_column(Text)
    resource: Mapped[str] = mapped_column(Text)
    created_at: Mapped[datetime] = mapped_column(UtcDateTime())
    expires_at: Mapped[datetime] = mapped_column(UtcDateTime())
    revoked_at: Mapped[datetime | None] = mapped_column(UtcDateTime(), nullable=True)


class OAuthRevokedFamilyRow(Base):
    """A revoked grant (refresh-token family): its access tokens (claim `fid`) are refused.

    A table of its own, not a column on the refresh tokens: the validator asks "is this
    family revoked?" by primary key, a family can be revoked before any refresh token of
    it exists (a replayed code of a client without refresh tokens), and the row must
    outlive the family's refresh tokens only as long as its access tokens live.
    (migrations/versions/0005_oauth_revoked_families.py)
    """

    __tablename__ = "oauth_revoked_families"

    family_id: Mapped[uuid.UUID] = mapped_column(Uuid(), primary_key=True)
    revoked_at: Mapped[datetime] = mapped_column(UtcDateTime(), index=True)


__all__ = ["OAuthClientRow", "OAuthCodeRow", "OAuthRefreshTokenRow", "OAuthRevokedFamilyRow"]
