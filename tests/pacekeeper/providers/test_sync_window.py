"""A first sync's history window is the same for every provider and every time of day
(issue 30: a 07:50 UTC run got one extra Garmin activity at the 42-day edge, because
Strava and Fitbit listed by start after an instant and Garmin by upload time).

The rule (docs/fitness.md, "Sync"): whole UTC days, from 00:00 UTC of the day ``DAYS``
days before the sync's. Each provider in the registry is run through its real client
against the sandbox, whose clock is set to four times of one day; the expected set is
the sandbox generator's own activities on those days, computed here by hand.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from datetime import UTC, date, datetime, time, timedelta, timezone
from typing import Any

import httpx
import pytest

from pacekeeper.fitness.models import Activity, Sport
from pacekeeper.providers import (
    PROVIDER_IDS,
    PROVIDERS,
    ActivityBatch,
    HealthDays,
    ProviderSettings,
    TokenSet,
    history_activities,
    history_start,
)
from pacekeeper.providers.sandbox import _generator as gen

from ._helpers import BASE, FakeClock, connect

DAYS = 42
ATHLETE = 1
DAY = date(2026, 11, 28)  # the day of the failed run; 42 days before it: 2026-10-17
FIRST = date(2026, 10, 17)


@pytest.mark.parametrize("provider", PROVIDER_IDS)
@pytest.mark.parametrize("at", [time(0, 0), time(7, 0), time(7, 50), time(23, 59)],
                         ids=lambda t: t.strftime("%H%M"))
async def test_first_sync_takes_whole_days_whatever_the_time_and_provider(
    provider: str, at: time, http: httpx.AsyncClient, clock: FakeClock
) -> None:
    now = datetime.combine(DAY, at, UTC)
    clock.now = now.timestamp()
    spec = PROVIDERS[provider]
    client = spec.client(ProviderSettings.for_sandbox(provider, BASE), http)
    token = await connect(client, http, ATHLETE)  # type: ignore[arg-type]

    async def call(action: Callable[[Any, TokenSet], Awaitable[Any]]) -> Any:
        return await action(client, token)

    got = [a.start async for batch in history_activities(spec.sync, call, now, DAYS)
           for a, _ in batch.items]
    assert len(got) == len(set(got))
    midnight = datetime.combine(DAY, time(), UTC)
    # Every activity of the 42 whole days before today, the first one included, none
    # before it: the same set at 00:00 as at 23:59, from each provider.
    whole_days = {a.start for a in gen.activities_between(ATHLETE, FIRST, DAY - timedelta(1))}
    assert {s for s in got if s < midnight} == whole_days
    # The edge of the failed run is inside: the 07:00 ride of 2026-10-17.
    assert datetime(2026, 10, 17, 7, 0, tzinfo=UTC) in whole_days
    assert gen.activities_between(ATHLETE, FIRST - timedelta(1), FIRST - timedelta(1))
    # Today so far: only what had finished (a provider may not have it yet: Garmin lists
    # an activity once uploaded, a few minutes after it ends).
    finished_today = {a.start for a in gen.activities_between(ATHLETE, DAY, DAY)
                      if a.start + timedelta(seconds=a.duration_s) <= now}
    assert {s for s in got if s >= midnight} <= finished_today


@pytest.mark.parametrize("at", [time(0, 0), time(7, 0), time(7, 50), time(23, 59, 59)])
def test_history_starts_at_midnight_utc_whatever_the_time(at: time) -> None:
    now = datetime.combine(DAY, at, UTC)
    assert history_start(now, DAYS) == datetime(2026, 10, 17, tzinfo=UTC)
    # An aware instant in another zone: its UTC day counts (23:30 at UTC-5 is 04:30 UTC
    # on the next day).
    late = datetime(2026, 11, 27, 23, 30, tzinfo=timezone(timedelta(hours=-5)))
    assert history_start(late, DAYS) == datetime(2026, 10, 17, tzinfo=UTC)


async def test_what_a_provider_lists_from_before_the_edge_is_dropped() -> None:
    # Garmin lists by upload time: a ride that started at 23:00 the evening before the
    # first day and was uploaded after midnight is listed, and must not enter.
    now = datetime.combine(DAY, time(7, 50), UTC)
    first = datetime(2026, 10, 17, tzinfo=UTC)
    starts = [first - timedelta(hours=1), first - timedelta(seconds=1), first,
              first + timedelta(hours=7)]
    asked: list[datetime] = []

    class Listed:
        async def activities(self, call: Any, since: datetime, until: datetime
                             ) -> AsyncIterator[ActivityBatch]:
            asked.append(since)
            items = [(Activity(provider="garmin", provider_id=str(i), start=s,
                               sport=Sport.RIDE, elapsed_s=3600.0), None)
                     for i, s in enumerate(starts)]
            yield ActivityBatch(items, until, 1, 1, "days")

        async def health(self, call: Any, first: date, last: date) -> HealthDays:
            return HealthDays([], [])

    got = [a.start async for batch in history_activities(Listed(), _no_call, now, DAYS)
           for a, _ in batch.items]
    assert got == starts[2:]
    assert asked == [first - timedelta(seconds=1)]  # exclusive listings still reach `first`


async def _no_call(action: Any) -> Any:
    raise AssertionError("not called")
