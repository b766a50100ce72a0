"""The authorization server's operations, free of HTTP: clients, codes, tokens.

Codes (AS-5): 256-bit random, stored as SHA-256, 10 minutes, consumed by one atomic
UPDATE. A replayed code also revokes the grant its first exchange produced.
Refresh tokens (AS-8, AS-9): rotated on every use; the presented token is revoked by
the same UPDATE that checks it; presenting an already rotated token revokes its whole
family (RFC 9700 4.14.2). Access tokens (AS-7, AS-14): the service's RS256 JWTs with
`aud` = the resource and `scope`, checked by the one validator the service uses.

Grant revocation. Every access token names its grant: claim `fid` = the refresh-token
family id (and `client_id`, RFC 9068). Revoking a family (RFC 7009 revocation of a
refresh token or of an access token by its own client, refresh-token reuse, a replayed
code, a grant of a disabled user) records it in `oauth_revoked_families`, revokes its
refresh tokens, and bumps the cross-process revocation signal, so the one validator
(`PrincipalResolver`) refuses the family's access tokens at once in every process
(RFC 7009 2.1, RFC 6749 4.1.2). The validator caches "is this family revoked?" until
the signal moves. Records are deleted by the housekeeping DELETE once every access
token of the family has expired (`_RETENTION` + the access-token lifetime).
"""

from __future__ import annotations

import hashlib
import logging
import secrets
import uuid
from collections.abc import Callable
from datetime import datetime, timedelta
from typing import Any, Protocol

import orjson

from pacekeeper.auth import TokenInvalid, TokenService
from pacekeeper.db import UserRepository, UserStatus
from pacekeeper.oauth2 import _scopes, rfc7636
from pacekeeper.oauth2._authrequest import AuthorizationRequest, ErrorPage
from pacekeeper.oauth2._clients import Client
from pacekeeper.oauth2._store import Grant, NewCode, OAuthStore, StoredClient
from pacekeeper.oauth2.cimd import MetadataDocumentError, MetadataDocuments, is_metadata_url
from pacekeeper.oauth2.errors import InvalidGrant, InvalidRequest, UnauthorizedClient
from pacekeeper.oauth2.rfc8707 import Resources

log = logging.getLogger("pacekeeper.oauth2")
CODE_LIFETIME = timedelta(minutes=10)
# Expired codes and tokens are kept a day (replays still get recognised), then deleted.
_RETENTION = timedelta(days=1)


class Signal(Protocol):
    """The cross-process revocation signal (pacekeeper.apikeys.RevocationSignal)."""

    async def bump(self) -> None: ...


def digest(secret: str) -> str:
    return hashlib.sha256(secret.encode("utf-8", "surrogatepass")).hexdigest()


def _client_from_row(row: StoredClient) -> Client:
    metadata: dict[str, Any] = orjson.loads(row.metadata_json)
    return Client(
        client_id=row.client_id,
        client_name=row.client_name,
        redirect_uris=tuple(metadata.get("redirect_uris", ())),
        grant_types=tuple(metadata.get("grant_types", ("authorization_code",))),
        auth_method=row.token_endpoint_auth_method,
        secret_hash=row.client_secret_hash,
        metadata=metadata,
    )


class AuthorizationServer:
    def __init__(
        self,
        store: OAuthStore,
        tokens: TokenService,
        users: UserRepository,
        documents: MetadataDocuments,
        resources: Resources,
        clock: Callable[[], datetime],
        *,
        issuer: str,
        access_lifetime: timedelta,
        refresh_lifetime: timedelta,
        revocations: Signal | None = None,
    ) -> None:
        self.store = store
        self.tokens = tokens
        self.users = users
        self.documents = documents
        self.resources = resources
        self.clock = clock
        self.issuer = issuer
        self.access_lifetime = access_lifetime
        self.refresh_lifetime = refresh_lifetime
        self.revocations = revocations

    async def revoke_family(self, family_id: uuid.UUID, now: datetime) -> int:
        """End a grant: its refresh tokens, and (through the signal) its access tokens."""
        revoked = await self.store.revoke_family(family_id, now)
        if self.revocations is not None:
            await self.revocations.bump()  # after the commit: every process re-reads
        return revoked

    async def client(self, client_id: str) -> Client | None:
        """A registered or metadata-document client; None when unknown."""
        if len(client_id) > 2000:
            return None
        if is_metadata_url(client_id):
            try:
                return await self.documents.resolve(client_id)
            except MetadataDocumentError as exc:
                log.info("client metadata document refused: %s", exc)
                return None
        row = await self.store.get_client(client_id)
        return _client_from_row(row) if row is not None else None

    async def client_for_page(self, client_id: str) -> Client:
        """The client named by an authorization request, or the error page (AS-4)."""
        if is_metadata_url(client_id):
            try:
                return await self.documents.resolve(client_id)
            except MetadataDocumentError as exc:
                raise ErrorPage("Unknown client", f"The client's metadata: {exc}.") from None
        found = await self.client(client_id)
        if found is None:
            raise ErrorPage("Unknown client", "No client is registered with this client_id.")
        return found

    async def granted_scopes(self, user_id: uuid.UUID, client_id: str) -> frozenset[str]:
        """What the person already granted the client (live grants); empty if nothing."""
        return await self.store.granted_scopes(user_id, client_id, self.clock())

    async def issue_code(self, request: AuthorizationRequest, user_id: uuid.UUID) -> str:
        now = self.clock()
        code = secrets.token_urlsafe(32)
        grant = Grant(
            request.client.client_id, user_id, request.scope, request.audience, uuid.uuid4()
        )
        await self.store.add_code(
            NewCode(digest(code), grant, request.redirect_uri, request.code_challenge, now,
                    now + CODE_LIFETIME)
        )
        # Housekeeping rides on a rare, interactive event: one indexed DELETE.
        # A revoked family's record outlives the family's last access token (issued no
        # later than the revocation) by the same margin.
        await self.store.purge_expired(now - _RETENTION, now - _RETENTION - self.access_lifetime)
        return code

    async def exchange_code(self, client: Client, form: dict[str, str]) -> dict[str, Any]:
        """authorization_code grant: one consume, then PKCE, redirect URI and client checks."""
        code = form.get("code")
        if not code:
            raise InvalidRequest("code is required")
        now = self.clock()
        code_hash = digest(code)
        consumed = await self.store.consume_code(code_hash, now)
        if consumed is None:
            family = await self.store.code_family(code_hash)
            if family is not None:
                # Replayed (or expired) code: whatever it produced is revoked.
                await self.revoke_family(family, now)
            raise InvalidGrant("authorization code is invalid, expired or already used")
        grant = consumed.grant
        if grant.client_id != client.client_id:
            raise InvalidGrant("authorization code was issued to another client")
        if form.get("redirect_uri", consumed.redirect_uri) != consumed.redirect_uri:
            raise InvalidGrant("redirect_uri differs from the authorization request")
        rfc7636.verify(form.get("code_verifier"), consumed.code_challenge)
        # RFC 8707 2.2: a token request may repeat the authorized resource, nothing else.
        if "resource" in form and self.resources.audience([form["resource"]]) != grant.resource:
            raise InvalidGrant("resource differs from the authorization request")
        return await self._tokens(client, grant)

    async def refresh(self, client: Client, form: dict[str, str]) -> dict[str, Any]:
        """refresh_token grant with rotation; reuse of a rotated token revokes the family."""
        if "refresh_token" not in client.grant_types:
            raise UnauthorizedClient("this client may not use refresh tokens")
        presented = form.get("refresh_token")
        if not presented:
            raise InvalidRequest("refresh_token is required")
        now = self.clock()
        token_hash = digest(presented)
        successor = secrets.token_urlsafe(32)
        grant = await self.store.rotate_refresh(
            token_hash, client.client_id, now, digest(successor), now + self.refresh_lifetime
        )
        if grant is None:
            state = await self.store.refresh_state(token_hash)
            if state is not None and state.revoked and state.client_id == client.client_id:
                revoked = await self.revoke_family(state.family_id, now)
                log.warning("refresh token reuse: family revoked (%d active tokens)", revoked)
            raise InvalidGrant("refresh token is invalid, expired or revoked")
        if "resource" in form and self.resources.audience([form["resource"]]) != grant.resource:
            # Checked after the rotation on purpose: a wrong request still spends the token.
            raise InvalidGrant("resource differs from the original grant")
        if "scope" in form:
            narrowed = _scopes.parse(form["scope"])
            if not set(narrowed.split()) <= set(grant.scope.split()):
                raise InvalidGrant("scope exceeds the original grant")
            grant = Grant(grant.client_id, grant.user_id, narrowed, grant.resource, grant.family_id)
        return await self._tokens(client, grant, refresh_token=successor)

    async def _tokens(
        self,
        client: Client,
        grant: Grant,
        refresh_token: str | None = None,
    ) -> dict[str, Any]:
        user = await self.users.get(grant.user_id)
        if user is None or user.status is not UserStatus.ACTIVE:
            await self.revoke_family(grant.family_id, self.clock())
            raise InvalidGrant("the user of this grant is not active")
        if refresh_token is None and "refresh_token" in client.grant_types:
            refresh_token = secrets.token_urlsafe(32)
            now = self.clock()
            await self.store.add_refresh(
                digest(refresh_token), grant, None, now, now + self.refresh_lifetime
            )
        # Checked after the new refresh token (fresh, or the rotation's successor) is
        # committed: a revocation racing with this request (a replayed code, RFC 7009)
        # either sees that token, and its UPDATE revokes it, or is seen here, and the
        # token is revoked now. The answer stays the one success (AS-5, AS-8); its tokens
        # are dead, as with reuse (the access token names the revoked family).
        if refresh_token is not None and await self.store.family_revoked(grant.family_id):
            await self.store.revoke_family(grant.family_id, self.clock())
        issued = self.tokens.issue(
            user, grant.resource, scope=grant.scope, lifetime=self.access_lifetime,
            family=grant.family_id, client_id=client.client_id,
        )
        body: dict[str, Any] = {
            "access_token": issued.token,
            "token_type": "Bearer",
            "expires_in": int(self.access_lifetime.total_seconds()),
            "scope": grant.scope,
        }
        if refresh_token is not None:
            body["refresh_token"] = refresh_token
        return body

    async def revoke(self, client: Client, token: str) -> None:
        """RFC 7009: revoking a refresh token, or an access token, ends its whole grant.

        An access token ends its grant only when the presenting client is the one it was
        issued to (`client_id` claim); RFC 7009 2.1 lets the server revoke the grant.
        Unknown, invalid or expired tokens and other clients' tokens change nothing,
        and the endpoint answers 200 all the same (RFC 7009 2.2).
        """
        state = await self.store.refresh_state(digest(token))
        if state is not None:
            if state.client_id == client.client_id:
                await self.revoke_family(state.family_id, self.clock())
            return
        try:
            claims = await self.tokens.verify(token, self.resources.accepted)
        except TokenInvalid:
            return
        if claims.fid is not None and claims.client_id == client.client_id:
            await self.revoke_family(claims.fid, self.clock())


__all__ = ["CODE_LIFETIME", "AuthorizationServer", "Signal", "digest"]
