"""Fitness data: normalized models, 1 Hz streams, storage, import, and the service.

``models`` holds the provider-neutral records providers map onto; ``streams`` the
columnar samples and their codec; ``importers`` reads FIT/GPX/TCX; ``analytics`` computes
every figure (pure functions); ``FitnessService`` stores and reads it all back, one
owner at a time; ``routes`` serves it over HTTP.
"""

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
from pacekeeper.fitness._service import (
    DEFAULT_STREAM_POINTS,
    MAX_STREAM_POINTS,
    FitnessService,
    ImportOutcome,
)
from pacekeeper.fitness._settings import SETTINGS, SettingsHistory
from pacekeeper.fitness._store import SqlFitnessStore
from pacekeeper.fitness._tables import TABLES
from pacekeeper.fitness._views import activity_event, activity_json, daily_json, outcome_json
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
    Streams,
    Totals,
    Zone,
)
from pacekeeper.fitness.streams import CHANNELS, StreamSet

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
    "Streams",
    "SyncState",
    "Totals",
    "Zone",
    "activity_event",
    "activity_json",
    "daily_json",
    "outcome_json",
]
