"""Build the connection layer from the service settings (used by services.py)."""

from __future__ import annotations

import functools
import ssl
import uuid
from collections.abc import Collection, Mapping
from dataclasses import dataclass

import httpx
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from pacekeeper.config import Settings
from pacekeeper.connections._config import ProviderSetup, provider_setup
from pacekeeper.connections._keeper import Clock
from pacekeeper.connections._service import ConnectionService
from pacekeeper.connections._sql import SqlConnectionRepository
from pacekeeper.connections._sql_states import SqlIdempotencyStore, SqlOAuthStateRepository
from pacekeeper.crypto import (
    ENV_MASTER_KEY,
    MasterKeyring,
    RotationReport,
    TokenCipher,
    rotate_master_key,
)
from pacekeeper.db import create_engine, session_factory
from pacekeeper.providers import PROVIDERS, IdempotencyStore, ProviderWebhook, RunCpu, run_here
from pacekeeper.spans import TracedTransport


@dataclass(frozen=True, slots=True)
class WebhookHost:
    """What a provider's webhook may ask of the service, bound to that provider."""

    provider: str
    repository: SqlConnectionRepository
    store: IdempotencyStore

    async def claim(self, key: str, ttl_s: float) -> bool:
        return await self.store.claim(key, ttl_s)

    async def users_for_tokens(self, user_access_tokens: Collection[str]) -> dict[str, str]:
        return await self.repository.users_for_tokens(self.provider, user_access_tokens)

    async def owners_of(self, provider_user_id: str) -> list[tuple[uuid.UUID, uuid.UUID]]:
        return await self.repository.owners_of(self.provider, provider_user_id)

    async def owner(self, user_id: uuid.UUID) -> tuple[uuid.UUID, uuid.UUID] | None:
        found = await self.repository.get(user_id, self.provider)
        return None if found is None else (found.user_id, found.tenant_id)


@dataclass(slots=True)
class ConnectionLayer:
    service: ConnectionService
    # The webhook of each configured provider that has one, with the host it is lent.
    webhooks: dict[str, tuple[ProviderWebhook, WebhookHost]]
    repository: SqlConnectionRepository
    http: httpx.AsyncClient

    async def close(self) -> None:
        await self.http.aclose()


def keyring_for(master_key: bytes, environ: Mapping[str, str]) -> MasterKeyring:
    """The resolved master key as current; version and retired keys from the environment."""
    return MasterKeyring.from_env({**environ, ENV_MASTER_KEY: master_key.hex()})


async def rotate_provider_tokens(
    settings: Settings, master_key: bytes, environ: Mapping[str, str]
) -> RotationReport:
    """`pacekeeper keys rotate-master`: re-seal every connection under the current key.

    Only the database and the keyring: the rest of the service (signing keys included)
    is not started, so this runs whatever else the master key protects.
    """
    engine = create_engine(settings.effective_database_url)
    try:
        repository = SqlConnectionRepository(session_factory(engine))
        return await rotate_master_key(repository, TokenCipher(keyring_for(master_key, environ)))
    finally:
        await engine.dispose()


@functools.cache
def _provider_tls() -> ssl.SSLContext:
    """The provider client's TLS context, made once per process: loading the CA bundle
    cost 25-50 ms of CPU per client, and the test suite builds a layer per app (~900)."""
    return httpx.create_ssl_context()


def build_connection_layer(
    settings: Settings,
    sessions: async_sessionmaker[AsyncSession],
    master_key: bytes,
    clock: Clock,
    environ: Mapping[str, str],
    *,
    setup: ProviderSetup | None = None,
    transport: httpx.AsyncBaseTransport | None = None,
    run_cpu: RunCpu = run_here,
) -> ConnectionLayer:
    setup = setup or provider_setup(settings, environ)
    # A span per provider call when tracing is on: the default transport is made here to
    # be wrapped (the client's `verify` then serves only a proxy from the environment).
    tls = _provider_tls()
    http = httpx.AsyncClient(
        transport=TracedTransport(transport or httpx.AsyncHTTPTransport(verify=tls)),
        follow_redirects=False, verify=tls)
    repository = SqlConnectionRepository(sessions)
    service = ConnectionService(
        states=SqlOAuthStateRepository(sessions),
        connections=repository,
        cipher=TokenCipher(keyring_for(master_key, environ)),
        setup=setup,
        http=http,
        clock=clock,
        base_url=settings.public_base_url,
        state_ttl_s=settings.provider_state_ttl_seconds,
        refresh_margin_s=settings.provider_refresh_margin_seconds,
        tenant_share=settings.provider_tenant_share,
        run_cpu=run_cpu,
    )
    store = SqlIdempotencyStore(sessions, clock)
    webhooks = {}
    for provider, configured in setup.settings.items():
        webhook = PROVIDERS[provider].webhook
        if webhook is not None:
            host = WebhookHost(provider, repository, store)
            webhooks[provider] = (webhook.build(settings, configured, host), host)
    return ConnectionLayer(service, webhooks, repository, http)


__all__ = ["ConnectionLayer", "build_connection_layer", "keyring_for"]
