"""Fitbit through the Google Health API (issue 31, item 1) against the sandbox: Google
OAuth (PKCE, offline access, non-rotating refresh tokens), v4 data points, units and
time zones."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta
from urllib.parse import parse_qsl, urlsplit

import httpx
import pytest

from pacekeeper.fitness.models import Sport
from pacekeeper.providers import PROVIDERS, ProviderSettings, ReconnectRequired
from pacekeeper.providers.fitbit import _google_map as gm
from pacekeeper.providers.fitbit.google import SCOPES, GoogleHealthClient, has_google_scopes
from pacekeeper.providers.fitbit.google_sandbox import health_user_id

from ._helpers import BASE, FakeClock, connect, consent


async def test_authorization_asks_google_for_offline_access_with_pkce(
    google_health: GoogleHealthClient, http: httpx.AsyncClient
) -> None:
    start = await google_health.start_authorization("user-3:n")
    parts = urlsplit(start.url)
    query = dict(parse_qsl(parts.query))
    assert parts.path == "/fitbit/google/o/oauth2/v2/auth"
    assert PROVIDERS["fitbit"].endpoints.authorize == "https://accounts.google.com/o/oauth2/v2/auth"
    assert PROVIDERS["fitbit"].endpoints.exchange == "https://oauth2.googleapis.com/token"
    assert query["access_type"] == "offline"
    assert query["prompt"] == "consent"
    assert query["code_challenge_method"] == "S256"
    assert query["scope"].split(" ") == list(SCOPES)
    assert all(s.startswith("https://www.googleapis.com/auth/googlehealth.") for s in SCOPES)
    tokens = await google_health.complete_authorization(
        start, await consent(http, start, "approve", athlete_id=3))
    assert tokens.refresh_token
    assert tokens.provider_user_id == health_user_id(3)  # from users/me/identity
    assert has_google_scopes(tokens.scope)


async def test_without_offline_access_google_gives_no_refresh_token(
    http: httpx.AsyncClient,
) -> None:
    """The emulation keeps Google's rule; our client always asks offline (above)."""
    settings = ProviderSettings.for_sandbox("fitbit", BASE)
    online = GoogleHealthClient(settings, http)
    online.oauth.extra.pop("access_type")
    tokens = await connect(online, http)
    assert tokens.refresh_token is None
    with pytest.raises(ReconnectRequired):
        await online.refresh(tokens)


async def test_refresh_answer_has_no_refresh_token_and_the_old_one_is_kept(
    google_health: GoogleHealthClient, http: httpx.AsyncClient, clock: FakeClock
) -> None:
    tokens = await connect(google_health, http)
    raw = await http.post("/fitbit/google/token", data={
        "grant_type": "refresh_token", "refresh_token": tokens.refresh_token,
        "client_id": "sandbox-client", "client_secret": "sandbox-secret"})
    assert raw.status_code == 200
    assert "refresh_token" not in raw.json()
    fresh = await google_health.refresh(tokens)
    assert fresh.access_token != tokens.access_token
    assert fresh.refresh_token == tokens.refresh_token  # kept: Google's do not rotate
    assert fresh.scope == tokens.scope
    again = await google_health.refresh(fresh)  # and it still works
    assert (await google_health.fetch_athlete(again)).provider_id == health_user_id(1)


async def test_exercise_sessions_page_and_map_to_metric_units(
    google_health: GoogleHealthClient, http: httpx.AsyncClient, clock: FakeClock
) -> None:
    tokens = await connect(google_health, http, athlete_id=8)
    now = datetime.fromtimestamp(clock.now, UTC)
    recent = await google_health.fetch_activities(tokens, after=now - timedelta(days=60))
    assert len(recent) > 25  # more than one page of 25 (the exercise maximum)
    assert [a.start for a in recent] == sorted(a.start for a in recent)
    run = next(a for a in recent if a.sport is Sport.RUN)
    assert run.provider == "fitbit"
    assert run.distance_m is not None and run.distance_m > 1000  # millimetres -> metres
    assert run.avg_speed_mps is not None and 1.5 < run.avg_speed_mps < 7
    assert run.utc_offset_s == 0
    assert run.moving_s is not None and run.moving_s <= run.elapsed_s
    newest = await google_health.fetch_activities(tokens, limit=5)
    assert len(newest) == 5
    assert newest[0].start > newest[-1].start


async def test_days_and_sleep(google_health: GoogleHealthClient, http: httpx.AsyncClient,
                              clock: FakeClock) -> None:
    tokens = await connect(google_health, http)
    today = datetime.fromtimestamp(clock.now, UTC).date()
    first, last = today - timedelta(days=100), today - timedelta(days=1)
    days = await google_health.fetch_daily_range(tokens, first, last)
    assert [d.date for d in days] == [first + timedelta(days=i) for i in range(100)]
    assert all(d.steps and d.resting_heartrate and d.hrv_rmssd_ms for d in days)
    sleeps = await google_health.fetch_sleep(tokens, last - timedelta(days=6), last)
    assert [s.date for s in sleeps] == [last - timedelta(days=6 - i) for i in range(7)]
    night = sleeps[0]
    assert night.stages is not None and night.stages.deep_min
    assert night.asleep_min is not None and night.asleep_min * 60 < night.duration_s


async def test_sandbox_refuses_what_google_refuses(
    google_health: GoogleHealthClient, http: httpx.AsyncClient
) -> None:
    tokens = await connect(google_health, http)
    auth = {"Authorization": f"Bearer {tokens.access_token}"}
    bad = await http.get("/fitbit/google/health/v4/users/me/dataTypes/exercise/dataPoints",
                         params={"filter": 'exercise.start >= "2026-01-01"'}, headers=auth)
    assert bad.status_code == 400
    assert bad.json()["error"]["status"] == "INVALID_ARGUMENT"
    long = await http.post(
        "/fitbit/google/health/v4/users/me/dataTypes/steps/dataPoints:dailyRollUp",
        json={"range": {"start": {"date": {"year": 2026, "month": 1, "day": 1}},
                        "end": {"date": {"year": 2026, "month": 6, "day": 1}}}},
        headers=auth)
    assert long.status_code == 400  # 90 days at most for steps
    gone = await http.get("/fitbit/google/health/v4/users/me/identity",
                          headers={"Authorization": "Bearer nope"})
    assert gone.status_code == 401
    assert gone.json()["error"]["status"] == "UNAUTHENTICATED"


async def test_quota_is_300_a_minute_with_no_headers(
    google_health: GoogleHealthClient, http: httpx.AsyncClient
) -> None:
    assert PROVIDERS["fitbit"].sandbox_limits == ((300, 60.0),)
    tokens = await connect(google_health, http)
    r = await http.get("/fitbit/google/health/v4/users/me/identity",
                       headers={"Authorization": f"Bearer {tokens.access_token}"})
    assert not [h for h in r.headers if "ratelimit" in h or "rate-limit" in h]
    assert PROVIDERS["fitbit"].rate_limits({}, 0.0) == []


def test_exercise_keeps_its_own_offset_and_units() -> None:
    """A documented exercise point: a run in UTC-07:00, 10.5 km as millimetres,
    durations as "<n>s", int64 steps as a string."""
    point = {
        "name": "users/abc/dataTypes/exercise/dataPoints/777",
        "exercise": {
            "interval": {"startTime": "2026-03-01T01:30:00Z", "startUtcOffset": "-25200s",
                         "endTime": "2026-03-01T02:30:00Z", "endUtcOffset": "-25200s"},
            "exerciseType": "RUNNING", "displayName": "Evening run",
            "activeDuration": "3300s",
            "metricsSummary": {"distanceMillimeters": 10_500_000, "caloriesKcal": 640.5,
                               "steps": "9800", "averageHeartRateBeatsPerMinute": 151},
        },
    }
    a = gm.map_exercise(point)
    assert a.provider_id == "777"
    assert a.utc_offset_s == -25200
    assert a.start.date() == date(2026, 2, 28)  # the local evening, not the UTC morning
    assert a.start == datetime(2026, 3, 1, 1, 30, tzinfo=UTC)
    assert a.distance_m == 10_500
    assert a.moving_s == 3300 and a.elapsed_s == 3600
    assert a.avg_speed_mps == pytest.approx(10_500 / 3300)
    assert a.steps == 9800 and a.calories == 640.5 and a.sport is Sport.RUN


def test_daily_and_weight_figures() -> None:
    days = gm.map_days(
        date(2026, 3, 1), date(2026, 3, 2),
        steps=[{"civilStartTime": {"date": {"year": 2026, "month": 3, "day": 1}},
                "steps": {"countSum": "12034"}}],
        resting=[{"dailyRestingHeartRate": {"date": {"year": 2026, "month": 3, "day": 2},
                                            "beatsPerMinute": "51"}}],
        hrv=[{"dailyHeartRateVariability": {"date": {"year": 2026, "month": 3, "day": 2},
                                            "averageHeartRateVariabilityMilliseconds": 48.5}}])
    assert [(d.date.day, d.steps, d.resting_heartrate, d.hrv_rmssd_ms) for d in days] == [
        (1, 12034, None, None), (2, None, 51, 48.5)]
    kg = gm.latest_weight_kg([
        {"weight": {"sampleTime": {"physicalTime": "2026-03-01T07:00:00Z"}, "weightGrams": 70100}},
        {"weight": {"sampleTime": {"physicalTime": "2026-03-08T07:00:00Z"}, "weightGrams": 69800}},
        # Earlier although it reads later as text: instants are compared, not strings.
        {"weight": {"sampleTime": {"physicalTime": "2026-03-08T09:00:00+05:00"},
                    "weightGrams": 71000}},
    ])
    assert kg == pytest.approx(69.8)
