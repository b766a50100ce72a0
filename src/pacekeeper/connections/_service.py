"""The connection flow: authorize, callback, status, disconnect, data calls (PROV-1..10).

``state`` is ``<user_id>:<nonce>`` (PROV-2). Only the SHA-256 of the nonce is stored,
beside the user it was issued to, the provider, its expiry and the sealed PKCE verifier
or OAuth 1.0a request secret. The callback consumes it with one atomic UPDATE (PROV-3)
and stores the tokens for the user of that record, without asking for a login (PROV-4).
"""

from __future__ import annotations

import hmac
import logging
import secrets
import uuid
from collections.abc import Awaitable, Callable, Mapping
from datetime import datetime, timedelta
from typing import Any, TypeVar
from urllib.parse import urlencode

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
    DEFAULT_TENANT_SHARE,
    AccessTokenRejected,
    AuthorizationStart,
    ProviderClient,
    ProviderError,
    RateLimitTracker,
    ReconnectRequired,
    RunCpu,
    TokenSet,
    client_for,
    current_share_keys,
    run_here,
    share_keys,
)
from pacekeeper.providers import PROVIDERS as SPECS

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
        base_url: str,
        state_ttl_s: float,
        refresh_margin_s: float,
        tenant_share: float = DEFAULT_TENANT_SHARE,
        run_cpu: RunCpu = run_here,
    ) -> None:
        self.states = states
        self.connections = connections
        self.cipher = cipher
        self.setup = setup
        self.http = http
        self.clock = clock
        self._base_url = base_url.rstrip("/")
        self.state_ttl_s = state_ttl_s
        self._state_ttl = timedelta(seconds=state_ttl_s)
        self._tenant_share = tenant_share
        # Where the clients decode and map large bodies (the CPU pool's waiting runner).
        self._run_cpu = run_cpu
        self._clients: dict[str, ProviderClient] = {}
        self.keeper = TokenKeeper(connections, cipher, self.client, clock, refresh_margin_s,
                                  retired=self.retired_reason)

    def retired_reason(self, row: StoredConnection) -> str | None:
        """Why a connection must be made again although its tokens may still work: it was
        made against a provider API that is no longer spoken (Fitbit's Web API)."""
        spec = SPECS.get(row.provider)
        if spec is None:
            return None
        settings = self.setup.settings.get(row.provider)
        return spec.retired_grant(row.scopes, legacy=settings is not None and settings.legacy)

    def client(self, provider: str) -> ProviderClient:
        """One client per provider: it carries the provider's shared rate-limit state."""
        if provider not in PROVIDERS:
            raise UnknownProvider(provider)
        if provider not in self._clients:
            settings = self.setup.settings.get(provider)
            if settings is None:
                raise ProviderNotConfigured(provider)
            # The provider's quota is the application's: each tenant gets a fair share.
            tracker = RateLimitTracker(self._tenant_share,
                                       parser=SPECS[provider].rate_limits)
            # The spec builds it (Garmin's OAuth flavour travels in its settings).
            self._clients[provider] = client_for(provider, settings, self.http, tracker,
                                                 self._run_cpu)
        return self._clients[provider]

    # -- PROV-1/2: start ---------------------------------------------------------------
    #
    # A flow is bound to the browser that continues it (issue 20, #4): ``authorize``
    # makes an unbound state and returns OUR connect page, which names the Pacekeeper
    # account being connected; its Continue (``begin``) binds the state to a random
    # secret kept in an HttpOnly cookie of that browser and only then reveals the
    # provider's URL. The callback needs that cookie, so a provider link (or a connect
    # page already continued) sent to another person's browser connects nothing.

    def connect_page_url(self, provider: str, state: str) -> str:
        return f"{self._base_url}/api/oauth/connect/{provider}?{urlencode({'state': state})}"

    async def _new_state(self, tenant_id: uuid.UUID, user_id: uuid.UUID, provider: str) -> str:
        self.client(provider)  # an unknown or unconfigured provider fails here, clearly
        nonce = secrets.token_urlsafe(32)
        pending = PendingState(
            nonce_hash=sha256_hex(nonce),
            tenant_id=tenant_id,
            user_id=user_id,
            provider=provider,
            secret_envelope=None,
            request_token=None,
            expires_at=self.clock() + self._state_ttl,
        )
        await self.states.add(pending, self.clock())
        return f"{user_id}:{nonce}"

    async def authorize(self, tenant_id: uuid.UUID, user_id: uuid.UUID, provider: str) -> str:
        """Our connect page for a new state of this user (MCP tool, bearer API callers)."""
        return self.connect_page_url(provider, await self._new_state(tenant_id, user_id, provider))

    async def start_in_browser(
        self, tenant_id: uuid.UUID, user_id: uuid.UUID, provider: str, binding_secret: str
    ) -> str:
        """The provider's URL, the state bound at once: the asking browser holds the
        user's own session (the dashboard), so it is the browser that starts the flow."""
        state = await self._new_state(tenant_id, user_id, provider)
        return await self.begin(provider, state, binding_secret)

    async def pending(self, provider: str, state: str) -> PendingState:
        """The state behind a connect page, while it can still be continued."""
        user_id, nonce = _parse_state(state)
        self.client(provider)
        found = await self.states.explain(sha256_hex(nonce))
        reason = self._unusable(found, provider, user_id)
        if reason is not None or found is None:
            raise StateRejected(reason or "invalid")
        if found.binding_hash is not None:
            raise StateRejected("continued")
        return found

    async def begin(self, provider: str, state: str, binding_secret: str) -> str:
        """Continue: bind the state to the browser holding ``binding_secret`` (one atomic
        UPDATE: of two browsers only one binds) and return the provider's URL."""
        found = await self.pending(provider, state)
        user_id, nonce = _parse_state(state)
        current_share_keys.set(share_keys(found.tenant_id))
        try:
            start = await self.client(provider).start_authorization(state)
        except ProviderError as exc:
            raise explain_provider_error(provider, exc) from None
        secret = start.code_verifier or start.request_token_secret
        sealed = None
        if secret is not None:
            sealed = self.cipher.encrypt_text(secret, _state_context(found))
        bound = await self.states.bind(
            sha256_hex(nonce), provider, user_id, sha256_hex(binding_secret), sealed,
            start.request_token, self.clock(),
        )  # fmt: skip
        if bound is None:
            raise StateRejected("continued")
        return start.url

    # -- PROV-3/4: callback ------------------------------------------------------------

    async def complete(
        self,
        provider: str,
        query: Mapping[str, str],
        session_user: uuid.UUID | None = None,
        binding_secret: str | None = None,
    ) -> StoredConnection:
        client = self.client(provider)
        state_user, nonce = _parse_state(query.get("state", ""))
        if session_user is not None and session_user != state_user:
            raise StateRejected("wrong_user")  # a signed-in browser must match the state
        nonce_hash = sha256_hex(nonce)
        if not binding_secret:
            raise StateRejected(await self._why_refused(nonce_hash, provider, state_user, None))
        binding_hash = sha256_hex(binding_secret)
        pending = await self.states.consume(
            nonce_hash, provider, state_user, binding_hash, self.clock()
        )
        if pending is None:
            raise StateRejected(
                await self._why_refused(nonce_hash, provider, state_user, binding_hash)
            )
        # The database matched the binding already; compare again in constant time.
        if pending.binding_hash is None or not hmac.compare_digest(
            pending.binding_hash, binding_hash
        ):
            raise StateRejected("wrong_browser")
        if "error" in query:
            raise StateRejected("denied")
        current_share_keys.set(share_keys(pending.tenant_id))
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

    def _unusable(
        self, found: PendingState | None, provider: str, user_id: uuid.UUID
    ) -> str | None:
        if found is None:
            return "invalid"
        if found.user_id != user_id:
            return "wrong_user"
        if found.provider != provider:
            return "wrong_provider"
        if found.expires_at <= self.clock():
            return "expired"
        return None

    async def _why_refused(
        self, nonce_hash: str, provider: str, user_id: uuid.UUID, binding_hash: str | None
    ) -> str:
        """Words for a refusal; this read never accepts anything."""
        found = await self.states.explain(nonce_hash)
        reason = self._unusable(found, provider, user_id)
        if reason is not None or found is None:
            return reason or "invalid"
        if await self.states.used(nonce_hash):
            return "used"
        if found.binding_hash is None:
            return "not_continued"
        return "wrong_browser"

    async def purge(self, now: datetime) -> int:
        """Forget authorizations that ended more than a day ago (housekeeping)."""
        return await self.states.purge(now)

    # -- PROV-8 / PROV-10 --------------------------------------------------------------

    async def status(self, user_id: uuid.UUID) -> dict[str, Any]:
        rows = {c.provider: c for c in await self.connections.for_user(user_id)}
        body: dict[str, Any] = {"connected_providers": []}
        for provider in PROVIDERS:
            row = rows.get(provider)
            retired = self.retired_reason(row) if row is not None else None
            connected = (row is not None and row.status is ConnectionStatus.CONNECTED
                         and retired is None)
            entry: dict[str, Any] = {"connected": connected}
            if row is not None:
                entry["expires_at"] = _iso(row)
                entry["needs_reconnect"] = (row.status is ConnectionStatus.NEEDS_RECONNECT
                                            or retired is not None)
                if retired is not None:
                    entry["reason"] = retired
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
        tenant_id: uuid.UUID | None = None,
    ) -> T:
        """Run ``action`` with fresh tokens; on a 401 refresh once and retry once.
        Its requests count against the fair shares of the provider's quota of
        ``tenant_id`` (the connection's when not given) and of the provider account the
        connection is for: many tenants of one athlete share one share (issue 28)."""
        return await self.session(user_id, provider, tenant_id).call(action)

    def session(self, user_id: uuid.UUID, provider: str, tenant_id: uuid.UUID | None = None
                ) -> ProviderSession:
        """Many calls of one sync: the connection row is read once (and again only to
        refresh its tokens), not twice per request (issue 29)."""
        return ProviderSession(self, user_id, provider, tenant_id)


class ProviderSession:
    """One user's calls to one provider, keeping the tokens between them (``call``)."""

    def __init__(self, service: ConnectionService, user_id: uuid.UUID, provider: str,
                 tenant_id: uuid.UUID | None) -> None:
        self._service = service
        self._user_id = user_id
        self._provider = provider
        self._tenant_id = tenant_id
        self._shares: tuple[str, ...] = ()
        self._tokens: TokenSet | None = None

    async def _fresh(self, rejected: TokenSet | None = None) -> TokenSet:
        keeper, tokens = self._service.keeper, self._tokens
        if tokens is not None and rejected is None and not keeper.due(tokens):
            return tokens
        if tokens is None:  # the first call: the one read of the row
            found = await self._service.connections.get(self._user_id, self._provider)
            tenant_id = self._tenant_id
            if tenant_id is None and found is not None:
                tenant_id = found.tenant_id
            self._shares = share_keys(
                tenant_id, found.provider_user_id if found is not None else None)
            tokens = await keeper.tokens_of(found, self._user_id, self._provider)
        else:  # due or refused: refresh (it reads the row under its lock)
            tokens = await keeper.tokens(self._user_id, self._provider, rejected=rejected)
        self._tokens = tokens
        return tokens

    async def call(self, action: Callable[[ProviderClient, TokenSet], Awaitable[T]]) -> T:
        provider = self._provider
        client = self._service.client(provider)
        try:
            tokens = await self._fresh()
            # A ContextVar set here is local to this task: concurrent calls do not mix.
            current_share_keys.set(self._shares)
            try:
                return await action(client, tokens)
            except AccessTokenRejected:
                tokens = await self._fresh(rejected=tokens)
                return await action(client, tokens)
        except ProviderError as exc:
            raise explain_provider_error(provider, exc) from None
        except CryptoError:
            log.error("stored %s tokens of a user do not decrypt", provider)
            raise TokensUnreadable(provider) from None


def _parse_state(state: str) -> tuple[uuid.UUID, str]:
    """``<user_id>:<nonce>`` (PROV-2), or StateRejected("invalid")."""
    user_text, _, nonce = state.partition(":")
    try:
        user_id = uuid.UUID(user_text)
    except ValueError:
        raise StateRejected("invalid") from None
    if not nonce:
        raise StateRejected("invalid")
    return user_id, nonce


def _iso(row: StoredConnection) -> str | None:
    if row.expires_at is None:
        return None  # OAuth 1.0a tokens never expire
    return row.expires_at.strftime("%Y-%m-%dT%H:%M:%SZ")


__all__ = ["ConnectionProblem", "ConnectionService", "ProviderSession"]
