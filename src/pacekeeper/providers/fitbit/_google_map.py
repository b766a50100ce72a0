"""Google Health API (v4) data points -> normalized models.

The API answers in one shape for every data type (``{"dataPoints": [...],
"nextPageToken"}``, each point a union keyed by its type) and in one set of units:
millimetres, kilocalories, grams, beats per minute, durations as ``"<seconds>s"``
strings and int64 counts as JSON strings (the proto3 JSON mapping). A time carries its
own UTC offset (``startUtcOffset``, ``utcOffset``), so the local day is the athlete's,
and daily records carry a civil ``date`` ``{year, month, day}``. Reference: docs/providers.md,
"Fitbit through the Google Health API".
"""

from __future__ import annotations

import re
from datetime import UTC, date, datetime, timedelta, timezone
from typing import Any

from pacekeeper import values
from pacekeeper.fitness.models import (
    Activity,
    Athlete,
    DailySummary,
    SleepSession,
    SleepStages,
    Sport,
)

from ._id import ID

_SPORTS: dict[str, Sport] = {
    "RUNNING": Sport.RUN, "WALKING": Sport.WALK, "BIKING": Sport.RIDE, "SWIMMING": Sport.SWIM,
    "HIKING": Sport.HIKE, "YOGA": Sport.YOGA, "PILATES": Sport.WORKOUT,
    "WORKOUT": Sport.WORKOUT, "HIIT": Sport.WORKOUT, "WEIGHTLIFTING": Sport.STRENGTH,
    "STRENGTH_TRAINING": Sport.STRENGTH,
}  # fmt: skip
_DURATION = re.compile(r"^(-?\d+(?:\.\d+)?)s$")


def google_sport(exercise_type: str | None) -> Sport:
    return _SPORTS.get(exercise_type or "", Sport.OTHER)


def seconds(value: Any) -> float | None:
    """A ``google.protobuf.Duration`` in JSON (``"3600s"``, ``"-25200s"``, ``"1.5s"``);
    a bare number is taken as seconds too."""
    if isinstance(value, int | float) and not isinstance(value, bool):
        return float(value)
    if isinstance(value, str):
        found = _DURATION.match(value.strip())
        if found:
            return float(found.group(1))
    return None


def count(value: Any) -> int | None:
    """An int64, which proto3 JSON writes as a string (``"8412"``)."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, str) and value.strip().lstrip("-").isdigit():
        return int(value)
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return None


def number(value: Any) -> float | None:
    return values.number(value, text=True)  # int64 fields come as strings


def _instant(value: str, offset_s: float | None) -> datetime:
    """An RFC 3339 instant shown in the athlete's own offset when one is given."""
    parsed = datetime.fromisoformat(value.replace("Z", "+00:00"))
    if parsed.tzinfo is None:
        parsed = parsed.replace(tzinfo=UTC)
    if offset_s is None:
        return parsed
    return parsed.astimezone(timezone(timedelta(seconds=offset_s)))


def civil_date(value: dict[str, Any]) -> date:
    """A ``google.type.Date`` (``{"year", "month", "day"}``)."""
    return date(int(value["year"]), int(value["month"]), int(value["day"]))


def map_identity(identity: dict[str, Any], weight_kg: float | None) -> Athlete:
    """``users/me/identity``: the Google Health user id (the Fitbit id beside it is for
    migration only and not used). The profile endpoint holds little more (age,
    membership start), so the athlete is the id and the latest weight."""
    return Athlete(provider=ID, provider_id=str(identity["healthUserId"]), weight_kg=weight_kg)


def map_exercise(point: dict[str, Any]) -> Activity:
    ex = point["exercise"]
    interval = ex["interval"]
    offset = seconds(interval.get("startUtcOffset"))
    start = _instant(interval["startTime"], offset)
    end = _instant(interval["endTime"], offset)
    metrics = ex.get("metricsSummary") or {}
    distance_mm = number(metrics.get("distanceMillimeters"))
    elapsed = (end - start).total_seconds()
    moving = seconds(ex.get("activeDuration"))
    distance_m = distance_mm / 1000 if distance_mm is not None else None
    speed_time = moving or elapsed
    # The point's resource name ends in its id (users/{user}/dataTypes/exercise/dataPoints/{id}).
    ident = str(point["name"]).rsplit("/", 1)[-1]
    return Activity(
        provider=ID,
        provider_id=ident,
        name=ex.get("displayName"),
        sport=google_sport(ex.get("exerciseType")),
        provider_sport=ex.get("exerciseType"),
        start=start,
        utc_offset_s=int(offset) if offset is not None else None,
        elapsed_s=max(0.0, elapsed),
        moving_s=moving,
        distance_m=distance_m,
        avg_speed_mps=distance_m / speed_time if distance_m and speed_time else None,
        avg_heartrate=number(metrics.get("averageHeartRateBeatsPerMinute")),
        calories=number(metrics.get("caloriesKcal")),
        steps=count(metrics.get("steps")),
        device_name=((point.get("dataSource") or {}).get("device") or {}).get("displayName"),
        manual=(point.get("dataSource") or {}).get("recordingMethod") == "MANUAL",
    )


def map_sleep(point: dict[str, Any]) -> SleepSession:
    sleep = point["sleep"]
    interval = sleep["interval"]
    end_offset = seconds(interval.get("endUtcOffset"))
    start = _instant(interval["startTime"], seconds(interval.get("startUtcOffset")))
    end = _instant(interval["endTime"], end_offset)
    summary = sleep.get("summary") or {}
    by_stage = {s.get("type"): count(s.get("minutes")) for s in summary.get("stagesSummary") or []}
    stages = None
    if by_stage.keys() & {"DEEP", "LIGHT", "REM"}:
        stages = SleepStages(deep_min=by_stage.get("DEEP"), light_min=by_stage.get("LIGHT"),
                             rem_min=by_stage.get("REM"), awake_min=by_stage.get("AWAKE"))
    asleep = count(summary.get("minutesAsleep"))
    ident = str(point["name"]).rsplit("/", 1)[-1]
    return SleepSession(
        provider=ID,
        provider_id=ident,
        date=end.date(),  # the night belongs to the day one wakes on, as Fitbit dated it
        start=start,
        end=end,
        duration_s=(end - start).total_seconds(),
        asleep_min=float(asleep) if asleep is not None else None,
        efficiency=None,  # the v4 summary has no efficiency figure
        # No main-sleep or nap flag was found in the reference: each sleep counts as one.
        is_main_sleep=True,
        stages=stages,
    )


def map_days(first: date, last: date, steps: list[Any], resting: list[Any],
             hrv: list[Any]) -> list[DailySummary]:
    """Daily rollups of steps and the daily resting HR and HRV points -> one summary a
    day that has a figure, oldest first."""
    by_day: dict[date, dict[str, Any]] = {}

    def put(day: date, name: str, value: Any) -> None:
        if first <= day <= last and value is not None:
            by_day.setdefault(day, {})[name] = value

    for roll in steps:
        put(civil_date(roll["civilStartTime"]["date"]), "steps",
            count((roll.get("steps") or {}).get("countSum")))
    for point in resting:
        body = point["dailyRestingHeartRate"]
        put(civil_date(body["date"]), "resting_heartrate", count(body.get("beatsPerMinute")))
    for point in hrv:
        body = point["dailyHeartRateVariability"]
        put(civil_date(body["date"]), "hrv_rmssd_ms",
            number(body.get("averageHeartRateVariabilityMilliseconds")))
    return [DailySummary(provider=ID, date=d, **values) for d, values in sorted(by_day.items())]


def latest_weight_kg(points: list[Any]) -> float | None:
    """The newest ``weight`` point's grams, in kilograms."""
    best: tuple[datetime, float] | None = None
    for point in points:
        body = point["weight"]
        grams = number(body.get("weightGrams"))
        when = _instant(str(body["sampleTime"]["physicalTime"]), None)
        if grams is not None and (best is None or when > best[0]):
            best = (when, grams / 1000)
    return best[1] if best else None
