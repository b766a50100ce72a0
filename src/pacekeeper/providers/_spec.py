"""What a provider is to the rest of the service: one ``ProviderSpec`` per provider.

Each provider's folder (``strava/``, ``fitbit/``, ``garmin/``) holds its client, its
mapping to the normalized models, its sandbox emulation and a ``spec.py`` exposing
``SPEC``; ``registry.PROVIDERS`` lists the specs, and every list of providers in the
service is derived from it. Nothing outside a provider's folder names a provider.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from dataclasses import dataclass
from datetime import date, datetime
from typing import TYPE_CHECKING, Any, Literal, Protocol, TypeVar

import httpx

from pacekeeper.fitness.models import Activity, DailySummary, SleepSession

from ._base import ProviderClient
from ._config import Endpoints, ProviderSettings
from ._offload import RunCpu
from ._policy import UNDECLARED, DataPolicy
from ._ratelimit import RateLimitParser, RateLimitTracker, parse_rate_limits
from ._tokens import TokenSet
from ._webhook import WebhookSpec

if TYPE_CHECKING:  # the sandbox loads only where it is mounted; numpy likewise
    from starlette.routing import BaseRoute

    from pacekeeper.fitness.streams import StreamSet

    from .sandbox._state import SandboxState

T = TypeVar("T")
AuthKind = Literal["oauth2", "oauth2+pkce", "oauth1+oauth2"]


class ProviderCall(Protocol):
    """Runs one provider call with the client and fresh tokens (``ConnectionService.call``
    plus the sync's rate-limit waits). ``Any``: each provider's sync knows its client."""

    async def __call__(self, action: Callable[[Any, TokenSet], Awaitable[T]]) -> T: ...


@dataclass(frozen=True, slots=True)
class ActivityBatch:
    """Activities a sync stores together, then moves its cursor to ``cursor``."""

    items: Sequence[tuple[Activity, StreamSet | None]]
    cursor: datetime  # where a later sync resumes once these are stored
    done: int  # progress: "<done> of <total> <unit>"
    total: int
    unit: str


@dataclass(frozen=True, slots=True)
class HealthDays:
    dailies: Sequence[DailySummary]
    sleeps: Sequence[SleepSession]


class ProviderSync(Protocol):
    """How a sync reads one provider (``sync.SyncService`` does the storing)."""

    def activities(self, call: ProviderCall, since: datetime, now: datetime
                   ) -> AsyncIterator[ActivityBatch]:
        """Activities that started after ``since``, oldest first, in resumable batches."""
        ...

    async def health(self, call: ProviderCall, first: date, last: date) -> HealthDays:
        """Daily summaries and sleeps of ``first`` .. ``last`` (nothing: empty lists)."""
        ...


class ClientFactory(Protocol):
    def __call__(self, settings: ProviderSettings, http: httpx.AsyncClient, /, *,
                 tracker: RateLimitTracker | None = None,
                 run_cpu: RunCpu = ...) -> ProviderClient: ...


SandboxRoutes = Callable[["SandboxState", int], Sequence["BaseRoute"]]


@dataclass(frozen=True, slots=True)
class Capabilities:
    activity_streams: bool  # per-second samples with (or beside) each activity
    daily_health: bool  # daily summaries and sleep
    # Pushes data to our webhooks, naming the user by access token (we keep its digest).
    push_webhooks: bool
    # Takes structured workouts onto the person's calendar and device (``WorkoutReceiver``),
    # as a body in this format (a renderer of ``pacekeeper.workouts`` by that name).
    workout_format: str | None = None


@dataclass(frozen=True, slots=True)
class LegacyApi:
    """A provider's retired API, still spoken only where an operator configures it
    (``PACEKEEPER_PROVIDER_LEGACY_APIS``): its endpoints (real and in the sandbox), and
    how to tell a grant made against it, which the current API cannot use."""

    endpoints: Endpoints
    sandbox_paths: Endpoints
    # Whether a stored grant (its scopes) was made against the current API.
    current_grant: Callable[[str | None], bool]
    reason: str  # why such a connection needs reconnecting, for people


@dataclass(frozen=True, slots=True)
class ProviderSpec:
    id: str  # the path segment, the env prefix (upper-cased) and the stored name
    name: str  # for people
    auth: AuthKind
    endpoints: Endpoints  # the real provider's
    sandbox_paths: Endpoints  # the same endpoints relative to the sandbox's /<id>
    scopes: tuple[str, ...]  # what we ask for by default
    client: ClientFactory
    sandbox_routes: SandboxRoutes  # mounted at /<id> in the sandbox
    sandbox_limits: tuple[tuple[int, float], ...]  # (requests, window seconds)
    capabilities: Capabilities
    sync: ProviderSync
    # Reads the quota its responses announce (lower-cased header names); the common
    # X-RateLimit-* by default.
    rate_limits: RateLimitParser = parse_rate_limits
    # Its push webhook, served at /api/webhooks/<id>[/<kind>] (None: it pushes nothing).
    webhook: WebhookSpec | None = None
    # What its terms allow (retention, assistants, combining): docs/providers.md.
    policy: DataPolicy = UNDECLARED
    # Its retired API while it may still be configured (None: it has none).
    legacy: LegacyApi | None = None

    def sandbox_endpoints(self, base_url: str, *, legacy: bool = False) -> Endpoints:
        """The endpoints of the sandbox at ``base_url``, which serves us under /<id>."""
        paths = self.legacy.sandbox_paths if legacy and self.legacy else self.sandbox_paths
        return paths.under(f"{base_url.rstrip('/')}/{self.id}")

    def endpoints_for(self, *, legacy: bool) -> Endpoints:
        return self.legacy.endpoints if legacy and self.legacy else self.endpoints

    def retired_grant(self, scopes: str | None, *, legacy: bool) -> str | None:
        """Why a stored grant cannot be used by the API configured (None: it can):
        one made against the retired API once it is no longer configured."""
        if self.legacy is None or legacy or self.legacy.current_grant(scopes):
            return None
        return self.legacy.reason


class ListedActivities:
    """The sync of a provider that lists activities and serves streams per activity."""

    def __init__(self, *, streams: bool) -> None:
        self.streams = streams

    async def activities(self, call: ProviderCall, since: datetime, now: datetime
                         ) -> AsyncIterator[ActivityBatch]:
        async def listed(c: ProviderClient, t: TokenSet) -> list[Activity]:
            return await c.fetch_activities(t, after=since, limit=5000)

        found = sorted(await call(listed), key=lambda a: a.start)
        for i, activity in enumerate(found, 1):
            streams = None
            if self.streams and not activity.manual:
                streams = await call(_streams_of(activity.provider_id))
            yield ActivityBatch([(activity, streams)], activity.start, i, len(found),
                                "activities")

    async def health(self, call: ProviderCall, first: date, last: date) -> HealthDays:
        return HealthDays([], [])


def _streams_of(ident: str) -> Callable[[ProviderClient, TokenSet], Awaitable[StreamSet]]:
    async def fetch(c: ProviderClient, t: TokenSet) -> StreamSet:
        return await c.fetch_streams(t, ident)
    return fetch


__all__ = [
    "ActivityBatch",
    "AuthKind",
    "Capabilities",
    "ClientFactory",
    "HealthDays",
    "LegacyApi",
    "ListedActivities",
    "ProviderCall",
    "ProviderSpec",
    "ProviderSync",
    "SandboxRoutes",
]
