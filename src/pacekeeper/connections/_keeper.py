"""Sealing, opening and refreshing stored provider tokens (PROV-5, PROV-6).

Refresh is single-flight: callers in one process queue on an asyncio lock per
(user, provider) and re-read the row once inside it, so only the first one calls the
provider. Across processes, PostgreSQL holds the row with SELECT ... FOR UPDATE while
the provider is asked; SQLite (one host, usually one process) relies on the process
lock plus a compare-and-swap write: a process that loses the swap uses the winner's
tokens instead of its own.
"""

from __future__ import annotations

import asyncio
import hashlib
import uuid
import weakref
from collections.abc import Callable
from datetime import UTC, datetime

from pacekeeper.connections._errors import NeedsReconnect, NotConnected
from pacekeeper.connections._protocols import ConnectionRepository
from pacekeeper.connections._records import (
    ConnectionStatus,
    NewConnection,
    StoredConnection,
    TokenUpdate,
)
from pacekeeper.crypto import Envelope, TokenCipher, TokenContext
from pacekeeper.providers import (
    PROVIDERS,
    ProviderClient,
    ReconnectRequired,
    TokenSet,
    open_token_set,
    seal_token_set,
)

Clock = Callable[[], datetime]


def _expiry(tokens: TokenSet) -> datetime | None:
    return None if tokens.expires_at is None else datetime.fromtimestamp(tokens.expires_at, UTC)


def _lookup(provider: str, tokens: TokenSet) -> str | None:
    # Push webhooks (Garmin's) identify the user by access token; keep only its digest.
    spec = PROVIDERS.get(provider)
    if spec is None or not spec.capabilities.push_webhooks:
        return None
    return hashlib.sha256(tokens.access_token.encode()).hexdigest()


class TokenKeeper:
    def __init__(
        self,
        connections: ConnectionRepository,
        cipher: TokenCipher,
        clients: Callable[[str], ProviderClient],
        clock: Clock,
        margin_s: float,
        retired: Callable[[StoredConnection], str | None] = lambda record: None,
    ) -> None:
        self._connections = connections
        # Why a stored grant cannot serve the configured API (made against a retired one).
        self.retired = retired
        self._cipher = cipher
        self._clients = clients
        self._clock = clock
        self._margin = margin_s
        # Weak values: a lock lives while some caller holds or waits on it, no longer.
        self._locks: weakref.WeakValueDictionary[tuple[uuid.UUID, str], asyncio.Lock] = (
            weakref.WeakValueDictionary()
        )

    # -- sealing -----------------------------------------------------------------------

    @staticmethod
    def context(tenant_id: uuid.UUID, user_id: uuid.UUID, provider: str) -> TokenContext:
        return TokenContext(str(tenant_id), str(user_id), provider)

    def open(self, record: StoredConnection) -> TokenSet:
        context = self.context(record.tenant_id, record.user_id, record.provider)
        return open_token_set(self._cipher, record.token_envelope, context)

    def seal(self, record: StoredConnection, tokens: TokenSet) -> TokenUpdate:
        context = self.context(record.tenant_id, record.user_id, record.provider)
        envelope = seal_token_set(self._cipher, tokens, context)
        return TokenUpdate(
            envelope, Envelope.parse(envelope).key_version, _expiry(tokens),
            _lookup(record.provider, tokens),
        )  # fmt: skip

    def new_connection(
        self, tenant_id: uuid.UUID, user_id: uuid.UUID, provider: str, tokens: TokenSet
    ) -> NewConnection:
        envelope = seal_token_set(self._cipher, tokens, self.context(tenant_id, user_id, provider))
        return NewConnection(
            tenant_id=tenant_id,
            user_id=user_id,
            provider=provider,
            token_envelope=envelope,
            key_version=Envelope.parse(envelope).key_version,
            expires_at=_expiry(tokens),
            scopes=tokens.scope,
            provider_user_id=tokens.provider_user_id,
            token_lookup=_lookup(provider, tokens),
        )

    # -- refreshing --------------------------------------------------------------------

    def _due(self, tokens: TokenSet) -> bool:
        return tokens.expires_within(self._margin, now=self._clock().timestamp())

    def _usable(self, record: StoredConnection | None, provider: str) -> StoredConnection:
        if record is None:
            raise NotConnected(provider)
        if record.status is ConnectionStatus.NEEDS_RECONNECT:
            raise NeedsReconnect(provider)
        reason = self.retired(record)
        if reason is not None:  # its tokens mean nothing to the API now spoken
            raise NeedsReconnect(provider, reason)
        return record

    async def tokens(
        self, user_id: uuid.UUID, provider: str, *, rejected: TokenSet | None = None
    ) -> TokenSet:
        """Usable tokens, refreshed first when due. ``rejected``: the provider refused
        these (401), so refresh even if they look valid, unless someone already did."""
        record = await self._connections.get(user_id, provider)
        return await self.tokens_of(record, user_id, provider, rejected=rejected)

    def due(self, tokens: TokenSet) -> bool:
        """Tokens a caller kept are to be refreshed before the next request."""
        return self._due(tokens)

    async def tokens_of(
        self, record: StoredConnection | None, user_id: uuid.UUID, provider: str, *,
        rejected: TokenSet | None = None,
    ) -> TokenSet:
        """``tokens`` from a row the caller read already (a refresh re-reads it, locked)."""
        record = self._usable(record, provider)
        tokens = self.open(record)
        if not self._due(tokens) and tokens != rejected:
            return tokens
        lock = self._locks.get((user_id, provider))
        if lock is None:
            lock = self._locks[(user_id, provider)] = asyncio.Lock()
        async with lock:
            return await self._refresh_locked(user_id, provider, rejected)

    async def _refresh_locked(
        self, user_id: uuid.UUID, provider: str, rejected: TokenSet | None
    ) -> TokenSet:
        lost_grant = False
        async with self._connections.lock(user_id, provider) as locked:
            record = self._usable(locked.record, provider)
            tokens = self.open(record)
            if not self._due(tokens) and tokens != rejected:
                return tokens  # another caller refreshed while this one waited
            try:
                fresh = await self._clients(provider).refresh(tokens)
            except ReconnectRequired:
                lost_grant = await locked.mark_needs_reconnect(self._clock())
            else:
                if await locked.swap(self.seal(record, fresh), self._clock()):
                    return fresh
        # Leaving the block committed the status change (raising inside would roll back).
        if lost_grant:
            raise NeedsReconnect(provider)
        # The compare-and-swap lost to another process: its tokens are just as new.
        return self.open(self._usable(await self._connections.get(user_id, provider), provider))


__all__ = ["Clock", "TokenKeeper"]
