"""Strava's real example responses map onto the normalized models."""

from __future__ import annotations

import json
from datetime import UTC, date, datetime
from pathlib import Path
from typing import Any

import httpx
import numpy as np
import pytest

from pacekeeper.fitness import Sport
from pacekeeper.providers import ProviderRequestError, ProviderResponseError, StravaClient
from pacekeeper.providers.strava._map import map_activity, map_athlete, map_streams, map_zones

from ._helpers import connect

DATA = Path(__file__).resolve().parents[2] / "data" / "strava"


def load(name: str) -> Any:
    return json.loads((DATA / name).read_text())


def test_real_detailed_activity() -> None:
    activity = map_activity(load("activity.3.json"))
    assert activity.provider == "strava"
    assert activity.provider_id == "99895560"
    assert activity.athlete_id == "1513"
    assert activity.sport is Sport.RUN
    assert activity.provider_sport == "Run"
    assert activity.start == datetime(2013, 12, 12, 19, 36, 41, tzinfo=UTC)
    assert activity.elapsed_s == 3140
    assert activity.moving_s == 2892
    assert activity.distance_m == 5781.1
    assert activity.elevation_gain_m == 13.5
    assert activity.avg_speed_mps == 2.0
    assert activity.max_speed_mps == 8.3
    assert activity.calories == 537.9
    assert activity.start_latlng == (37.781076, -122.395536)
    assert activity.end_latlng == (37.780877, -122.39548)
    assert activity.timezone == "(GMT-08:00) America/Los_Angeles"
    assert activity.manual is False
    assert activity.avg_heartrate is None  # the example has no heart-rate data


def test_real_manual_activity() -> None:
    activity = map_activity(load("activity-manual.3.json"))
    assert activity.sport is Sport.HIKE
    assert activity.manual is True
    assert activity.end_latlng is None
    assert activity.elevation_gain_m == 0
    assert activity.max_speed_mps == 0.0


def test_real_detailed_athlete() -> None:
    athlete = map_athlete(load("athlete.3.json"))
    assert athlete.provider_id == "1513"
    assert athlete.display_name == "Jeff Remer"
    assert athlete.sex == "M"
    assert athlete.city == "Nicasio"
    assert athlete.birth_date == date(1985, 1, 11)
    assert athlete.weight_kg == pytest.approx(75.2963)
    assert athlete.ftp_watts is None
    assert athlete.max_heartrate == 198
    assert athlete.created_at == datetime(2009, 9, 22, 18, 24, 6, tzinfo=UTC)


def test_swagger_summary_activities() -> None:
    rows = load("swagger-athlete-activities.example.json")
    activities = [map_activity(r) for r in rows]
    first = activities[0]
    assert first.provider_sport == "MountainBikeRide"  # sport_type wins over type
    assert first.sport is Sport.RIDE
    assert first.avg_watts == 175.3
    assert first.weighted_avg_watts == 210
    assert first.avg_heartrate == 140.3
    assert first.trainer is True
    assert first.device_name == "Garmin Edge 1030"
    assert first.start_latlng is None


def test_streams_both_shapes_and_misalignment() -> None:
    by_type: dict[str, dict[str, list[Any]]] = {
        "time": {"data": [0, 1, 2]},
        "heartrate": {"data": [90, 91, 93]},
        "latlng": {"data": [[1.0, 2.0], [1.0, 2.1], [1.1, 2.1]]},
    }
    streams = map_streams(by_type)  # the 1 Hz StreamSet a file's import gives too
    assert streams.time.tolist() == [0, 1, 2]
    assert streams.keys == ["heartrate", "lat", "lng"]
    assert streams.channels["lat"].tolist() == [1.0, 1.0, 1.1]
    assert streams.channels["lng"].tolist() == [2.0, 2.1, 2.1]
    assert streams.channels["heartrate"].tolist() == [90, 91, 93]
    as_list: list[Any] = [{"type": k, **v} for k, v in by_type.items()]
    again = map_streams(as_list)
    assert again.to_bytes() == streams.to_bytes()
    with pytest.raises(ValueError, match="heartrate"):
        map_streams({"time": {"data": [0, 1]}, "heartrate": {"data": [1]}})


def test_zone_sentinel_becomes_open_top() -> None:
    zones = map_zones({"heart_rate": {"zones": [{"min": 0, "max": 120}, {"min": 120, "max": -1}]}})
    assert zones.heart_rate[-1].max is None
    assert zones.power == []


async def test_sandbox_activity_matches_its_streams(
    strava: StravaClient, http: httpx.AsyncClient
) -> None:
    """The emulated summary is computed from the same streams the API returns."""
    tokens = await connect(strava, http)
    activities = await strava.fetch_activities(tokens, limit=3)
    assert len(activities) == 3
    assert activities[0].start > activities[1].start > activities[2].start  # newest first
    detail = await strava.fetch_activity(tokens, activities[0].provider_id)
    streams = await strava.fetch_streams(tokens, detail.provider_id)
    heart, distance = streams.channels["heartrate"], streams.channels["distance"]
    beats = heart[~np.isnan(heart)]
    assert detail.avg_heartrate == pytest.approx(beats.sum() / len(streams.time), abs=0.1)
    assert detail.distance_m == distance[-1]
    assert detail.elapsed_s == len(streams.time)
    assert detail.calories is not None


@pytest.mark.slow
async def test_paging_covers_months(strava: StravaClient, http: httpx.AsyncClient) -> None:
    """Months of history come back across several pages, without duplicates."""
    tokens = await connect(strava, http, athlete_id=11)
    ids = await strava.fetch_activities(tokens, limit=400)
    assert len(ids) == len({a.provider_id for a in ids})
    span = ids[0].start - ids[-1].start
    assert span.days >= 90
    after = await strava.fetch_activities(tokens, after=ids[5].start, limit=400)
    assert [a.provider_id for a in after] == [a.provider_id for a in ids[:5]]


async def test_malformed_provider_body_is_a_clear_error() -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, json={"id": 1, "start_date": "not a date", "type": "Run"})

    from pacekeeper.providers import ProviderSettings

    async with httpx.AsyncClient(transport=httpx.MockTransport(handler)) as http:
        client = StravaClient(ProviderSettings.for_sandbox("strava", "http://x.test"), http)
        from pacekeeper.providers import TokenSet

        with pytest.raises(ProviderResponseError):
            await client.fetch_activity(TokenSet(access_token="t"), "1")


async def test_zones_from_sandbox(strava: StravaClient, http: httpx.AsyncClient) -> None:
    tokens = await connect(strava, http, athlete_id=9)
    zones = await strava.fetch_zones(tokens)
    assert len(zones.heart_rate) == 5
    assert zones.heart_rate[0].min == 0
    assert zones.heart_rate[-1].max is None
    assert all(a.max == b.min for a, b in zip(zones.power, zones.power[1:], strict=False))


@pytest.mark.slow
async def test_stats_agree_with_activities(strava: StravaClient, http: httpx.AsyncClient) -> None:
    tokens = await connect(strava, http, athlete_id=9)
    stats = await strava.fetch_stats(tokens, "9")
    activities = await strava.fetch_activities(tokens, limit=400)
    rides = [a for a in activities if a.sport is Sport.RIDE]
    assert stats.all_time[Sport.RIDE].count == len(rides)
    assert stats.all_time[Sport.RIDE].distance_m == pytest.approx(
        sum(a.distance_m or 0 for a in rides), abs=1
    )
    assert stats.recent[Sport.RUN].count <= stats.all_time[Sport.RUN].count
    with pytest.raises(ProviderRequestError):
        await strava.fetch_stats(tokens, "10")  # only the authenticated athlete
