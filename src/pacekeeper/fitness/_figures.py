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
from typing import Any, TypeVar, cast

from pacekeeper.fitness.streams import CHANNELS
from pacekeeper.fitness.summary import FIGURES

T = TypeVar("T")

DEFAULT_DECIMALS = 2  # a unitless quantity (IF, EF, VI, ACWR, monotony, a z-score)
# Decimals a figure supports, by its name's unit (first match wins): the vocabulary of
# docs/fitness.md ("Units in answers"), which tests/pacekeeper/fitness/test_answer_units.py
# holds every answer to. A heart rate or a power is a whole number on every device;
# distances to the metre, times to the second, a pace to the second per km (or 100 m);
# ratios and model outputs to what their inputs carry.
_DECIMALS: tuple[tuple[re.Pattern[str], int], ...] = tuple(
    (re.compile(pattern), decimals) for pattern, decimals in (
        (r"(^|_)(lat|lng|latitude|longitude)$", 6),
        (r"^pool_length_m$", 2),  # a 25-yard pool is 22.86 m: to the centimetre
        (r"_deg$", 6),  # a position to 0.1 m
        (r"^hrv", 1),  # RMSSD to a tenth of a ms, as readiness shows the same day's
        (r"_s_per_\w+$", 0),  # a pace in seconds per km (mile, 100 m): to the second
        (r"_w_per_kg$", 2),
        (r"_ml_per_kg_min$", 1),
        (r"_km$|^km$|_mi$", 2),
        (r"_mps$", 2),
        (r"(_bpm|_w|_watts|_j|_kj|_kcal|_rpm|_spm|_per_min|_s|_m|_mm|_c|_days)$"
         r"|^(bpm|watts|seconds)$", 0),
        # the engine's stored names (a stored activity's metrics and laps)
        (r"(^|_)(hr|heartrate|power|watts|cadence|calories)$|^(hr|power)_", 0),
        (r"(_pct|_kg|_kmh|_mph|_h|_hours|_min|_weeks|_ms)$|^(hours)$", 1),
        (r"^weeks_", 1), (r"^days_", 0),  # a name that begins with its unit
        (r"^sessions$", 0),  # a count (per week: to a tenth)
        (r"speed", 2),  # the engine's stored speeds (m/s)
        # unitless quantities: TSS points and the models' outputs, shares and fits, scores
        (r"(^|_)(tss|rtss|trimp|load|ctl|atl|tsb|vdot|vo2max|ramp|ramp_rate)(_|$)", 1),
        (r"(^|_)(r_squared|p_value|share)(_|$)", 3),
        (r"^score_points$", 1),  # a readiness input's part of the score
        (r"(^|_)(strain|score)(_|$)", 0),
        (r"^(z|weight)$", DEFAULT_DECIMALS),  # a readiness input's (unitless beside a unit)
    ))
_PER_WEEK = "_per_week"  # a rate: its quantity's unit per week, one decimal more


def _decimals(name: str) -> int | None:
    if name.endswith(_PER_WEEK) and name != _PER_WEEK:
        base = _decimals(name.removesuffix(_PER_WEEK))
        return None if base is None else base + 1
    for pattern, decimals in _DECIMALS:
        if pattern.search(name):
            return decimals
    return None


def decimals_for(name: str) -> int:
    found = _decimals(name)
    return DEFAULT_DECIMALS if found is None else found


def rounded(value: Any, name: str = "") -> Any:
    """``value`` with every float rounded by its key's name (lists take their key's; a
    table keyed by zone, duration or sport takes its own name's: ``time_in_zones_s``)."""
    if isinstance(value, float):
        if not math.isfinite(value):
            return None
        places = decimals_for(name)
        number = round(value, places)
        return int(number) if places == 0 else number
    if isinstance(value, dict):
        # A unit beside the figures ({"name": "hrv", "unit": "ms", "value": 46.73}) or a
        # map of them ({"streams": ..., "units": {"heartrate": "bpm"}}) names theirs.
        beside = value.get("unit")
        units: dict[str, Any] = (value["units"] if isinstance(value.get("units"), dict)
                                 else {})
        out = {}
        for k, v in value.items():
            if units and isinstance(v, dict):  # the table the map names (streams)
                out[k] = {c: rounded(x, f"{c}_{units[c].lower()}" if c in units else str(c))
                          for c, x in v.items()}
                continue
            key, unit = str(k), units.get(k) or beside
            if isinstance(unit, str) and (k in units or _decimals(key) is None):
                key = f"{key}_{unit.lower()}"
            elif _decimals(key) is None and name:
                key = name
            out[k] = rounded(v, key)
        return out
    if isinstance(value, list):
        return [rounded(v, name) for v in value]
    return value


def rounded_answer(answer: T) -> T:
    """A tool's typed answer with every figure rounded by its name (the one place the
    analysis answers are rounded: ``tools._analysis_base``)."""
    return cast(T, rounded(answer))


# A stream channel's unit in the answers' vocabulary (get_activity_streams' "units").
_STREAM_UNITS = {"m/s": "mps", "%": "pct"}


def stream_units(names: list[str]) -> dict[str, str]:
    """The unit of each of these stream channels (time in s from the start)."""
    return {n: "s" if n == "time" else _STREAM_UNITS.get(CHANNELS[n].unit, CHANNELS[n].unit)
            for n in names if n == "time" or n in CHANNELS}


def streams_answer(streams: dict[str, Any]) -> tuple[dict[str, Any], dict[str, str]]:
    """get_activity_streams' channels, each rounded by its unit, and their units."""
    units = stream_units(list(streams))
    shown: dict[str, Any] = rounded({"streams": streams, "units": units})["streams"]
    return shown, units


def clock(seconds: float) -> str:
    """``m:ss`` (or ``h:mm:ss``) of a duration, rounded to the second."""
    total = round(seconds)
    hours, rest = divmod(total, 3600)
    minutes, secs = divmod(rest, 60)
    return f"{hours}:{minutes:02d}:{secs:02d}" if hours else f"{minutes}:{secs:02d}"


_PACED = {"run": 1000.0, "walk": 1000.0, "hike": 1000.0}  # sports read as a pace per km
MILE_M = 1609.344


def run_pace_unit(units: str = "metric") -> tuple[float, str]:
    """A run's pace as the person reads it: seconds per (metres, the unit that names the
    field and the text): per km, per mile in imperial units (``pace_s_per_mi``,
    ``4:00/km`` = ``6:26/mi``). A swim's pace stays per 100 m in either (``pace_or_speed``,
    ``speed_figure``), as pools are measured in metres or yards by the pool, not the person."""
    return (MILE_M, "mi") if units == "imperial" else (1000.0, "km")


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


# A stored activity's metrics (the engine's names) under names that say their unit
# (analyze_activity, compare_activities, get_activity); speeds go through speed_figure.
METRIC_NAMES = {
    "normalized_power": "normalized_power_w", "avg_power": "avg_power_w",
    "max_power": "max_power_w", "avg_hr": "avg_hr_bpm", "max_hr": "max_hr_bpm",
    "avg_cadence": "avg_cadence_per_min", "max_cadence": "max_cadence_per_min",
}
SPEED_METRICS = ("avg_speed", "max_speed", "normalized_graded_speed")
# Paced sports: seconds per this many metres, and the suffix that says so.
_PACE_PER = {"run": (1000.0, "_s_per_km"), "walk": (1000.0, "_s_per_km"),
             "hike": (1000.0, "_s_per_km"), "swim": (100.0, "_s_per_100m"),
             "row": (500.0, "_s_per_500m")}


def speed_figure(sport: str, name: str, speed_mps: float, units: str = "metric"
                 ) -> tuple[str, float] | None:
    """A speed named ``name`` (``avg_speed``, ``speed_60s``) as this sport's people read
    it: a run's pace in s/km (``avg_pace_s_per_km``; s/mi in imperial units), a swim's
    per 100 m, a row's per 500 m, anything else km/h (mph); None for no movement."""
    if not speed_mps > 0:
        return None
    imperial = units == "imperial"
    if sport in _PACE_PER:
        per, suffix = _PACE_PER[sport]
        if imperial and suffix == "_s_per_km":
            per, suffix = MILE_M, "_s_per_mi"
        return name.replace("speed", "pace") + suffix, per / speed_mps
    if imperial:
        return name + "_mph", speed_mps * 3600 / MILE_M
    return name + "_kmh", speed_mps * 3.6


# get_activity's figures under names that say their unit, at every level (top, metrics,
# laps, the computed totals beside the device's); the HTTP API and the store keep theirs.
# The summary's top-level ones from its declaration (fitness/summary.py).
DETAIL_NAMES = {
    **{f.http: f.tool for f in FIGURES if f.tool != f.http},
    "avg_heartrate": "avg_hr_bpm", "avg_hr": "avg_hr_bpm", "max_hr": "max_hr_bpm",
    "avg_watts": "avg_power_w", "avg_power": "avg_power_w", "max_watts": "max_power_w",
    "normalized_power": "normalized_power_w", "avg_cadence": "avg_cadence_per_min",
    "avg_speed": "avg_speed_mps", "max_speed": "max_speed_mps",
    "normalized_graded_speed": "normalized_graded_speed_mps",
    "curve_durations": "curve_durations_s", "power_curve": "power_curve_w",
    "hr_curve": "hr_curve_bpm", "speed_curve": "speed_curve_mps",
    "power_zone_bounds": "power_zone_bounds_w", "hr_zone_bounds": "hr_zone_bounds_bpm",
    "pace_zone_bounds": "pace_zone_bounds_mps",
    "time_in_power_zones": "time_in_power_zones_s", "time_in_hr_zones": "time_in_hr_zones_s",
    "time_in_pace_zones": "time_in_pace_zones_s", "best_efforts": "best_efforts_s",
}
# The device's own totals (FIT session fields, in the FIT profile's units): the unit
# their name ends in, by the end of the name (first match wins; "_percent" becomes
# "_pct"). A field none matches is a count or a unitless figure (total_strokes, swolf).
_DEVICE_UNITS: tuple[tuple[re.Pattern[str], str], ...] = tuple(
    (re.compile(pattern), suffix) for pattern, suffix in (
        (r"stance_time$", "_ms"), (r"(step_length|vertical_oscillation)$", "_mm"),
        (r"_time$", "_s"), (r"(distance|ascent|descent)$", "_m"), (r"speed$", "_mps"),
        (r"heart_rate$", "_bpm"), (r"power$", "_w"), (r"cadence$", "_per_min"),
        (r"calories$", "_kcal"), (r"temperature$", "_c"),
        (r"(balance|ratio|smoothness|effectiveness)$", "_pct"),
    ))


def device_name(name: str) -> str:
    """A device total's FIT field name with its unit (``total_timer_time_s``)."""
    if name.endswith("_percent"):
        return name.removesuffix("_percent") + "_pct"
    for pattern, suffix in _DEVICE_UNITS:
        if pattern.search(name):
            return name + suffix
    return name


def _named(value: Any) -> Any:
    """``value`` with every stored name of DETAIL_NAMES renamed, at every level; the
    device's totals by ``device_name``."""
    if isinstance(value, dict):
        return {DETAIL_NAMES.get(k, k): ({device_name(d): x for d, x in v.items()}
                                         if k == "device_metrics" and isinstance(v, dict)
                                         else _named(v)) for k, v in value.items()}
    if isinstance(value, list):
        return [_named(v) for v in value]
    return value


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
    """get_activity's answer: the HTTP body's fields, every figure renamed to say its
    unit (at every level: metrics, laps, the device's totals), then rounded by it."""
    named: dict[str, Any] = rounded(_named(a))
    return named


__all__ = ["DAILY_NAMES", "DEFAULT_DECIMALS", "DETAIL_NAMES", "METRIC_NAMES", "SPEED_METRICS",
           "activity_detail", "activity_item", "clock", "daily_day", "decimals_for", "device_name",
           "pace_or_speed", "rounded", "rounded_answer", "run_pace_unit", "speed_figure",
           "stream_units", "streams_answer"]
