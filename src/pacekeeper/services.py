"""Wiring: settings in, ready services out (used by the app, the CLI and tests)."""

from __future__ import annotations

import logging
import os
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime

import httpx
from redis.asyncio import Redis
from sqlalchemy.ext.asyncio import AsyncEngine
from starlette.requests import Request

from mcpcast import BroadcasterFactory
from pacekeeper.account import AccountParts, AccountService, SqlAccountStore
from pacekeeper.admin import AdminService, SqlAdminStore
from pacekeeper.apikeys import (
    ApiKeyService,
    FileRevocationSignal,
    MemoryUsageCounter,
    RedisKeyMeter,
    RedisRevocationSignal,
    RedisUsageCounter,
    RevocationSignal,
    SignallingUserRepository,
    SqlApiKeyRepository,
    UsageCounter,
)
from pacekeeper.auth import (
    LOGIN,
    REGISTER,
    Accounts,
    AttemptLimiter,
    AttemptLimits,
    CachedCallerStates,
    CallerStates,
    ConfiguredHasher,
    CsrfService,
    DirectCallerStates,
    KeyGenerator,
    KeyStore,
    PrincipalResolver,
    RevokedFamilies,
    TokenRevocations,
    TokenService,
    generate_rsa_key,
)
from pacekeeper.backing import redis_client
from pacekeeper.config import RegistrationMode, Settings
from pacekeeper.connections import (
    ConnectionLayer,
    ConnectionService,
    ProviderSetup,
    build_connection_layer,
    provider_setup,
)
from pacekeeper.cpu import CpuPool
from pacekeeper.crypto import retired_master_keys
from pacekeeper.db import (
    SqlCsrfTokenRepository,
    SqlRevokedTokens,
    SqlSigningKeyRepository,
    UserRepository,
    create_engine,
    session_factory,
    upgrade,
    wait_for_database,
)
from pacekeeper.fitness import FitnessService, GearService, SqlFitnessStore
from pacekeeper.fitness.exports import ExportImports, SqlHistoryImports
from pacekeeper.jobs import JobQueue
from pacekeeper.live import LiveFeed, live_broadcasters
from pacekeeper.masterkey import resolve_master_key
from pacekeeper.oauth2 import OAuth2Components, SqlOAuthStore, build_oauth2
from pacekeeper.oauth2._ratelimit import client_ip, parse_proxies
from pacekeeper.providers import PROVIDERS, Policies, agreements
from pacekeeper.ratelimit import MemoryRateLimiter, RateLimiter, RedisRateLimiter
from pacekeeper.sync import BackgroundSyncs, SyncService
from pacekeeper.workouts import SqlWorkoutStore, WorkoutService

log = logging.getLogger("pacekeeper")
Clock = Callable[[], datetime]


def utc_now() -> datetime:
    return datetime.now(UTC)


def _caller_states(settings: Settings, users: UserRepository, families: RevokedFamilies,
                   signal: RevocationSignal, redis: Redis | None,
                   tokens: SqlRevokedTokens | None = None) -> CallerStates:
    """Cache the per-request user-status and revoked-grant reads where every process sees
    every revocation: with Redis, or with SQLite (one host, and the signal file is in its
    data dir). With PostgreSQL and no Redis, processes may run on several hosts: read on
    every request."""
    if redis is not None or settings.effective_database_url.startswith("sqlite"):
        return CachedCallerStates(signal, users, families, tokens=tokens)
    return DirectCallerStates(users, families, tokens)


def resource_metadata_url(settings: Settings) -> str:
    return f"{settings.public_base_url}/.well-known/oauth-protected-resource"


@dataclass(slots=True)
class Services:
    settings: Settings
    engine: AsyncEngine
    users: UserRepository
    keys: KeyStore
    tokens: TokenService
    csrf: CsrfService
    accounts: Accounts
    limiter: RateLimiter
    resolver: PrincipalResolver
    clock: Clock
    api_keys: ApiKeyService
    fitness: FitnessService
    # The resolved master key (env, or the development file): build the provider-token
    # keyring from it (`MasterKeyring.single(...)`) so both uses agree. Never logged.
    master_key: bytes = field(repr=False, default=b"")
    # The OAuth 2.0 authorization server for MCP clients (pacekeeper.oauth2).
    oauth: OAuth2Components | None = None
    # Provider connections (pacekeeper.connections); None only in hand-built Services.
    connection_layer: ConnectionLayer | None = None
    redis: Redis | None = None
    # Provider syncs (None without provider connections) and the ones running here.
    syncs: SyncService | None = None
    background: BackgroundSyncs | None = None
    # Login and registration limits per address and per account+address (finding 1).
    attempts: AttemptLimiter | None = None
    # The person's rights over their own account (export, deletion, password, assistants).
    account: AccountService | None = None
    # The background job queue (pacekeeper.jobs); None only in hand-built Services.
    jobs: JobQueue | None = None
    # Administration (users, tenants, the stored registration mode); None only in
    # hand-built Services.
    admin: AdminService | None = None
    # The person's live events (sync progress, new activities) to their own topic.
    live: LiveFeed | None = None
    # Plans: workouts, the calendar, the feed (issue 32); None only in hand-built Services.
    workouts: WorkoutService | None = None
    # Bikes and shoes (issue 33); None only in hand-built Services.
    gear: GearService | None = None
    # What the providers' terms allow in this deployment (issue 31 item 2): whose data
    # assistants do not see, how long each provider's data is kept.
    policies: Policies = field(default_factory=Policies)
    # Whole-account exports in, as background jobs (fitness/exports).
    exports: ExportImports | None = None

    @property
    def connections(self) -> ConnectionService | None:
        return None if self.connection_layer is None else self.connection_layer.service

    async def close(self) -> None:
        self.fitness.pool.close()
        self.accounts.close()  # the password hashing threads
        if self.background is not None:
            await self.background.close()
        if self.jobs is not None:
            await self.jobs.close()
        if self.live is not None:
            await self.live.broadcasters.close()
        await self.api_keys.close()  # flushes the last usage counts
        if self.connection_layer is not None:
            await self.connection_layer.close()
        if self.redis is not None:
            await self.redis.aclose()
        await self.engine.dispose()


async def build_services(
    settings: Settings,
    *,
    clock: Clock = utc_now,
    keygen: KeyGenerator = generate_rsa_key,
    limiter: RateLimiter | None = None,
    migrate: bool = True,
    providers: ProviderSetup | None = None,
    provider_transport: httpx.AsyncBaseTransport | None = None,
    broadcasters: BroadcasterFactory | None = None,
) -> Services:
    """Check the master key, migrate the database, load keys, create the first admin.

    `broadcasters`: the topics of this process's MCP server, which browsers subscribe to
    (the app passes its own); a worker or the CLI gets its own factory on the same
    backend (`pacekeeper.live`)."""
    master_key = resolve_master_key(
        settings.master_encryption_key.get_secret_value(),
        production=settings.is_production,
        data_dir=settings.data_dir,
    )
    engine = create_engine(settings.effective_database_url)
    # One Redis for every process-shared counter (rate limits, key usage) when configured.
    redis = redis_client(settings.redis_url) if settings.redis_url else None
    try:
        if settings.database_wait_seconds > 0:
            await wait_for_database(engine, settings.database_wait_seconds)
        if migrate:
            await upgrade(engine)
        sessions = session_factory(engine)
        # Revocations (key deleted, user disabled, OAuth grant revoked) reach every
        # process's caches.
        revocations: RevocationSignal = (
            RedisRevocationSignal(redis)
            if redis is not None
            else FileRevocationSignal(settings.data_dir / "apikey-revocations")
        )
        users = SignallingUserRepository(sessions, revocations)
        retired = list(retired_master_keys(os.environ).values())
        keys = KeyStore(SqlSigningKeyRepository(sessions), settings, master_key, clock, keygen,
                        retired_master_keys=retired)
        await keys.start()
        tokens = TokenService(keys, settings, clock,
                              seconds=time.time if clock is utc_now else None)
        csrf = CsrfService(SqlCsrfTokenRepository(sessions), clock)
        accounts = Accounts(users, ConfiguredHasher(settings), clock)
        if limiter is None:
            limiter = RedisRateLimiter(redis) if redis is not None else MemoryRateLimiter()
        key_store = SqlApiKeyRepository(sessions)
        usage: UsageCounter
        meter = None
        if redis is not None:
            usage = RedisUsageCounter(redis, key_store, clock)
            meter = RedisKeyMeter(redis, usage)  # one round trip per key request
        else:
            usage = MemoryUsageCounter(key_store, clock)
        api_keys = ApiKeyService(
            key_store, usage, limiter, clock, revocations, settings.apikey_usage_flush_seconds,
            burst_overrides=settings.apikey_burst_per_minute, meter=meter,
            seconds=time.time if clock is utc_now else None,  # the real clock, as a float
            max_live_keys=settings.apikey_max_live_keys_per_user,
            max_trial_keys=settings.apikey_max_trial_keys_per_user,
        )
        oauth_store = SqlOAuthStore(sessions)
        revoked_tokens = SqlRevokedTokens(sessions)
        resolver = PrincipalResolver(
            tokens,
            users,
            csrf,
            limiter,
            settings.tenant_rate_limit_per_minute,
            resource_metadata_url(settings),
            audiences=(settings.public_base_url, f"{settings.public_base_url}/mcp"),
            states=_caller_states(settings, users, oauth_store, revocations, redis,
                                  revoked_tokens),
            revocations=TokenRevocations(revoked_tokens, revocations, clock),
        )
        admin = await accounts.ensure_first_admin(
            settings.admin_email, settings.admin_password.get_secret_value()
        )
        if admin is not None:
            log.warning("created the first admin %s from PACEKEEPER_ADMIN_EMAIL", admin.email)
        # One pool for the process's CPU-heavy work (issue 30): imports, metrics, and the
        # provider clients' streams, decoded and mapped in it (it starts on first use).
        pool = CpuPool(settings.import_workers, settings.import_queue, what="imports")
        layer = build_connection_layer(
            settings, sessions, master_key, clock, os.environ,
            setup=providers, transport=provider_transport, run_cpu=pool.run_when_free,
        )  # fmt: skip
    except BaseException:
        await engine.dispose()
        if redis is not None:
            await redis.aclose()
        raise
    oauth = build_oauth2(settings, sessions, tokens, users, limiter, clock,
                         revocations=revocations, store=oauth_store)
    await api_keys.start()
    fitness = FitnessService(SqlFitnessStore(sessions), clock,
                             max_import_bytes=settings.max_import_bytes, limiter=limiter,
                             import_limit_per_minute=settings.import_limit_per_minute,
                             archive_seconds=settings.import_archive_seconds,
                             settings_limit_per_minute=settings.settings_limit_per_minute,
                             pool=pool)
    live = LiveFeed(broadcasters or live_broadcasters(settings))
    syncs = None if layer is None else SyncService(
        fitness, layer.service, history_days=settings.sync_history_days,
        lease_s=settings.sync_lease_seconds, events=live.publish)
    jobs = JobQueue.for_settings(settings)
    await jobs.open()
    fitness.recompute_later = jobs.enqueue_recompute
    setup = providers or provider_setup(settings, os.environ)
    policies = Policies.of(PROVIDERS.values(), agreed=agreements(PROVIDERS.values(), settings),
                           sandboxed=setup.sandboxed)
    fitness.retention = dict(policies.retention or {})
    exports = ExportImports(fitness, SqlHistoryImports(sessions), clock,
                            data_dir=settings.data_dir, max_bytes=settings.max_export_bytes,
                            enqueue=jobs.enqueue_export, publish=live.publish)
    services = Services(
        settings, engine, users, keys, tokens, csrf, accounts, limiter, resolver, clock,
        api_keys, fitness, master_key=master_key, oauth=oauth, connection_layer=layer, redis=redis,
        syncs=syncs, background=None if syncs is None else BackgroundSyncs(syncs),
        attempts=attempt_limiter(settings, limiter), jobs=jobs, live=live,
        policies=policies,
        exports=exports,
    )
    services.account = AccountService(
        AccountParts(accounts, users, fitness, api_keys, clock,
                     connections=services.connections, grants=oauth.server),
        SqlAccountStore(engine), revocations.bump)
    services.gear = GearService(sessions, clock)
    services.workouts = WorkoutService(SqlWorkoutStore(sessions), fitness.store,
                                       fitness.analysis, clock,
                                       connections=lambda: services.connections)
    services.admin = AdminService(users, SqlAdminStore(sessions), revocations,
                                  settings.registration, clock)
    return services


def request_services(request: Request) -> Services:
    """The services of a request: the app's lifespan puts them on its state (every HTTP
    handler and page reads them through this)."""
    found: Services = request.app.state.services
    return found


async def registration_mode(svc: Services) -> RegistrationMode:
    """Who may register now: the admin's stored choice, else the environment's."""
    if svc.admin is None:
        return svc.settings.registration
    return (await svc.admin.registration()).mode


def attempt_limiter(settings: Settings, limiter: RateLimiter) -> AttemptLimiter:
    proxies = parse_proxies(settings.trusted_proxies.split(","))
    limits = {
        LOGIN: AttemptLimits(settings.login_limit_per_address, settings.login_limit_per_account),
        REGISTER: AttemptLimits(settings.register_limit_per_address,
                                settings.register_limit_per_account),
    }
    return AttemptLimiter(limiter, limits, lambda request: client_ip(request, proxies))


__all__ = [
    "Clock", "Services", "attempt_limiter", "build_services", "registration_mode",
    "request_services", "resource_metadata_url", "utc_now",
]
