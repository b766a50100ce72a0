"""Structured workouts; this part renders them as files (FIT, ZWO, ERG, MRC) and a plan
as an iCalendar feed. The renderers are pure: mappings in, bytes or text out."""

from pacekeeper.workouts._export_common import WorkoutExportError
from pacekeeper.workouts._export_erg import render_erg, render_mrc
from pacekeeper.workouts._export_fit import render_fit
from pacekeeper.workouts._export_garmin import render_garmin_training
from pacekeeper.workouts._export_ics import render_ics
from pacekeeper.workouts._export_zwo import render_zwo

__all__ = ["WorkoutExportError", "render_erg", "render_fit", "render_garmin_training",
           "render_ics", "render_mrc", "render_zwo"]
