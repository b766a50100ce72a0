"""Strava API v3 shapes -> normalized models (the real examples are in tests/data/strava)."""

from __future__ import annotations

from datetime import UTC, date, datetime
from typing import TYPE_CHECKING, Any

from pacekeeper.fitness.models import (
    Activity,
    Athlete,
    AthleteStats,
    AthleteZones,
    Sport,
    Totals,
    Zone,
)

from .._offload import json_body, shaped
from ._id import ID

if TYPE_CHECKING:  # a type only here: numpy loads on first use (below)
    from pacekeeper.fitness.streams import StreamSet

_SPORTS: dict[str, Sport] = {
    "Run": Sport.RUN, "TrailRun": Sport.RUN, "VirtualRun": Sport.RUN,
    "Ride": Sport.RIDE, "VirtualRide": Sport.RIDE, "EBikeRide": Sport.RIDE,
    "MountainBikeRide": Sport.RIDE, "GravelRide": Sport.RIDE, "EMountainBikeRide": Sport.RIDE,
    "Handcycle": Sport.RIDE, "Velomobile": Sport.RIDE,
    "Swim": Sport.SWIM, "Walk": Sport.WALK, "Hike": Sport.HIKE,
    "Rowing": Sport.ROW, "VirtualRow": Sport.ROW, "Canoeing": Sport.ROW, "Kayaking": Sport.ROW,
    "AlpineSki": Sport.SKI, "BackcountrySki": Sport.SKI, "NordicSki": Sport.SKI,
    "WeightTraining": Sport.STRENGTH, "Yoga": Sport.YOGA, "Pilates": Sport.YOGA,
    "Workout": Sport.WORKOUT, "Crossfit": Sport.WORKOUT,
    "HighIntensityIntervalTraining": Sport.WORKOUT,
}  # fmt: skip


def strava_sport(sport_type: str | None) -> Sport:
    return _SPORTS.get(sport_type or "", Sport.OTHER)


def _time(value: Any) -> datetime | None:
    if not isinstance(value, str):
        return None
    parsed = datetime.fromisoformat(value.replace("Z", "+00:00"))
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)


def _latlng(value: Any) -> tuple[float, float] | None:
    if isinstance(value, list) and len(value) == 2:
        return float(value[0]), float(value[1])
    return None


def _num(data: dict[str, Any], key: str) -> float | None:
    value = data.get(key)
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else None


def map_athlete(data: dict[str, Any]) -> Athlete:
    birth = data.get("dateofbirth")
    sex = data.get("sex")
    return Athlete(
        provider=ID,
        provider_id=str(data["id"]),
        firstname=data.get("firstname"),
        lastname=data.get("lastname"),
        username=data.get("username"),
        sex=sex if sex in ("M", "F") else None,
        city=data.get("city"),
        country=data.get("country"),
        birth_date=date.fromisoformat(birth) if isinstance(birth, str) else None,
        weight_kg=_num(data, "weight") or None,
        ftp_watts=data.get("ftp"),
        max_heartrate=data.get("max_heartrate"),
        created_at=_time(data.get("created_at")),
        profile_url=data.get("profile"),
    )


def _utc_offset(data: dict[str, Any], start: datetime) -> int | None:
    """The start's offset from UTC in seconds. Strava's documented model has
    ``start_date_local`` (the wall clock, written with a "Z" it does not mean) beside
    ``start_date``; their difference is the offset. ``utc_offset`` is read when the wall
    clock is missing (it is not in the documented model, and absent from real answers)."""
    try:
        wall = _time(data.get("start_date_local"))  # the wall clock, labelled UTC
    except ValueError:
        wall = None
    if wall is not None:
        offset = (wall - start).total_seconds()
        if abs(offset) <= 14 * 3600:  # the widest offset in use (UTC+14)
            return int(round(offset / 60) * 60)
    given = data.get("utc_offset")
    return int(given) if isinstance(given, int | float) and not isinstance(given, bool) else None


def map_activity(data: dict[str, Any]) -> Activity:
    provider_sport = data.get("sport_type") or data.get("type")
    start = _time(data.get("start_date"))
    if start is None:
        raise ValueError("activity without start_date")
    athlete = data.get("athlete")
    return Activity(
        provider=ID,
        provider_id=str(data["id"]),
        athlete_id=str(athlete["id"]) if isinstance(athlete, dict) and "id" in athlete else None,
        name=data.get("name"),
        sport=strava_sport(provider_sport),
        provider_sport=provider_sport,
        start=start,
        timezone=data.get("timezone"),
        utc_offset_s=_utc_offset(data, start),
        elapsed_s=float(data.get("elapsed_time") or 0),
        moving_s=_num(data, "moving_time"),
        distance_m=_num(data, "distance"),
        elevation_gain_m=_num(data, "total_elevation_gain"),
        avg_speed_mps=_num(data, "average_speed"),
        max_speed_mps=_num(data, "max_speed"),
        avg_heartrate=_num(data, "average_heartrate"),
        max_heartrate=_num(data, "max_heartrate"),
        avg_watts=_num(data, "average_watts"),
        max_watts=_num(data, "max_watts"),
        weighted_avg_watts=_num(data, "weighted_average_watts"),
        kilojoules=_num(data, "kilojoules"),
        avg_cadence=_num(data, "average_cadence"),
        calories=_num(data, "calories"),
        start_latlng=_latlng(data.get("start_latlng")),
        end_latlng=_latlng(data.get("end_latlng")),
        device_name=data.get("device_name"),
        manual=bool(data.get("manual")),
        trainer=bool(data.get("trainer")),
        commute=bool(data.get("commute")),
        external_id=data.get("external_id"),
    )


def map_streams(data: dict[str, Any] | list[Any]) -> StreamSet:
    """Accepts both ``key_by_type=true`` (object by type) and the list form; the samples
    on the 1 Hz grid, as a file's."""
    if isinstance(data, list):
        by_type = {s["type"]: s for s in data if isinstance(s, dict) and "type" in s}
    elif isinstance(data, dict):
        by_type = data
    else:  # a JSON string or number: it read as an AttributeError, an error 500
        raise ValueError("streams neither a list nor an object")

    def series(name: str) -> list[Any] | None:
        entry = by_type.get(name)
        return list(entry["data"]) if isinstance(entry, dict) and "data" in entry else None

    # Imported here: numpy loads with the first streams, not with the standalone
    # sandbox that imports this module for its summaries.
    from pacekeeper.fitness.streams import from_samples

    time = series("time")
    if time is None:
        raise ValueError("streams without a time series")
    return from_samples([int(t) for t in time], {
        "power": series("watts"), "heartrate": series("heartrate"),
        "cadence": series("cadence"), "speed": series("velocity_smooth"),
        "distance": series("distance"), "altitude": series("altitude"),
    }, latlng=series("latlng"))


def streams_from_json(body: bytes) -> StreamSet:
    """The streams endpoint's response body decoded and mapped: what the client sends to
    the CPU pool (issue 30, ``providers._offload``), so a top-level function."""
    data = json_body(ID, body)
    return shaped(ID, lambda: map_streams(data))


def _zones(ranges: Any) -> list[Zone]:
    zones = ranges.get("zones", []) if isinstance(ranges, dict) else []
    return [Zone(min=z["min"], max=None if z["max"] == -1 else z["max"]) for z in zones]


def map_zones(data: dict[str, Any]) -> AthleteZones:
    return AthleteZones(
        provider=ID,
        heart_rate=_zones(data.get("heart_rate")),
        power=_zones(data.get("power")),
    )


def _totals(data: Any) -> Totals | None:
    if not isinstance(data, dict):
        return None
    return Totals(
        count=int(data.get("count") or 0),
        distance_m=float(data.get("distance") or 0),
        moving_s=float(data.get("moving_time") or 0),
        elapsed_s=float(data.get("elapsed_time") or 0),
        elevation_gain_m=float(data.get("elevation_gain") or 0),
    )


def map_stats(data: dict[str, Any]) -> AthleteStats:
    def period(prefix: str) -> dict[Sport, Totals]:
        out: dict[Sport, Totals] = {}
        for sport, key in ((Sport.RIDE, "ride"), (Sport.RUN, "run"), (Sport.SWIM, "swim")):
            totals = _totals(data.get(f"{prefix}_{key}_totals"))
            if totals is not None:
                out[sport] = totals
        return out

    return AthleteStats(
        provider=ID,
        recent=period("recent"),
        year_to_date=period("ytd"),
        all_time=period("all"),
    )
