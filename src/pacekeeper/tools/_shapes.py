"""Typed result shapes of the data tools (they become each tool's outputSchema)."""

from __future__ import annotations

from typing import Any, Literal, NotRequired

from typing_extensions import TypedDict

SportName = Literal["run", "ride", "swim", "walk", "hike", "row", "ski", "strength", "yoga",
                    "workout", "other"]
StreamName = Literal["time", "power", "heartrate", "cadence", "speed", "distance", "altitude",
                     "lat", "lng", "temperature", "grade"]


class ActivitySummary(TypedDict):
    id: str
    name: str | None
    sport: str
    start_time: str
    elapsed_time_s: float | None
    moving_time_s: float | None
    distance_m: float | None
    elevation_gain_m: float | None
    average_speed_mps: float | None
    average_heartrate: float | None
    max_heartrate: float | None
    average_power: float | None
    max_power: float | None
    average_cadence: float | None
    calories: float | None
    normalized_power: float | None
    intensity_factor: float | None
    tss: float | None
    load: float | None
    load_method: str | None
    hr_tss: float | None
    trimp: float | None
    efficiency_factor: float | None
    variability_index: float | None
    sources: list[Any]
    streams: list[str]


class ActivityDetail(ActivitySummary):
    start_time_utc: str
    utc_offset_s: int | None
    source_sport: str | None
    max_speed_mps: float | None
    device: str | None
    laps: list[dict[str, Any]]
    metrics: dict[str, Any]
    device_metrics: dict[str, Any]
    timer_time_s: NotRequired[float | None]
    legs: NotRequired[list[dict[str, Any]]]
    swim: NotRequired[dict[str, Any]]
    computed: NotRequired[dict[str, Any]]
    created_at: str
    updated_at: str


class ActivityPage(TypedDict):
    summary: str
    activities: list[ActivitySummary]
    next_cursor: str | None


class StreamsResult(TypedDict):
    activity_id: str
    points: int
    streams: dict[str, list[float | None]]


class ImportResult(TypedDict):
    summary: str
    status: Literal["imported", "duplicate", "merged", "rejected"]
    duplicate: bool
    activity: NotRequired[ActivityDetail]
    results: NotRequired[list[dict[str, Any]]]


class Deleted(TypedDict):
    deleted: bool
    activity_id: str


class AthleteResult(TypedDict):
    summary: str
    as_of: str
    settings: dict[str, Any]
    by_sport: dict[str, dict[str, Any]]
    history: dict[str, list[dict[str, Any]]]
    recomputed_activities: NotRequired[int]
    recomputing: NotRequired[bool]
    recompute_from: NotRequired[str]


class DailyDay(TypedDict, total=False):
    date: str
    sources: list[str]
    resting_hr: float
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
    "ActivityPage",
    "ActivitySummary",
    "AthleteResult",
    "DailyDay",
    "DailyResult",
    "Deleted",
    "ImportResult",
    "SportName",
    "StreamName",
    "StreamsResult",
]
