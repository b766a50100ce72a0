"""Normalized fitness records: one shape whatever provider the data came from.

Units are SI throughout (metres, seconds, m/s, watts, bpm, kcal); times are timezone-aware
UTC datetimes. ``provider`` + ``provider_id`` identify the source record, so a re-sync
updates instead of duplicating.
"""

from __future__ import annotations

from datetime import date, datetime
from enum import StrEnum
from typing import Annotated

from pydantic import (
    AwareDatetime,
    BaseModel,
    ConfigDict,
    Field,
    StringConstraints,
)

# A provider's id as ``providers.registry`` lists it: a plain string, so a new provider
# is its folder and one registry line (no enum here to extend). Its shape is checked
# here; which ids exist is the registry's business (the records come from a provider's
# own mapper, which passes its own id).
ProviderId = Annotated[str, StringConstraints(pattern=r"^[a-z][a-z0-9_]{0,31}$")]


class Sport(StrEnum):
    RUN = "run"
    RIDE = "ride"
    SWIM = "swim"
    WALK = "walk"
    HIKE = "hike"
    ROW = "row"
    SKI = "ski"
    STRENGTH = "strength"
    YOGA = "yoga"
    WORKOUT = "workout"
    OTHER = "other"


class _Record(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class _Sourced(_Record):
    provider: ProviderId
    provider_id: str = Field(min_length=1)


class Athlete(_Sourced):
    firstname: str | None = None
    lastname: str | None = None
    username: str | None = None
    sex: str | None = None  # "M", "F" or None: providers do not agree on more
    city: str | None = None
    country: str | None = None
    birth_date: date | None = None
    weight_kg: float | None = Field(default=None, ge=0)
    ftp_watts: int | None = Field(default=None, ge=0)
    max_heartrate: int | None = Field(default=None, ge=0)
    resting_heartrate: int | None = Field(default=None, ge=0)
    timezone: str | None = None
    created_at: AwareDatetime | None = None
    profile_url: str | None = None

    @property
    def display_name(self) -> str:
        name = " ".join(p for p in (self.firstname, self.lastname) if p)
        return name or self.username or self.provider_id


class Activity(_Sourced):
    athlete_id: str | None = None
    name: str | None = None
    sport: Sport
    provider_sport: str | None = None  # the provider's own label, kept for display
    start: AwareDatetime
    timezone: str | None = None
    utc_offset_s: int | None = None
    elapsed_s: float = Field(ge=0)
    moving_s: float | None = Field(default=None, ge=0)
    distance_m: float | None = Field(default=None, ge=0)
    elevation_gain_m: float | None = Field(default=None, ge=0)
    avg_speed_mps: float | None = Field(default=None, ge=0)
    max_speed_mps: float | None = Field(default=None, ge=0)
    avg_heartrate: float | None = Field(default=None, ge=0)
    max_heartrate: float | None = Field(default=None, ge=0)
    avg_watts: float | None = Field(default=None, ge=0)
    max_watts: float | None = Field(default=None, ge=0)
    weighted_avg_watts: float | None = Field(default=None, ge=0)
    kilojoules: float | None = Field(default=None, ge=0)
    avg_cadence: float | None = Field(default=None, ge=0)
    calories: float | None = Field(default=None, ge=0)
    steps: int | None = Field(default=None, ge=0)
    start_latlng: tuple[float, float] | None = None
    end_latlng: tuple[float, float] | None = None
    device_name: str | None = None
    manual: bool = False
    trainer: bool = False
    commute: bool = False
    external_id: str | None = None


class SleepStages(_Record):
    deep_min: float | None = Field(default=None, ge=0)
    light_min: float | None = Field(default=None, ge=0)
    rem_min: float | None = Field(default=None, ge=0)
    awake_min: float | None = Field(default=None, ge=0)


class SleepSession(_Sourced):
    date: date  # the night's calendar date as the provider assigns it
    start: AwareDatetime | None = None
    end: AwareDatetime | None = None
    duration_s: float = Field(ge=0)
    asleep_min: float | None = Field(default=None, ge=0)
    efficiency: float | None = Field(default=None, ge=0, le=100)
    is_main_sleep: bool = True
    stages: SleepStages | None = None


class HeartRateSample(_Record):
    time: datetime
    bpm: int = Field(ge=0)


class DailySummary(_Record):
    provider: ProviderId
    date: date
    steps: int | None = Field(default=None, ge=0)
    distance_m: float | None = Field(default=None, ge=0)
    calories: float | None = Field(default=None, ge=0)
    active_calories: float | None = Field(default=None, ge=0)
    active_minutes: float | None = Field(default=None, ge=0)
    floors: float | None = Field(default=None, ge=0)
    resting_heartrate: int | None = Field(default=None, ge=0)
    avg_heartrate: int | None = Field(default=None, ge=0)
    hrv_rmssd_ms: float | None = Field(default=None, ge=0)
    heartrate_samples: list[HeartRateSample] | None = None  # intraday, when fetched


class Zone(_Record):
    min: float
    max: float | None  # None: open-ended top zone (Strava writes -1)


class AthleteZones(_Record):
    provider: ProviderId
    heart_rate: list[Zone] = Field(default_factory=list)
    power: list[Zone] = Field(default_factory=list)


class Totals(_Record):
    count: int = Field(ge=0)
    distance_m: float = Field(ge=0)
    moving_s: float = Field(ge=0)
    elapsed_s: float = Field(ge=0)
    elevation_gain_m: float = Field(ge=0)


class AthleteStats(_Record):
    provider: ProviderId
    recent: dict[Sport, Totals] = Field(default_factory=dict)
    year_to_date: dict[Sport, Totals] = Field(default_factory=dict)
    all_time: dict[Sport, Totals] = Field(default_factory=dict)
