"""The connection flow: authorize, callback, status, disconnect, data calls (PROV-1..10).

``state`` is ``<user_id>:<nonce>`` (PROV-2). Only the SHA-256 of the nonce is stored,
beside the user it was issued to, the provider, its expiry and the sealed PKCE verifier
or OAuth 1.0a request secret. The callback consumes it with one atomic UPDATE (PROV-3)
and stores the tokens for the user of that record, without asking for a login (PROV-4).
"""

from __future__ import annotations

import logging
import secrets
import uuid
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import replace
from datetime import datetime, timedelta
from typing import Any, Literal, TypeVar

import httpx

from pacekeeper.connections._config import PROVIDERS, ProviderSetup
from pacekeeper.connections._errors import (
    ConnectionProblem,
    ProviderNotConfigured,
    StateRejected,
    TokensUnreadable,
    UnknownProvider,
    explain_provider_error,
)
from pacekeeper.connections._keeper import Clock, TokenKeeper
from pacekeeper.connections._protocols import ConnectionRepository, OAuthStateRepository
from pacekeeper.connections._records import ConnectionStatus, PendingState, StoredConnection
from pacekeeper.connections._sql import sha256_hex
from pacekeeper.crypto import CryptoError, TokenCipher, TokenContext
from pacekeeper.providers import (
    AccessTokenRejected,
    AuthorizationStart,
    GarminClient,
    ProviderClient,
    ProviderError,
    ReconnectRequired,
    TokenSet,
    client_for,
)

log = logging.getLogger("pacekeeper.connections")
T = TypeVar("T")


def _state_context(state: PendingState) -> TokenContext:
    # A domain of its own: a state secret can never pass for a stored token set.
    return TokenContext(str(state.tenant_id), str(state.user_id), f"{state.provider}/state")


class ConnectionService:
    def __init__(
        self,
        *,
        states: OAuthStateRepository,
        connections: ConnectionRepository,
        cipher: TokenCipher,
        setup: ProviderSetup,
        http: httpx.AsyncClient,
        clock: Clock,
        state_ttl_s: float,
        refresh_margin_s: float,
        garmin_oauth_version: int = 2,
    ) -> None:
        self.states = states
        self.connections = connections
        self.cipher = cipher
        self.setup = setup
        self.http = http
        self.clock = clock
        self._state_ttl = timedelta(seconds=state_ttl_s)
        self._garmin_version = garmin_oauth_version
        self._clients: dict[str, ProviderClient] = {}
        self.keeper = TokenKeeper(connections, cipher, self.client, clock, refresh_margin_s)

    def client(self, provider: str) -> ProviderClient:
        """One client per provider: it carries the provider's shared rate-limit state."""
        if provider not in PROVIDERS:
            raise UnknownProvider(provider)
        if provider not in self._clients:
            settings = self.setup.settings.get(provider)
            if settings is None:
                raise ProviderNotConfigured(provider)
            if provider == "garmin":
                version: Literal[1, 2] = 1 if self._garmin_version == 1 else 2
                self._clients[provider] = GarminClient(settings, self.http, oauth_version=version)
            else:
                self._clients[provider] = client_for(provider, settings, self.http)
        return self._clients[provider]

    # -- PROV-1/2: start ---------------------------------------------------------------

    async def authorize(self, tenant_id: uuid.UUID, user_id: uuid.UUID, provider: str) -> str:
        """The provider's authorization URL for this user; the state is kept server-side."""
        client = self.client(provider)
        nonce = secrets.token_urlsafe(32)
        state = f"{user_id}:{nonce}"
        try:
            start = await client.start_authorization(state)
        except ProviderError as exc:
            raise explain_provider_error(provider, exc) from None
        pending = PendingState(
            nonce_hash=sha256_hex(nonce),
            tenant_id=tenant_id,
            user_id=user_id,
            provider=provider,
            secret_envelope=None,
            request_token=start.request_token,
            expires_at=self.clock() + self._state_ttl,
        )
        secret = start.code_verifier or start.request_token_secret
        if secret is not None:
            sealed = self.cipher.encrypt_text(secret, _state_context(pending))
            pending = replace(pending, secret_envelope=sealed)
        await self.states.add(pending, self.clock())
        return start.url

    # -- PROV-3/4: callback ------------------------------------------------------------

    async def complete(
        self, provider: str, query: Mapping[str, str], session_user: uuid.UUID | None = None
    ) -> StoredConnection:
        client = self.client(provider)
        user_text, _, nonce = query.get("state", "").partition(":")
        try:
            state_user = uuid.UUID(user_text)
        except ValueError:
            raise StateRejected("invalid") from None
        if not nonce:
            raise StateRejected("invalid")
        if session_user is not None and session_user != state_user:
            raise StateRejected("wrong_user")  # a signed-in browser must match the state
        nonce_hash = sha256_hex(nonce)
        pending = await self.states.consume(nonce_hash, provider, state_user, self.clock())
        if pending is None:
            raise StateRejected(await self._why_refused(nonce_hash, provider, state_user))
        if "error" in query:
            raise StateRejected("denied")
        start = self._start_of(pending, query.get("state", ""))
        try:
            tokens = await client.complete_authorization(start, query)
        except ReconnectRequired:
            raise StateRejected("denied") from None
        except ProviderError as exc:
            problem = explain_provider_error(provider, exc)
            raise StateRejected("exchange_failed", problem.message) from None
        new = self.keeper.new_connection(pending.tenant_id, pending.user_id, provider, tokens)
        return await self.connections.save(new, self.clock())

    def _start_of(self, pending: PendingState, state: str) -> AuthorizationStart:
        secret = None
        if pending.secret_envelope is not None:
            try:
                secret = self.cipher.decrypt_text(pending.secret_envelope, _state_context(pending))
            except CryptoError:
                raise StateRejected("invalid") from None
        oauth1 = pending.request_token is not None
        return AuthorizationStart(
            url="",
            state=state,
            code_verifier=None if oauth1 else secret,
            request_token=pending.request_token,
            request_token_secret=secret if oauth1 else None,
        )

    async def _why_refused(self, nonce_hash: str, provider: str, user_id: uuid.UUID) -> str:
        found = await self.states.explain(nonce_hash)
        if found is None:
            return "invalid"
        if found.user_id != user_id:
            return "wrong_user"
        if found.provider != provider:
            return "wrong_provider"
        if found.expires_at <= self.clock():
            return "expired"
        return "used"

    async def purge(self, now: datetime) -> int:
        """Forget authorizations that ended more than a day ago (housekeeping)."""
        return await self.states.purge(now)

    # -- PROV-8 / PROV-10 --------------------------------------------------------------

    async def status(self, user_id: uuid.UUID) -> dict[str, Any]:
        rows = {c.provider: c for c in await self.connections.for_user(user_id)}
        body: dict[str, Any] = {"connected_providers": []}
        for provider in PROVIDERS:
            row = rows.get(provider)
            connected = row is not None and row.status is ConnectionStatus.CONNECTED
            entry: dict[str, Any] = {"connected": connected}
            if row is not None:
                entry["expires_at"] = _iso(row)
                entry["needs_reconnect"] = row.status is ConnectionStatus.NEEDS_RECONNECT
            if connected:
                body["connected_providers"].append(provider)
            body[provider] = entry
        return body

    async def disconnect(self, user_id: uuid.UUID, provider: str) -> dict[str, Any]:
        """Delete the tokens at once, then tell the provider (best effort, PROV-10)."""
        if provider not in PROVIDERS:
            raise UnknownProvider(provider)
        removed = await self.connections.delete(user_id, provider)
        deauthorized = False
        if removed is not None and provider in self.setup.settings:
            try:
                await self.client(provider).deauthorize(self.keeper.open(removed))
                deauthorized = True
            except (ProviderError, CryptoError) as exc:
                log.warning("deauthorize %s failed: %s", provider, type(exc).__name__)
        return {"provider": provider, "removed": removed is not None,
                "deauthorized": deauthorized}  # fmt: skip

    # -- data calls through fresh tokens (PROV-6) --------------------------------------

    async def call(
        self,
        user_id: uuid.UUID,
        provider: str,
        action: Callable[[ProviderClient, TokenSet], Awaitable[T]],
    ) -> T:
        """Run ``action`` with fresh tokens; on a 401 refresh once and retry once."""
        client = self.client(provider)
        try:
            tokens = await self.keeper.tokens(user_id, provider)
            try:
                return await action(client, tokens)
            except AccessTokenRejected:
                tokens = await self.keeper.tokens(user_id, provider, rejected=tokens)
                return await action(client, tokens)
        except ProviderError as exc:
            raise explain_provider_error(provider, exc) from None
        except CryptoError:
            log.error("stored %s tokens of a user do not decrypt", provider)
            raise TokensUnreadable(provider) from None


def _iso(row: StoredConnection) -> str | None:
    if row.expires_at is None:
        return None  # OAuth 1.0a tokens never expire
    return row.expires_at.strftime("%Y-%m-%dT%H:%M:%SZ")


__all__ = ["ConnectionProblem", "ConnectionService"]
