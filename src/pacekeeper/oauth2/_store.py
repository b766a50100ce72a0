"""Storage of the authorization server: one Protocol, one SQL implementation.

The two single-use rules are each ONE conditional UPDATE, so they hold across threads,
processes and machines sharing the database (AS-5, AS-8):

- a code is consumed by `UPDATE ... SET used_at = now WHERE code_hash = h AND
  used_at IS NULL AND expires_at > now RETURNING ...`;
- a refresh token by `UPDATE ... SET revoked_at = now WHERE token_hash = h AND
  client_id = c AND revoked_at IS NULL AND expires_at > now RETURNING ...`, and its
  successor is inserted in the same transaction (both happen or neither).

PostgreSQL re-checks the WHERE clause after a concurrent writer commits, and SQLite
serialises writers, so of any number of concurrent presentations exactly one row update
succeeds.

A revoked family (grant) is recorded in `oauth_revoked_families` BEFORE its refresh
tokens are revoked, each step committed on its own: a token request that commits a new
refresh token and then finds no record was committed before the revoking UPDATE began,
so that UPDATE revokes it; one that finds the record revokes the family itself (see
`AuthorizationServer`). The record is what the validator reads to refuse the family's
access tokens (claim `fid`).
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import datetime
from typing import Protocol

from sqlalchemy import delete, select, update
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from pacekeeper.db import upsert_insert
from pacekeeper.oauth2._models import (
    OAuthClientRow,
    OAuthCodeRow,
    OAuthRefreshTokenRow,
    OAuthRevokedFamilyRow,
)


@dataclass(frozen=True, slots=True)
class StoredClient:
    client_id: str
    client_secret_hash: str | None
    client_name: str
    token_endpoint_auth_method: str
    metadata_json: str
    client_id_issued_at: datetime


@dataclass(frozen=True, slots=True)
class Grant:
    """What a code or refresh token stands for."""

    client_id: str
    user_id: uuid.UUID
    scope: str
    resource: str
    family_id: uuid.UUID


@dataclass(frozen=True, slots=True)
class NewCode:
    code_hash: str
    grant: Grant
    redirect_uri: str
    code_challenge: str
    created_at: datetime
    expires_at: datetime


@dataclass(frozen=True, slots=True)
class ConsumedCode:
    grant: Grant
    redirect_uri: str
    code_challenge: str


@dataclass(frozen=True, slots=True)
class RefreshState:
    family_id: uuid.UUID
    revoked: bool
    client_id: str


class OAuthStore(Protocol):
    async def add_client(self, client: StoredClient) -> None: ...
    async def get_client(self, client_id: str) -> StoredClient | None: ...
    async def add_code(self, code: NewCode) -> None: ...
    async def consume_code(self, code_hash: str, now: datetime) -> ConsumedCode | None:
        """Mark the code used; None unless it was unused and unexpired (atomic)."""
    async def code_family(self, code_hash: str) -> uuid.UUID | None:
        """The family of a code that exists (used or expired), for replay handling."""
    async def add_refresh(
        self, token_hash: str, grant: Grant, parent: str | None, now: datetime, expires: datetime
    ) -> None: ...
    async def rotate_refresh(
        self,
        token_hash: str,
        client_id: str,
        now: datetime,
        successor_hash: str,
        successor_expires: datetime,
    ) -> Grant | None:
        """Revoke the token and insert its successor in one transaction (atomic check)."""
    async def refresh_state(self, token_hash: str) -> RefreshState | None:
        """Family, revocation and owner of a stored token; None when unknown."""
    async def granted_scopes(
        self, user_id: uuid.UUID, client_id: str, now: datetime
    ) -> frozenset[str]:
        """The scopes of the person's live grants to the client (live refresh tokens:
        what the assistants page lists); empty when there is none."""
    async def revoke_family(self, family_id: uuid.UUID, now: datetime) -> int:
        """Record the family as revoked, then revoke its refresh tokens (active ones counted)."""
    async def family_revoked(self, family_id: uuid.UUID) -> bool:
        """Whether the family is recorded as revoked (its access tokens are refused)."""
    async def purge_expired(self, before: datetime, revoked_before: datetime) -> int:
        """Delete codes and refresh tokens that expired before `before`, and revoked-family
        records older than `revoked_before` (every access token of theirs has expired)."""


def _client(row: OAuthClientRow) -> StoredClient:
    return StoredClient(
        row.client_id,
        row.client_secret_hash,
        row.client_name,
        row.token_endpoint_auth_method,
        row.metadata_json,
        row.client_id_issued_at,
    )


_CODE = OAuthCodeRow
_RT = OAuthRefreshTokenRow
_REVOKED = OAuthRevokedFamilyRow


class SqlOAuthStore:
    def __init__(self, sessions: async_sessionmaker[AsyncSession]) -> None:
        self._sessions = sessions
        self._insert = upsert_insert(sessions)

    async def add_client(self, client: StoredClient) -> None:
        async with self._sessions.begin() as session:
            session.add(
                OAuthClientRow(
                    client_id=client.client_id,
                    client_secret_hash=client.client_secret_hash,
                    client_name=client.client_name,
                    token_endpoint_auth_method=client.token_endpoint_auth_method,
                    metadata_json=client.metadata_json,
                    client_id_issued_at=client.client_id_issued_at,
                )
            )

    async def get_client(self, client_id: str) -> StoredClient | None:
        async with self._sessions() as session:
            row = await session.get(OAuthClientRow, client_id)
            return _client(row) if row is not None else None

    async def add_code(self, code: NewCode) -> None:
        g = code.grant
        async with self._sessions.begin() as session:
            session.add(
                OAuthCodeRow(
                    code_hash=code.code_hash,
                    client_id=g.client_id,
                    user_id=g.user_id,
                    redirect_uri=code.redirect_uri,
                    scope=g.scope,
                    resource=g.resource,
                    code_challenge=code.code_challenge,
                    family_id=g.family_id,
                    created_at=code.created_at,
                    expires_at=code.expires_at,
                )
            )

    async def consume_code(self, code_hash: str, now: datetime) -> ConsumedCode | None:
        statement = (
            update(_CODE)
            .where(_CODE.code_hash == code_hash, _CODE.used_at.is_(None), _CODE.expires_at > now)
            .values(used_at=now)
            .returning(
                _CODE.client_id, _CODE.user_id, _CODE.scope, _CODE.resource, _CODE.family_id,
                _CODE.redirect_uri, _CODE.code_challenge,
            )
        )
        async with self._sessions.begin() as session:
            row = (await session.execute(statement)).one_or_none()
        if row is None:
            return None
        grant = Grant(row.client_id, row.user_id, row.scope, row.resource, row.family_id)
        return ConsumedCode(grant, row.redirect_uri, row.code_challenge)

    async def code_family(self, code_hash: str) -> uuid.UUID | None:
        async with self._sessions() as session:
            found: uuid.UUID | None = await session.scalar(
                select(_CODE.family_id).where(_CODE.code_hash == code_hash)
            )
            return found

    async def add_refresh(
        self, token_hash: str, grant: Grant, parent: str | None, now: datetime, expires: datetime
    ) -> None:
        async with self._sessions.begin() as session:
            session.add(_refresh_row(token_hash, grant, parent, now, expires))

    async def rotate_refresh(
        self,
        token_hash: str,
        client_id: str,
        now: datetime,
        successor_hash: str,
        successor_expires: datetime,
    ) -> Grant | None:
        statement = (
            update(_RT)
            .where(
                _RT.token_hash == token_hash,
                _RT.client_id == client_id,
                _RT.revoked_at.is_(None),
                _RT.expires_at > now,
            )
            .values(revoked_at=now)
            .returning(_RT.client_id, _RT.user_id, _RT.scope, _RT.resource, _RT.family_id)
        )
        async with self._sessions.begin() as session:
            row = (await session.execute(statement)).one_or_none()
            if row is None:
                return None
            grant = Grant(row.client_id, row.user_id, row.scope, row.resource, row.family_id)
            session.add(_refresh_row(successor_hash, grant, token_hash, now, successor_expires))
        return grant

    async def refresh_state(self, token_hash: str) -> RefreshState | None:
        query = select(_RT.family_id, _RT.revoked_at, _RT.client_id).where(
            _RT.token_hash == token_hash
        )
        async with self._sessions() as session:
            row = (await session.execute(query)).one_or_none()
        if row is None:
            return None
        return RefreshState(row.family_id, row.revoked_at is not None, row.client_id)

    async def granted_scopes(
        self, user_id: uuid.UUID, client_id: str, now: datetime
    ) -> frozenset[str]:
        query = select(_RT.scope).distinct().where(
            _RT.user_id == user_id, _RT.client_id == client_id, _RT.revoked_at.is_(None),
            _RT.expires_at > now,
        )
        async with self._sessions() as session:
            scopes = (await session.scalars(query)).all()
        return frozenset(s for scope in scopes for s in scope.split())

    async def revoke_family(self, family_id: uuid.UUID, now: datetime) -> int:
        # The latest revocation counts: the record is kept an access-token lifetime after it.
        record = (
            self._insert(_REVOKED)
            .values(family_id=family_id, revoked_at=now)
            .on_conflict_do_update(index_elements=["family_id"], set_={"revoked_at": now})
        )
        # Two transactions on purpose, the record first (module docstring).
        async with self._sessions.begin() as session:
            await session.execute(record)
        async with self._sessions.begin() as session:
            result = await session.execute(
                update(_RT)
                .where(_RT.family_id == family_id, _RT.revoked_at.is_(None))
                .values(revoked_at=now)
            )
        return int(getattr(result, "rowcount", 0) or 0)

    async def family_revoked(self, family_id: uuid.UUID) -> bool:
        async with self._sessions() as session:
            found = await session.scalar(
                select(_REVOKED.family_id).where(_REVOKED.family_id == family_id)
            )
        return found is not None

    async def purge_expired(self, before: datetime, revoked_before: datetime) -> int:
        async with self._sessions.begin() as session:
            codes = await session.execute(delete(_CODE).where(_CODE.expires_at < before))
            tokens = await session.execute(delete(_RT).where(_RT.expires_at < before))
            families = await session.execute(
                delete(_REVOKED).where(_REVOKED.revoked_at < revoked_before)
            )
        return sum(int(getattr(r, "rowcount", 0) or 0) for r in (codes, tokens, families))


def _refresh_row(
    token_hash: str, grant: Grant, parent: str | None, now: datetime, expires: datetime
) -> OAuthRefreshTokenRow:
    return OAuthRefreshTokenRow(
        token_hash=token_hash,
        family_id=grant.family_id,
        parent_hash=parent,
        client_id=grant.client_id,
        user_id=grant.user_id,
        scope=grant.scope,
        resource=grant.resource,
        created_at=now,
        expires_at=expires,
    )


__all__ = [
    "ConsumedCode",
    "Grant",
    "NewCode",
    "OAuthStore",
    "RefreshState",
    "SqlOAuthStore",
    "StoredClient",
]
