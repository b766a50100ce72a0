"""Fitbit as the service sees it: one ``ProviderSpec``.

Fitbit data comes through the Google Health API (``google``); the retired Fitbit Web
API (``client``) is spoken only where an operator lists this provider in
``PACEKEEPER_PROVIDER_LEGACY_APIS``. Both clients offer what the sync reads
(``fetch_activities``, ``fetch_daily_range``, ``fetch_sleep``).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping, Sequence
from datetime import date, timedelta
from typing import TYPE_CHECKING

import httpx

from pacekeeper.fitness.models import DailySummary, SleepSession

from .._base import ProviderClient
from .._config import Endpoints, ProviderSettings
from .._offload import RunCpu, run_here
from .._policy import DataPolicy
from .._ratelimit import RateLimitTracker, RateLimitWindow
from .._spec import (
    Capabilities,
    HealthDays,
    LegacyApi,
    ListedActivities,
    ProviderCall,
    ProviderSpec,
)
from .._tokens import TokenSet
from . import google
from ._id import ID
from .client import FitbitClient
from .google import GoogleHealthClient, has_google_scopes
from .ratelimit import rate_limits as legacy_rate_limits

if TYPE_CHECKING:
    from starlette.routing import BaseRoute

    from ..sandbox._state import SandboxState

_SLEEP_RANGE_DAYS = 99  # Fitbit's sleep range holds at most 100 days (Google's pages)
AnyClient = FitbitClient | GoogleHealthClient
RETIRED = ("Fitbit retired its Web API in September 2026: reconnect Fitbit to grant "
           "access through the Google Health API (your old authorization cannot be moved)")


class FitbitSync(ListedActivities):
    """Activity logs (no per-second streams); health and sleep by date range (five
    requests for 60 days: day by day it was three a day, over the hourly quota of 150)."""

    def __init__(self) -> None:
        super().__init__(streams=False)

    async def health(self, call: ProviderCall, first: date, last: date) -> HealthDays:
        dailies: list[DailySummary] = await call(_dailies(first, last))
        sleeps: list[SleepSession] = []
        window = first
        while window <= last:
            stop = min(window + timedelta(days=_SLEEP_RANGE_DAYS), last)
            sleeps += await call(_sleep(window, stop))
            window = stop + timedelta(days=1)
        return HealthDays(dailies, sleeps)


def _dailies(first: date, last: date
             ) -> Callable[[AnyClient, TokenSet], Awaitable[list[DailySummary]]]:
    async def fetch(c: AnyClient, t: TokenSet) -> list[DailySummary]:
        return await c.fetch_daily_range(t, first, last)
    return fetch


def _sleep(start: date, end: date
           ) -> Callable[[AnyClient, TokenSet], Awaitable[list[SleepSession]]]:
    async def fetch(c: AnyClient, t: TokenSet) -> list[SleepSession]:
        return await c.fetch_sleep(t, start, end)
    return fetch


def _sandbox(state: SandboxState, history_days: int) -> Sequence[BaseRoute]:
    # The emulations load only where they are mounted; the retired API's stays beside
    # the new one as long as its client exists.
    from .google_sandbox import google_health_routes
    from .sandbox import fitbit_routes

    return [*google_health_routes(state), *fitbit_routes(state)]


def _client(settings: ProviderSettings, http: httpx.AsyncClient, /, *,
            tracker: RateLimitTracker | None = None, run_cpu: RunCpu = run_here
            ) -> ProviderClient:
    if settings.legacy:
        return FitbitClient(settings, http, tracker=tracker, run_cpu=run_cpu)
    return GoogleHealthClient(settings, http, tracker=tracker, run_cpu=run_cpu)


def rate_limits(headers: Mapping[str, str], now: float) -> list[RateLimitWindow]:
    """The retired API's ``fitbit-rate-limit-*`` headers; Google sends none."""
    return legacy_rate_limits(headers, now) + google.rate_limits(headers, now)


SPEC = ProviderSpec(
    id=ID,
    name="Fitbit",
    auth="oauth2+pkce",
    endpoints=Endpoints(
        authorize="https://accounts.google.com/o/oauth2/v2/auth",
        exchange="https://oauth2.googleapis.com/token",
        revoke="https://oauth2.googleapis.com/revoke",
        api="https://health.googleapis.com",
    ),
    sandbox_paths=Endpoints(
        authorize="/google/o/oauth2/v2/auth", exchange="/google/token",
        revoke="/google/revoke", api="/google/health",
    ),
    scopes=google.SCOPES,
    client=_client,
    sandbox_routes=_sandbox,
    sandbox_limits=((300, 60.0),),  # Google Health: 300 requests a minute per user
    capabilities=Capabilities(activity_streams=False, daily_health=True, push_webhooks=False),
    sync=FitbitSync(),
    rate_limits=rate_limits,
    # Google Health API terms and policies, effective 2026-03-24 (docs/providers.md): no
    # storage limit (delete on the user's request), prohibited uses are selling and
    # advertising; serving the person's own data to the assistant they authorised is a
    # feature they asked for.
    policy=DataPolicy(retention=None, assistants=True, combined=True,
                      terms="https://developers.google.com/health/policies/"
                            "health-api-developer-user-data-policy",
                      read_on=date(2026, 12, 7)),
    legacy=LegacyApi(
        endpoints=Endpoints(
            authorize="https://www.fitbit.com/oauth2/authorize",
            exchange="https://api.fitbit.com/oauth2/token",
            revoke="https://api.fitbit.com/oauth2/revoke",
            api="https://api.fitbit.com",
        ),
        sandbox_paths=Endpoints(
            authorize="/oauth2/authorize", exchange="/oauth2/token",
            revoke="/oauth2/revoke", api="",
        ),
        current_grant=has_google_scopes,
        reason=RETIRED,
    ),
)
