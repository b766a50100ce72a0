"""Garmin Health API summaries (push bodies and pull responses) -> normalized models."""

from __future__ import annotations

from datetime import UTC, date, datetime
from functools import partial
from typing import TYPE_CHECKING, Any

from pacekeeper.fitness.models import (
    Activity,
    DailySummary,
    SleepSession,
    SleepStages,
    Sport,
)

from .._http import expect_list
from .._offload import json_body, shaped
from ._id import ID

if TYPE_CHECKING:  # a type only here: numpy loads on first use (below)
    from pacekeeper.fitness.streams import StreamSet

_SPORTS: dict[str, Sport] = {
    "RUNNING": Sport.RUN, "TRAIL_RUNNING": Sport.RUN, "TREADMILL_RUNNING": Sport.RUN,
    "STREET_RUNNING": Sport.RUN, "TRACK_RUNNING": Sport.RUN, "INDOOR_RUNNING": Sport.RUN,
    "VIRTUAL_RUN": Sport.RUN, "ULTRA_RUN": Sport.RUN,
    "CYCLING": Sport.RIDE, "ROAD_BIKING": Sport.RIDE, "MOUNTAIN_BIKING": Sport.RIDE,
    "INDOOR_CYCLING": Sport.RIDE, "VIRTUAL_RIDE": Sport.RIDE, "GRAVEL_CYCLING": Sport.RIDE,
    "CYCLOCROSS": Sport.RIDE, "TRACK_CYCLING": Sport.RIDE, "RECUMBENT_CYCLING": Sport.RIDE,
    "BMX": Sport.RIDE, "DOWNHILL_BIKING": Sport.RIDE,
    "LAP_SWIMMING": Sport.SWIM, "OPEN_WATER_SWIMMING": Sport.SWIM, "SWIMMING": Sport.SWIM,
    "WALKING": Sport.WALK, "CASUAL_WALKING": Sport.WALK, "SPEED_WALKING": Sport.WALK,
    "HIKING": Sport.HIKE, "ROWING": Sport.ROW, "INDOOR_ROWING": Sport.ROW,
    "RESORT_SKIING_SNOWBOARDING": Sport.SKI, "CROSS_COUNTRY_SKIING": Sport.SKI,
    "STRENGTH_TRAINING": Sport.STRENGTH, "YOGA": Sport.YOGA, "CARDIO": Sport.WORKOUT,
}  # fmt: skip


def garmin_sport(activity_type: str | None) -> Sport:
    return _SPORTS.get((activity_type or "").upper(), Sport.OTHER)


def _num(data: dict[str, Any], key: str) -> float | None:
    value = data.get(key)
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else None


def _start(data: dict[str, Any]) -> datetime:
    return datetime.fromtimestamp(int(data["startTimeInSeconds"]), UTC)


def _strides(steps: float | None) -> float | None:
    """Garmin gives running cadence in steps a minute (both feet); the service keeps FIT's
    unit, strides a minute (one foot), as Strava and every FIT file do: half."""
    return None if steps is None else steps / 2


def map_activity(data: dict[str, Any]) -> Activity:
    cadence = _num(data, "averageBikeCadenceInRoundsPerMinute") or _strides(
        _num(data, "averageRunCadenceInStepsPerMinute")
    )
    return Activity(
        provider=ID,
        provider_id=str(data.get("activityId") or data["summaryId"]),
        athlete_id=data.get("userId"),
        name=data.get("activityName"),
        sport=garmin_sport(data.get("activityType")),
        provider_sport=data.get("activityType"),
        start=_start(data),
        utc_offset_s=data.get("startTimeOffsetInSeconds"),
        elapsed_s=float(data.get("durationInSeconds") or 0),
        moving_s=_num(data, "movingDurationInSeconds"),
        distance_m=_num(data, "distanceInMeters"),
        elevation_gain_m=_num(data, "totalElevationGainInMeters"),
        avg_speed_mps=_num(data, "averageSpeedInMetersPerSecond"),
        max_speed_mps=_num(data, "maxSpeedInMetersPerSecond"),
        avg_heartrate=_num(data, "averageHeartRateInBeatsPerMinute"),
        max_heartrate=_num(data, "maxHeartRateInBeatsPerMinute"),
        avg_watts=_num(data, "averagePowerInWatts"),
        max_watts=_num(data, "maxPowerInWatts"),
        avg_cadence=cadence,
        calories=_num(data, "activeKilocalories"),
        steps=data.get("steps"),
        device_name=data.get("deviceName"),
        manual=bool(data.get("manual")),
    )


def map_activity_details(data: dict[str, Any]) -> tuple[Activity, StreamSet]:
    """An ``activityDetails`` entry: its summary plus per-second ``samples``."""
    summary = {**data["summary"], "summaryId": data.get("summaryId"), "userId": data.get("userId")}
    activity = map_activity({"activityId": data.get("activityId"), **summary})
    samples = data.get("samples") or []
    t0 = int(summary["startTimeInSeconds"])

    def series(key: str) -> list[Any] | None:
        values = [s.get(key) for s in samples]
        return values if any(v is not None for v in values) else None

    lat, lng = series("latitudeInDegree"), series("longitudeInDegree")
    steps = series("stepsPerMinute")
    cadence = series("bikeCadenceInRPM") or (
        None if steps is None else [None if v is None else _strides(float(v)) for v in steps])
    # Imported here: numpy loads with the first streams, not with the standalone
    # sandbox that imports this module for its summaries.
    from pacekeeper.fitness.streams import from_samples

    streams = from_samples([int(s["startTimeInSeconds"]) - t0 for s in samples], {
        "power": series("powerInWatts"), "heartrate": series("heartRate"), "cadence": cadence,
        "speed": series("speedMetersPerSecond"), "distance": series("totalDistanceInMeters"),
        "altitude": series("elevationInMeters"),
    }, latlng=list(zip(lat, lng, strict=True)) if lat and lng else None)
    return activity, streams


def details_from_json(body: bytes) -> list[tuple[Activity, StreamSet]]:
    """An ``activityDetails`` response body decoded and mapped: what the client sends to
    the CPU pool (issue 30, ``providers._offload``), so a top-level function."""
    rows = expect_list(ID, json_body(ID, body))
    return [shaped(ID, partial(map_activity_details, row)) for row in rows]


def map_daily(data: dict[str, Any]) -> DailySummary:
    moderate = _num(data, "moderateIntensityDurationInSeconds") or 0.0
    vigorous = _num(data, "vigorousIntensityDurationInSeconds") or 0.0
    return DailySummary(
        provider=ID,
        date=date.fromisoformat(data["calendarDate"]),
        steps=data.get("steps"),
        distance_m=_num(data, "distanceInMeters"),
        active_calories=_num(data, "activeKilocalories"),
        calories=(_num(data, "activeKilocalories") or 0) + (_num(data, "bmrKilocalories") or 0)
        or None,
        active_minutes=(moderate + vigorous) / 60,
        floors=_num(data, "floorsClimbed"),
        resting_heartrate=data.get("restingHeartRateInBeatsPerMinute"),
        avg_heartrate=data.get("averageHeartRateInBeatsPerMinute"),
    )


def map_sleep(data: dict[str, Any]) -> SleepSession:
    start = _start(data)
    duration = float(data.get("durationInSeconds") or 0)

    def minutes(key: str) -> float | None:
        value = _num(data, key)
        return value / 60 if value is not None else None

    return SleepSession(
        provider=ID,
        provider_id=str(data["summaryId"]),
        date=date.fromisoformat(data["calendarDate"]),
        start=start,
        end=datetime.fromtimestamp(start.timestamp() + duration, UTC),
        duration_s=duration,
        stages=SleepStages(
            deep_min=minutes("deepSleepDurationInSeconds"),
            light_min=minutes("lightSleepDurationInSeconds"),
            rem_min=minutes("remSleepInSeconds"),
            awake_min=minutes("awakeDurationInSeconds"),
        ),
    )
