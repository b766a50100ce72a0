"""Provider answers -> the service's figures, against the providers' documented field
meanings (audit findings of 2026-11-28; each test failed before its fix): Garmin's run
cadence in steps, Strava's and Fitbit's local offsets, Fitbit's time asleep and its
efficiency, Garmin's running and cycling sport types."""

from __future__ import annotations

import json
from datetime import UTC, date, datetime, timedelta
from pathlib import Path

import pytest

from pacekeeper.fitness import Sport
from pacekeeper.fitness.models import SleepSession, SleepStages
from pacekeeper.providers.fitbit._map import map_activity as fitbit_activity
from pacekeeper.providers.fitbit._map import map_sleep as fitbit_sleep
from pacekeeper.providers.garmin._map import garmin_sport, map_activity_details
from pacekeeper.providers.garmin._map import map_activity as garmin_activity
from pacekeeper.providers.strava._map import map_activity as strava_activity
from pacekeeper.sync import _health

DATA = Path(__file__).resolve().parents[2] / "data" / "strava"
T0 = 1_715_590_800  # 2024-05-13 09:00 UTC


def _garmin_run(**extra: object) -> dict[str, object]:
    return {"summaryId": "1", "activityId": 7, "activityType": "RUNNING",
            "startTimeInSeconds": T0, "startTimeOffsetInSeconds": 7200,
            "durationInSeconds": 1800, **extra}


def test_garmin_run_cadence_is_in_strides_like_every_other_source() -> None:
    """Garmin writes run cadence in steps a minute (both feet); FIT files and Strava in
    strides (one foot), the service's unit: 174.8 steps/min is 87.4, as Strava's record
    of the same run says. Bike cadence (rpm) is left as it is."""
    run = garmin_activity(_garmin_run(averageRunCadenceInStepsPerMinute=174.8))
    assert run.avg_cadence == pytest.approx(87.4)
    ride = garmin_activity(_garmin_run(activityType="CYCLING",
                                       averageBikeCadenceInRoundsPerMinute=88.0))
    assert ride.avg_cadence == pytest.approx(88.0)
    details = {"summaryId": "1", "activityId": 7, "summary": _garmin_run(),
               "samples": [{"startTimeInSeconds": T0 + i, "stepsPerMinute": v}
                           for i, v in enumerate((170.0, None, 180.0))]}
    _, streams = map_activity_details(details)  # on the 1 Hz grid: the gap interpolated
    assert streams.channels["cadence"].tolist() == [85.0, 87.5, 90.0]


def test_an_odd_garmin_step_rate_is_half_a_stride() -> None:
    """171 steps a minute is 85.5 strides: the samples' cadence is not a whole number,
    and the mapping keeps it (the providers' former ``Streams`` model took only whole
    numbers and refused the whole activity)."""
    details = {"summaryId": "1", "activityId": 7, "summary": _garmin_run(),
               "samples": [{"startTimeInSeconds": T0 + i, "stepsPerMinute": v,
                            "heartRate": 150} for i, v in enumerate((171.0, 173.0))]}
    _, streams = map_activity_details(details)
    assert streams.channels["cadence"].tolist() == [85.5, 86.5]


@pytest.mark.parametrize(("kind", "sport"), [
    ("STREET_RUNNING", Sport.RUN), ("TRACK_RUNNING", Sport.RUN), ("INDOOR_RUNNING", Sport.RUN),
    ("VIRTUAL_RUN", Sport.RUN), ("CASUAL_WALKING", Sport.WALK), ("SPEED_WALKING", Sport.WALK),
    ("CYCLOCROSS", Sport.RIDE), ("TRACK_CYCLING", Sport.RIDE), ("running", Sport.RUN),
    ("PADDLEBOARDING", Sport.OTHER)])
def test_garmin_sport_types(kind: str, sport: Sport) -> None:
    """Runs and rides under Garmin's finer types count as runs and rides (best efforts,
    VDOT and the pace curve look at runs only)."""
    assert garmin_sport(kind) is sport


def test_strava_offset_from_the_local_wall_clock() -> None:
    """The real activity.3.json has start_date 19:36:41Z and start_date_local 11:36:41
    (America/Los_Angeles) and no utc_offset: the start is 11:36:41-08:00, not 19:36 UTC
    with no offset (which would put an evening run on the next local day)."""
    data = json.loads((DATA / "activity.3.json").read_text())
    assert data.get("utc_offset") is None
    a = strava_activity(data)
    assert a.utc_offset_s == -8 * 3600
    assert a.start == datetime(2013, 12, 12, 19, 36, 41, tzinfo=UTC)
    evening = strava_activity({**data, "start_date": "2013-12-13T03:36:41Z",
                               "start_date_local": "2013-12-12T19:36:41Z"})
    local = evening.start + timedelta(seconds=evening.utc_offset_s or 0)
    assert local.date() == date(2013, 12, 12)
    assert strava_activity({**data, "start_date_local": None, "utc_offset": 3600.0}
                           ).utc_offset_s == 3600


def test_fitbit_activity_keeps_its_offset() -> None:
    """Fitbit's activity log writes startTime with its offset; a Sunday-evening walk at
    20:30-08:00 is on Sunday's local day, not Monday's (04:30 UTC)."""
    a = fitbit_activity({"logId": 1, "activityName": "Walk", "activityTypeId": 90013,
                         "startTime": "2019-01-06T20:30:00.000-08:00", "duration": 1_800_000})
    assert a.utc_offset_s == -8 * 3600
    assert (a.start + timedelta(seconds=a.utc_offset_s)).date() == date(2019, 1, 6)


def test_fitbit_sleep_is_time_asleep_and_efficiency_is_no_score() -> None:
    """Fitbit's documented sleep example: duration 27,720,000 ms is time in bed (asleep
    384 min + awake 78 min + ...), efficiency 96 is asleep / in bed. The night is 384 min
    of sleep (6.4 h, not 7.7 h) and has no sleep score (efficiency is not one)."""
    night = fitbit_sleep({"logId": 2, "dateOfSleep": "2017-04-02", "duration": 27_720_000,
                          "efficiency": 96, "isMainSleep": True, "minutesAsleep": 384,
                          "minutesAwake": 78, "startTime": "2017-04-01T23:58:30.000",
                          "endTime": "2017-04-02T07:40:30.000"}, UTC)
    health = _health("fitbit", sleep=night)
    assert health.sleep_s == 384 * 60
    assert health.sleep_score is None


def test_garmin_sleep_is_its_stages_asleep() -> None:
    """Without a minutes-asleep figure, time asleep is deep + light + REM (awake left out)."""
    night = SleepSession(provider="garmin", provider_id="3", date=date(2024, 5, 13),
                         duration_s=8 * 3600.0,
                         stages=SleepStages(deep_min=90, light_min=250, rem_min=100,
                                            awake_min=40))
    assert _health("garmin", sleep=night).sleep_s == (90 + 250 + 100) * 60
