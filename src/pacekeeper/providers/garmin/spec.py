"""Garmin as the service sees it: one ``ProviderSpec``."""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from datetime import UTC, date, datetime, timedelta
from typing import TYPE_CHECKING

import httpx

from pacekeeper.fitness.models import Activity, DailySummary, SleepSession

from .._config import Endpoints, ProviderSettings
from .._offload import RunCpu, run_here
from .._policy import DataPolicy
from .._ratelimit import RateLimitTracker
from .._spec import ActivityBatch, Capabilities, HealthDays, ProviderCall, ProviderSpec
from .._tokens import TokenSet
from ._id import ID
from .client import GarminClient
from .webhook import WEBHOOK

if TYPE_CHECKING:  # numpy too: the standalone sandbox imports this spec
    from starlette.routing import BaseRoute

    from pacekeeper.fitness.streams import StreamSet

    from ..sandbox._state import SandboxState

_WINDOW = timedelta(days=7)  # asked for at once; the client walks it 24 h at a time


class GarminSync:
    """Garmin answers per upload window, and each activity detail carries its samples."""

    async def activities(self, call: ProviderCall, since: datetime, now: datetime
                         ) -> AsyncIterator[ActivityBatch]:
        start, end = since, now
        days = max(1, (end - start).days + 1)
        step = 0
        while start < end:
            stop = min(start + _WINDOW, end)
            details = await call(_details(start, stop))
            step += (stop - start).days or 1
            batch: list[tuple[Activity, StreamSet | None]] = [
                (a, s) for a, s in sorted(details, key=lambda d: d[0].start)]
            yield ActivityBatch(batch, stop, min(step, days), days, "days")
            start = stop

    async def health(self, call: ProviderCall, first: date, last: date) -> HealthDays:
        after = datetime.combine(first, datetime.min.time(), UTC)
        dailies = await call(_dailies(after))
        sleeps = await call(_sleeps(after))
        return HealthDays(dailies, sleeps)


def _details(after: datetime, before: datetime
             ) -> Callable[[GarminClient, TokenSet], Awaitable[list[tuple[Activity, StreamSet]]]]:
    async def fetch(c: GarminClient, t: TokenSet) -> list[tuple[Activity, StreamSet]]:
        return await c.fetch_activity_details(t, after=after, before=before)
    return fetch


def _dailies(after: datetime) -> Callable[[GarminClient, TokenSet], Awaitable[list[DailySummary]]]:
    async def fetch(c: GarminClient, t: TokenSet) -> list[DailySummary]:
        return await c.fetch_dailies(t, after=after)
    return fetch


def _sleeps(after: datetime) -> Callable[[GarminClient, TokenSet], Awaitable[list[SleepSession]]]:
    async def fetch(c: GarminClient, t: TokenSet) -> list[SleepSession]:
        return await c.fetch_sleeps(t, after=after)
    return fetch


def _client(settings: ProviderSettings, http: httpx.AsyncClient, *,
            tracker: RateLimitTracker | None = None, run_cpu: RunCpu = run_here) -> GarminClient:
    return GarminClient(settings, http, oauth_version=settings.oauth_version, tracker=tracker,
                        run_cpu=run_cpu)


def _sandbox(state: SandboxState, history_days: int) -> Sequence[BaseRoute]:
    from .sandbox import garmin_routes  # the emulation loads only where it is mounted

    return garmin_routes(state)


SPEC = ProviderSpec(
    id=ID,
    name="Garmin Connect",
    auth="oauth1+oauth2",
    endpoints=Endpoints(
        authorize="https://connect.garmin.com/oauth2Confirm",
        exchange="https://diauth.garmin.com/di-oauth2-service/oauth/token",
        api="https://apis.garmin.com",
        oauth1_request="https://connectapi.garmin.com/oauth-service/oauth/request_token",
        oauth1_authorize="https://connect.garmin.com/oauthConfirm",
        oauth1_access="https://connectapi.garmin.com/oauth-service/oauth/access_token",
    ),
    sandbox_paths=Endpoints(
        authorize="/oauth2Confirm",
        exchange="/di-oauth2-service/oauth/token",
        api="",
        oauth1_request="/oauth-service/oauth/request_token",
        oauth1_authorize="/oauthConfirm",
        oauth1_access="/oauth-service/oauth/access_token",
    ),
    scopes=(),  # Garmin grants what the user approves; the request names none
    client=_client,
    sandbox_routes=_sandbox,
    sandbox_limits=((1000, 60.0),),
    capabilities=Capabilities(activity_streams=True, daily_health=True, push_webhooks=True,
                              workout_format="training-api-v2"),
    sync=GarminSync(),
    webhook=WEBHOOK,
    # The Garmin Connect Developer Program agreement is shown to members only; what we
    # could read of it says nothing we could confirm about assistants or combining, so
    # we hold back until the operator declares it allows that (docs/providers.md).
    policy=DataPolicy(retention=None, assistants=False, combined=False,
                      terms="https://developerportal.garmin.com/ (program agreement)",
                      read_on=date(2026, 12, 7), agreement_setting="garmin_ai_agreement"),
)
