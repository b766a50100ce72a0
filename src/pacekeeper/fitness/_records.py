"""Plain records the fitness store hands out (no SQLAlchemy objects leave the store)."""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from datetime import date, datetime
from typing import Any

from pacekeeper.fitness.summary import SUMMARY_FIELDS, ActivitySummary
from pacekeeper.owner import Owner  # re-exported: its home is the leaf pacekeeper.owner

# The metrics every activity summary carries (lists read only these, not the full JSON:
# curves and zones stay in the detail view).
HEADLINE_METRICS = ("normalized_power", "intensity_factor", "tss", "load", "load_method",
                    "hr_tss", "trimp", "efficiency_factor", "variability_index")


@dataclass(frozen=True, slots=True)
class SourceRef:
    kind: str  # "provider" or "file"
    provider: str | None = None
    provider_activity_id: str | None = None
    file_sha256: str | None = None
    file_format: str | None = None
    file_name: str | None = None
    channels: int = 0
    warnings: tuple[str, ...] = ()  # a file read in part says so (FIG-11)

    def to_json(self) -> dict[str, Any]:
        if self.kind == "file":
            out: dict[str, Any] = {"kind": "file", "format": self.file_format,
                                   "sha256": self.file_sha256, "file_name": self.file_name}
            if self.warnings:
                out["warnings"] = list(self.warnings)
            return out
        return {"kind": "provider", "provider": self.provider,
                "provider_activity_id": self.provider_activity_id}


@dataclass(frozen=True, slots=True, kw_only=True)
class NewActivity(ActivitySummary):
    """An activity as a source describes it (before it gets an id): its summary figures
    (``ActivitySummary``) and what is not a figure."""

    sport: str
    start_at: datetime
    source_sport: str | None = None
    name: str | None = None
    utc_offset_s: int | None = None
    device_name: str | None = None
    laps: list[dict[str, Any]] = field(default_factory=list)
    device_metrics: dict[str, Any] = field(default_factory=dict)
    # legs, swim, timer_s, computed (docs/import.md): empty for a provider's activity.
    structure: dict[str, Any] = field(default_factory=dict)
    # The name is ours ("Morning ride"), not the source's: a merge keeps a given one.
    # Not a column.
    name_generated: bool = field(default=False, metadata={"column": False})


@dataclass(frozen=True, slots=True, kw_only=True)
class StoredActivity(ActivitySummary):
    id: uuid.UUID
    user_id: uuid.UUID
    sport: str
    source_sport: str | None
    name: str | None
    start_at: datetime
    utc_offset_s: int | None
    device_name: str | None
    laps: list[dict[str, Any]]
    metrics: dict[str, Any]
    device_metrics: dict[str, Any]
    structure: dict[str, Any]
    sources: tuple[SourceRef, ...]
    stream_channels: tuple[str, ...]
    created_at: datetime
    updated_at: datetime
    # The engine that computed its figures (fitness/_engine.py; None: before the stamp),
    # and why its file could not be read again at the last re-derivation.
    engine_version: int | None = None
    rederive_error: str | None = None
    # From a Strava export's activities.csv (fitness/exports), or the person's own edit.
    description: str | None = None
    gear: str | None = None
    commute: bool | None = None
    # The person's private notes, and the fields they edited (issue 33).
    notes: str | None = None
    edited: tuple[str, ...] = ()
    gear_id: uuid.UUID | None = None  # the person's gear it used (fitness/_gear.py)


@dataclass(frozen=True, slots=True)
class ActivityFilter:
    sport: str | None = None
    after: datetime | None = None
    before: datetime | None = None
    text: str | None = None


@dataclass(frozen=True, slots=True)
class Page:
    items: list[StoredActivity]
    next_cursor: str | None


@dataclass(frozen=True, slots=True)
class SettingValue:
    field: str
    valid_from: date
    value: Any
    source: str | None = None  # the provider it was imported from; None: the person's


@dataclass(frozen=True, slots=True)
class DailyHealth:
    day: date
    source: str
    resting_hr: float | None = None
    hrv_rmssd_ms: float | None = None
    sleep_s: float | None = None
    sleep_score: float | None = None
    sleep_deep_min: float | None = None
    sleep_light_min: float | None = None
    sleep_rem_min: float | None = None
    sleep_awake_min: float | None = None
    steps: int | None = None
    weight_kg: float | None = None


HEALTH_FIELDS = (
    "resting_hr",
    "hrv_rmssd_ms",
    "sleep_s",
    "sleep_score",
    "sleep_deep_min",
    "sleep_light_min",
    "sleep_rem_min",
    "sleep_awake_min",
    "steps",
    "weight_kg",
)


@dataclass(frozen=True, slots=True)
class SyncState:
    provider: str
    status: str
    cursor_at: datetime | None
    detail: dict[str, Any]
    started_at: datetime | None
    finished_at: datetime | None
    updated_at: datetime


@dataclass(frozen=True, slots=True)
class PeriodRow:
    """One activity for a period question: summary columns and a subset of its metrics."""

    id: uuid.UUID
    start_at: datetime
    utc_offset_s: int | None
    sport: str
    name: str | None
    elapsed_s: float
    moving_s: float | None
    distance_m: float | None
    load: float | None
    updated_at: datetime
    has_streams: bool
    metrics: dict[str, Any]


@dataclass(frozen=True, slots=True)
class Goal:
    id: uuid.UUID
    kind: str  # race, ftp, weight, volume
    name: str | None
    target_date: date | None
    sport: str | None
    distance_m: float | None
    time_s: float | None
    value: float | None
    created_at: datetime


__all__ = [
    "HEADLINE_METRICS",
    "HEALTH_FIELDS",
    "SUMMARY_FIELDS",
    "ActivityFilter",
    "DailyHealth",
    "Goal",
    "NewActivity",
    "Owner",
    "Page",
    "PeriodRow",
    "SettingValue",
    "SourceRef",
    "StoredActivity",
    "SyncState",
]
