"""Fitbit as the service sees it: one ``ProviderSpec``."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from datetime import date, timedelta
from typing import TYPE_CHECKING

from pacekeeper.fitness.models import DailySummary, SleepSession

from .._config import Endpoints
from .._policy import DataPolicy
from .._spec import Capabilities, HealthDays, ListedActivities, ProviderCall, ProviderSpec
from .._tokens import TokenSet
from ._id import ID
from .client import SCOPES, FitbitClient
from .ratelimit import rate_limits

if TYPE_CHECKING:
    from starlette.routing import BaseRoute

    from ..sandbox._state import SandboxState

_SLEEP_RANGE_DAYS = 99  # Fitbit's sleep range holds at most 100 days


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
             ) -> Callable[[FitbitClient, TokenSet], Awaitable[list[DailySummary]]]:
    async def fetch(c: FitbitClient, t: TokenSet) -> list[DailySummary]:
        return await c.fetch_daily_range(t, first, last)
    return fetch


def _sleep(start: date, end: date
           ) -> Callable[[FitbitClient, TokenSet], Awaitable[list[SleepSession]]]:
    async def fetch(c: FitbitClient, t: TokenSet) -> list[SleepSession]:
        return await c.fetch_sleep(t, start, end)
    return fetch


def _sandbox(state: SandboxState, history_days: int) -> Sequence[BaseRoute]:
    from .sandbox import fitbit_routes  # the emulation loads only where it is mounted

    return fitbit_routes(state)


SPEC = ProviderSpec(
    id=ID,
    name="Fitbit",
    auth="oauth2+pkce",
    endpoints=Endpoints(
        authorize="https://www.fitbit.com/oauth2/authorize",
        exchange="https://api.fitbit.com/oauth2/token",
        revoke="https://api.fitbit.com/oauth2/revoke",
        api="https://api.fitbit.com",
    ),
    sandbox_paths=Endpoints(
        authorize="/oauth2/authorize", exchange="/oauth2/token", revoke="/oauth2/revoke",
        api="",
    ),
    scopes=SCOPES,
    client=FitbitClient,
    sandbox_routes=_sandbox,
    sandbox_limits=((150, 3600.0),),  # 150 requests an hour per user
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
)
