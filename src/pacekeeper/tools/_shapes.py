"""Typed result shapes of the data tools (they become each tool's outputSchema)."""

from __future__ import annotations

from typing import Any, Literal, NotRequired, Required

from pydantic import ConfigDict, with_config
from typing_extensions import TypedDict

SportName = Literal["run", "ride", "swim", "walk", "hike", "row", "ski", "strength", "yoga",
                    "workout", "other"]
StreamName = Literal["time", "power", "heartrate", "cadence", "speed", "distance", "altitude",
                     "lat", "lng", "temperature", "grade"]


# A line of list_activities: a figure the activity lacks is left out, not null. (Comments,
# not docstrings: a TypedDict's docstring becomes a description in every outputSchema.)
class ActivityItem(TypedDict, total=False):
    id: Required[str]
    name: str
    sport: Required[str]
    start_time: Required[str]
    distance_km: float
    moving_time_s: int
    elapsed_time_s: int
    elevation_gain_m: int
    pace_min_per_km: str  # m:ss (runs, walks, hikes)
    pace_min_per_mi: str  # the same in imperial units
    pace_min_per_100m: str  # swims
    pace_min_per_500m: str  # rows
    speed_kmh: float
    speed_mph: float
    avg_hr_bpm: int
    max_hr_bpm: int
    avg_power_w: int
    normalized_power_w: int
    load: float
    load_method: str
    sources: list[str]


# get_activity: the fields always there are declared; the figures (heart rate, power,
# cadence, energy, load: null when not recorded) come as the tool's description says.
@with_config(ConfigDict(extra="allow"))
class ActivityDetail(TypedDict):
    id: str
    name: str | None
    sport: str
    start_time: str
    laps: list[dict[str, Any]]
    metrics: dict[str, Any]
    device_metrics: dict[str, Any]
    streams: list[str]
    timer_time_s: NotRequired[float | None]
    legs: NotRequired[list[dict[str, Any]]]
    swim: NotRequired[dict[str, Any]]
    computed: NotRequired[dict[str, Any]]


class ActivityPage(TypedDict):
    summary: str
    activities: list[ActivityItem]
    next_cursor: str | None


class StreamsResult(TypedDict):
    activity_id: str
    points: int
    streams: dict[str, list[float | None]]
    units: dict[str, str]  # each channel's (issue 27 item 14)


class ImportOutcome(TypedDict):  # a file of a bulk export: its activity, or why not
    file: str
    status: Literal["imported", "duplicate", "merged", "rejected"]
    activity: NotRequired[ActivityItem]
    reason: NotRequired[str]
    message: NotRequired[str]
    warnings: NotRequired[list[str]]  # read in part (a truncated FIT file)


class ImportResult(TypedDict):
    summary: str
    status: Literal["imported", "duplicate", "merged", "rejected"]
    duplicate: bool
    activity: NotRequired[ActivityItem]
    results: NotRequired[list[ImportOutcome]]
    warnings: NotRequired[list[str]]  # the file was read in part (a truncated FIT file)


class Deleted(TypedDict):
    deleted: bool
    activity_id: str


class AthleteResult(TypedDict):
    summary: str
    as_of: str
    settings: dict[str, Any]
    by_sport: dict[str, Any]  # per sport: its thresholds (typed loosely: a smaller schema)
    history: dict[str, list[dict[str, Any]]]
    recomputed_activities: NotRequired[int]
    recomputing: NotRequired[bool]
    recompute_from: NotRequired[str]


class DailyDay(TypedDict, total=False):
    date: str
    sources: list[str]
    resting_hr_bpm: int
    hrv_rmssd_ms: float
    sleep_s: float
    sleep_score: float
    sleep_deep_min: float
    sleep_light_min: float
    sleep_rem_min: float
    sleep_awake_min: float
    steps: int
    weight_kg: float


class DailyResult(TypedDict):
    summary: str
    days: list[DailyDay]


__all__ = [
    "ActivityDetail",
    "ActivityItem",
    "ActivityPage",
    "AthleteResult",
    "DailyDay",
    "DailyResult",
    "Deleted",
    "ImportResult",
    "SportName",
    "StreamName",
    "StreamsResult",
]
