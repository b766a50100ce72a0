"""Plans (issue 32): structured workouts, the calendar of planned and done, the PMC
through the plan, workout files and the calendar feed.

``_steps`` is the workout's shape (validation, derived duration, distance and load, pure);
``_calendar`` matches done activities to planned workouts (pure); ``_store`` and
``_tables`` keep them; ``WorkoutService`` (``_service``) is what HTTP and MCP call; the
``_export_*`` modules render files (pure).
"""

from pacekeeper.workouts._service import (
    FormatUnavailable,
    WorkoutNotFound,
    WorkoutService,
)
from pacekeeper.workouts._steps import Thresholds, WorkoutInvalid, check_workout, derive
from pacekeeper.workouts._store import SqlWorkoutStore

__all__ = ["FormatUnavailable", "SqlWorkoutStore", "Thresholds", "WorkoutInvalid",
           "WorkoutNotFound", "WorkoutService", "check_workout", "derive"]
