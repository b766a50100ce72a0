"""Plans (issue 32): structured workouts, the calendar of planned and done, the PMC
through the plan, workout files and the calendar feed.

``_steps`` is the workout's shape (validation, derived duration, distance and load, pure);
``_calendar`` matches done activities to planned workouts (pure); ``_store`` and
``_tables`` keep them; ``WorkoutService`` (``_service``) is what HTTP and MCP call. The
``_export_*`` modules render a workout as files (FIT, ZWO, ERG, MRC, Garmin's Training
API body) and a plan as an iCalendar feed: pure, mappings in, bytes or text out.
"""

from pacekeeper.workouts._export_common import WorkoutExportError
from pacekeeper.workouts._export_erg import render_erg, render_mrc
from pacekeeper.workouts._export_fit import render_fit
from pacekeeper.workouts._export_garmin import render_garmin_training
from pacekeeper.workouts._export_ics import render_ics
from pacekeeper.workouts._export_zwo import render_zwo
from pacekeeper.workouts._service import (
    WorkoutNotFound,
    WorkoutService,
)
from pacekeeper.workouts._steps import Thresholds, WorkoutInvalid, check_workout, derive
from pacekeeper.workouts._store import SqlWorkoutStore

__all__ = ["SqlWorkoutStore", "Thresholds", "WorkoutExportError",
           "WorkoutInvalid", "WorkoutNotFound", "WorkoutService", "check_workout", "derive",
           "render_erg", "render_fit", "render_garmin_training", "render_ics", "render_mrc",
           "render_zwo"]
