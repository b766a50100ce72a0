"""Fitbit data through the sandbox: activity logs, daily summary, intraday HR, sleep, HRV."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta

import httpx
import pytest

from pacekeeper.fitness import ProviderId
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
    assert first.provider is ProviderId.FITBIT
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
