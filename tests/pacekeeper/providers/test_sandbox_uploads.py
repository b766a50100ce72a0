"""A real FIT ride uploaded to a sandbox athlete's account (``POST /admin/uploads``): Strava
and Garmin then serve it on its day with the file's start, elapsed time, distance and
samples (read here with the FIT SDK), however old it is, only to that athlete; bad
uploads are a 400 with `{error, message}` (ERR-1) and change nothing."""

from __future__ import annotations

import base64
from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import httpx
import pytest
from garmin_fit_sdk import FIT_EPOCH_S, Decoder, Stream

from pacekeeper.providers import GarminClient, StravaClient
from pacekeeper.providers.sandbox import SandboxState
from pacekeeper.providers.sandbox import _generator as gen

from ._helpers import connect, sandbox_with_uploads

FIT = Path(__file__).resolve().parents[2] / "data" / "activities" / "fit"
RIDE = "2020-06-01-16-52-40.fit"  # power, heart rate, cadence, GPS, altitude, temperature


@pytest.fixture
async def http(state: SandboxState) -> AsyncIterator[httpx.AsyncClient]:
    async with sandbox_with_uploads(state) as client:
        yield client


def _session(name: str) -> tuple[datetime, float, float, int]:
    messages, errors = Decoder(Stream.from_file(str(FIT / name))).read(
        convert_datetimes_to_dates=False)
    assert not errors
    s = messages["session_mesgs"][0]
    start = datetime.fromtimestamp(s["start_time"] + FIT_EPOCH_S, UTC)
    stamps = [r["timestamp"] for r in messages["record_mesgs"]]
    # The samples' span in seconds: the last second of the 1 Hz grid they come on.
    return start, s["total_elapsed_time"], s["total_distance"], stamps[-1] - stamps[0]


async def _upload(http: httpx.AsyncClient, athlete: int, name: str) -> httpx.Response:
    return await http.post("/admin/uploads", json={
        "athlete_id": athlete, "fit_base64": base64.b64encode((FIT / name).read_bytes()).decode()})


async def test_strava_serves_the_uploaded_ride(http: httpx.AsyncClient,
                                               strava: StravaClient) -> None:
    start, elapsed, distance, span = _session(RIDE)
    answer = await _upload(http, 11, RIDE)
    assert answer.status_code == 201, answer.text
    assert answer.json()["start"] == start.isoformat()
    token = await connect(strava, http, athlete_id=11)
    # Years before the sandbox's generated history: still in the account.
    listed = await strava.fetch_activities(token, after=start - timedelta(days=1), limit=1000)
    ride = next(a for a in listed if a.start == start)
    assert ride.elapsed_s == round(elapsed)
    assert ride.distance_m == pytest.approx(distance, abs=0.01)
    streams = await strava.fetch_streams(token, ride.provider_id)
    assert streams.time[-1] == span
    assert {"power", "heartrate", "lat", "lng", "distance"} <= set(streams.keys)
    assert streams.channels["distance"][-1] == pytest.approx(distance, abs=0.01)
    # Another athlete's account does not have it.
    other = await connect(strava, http, athlete_id=12)
    theirs = await strava.fetch_activities(other, after=start - timedelta(days=1), limit=1000)
    assert start not in {a.start for a in theirs}


async def test_garmin_serves_it_on_its_day_and_absent_sensors_stay_absent(
        http: httpx.AsyncClient, garmin: GarminClient) -> None:
    name = "6449921903_ACTIVITY.fit"  # power, heart rate, speed; no GPS, no altitude
    start, elapsed, distance, _ = _session(name)
    assert (await _upload(http, 13, name)).status_code == 201
    token = await connect(garmin, http, athlete_id=13)
    found = await garmin.fetch_activity_details(
        token, after=start, before=start + timedelta(days=1))
    assert [a.start for a, _ in found] == [start]
    activity, streams = found[0]
    assert activity.elapsed_s == round(elapsed)
    assert activity.distance_m == pytest.approx(distance, abs=0.01)
    assert {"power", "heartrate"} <= set(streams.keys)
    assert not {"lat", "lng", "altitude"} & set(streams.keys)


@pytest.mark.parametrize(("body", "why"), [
    ({"athlete_id": 11}, "fit_base64"),
    ({"athlete_id": 11, "fit_base64": "not base64!"}, "fit_base64"),
    ({"athlete_id": 0, "fit_base64": base64.b64encode(b".FIT").decode()}, "athlete_id"),
    ({"athlete_id": 11, "fit_base64": base64.b64encode(b"hello").decode()}, "FIT"),
    ({"athlete_id": 11, "fit_base64": base64.b64encode(
        (FIT / "Settings.fit").read_bytes()).decode()}, "activity"),
])
async def test_bad_uploads_are_400_and_change_nothing(http: httpx.AsyncClient, body: dict[
        str, object], why: str) -> None:
    answer = await http.post("/admin/uploads", json=body)
    assert answer.status_code == 400
    assert set(answer.json()) == {"error", "message"} and why in answer.json()["message"]
    assert gen.recorded_of(11) == []


async def test_reset_forgets_uploads(http: httpx.AsyncClient) -> None:
    assert (await _upload(http, 11, RIDE)).status_code == 201
    assert len(gen.recorded_of(11)) == 1
    assert (await http.post("/admin/reset", json={})).status_code == 200
    assert gen.recorded_of(11) == []
