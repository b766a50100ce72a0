"""Fitbit data through the sandbox: activity logs, daily summary, intraday HR, sleep, HRV."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta

import httpx
import pytest

from pacekeeper.providers import FitbitClient, ProviderRequestError
from pacekeeper.providers.sandbox import activity_on

from ._helpers import FakeClock, connect


@pytest.mark.slow
async def test_activity_logs_page_and_map(
    fitbit: FitbitClient, http: httpx.AsyncClient, clock: FakeClock
) -> None:
    tokens = await connect(fitbit, http, athlete_id=8)
    now = datetime.fromtimestamp(clock.now, UTC)
    newest = await fitbit.fetch_activities(tokens, limit=105)
    assert len(newest) == 105  # more than one 100-row page
    assert newest[0].start > newest[-1].start
    recent = await fitbit.fetch_activities(tokens, after=now - timedelta(days=14))
    assert recent
    assert recent[0].start < recent[-1].start  # afterDate pages ascend
    first = recent[0]
    assert first.provider == "fitbit"
    assert first.distance_m is not None
    assert first.distance_m > 1000  # kilometres were converted to metres
    assert first.avg_heartrate


async def test_daily_summary_with_intraday_heart_rate(
    fitbit: FitbitClient, http: httpx.AsyncClient
) -> None:
    tokens = await connect(fitbit, http, athlete_id=8)
    day = date(2026, 4, 1)
    while activity_on(8, day) is None:
        day += timedelta(days=1)
    summary = await fitbit.fetch_daily(tokens, day, intraday=True)
    assert summary.steps
    assert summary.resting_heartrate
    assert summary.hrv_rmssd_ms
    samples = summary.heartrate_samples
    assert samples is not None
    assert samples[0].time.date() == day
    assert max(s.bpm for s in samples) > summary.resting_heartrate + 40  # the workout shows
    plain = await fitbit.fetch_daily(tokens, day)
    assert plain.heartrate_samples is None


async def test_sleep_sessions(fitbit: FitbitClient, http: httpx.AsyncClient) -> None:
    tokens = await connect(fitbit, http)
    sleeps = await fitbit.fetch_sleep(tokens, date(2026, 4, 1), date(2026, 4, 7))
    assert len(sleeps) == 7
    night = sleeps[0]
    assert night.start is not None
    assert night.end is not None
    assert night.end - night.start == timedelta(seconds=night.duration_s)
    assert night.stages is not None
    assert night.efficiency is not None
    assert 80 <= night.efficiency <= 100
    with pytest.raises(ProviderRequestError) as info:
        await fitbit.fetch_sleep(tokens, date(2026, 1, 1), date(2026, 6, 1))
    assert info.value.status == 400


async def test_streams_are_not_offered(fitbit: FitbitClient, http: httpx.AsyncClient) -> None:
    tokens = await connect(fitbit, http)
    with pytest.raises(ProviderRequestError):
        await fitbit.fetch_streams(tokens, "1")


async def test_daily_range_agrees_with_day_by_day(fitbit: FitbitClient,
                                                  http: httpx.AsyncClient) -> None:
    """The range endpoints (heart rate and steps series, HRV by 30-day interval) give,
    for 45 days, what the day-by-day endpoints give for each day, in 4 requests, not 135."""
    tokens = await connect(fitbit, http)
    first, last = date(2026, 3, 1), date(2026, 4, 14)
    before = (await http.get("/admin/state")).json()["requests"].get("fitbit", 0)
    ranged = await fitbit.fetch_daily_range(tokens, first, last)
    used = (await http.get("/admin/state")).json()["requests"]["fitbit"] - before
    assert used == 1 + 1 + 2  # heart, steps, HRV in two 30-day intervals
    assert [d.date for d in ranged] == [first + timedelta(days=i) for i in range(45)]
    for got in ranged[::11]:
        one = await fitbit.fetch_daily(tokens, got.date)
        assert (got.resting_heartrate, got.steps, got.hrv_rmssd_ms) == (
            one.resting_heartrate, one.steps, one.hrv_rmssd_ms)


async def test_daily_range_refuses_more_than_a_year_at_once(
        http: httpx.AsyncClient, fitbit: FitbitClient) -> None:
    tokens = await connect(fitbit, http)
    headers = {"authorization": f"Bearer {tokens.access_token}"}
    too_long = await http.get("/fitbit/1/user/-/activities/heart/date/2024-01-01/2025-06-01.json",
                              headers=headers)
    assert too_long.status_code == 400
    assert too_long.json()["errors"][0]["errorType"] == "validation"
    # The client splits a longer span itself, into whole, adjacent ranges.
    from pacekeeper.providers.fitbit.client import _chunks
    spans = list(_chunks(date(2025, 1, 1), date(2026, 3, 1), 365))
    assert spans == [(date(2025, 1, 1), date(2025, 12, 31)), (date(2026, 1, 1), date(2026, 3, 1))]
    assert list(_chunks(date(2026, 3, 1), date(2026, 3, 1), 30)) == [(date(2026, 3, 1),) * 2]
