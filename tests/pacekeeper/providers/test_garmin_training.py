"""Garmin's Training API V2 against the sandbox (issue 32, "Onto the watch"): a workout
pushed to the person's Garmin Connect, put on a day, read back as the device would get
it; Garmin's refusals; one person's workouts are not another's."""

from __future__ import annotations

from datetime import date

import httpx
import pytest

from pacekeeper.providers import GarminClient, ProviderRequestError
from pacekeeper.workouts import render_garmin_training

from ._helpers import connect

WORKOUT = {"name": "Threshold 3x10", "sport": "cycling", "steps": [
    {"kind": "warmup", "end": {"time_s": 600}},
    {"repeat": 3, "steps": [
        {"kind": "active", "end": {"time_s": 600}, "target": {"type": "ftp_pct", "low": 95, "high": 100}},
        {"kind": "recovery", "end": {"time_s": 300}}]},
    {"kind": "cooldown", "end": {"lap_press": True}}]}


async def test_a_workout_reaches_the_person_s_garmin_calendar(
    garmin: GarminClient, http: httpx.AsyncClient
) -> None:
    tokens = await connect(garmin, http, athlete_id=3)
    body = render_garmin_training(WORKOUT, {"ftp_watts": 280}, source_id="wk1")
    workout_id = await garmin.push_workout(tokens, body)
    schedule_id = await garmin.schedule_workout(tokens, workout_id, date(2026, 12, 9))
    assert schedule_id.isdigit()
    auth = {"Authorization": f"Bearer {tokens.access_token}"}
    stored = (await http.get(f"/garmin/training-api/workout/v2/{workout_id}", headers=auth)).json()
    assert stored["workoutName"] == "Threshold 3x10" and stored["segments"] == body["segments"]
    calendar = (await http.get("/garmin/training-api/schedule", headers=auth, params={
        "startDate": "2026-12-01", "endDate": "2026-12-31"})).json()
    assert calendar == [{"scheduleId": int(schedule_id), "workoutId": int(workout_id),
                         "date": "2026-12-09"}]


async def test_another_person_cannot_read_or_schedule_it(
    garmin: GarminClient, http: httpx.AsyncClient
) -> None:
    mine = await connect(garmin, http, athlete_id=3)
    theirs = await connect(garmin, http, athlete_id=4)
    workout_id = await garmin.push_workout(mine, render_garmin_training(WORKOUT, {"ftp_watts": 280}))
    with pytest.raises(ProviderRequestError) as refused:
        await garmin.schedule_workout(theirs, workout_id, date(2026, 12, 9))
    assert refused.value.status == 404
    auth = {"Authorization": f"Bearer {theirs.access_token}"}
    assert (await http.get(f"/garmin/training-api/workout/v2/{workout_id}",
                           headers=auth)).status_code == 404


@pytest.mark.parametrize(("change", "message"), [
    ({"workoutName": ""}, "workoutName"),
    ({"sport": "SURFING"}, "sport"),
    ({"segments": []}, "segments"),
])
async def test_the_sandbox_refuses_what_garmin_refuses(
    garmin: GarminClient, http: httpx.AsyncClient, change: dict[str, object], message: str
) -> None:
    tokens = await connect(garmin, http, athlete_id=3)
    body = {**render_garmin_training(WORKOUT, {"ftp_watts": 280}), **change}
    with pytest.raises(ProviderRequestError) as refused:
        await garmin.push_workout(tokens, body)
    assert refused.value.status == 400
    raw = await http.post("/garmin/workoutportal/workout/v2", json=body,
                          headers={"Authorization": f"Bearer {tokens.access_token}"})
    assert raw.status_code == 400 and message in raw.json()["errorMessage"]
