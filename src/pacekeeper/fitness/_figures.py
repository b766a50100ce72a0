"""Figures in answers as a person reads them (issue 27 item 14): each names its unit, is
rounded to what the measurement supports, and a run's pace is min/km (min/mi in imperial
units), a swim's min/100 m, never km/h.

``activity_item`` / ``activity_detail`` are the activity tools' answers (the activities
HTTP API keeps ``activity_json``); the analysis answers are the AnalysisService's, rounded
there, identical to their HTTP twins. The rounding rule goes by a figure's name, so one
table serves every answer built here.
"""

from __future__ import annotations

import math
import re
from typing import Any

from pacekeeper.fitness.summary import FIGURES

# Decimals a figure supports, by the end of its name (first match wins). A heart rate or a
# power is a whole number on every device; distances to the metre, times to the second;
# ratios and model outputs to what their inputs carry.
_DECIMALS: tuple[tuple[re.Pattern[str], int], ...] = tuple(
    (re.compile(pattern), decimals) for pattern, decimals in (
        (r"(^|_)(lat|lng|latitude|longitude)$", 6),
        (r"^pool_length_m$", 2),  # a 25-yard pool is 22.86 m: to the centimetre
        (r"^hrv", 1),  # RMSSD to a tenth of a ms, as readiness shows the same day's
        (r"_s_per_\w+$", 0),  # a pace in seconds per km: to the second
        (r"_km$|^km$", 2),
        (r"_mps$|speed", 2),
        (r"(_bpm|_w|watts|_j|_kcal|_kj|_s|_m|_ms)$|^(bpm|watts)$", 0),
        # the engine's stored names (a stored activity's metrics and laps)
        (r"(^|_)(hr|heartrate|power|watts|cadence|calories)$|^(hr|power)_", 0),
        (r"(_pct|_kg|_kmh|_mph|_h|hours|_min)$|^(hours)$|(^|_)(tss|trimp|load)$", 1),
    ))
DEFAULT_DECIMALS = 2  # a unitless quantity (CTL, TSB, VDOT, IF, a ratio)


def decimals_for(name: str) -> int:
    for pattern, decimals in _DECIMALS:
        if pattern.search(name):
            return decimals
    return DEFAULT_DECIMALS


def rounded(value: Any, name: str = "") -> Any:
    """``value`` with every float rounded by its key's name (lists take their key's)."""
    if isinstance(value, float):
        if not math.isfinite(value):
            return None
        places = decimals_for(name)
        number = round(value, places)
        return int(number) if places == 0 else number
    if isinstance(value, dict):
        return {k: rounded(v, str(k)) for k, v in value.items()}
    if isinstance(value, list):
        return [rounded(v, name) for v in value]
    return value


def clock(seconds: float) -> str:
    """``m:ss`` (or ``h:mm:ss``) of a duration, rounded to the second."""
    total = round(seconds)
    hours, rest = divmod(total, 3600)
    minutes, secs = divmod(rest, 60)
    return f"{hours}:{minutes:02d}:{secs:02d}" if hours else f"{minutes}:{secs:02d}"


_PACED = {"run": 1000.0, "walk": 1000.0, "hike": 1000.0}  # sports read as a pace per km
MILE_M = 1609.344


def pace_or_speed(sport: str, speed_mps: float | None, units: str = "metric"
                  ) -> dict[str, Any]:
    """The figure a person of this sport reads: runs (walks, hikes) a pace per km or mile
    as ``m:ss``, swims per 100 m, rows per 500 m, anything else a speed in km/h (mph)."""
    if speed_mps is None or speed_mps <= 0:
        return {}
    imperial = units == "imperial"
    if sport in _PACED:
        per, key = (MILE_M, "pace_min_per_mi") if imperial else (1000.0, "pace_min_per_km")
        return {key: clock(per / speed_mps)}
    if sport == "swim":
        return {"pace_min_per_100m": clock(100.0 / speed_mps)}
    if sport == "row":
        return {"pace_min_per_500m": clock(500.0 / speed_mps)}
    if imperial:
        return {"speed_mph": round(speed_mps * 3600 / MILE_M, 1)}
    return {"speed_kmh": round(speed_mps * 3.6, 1)}


# get_activity's top-level figures under names that say their unit (the HTTP API and the
# stored metrics keep theirs): the summary's from its declaration (fitness/summary.py),
# and the one headline metric renamed.
DETAIL_NAMES = {
    **{f.http: f.tool for f in FIGURES if f.tool != f.http},
    "normalized_power": "normalized_power_w",
}


# get_daily_summaries' figures under names that say their unit (the HTTP API keeps its own).
DAILY_NAMES = {"resting_hr": "resting_hr_bpm"}


def daily_day(day: dict[str, Any]) -> dict[str, Any]:
    """A day of get_daily_summaries: resting heart rate named with its unit, rounded."""
    return {DAILY_NAMES.get(k, k): v for k, v in rounded(day).items()}


def activity_item(a: dict[str, Any], units: str = "metric") -> dict[str, Any]:
    """One line of list_activities: what tells activities apart, units in the names, no
    empty figures (a missing one is left out, not null)."""
    distance, moving = a.get("distance_m"), a.get("moving_time_s")
    # Over the moving time, as the pace a person quotes (and Strava shows); the stored
    # average speed may be over the elapsed time.
    speed = distance / moving if distance and moving else a.get("average_speed_mps")
    item: dict[str, Any] = {
        "id": a["id"], "name": a.get("name"), "sport": a["sport"],
        "start_time": a["start_time"],
        "distance_km": None if distance is None else distance / 1000,
        "moving_time_s": moving, "elapsed_time_s": a.get("elapsed_time_s"),
        "elevation_gain_m": a.get("elevation_gain_m"),
        **pace_or_speed(a["sport"], speed, units),
        "avg_hr_bpm": a.get("average_heartrate"), "max_hr_bpm": a.get("max_heartrate"),
        "avg_power_w": a.get("average_power"),
        "normalized_power_w": a.get("normalized_power"),
        "load": a.get("load"), "load_method": a.get("load_method"),
        "sources": a.get("sources") or None,  # providers / file formats it came from
    }
    return {k: v for k, v in rounded(item).items() if v is not None}


def activity_detail(a: dict[str, Any]) -> dict[str, Any]:
    """get_activity's answer: the HTTP body's fields, the top-level figures renamed to say
    their unit, every float rounded."""
    return {DETAIL_NAMES.get(k, k): v for k, v in rounded(a).items()}


__all__ = ["DAILY_NAMES", "DEFAULT_DECIMALS", "DETAIL_NAMES", "activity_detail",
           "activity_item", "clock", "daily_day", "decimals_for", "pace_or_speed", "rounded"]
