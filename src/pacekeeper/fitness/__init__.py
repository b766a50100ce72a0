"""Fitness data: normalized models shared by providers, importers and analytics."""

from .models import (
    Activity,
    Athlete,
    AthleteStats,
    AthleteZones,
    DailySummary,
    HeartRateSample,
    ProviderId,
    SleepSession,
    SleepStages,
    Sport,
    Streams,
    Totals,
    Zone,
)

__all__ = [
    "Activity",
    "Athlete",
    "AthleteStats",
    "AthleteZones",
    "DailySummary",
    "HeartRateSample",
    "ProviderId",
    "SleepSession",
    "SleepStages",
    "Sport",
    "Streams",
    "Totals",
    "Zone",
]
