"""Fitness data: normalized models, 1 Hz streams, storage, import, and the service.

``models`` holds the provider-neutral records providers map onto; ``streams`` the
columnar samples and their codec; ``importers`` reads FIT/GPX/TCX; ``analytics`` computes
every figure (pure functions); ``FitnessService`` stores and reads it all back, one
owner at a time; ``routes`` serves it over HTTP.
"""

from typing import TYPE_CHECKING, Any

from pacekeeper.fitness._errors import ActivityNotFound, FitnessInputError
from pacekeeper.fitness._records import (
    ActivityFilter,
    DailyHealth,
    NewActivity,
    Owner,
    Page,
    SettingValue,
    SourceRef,
    StoredActivity,
    SyncState,
)
from pacekeeper.fitness.models import (
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
    Totals,
    Zone,
)

if TYPE_CHECKING:
    from pacekeeper.fitness._gear import GearNotFound, GearService
    from pacekeeper.fitness._service import (
        DEFAULT_STREAM_POINTS,
        MAX_STREAM_POINTS,
        FitnessService,
        ImportOutcome,
    )
    from pacekeeper.fitness._settings import SETTINGS, SettingsHistory
    from pacekeeper.fitness._store import SqlFitnessStore
    from pacekeeper.fitness._tables import TABLES
    from pacekeeper.fitness._terms import withheld_reason
    from pacekeeper.fitness._views import activity_event, activity_json, daily_json, outcome_json
    from pacekeeper.fitness.streams import CHANNELS, StreamSet

# The service, its storage (SQLAlchemy) and the streams (numpy) load on first use, so a
# process that only needs the models (the standalone provider sandbox) does not pay for
# them (issue 30: docs/performance.md, "Memory per process").
_LAZY = {
    "FitnessService": "_service", "ImportOutcome": "_service",
    "DEFAULT_STREAM_POINTS": "_service", "MAX_STREAM_POINTS": "_service",
    "SETTINGS": "_settings", "SettingsHistory": "_settings",
    "SqlFitnessStore": "_store", "TABLES": "_tables",
    "activity_event": "_views", "activity_json": "_views", "daily_json": "_views",
    "outcome_json": "_views", "CHANNELS": "streams", "StreamSet": "streams",
    "withheld_reason": "_terms", "GearNotFound": "_gear", "GearService": "_gear",
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(f"{__name__}.{module}"), name)
    globals()[name] = value
    return value


__all__ = [
    "CHANNELS",
    "DEFAULT_STREAM_POINTS",
    "MAX_STREAM_POINTS",
    "SETTINGS",
    "TABLES",
    "Activity",
    "ActivityFilter",
    "ActivityNotFound",
    "Athlete",
    "AthleteStats",
    "AthleteZones",
    "DailyHealth",
    "DailySummary",
    "FitnessInputError",
    "FitnessService",
    "GearNotFound",
    "GearService",
    "HeartRateSample",
    "ImportOutcome",
    "NewActivity",
    "Owner",
    "Page",
    "ProviderId",
    "SettingValue",
    "SettingsHistory",
    "SleepSession",
    "SleepStages",
    "SourceRef",
    "Sport",
    "SqlFitnessStore",
    "StoredActivity",
    "StreamSet",
    "SyncState",
    "Totals",
    "Zone",
    "activity_event",
    "activity_json",
    "daily_json",
    "outcome_json",
    "withheld_reason",
]
