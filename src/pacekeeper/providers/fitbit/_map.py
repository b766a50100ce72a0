"""Fitbit Web API shapes -> normalized models (metric units: no Accept-Language sent)."""

from __future__ import annotations

from datetime import UTC, date, datetime, time, tzinfo
from typing import Any

from pacekeeper.fitness.models import (
    Activity,
    Athlete,
    DailySummary,
    HeartRateSample,
    SleepSession,
    SleepStages,
    Sport,
)

from ._id import ID

_BY_NAME: dict[str, Sport] = {
    "run": Sport.RUN, "treadmill": Sport.RUN, "bike": Sport.RIDE, "outdoor bike": Sport.RIDE,
    "spinning": Sport.RIDE, "swim": Sport.SWIM, "walk": Sport.WALK, "hike": Sport.HIKE,
    "rowing machine": Sport.ROW, "weights": Sport.STRENGTH, "yoga": Sport.YOGA,
    "workout": Sport.WORKOUT, "interval workout": Sport.WORKOUT, "elliptical": Sport.WORKOUT,
}  # fmt: skip
# Fitbit activity type ids of the commonest logged activities.
_BY_TYPE: dict[int, Sport] = {90009: Sport.RUN, 90001: Sport.RIDE, 90024: Sport.SWIM,
                              90013: Sport.WALK, 90012: Sport.HIKE}  # fmt: skip


def fitbit_sport(name: str | None, type_id: int | None) -> Sport:
    if type_id in _BY_TYPE:
        return _BY_TYPE[type_id]
    return _BY_NAME.get((name or "").lower(), Sport.OTHER)


def _local(value: str, tz: tzinfo) -> datetime:
    parsed = datetime.fromisoformat(value.replace("Z", "+00:00"))
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=tz)


def _num(data: dict[str, Any], key: str) -> float | None:
    value = data.get(key)
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else None


def map_profile(body: dict[str, Any]) -> Athlete:
    user = body["user"]
    gender = user.get("gender")
    birth = user.get("dateOfBirth")
    member = user.get("memberSince")
    return Athlete(
        provider=ID,
        provider_id=str(user["encodedId"]),
        firstname=user.get("firstName"),
        lastname=user.get("lastName"),
        username=user.get("displayName"),
        sex={"MALE": "M", "FEMALE": "F"}.get(gender or ""),
        city=user.get("city") or None,
        country=user.get("country") or None,
        birth_date=date.fromisoformat(birth) if birth else None,
        weight_kg=_num(user, "weight"),
        timezone=user.get("timezone"),
        created_at=datetime.combine(date.fromisoformat(member), time(), UTC) if member else None,
        profile_url=user.get("avatar"),
    )


def map_activity(data: dict[str, Any]) -> Activity:
    distance_km = _num(data, "distance")
    duration_ms = _num(data, "duration") or 0.0
    active_ms = _num(data, "activeDuration")
    speed_kmh = _num(data, "speed")
    start = _local(data["startTime"], UTC)
    offset = datetime.fromisoformat(data["startTime"].replace("Z", "+00:00")).utcoffset()
    return Activity(
        provider=ID,
        provider_id=str(data["logId"]),
        name=data.get("activityName"),
        sport=fitbit_sport(data.get("activityName"), data.get("activityTypeId")),
        provider_sport=data.get("activityName"),
        start=start,
        # The wall clock's own offset when Fitbit writes one ("...-08:00"): the local day.
        utc_offset_s=int(offset.total_seconds()) if offset is not None else None,
        elapsed_s=duration_ms / 1000,
        moving_s=active_ms / 1000 if active_ms is not None else None,
        # Fitbit reports kilometres and km/h in the metric locale.
        distance_m=distance_km * 1000 if distance_km is not None else None,
        avg_speed_mps=speed_kmh / 3.6 if speed_kmh is not None else None,
        elevation_gain_m=_num(data, "elevationGain"),
        avg_heartrate=_num(data, "averageHeartRate"),
        calories=_num(data, "calories"),
        steps=data.get("steps"),
        device_name=(data.get("source") or {}).get("name"),
        manual=data.get("logType") == "manual",
    )


def map_sleep(data: dict[str, Any], tz: tzinfo) -> SleepSession:
    summary = ((data.get("levels") or {}).get("summary")) or {}

    def minutes(stage: str) -> float | None:
        entry = summary.get(stage)
        return float(entry["minutes"]) if isinstance(entry, dict) and "minutes" in entry else None

    stages = None
    if summary:
        stages = SleepStages(
            deep_min=minutes("deep"),
            light_min=minutes("light"),
            rem_min=minutes("rem"),
            awake_min=minutes("wake") if "wake" in summary else minutes("awake"),
        )
    return SleepSession(
        provider=ID,
        provider_id=str(data["logId"]),
        date=date.fromisoformat(data["dateOfSleep"]),
        start=_local(data["startTime"], tz),
        end=_local(data["endTime"], tz),
        duration_s=(_num(data, "duration") or 0.0) / 1000,
        asleep_min=_num(data, "minutesAsleep"),
        efficiency=_num(data, "efficiency"),
        is_main_sleep=bool(data.get("isMainSleep", True)),
        stages=stages,
    )


def map_daily_series(first: date, last: date, heart: list[Any], steps: list[Any],
                     hrv: list[Any]) -> list[DailySummary]:
    """Range answers (heart rate, steps and HRV time series) -> one summary a day that
    has a figure, oldest first."""
    by_day: dict[date, dict[str, Any]] = {}

    def put(entries: list[Any], name: str, value_of: Any) -> None:
        for e in entries:
            day = date.fromisoformat(e["dateTime"])
            value = value_of(e.get("value"))
            if first <= day <= last and value is not None:
                by_day.setdefault(day, {})[name] = value

    put(heart, "resting_heartrate",
        lambda v: v.get("restingHeartRate") if isinstance(v, dict) else None)
    put(steps, "steps", lambda v: int(v) if v not in (None, "") else None)
    put(hrv, "hrv_rmssd_ms", lambda v: v.get("dailyRmssd") if isinstance(v, dict) else None)
    return [DailySummary(provider=ID, date=d, **values)
            for d, values in sorted(by_day.items())]


def map_daily(
    day: date,
    activity_summary: dict[str, Any] | None,
    heart: dict[str, Any] | None,
    hrv_rmssd: float | None,
    tz: tzinfo,
) -> DailySummary:
    summary = (activity_summary or {}).get("summary") or {}
    distances = {d.get("activity"): d.get("distance") for d in summary.get("distances", [])}
    total_km = distances.get("total")
    active = [summary.get(k) for k in ("fairlyActiveMinutes", "veryActiveMinutes")]
    samples = None
    resting = summary.get("restingHeartRate")
    if heart is not None:
        days = heart.get("activities-heart") or []
        if days and isinstance(days[0].get("value"), dict):
            resting = days[0]["value"].get("restingHeartRate", resting)
        dataset = (heart.get("activities-heart-intraday") or {}).get("dataset")
        if dataset is not None:
            samples = [
                HeartRateSample(
                    time=datetime.combine(day, time.fromisoformat(s["time"]), tz),
                    bpm=int(s["value"]),
                )
                for s in dataset
            ]
    return DailySummary(
        provider=ID,
        date=day,
        steps=summary.get("steps"),
        distance_m=float(total_km) * 1000 if isinstance(total_km, int | float) else None,
        calories=_num(summary, "caloriesOut"),
        active_calories=_num(summary, "activityCalories"),
        active_minutes=float(sum(a for a in active if isinstance(a, int | float)))
        if summary
        else None,
        floors=_num(summary, "floors"),
        resting_heartrate=resting,
        hrv_rmssd_ms=hrv_rmssd,
        heartrate_samples=samples,
    )
