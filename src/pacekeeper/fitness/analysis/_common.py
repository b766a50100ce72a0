"""What the analysis modules share: constants, rounding and formatting, the local day,
stored curves on the standard grid, goal rendering and identifier parsing."""

from __future__ import annotations

import math
import uuid
from collections.abc import Callable, Sequence
from datetime import UTC, date, datetime, time, timedelta
from typing import Any, Final, Literal, overload

import numpy as np

from pacekeeper.errors import ApiError
from pacekeeper.fitness import analytics as an
from pacekeeper.fitness._errors import ActivityNotFound, FitnessInputError
from pacekeeper.fitness._figures import clock, run_pace_unit
from pacekeeper.fitness._records import Goal, PeriodRow, StoredActivity
from pacekeeper.fitness.analytics._types import FloatArray
from pacekeeper.fitness.models import Sport

Clock = Callable[[], datetime]
CurveKind = Literal["power", "hr", "pace"]

CTL_DAYS: Final = 42
ATL_DAYS: Final = 7
MAX_TIME_CONSTANT_DAYS: Final = 365
MAX_DAYS: Final = 4018  # eleven years
DEFAULT_CURVE_DURATIONS: Final = (1, 5, 10, 30, 60, 120, 300, 600, 1200, 1800, 3600, 5400,
                                  7200, 10800)
_INDEX: Final = {d: i for i, d in enumerate(an.STANDARD_DURATIONS)}
_CURVE_KEY: Final = {"power": "power_curve", "hr": "hr_curve", "pace": "speed_curve"}
RUN_SPORTS: Final = ("run", "walk", "hike")
# Power figures are one sport's: a run's power (a footpod's or a watch's model of running
# power) is another quantity than a crank's, so it never feeds cycling curves or estimates.
POWER_SPORT: Final = "ride"
_SPORTS: Final = tuple(str(s) for s in Sport)


@overload
def sport_name(text: str | None, default: str) -> str: ...
@overload
def sport_name(text: str | None, default: str | None) -> str | None: ...
def sport_name(text: str | None, default: str | None) -> str | None:
    """The sport asked for (a stored sport name), else ``default``; 400 for another word."""
    if text is None or text == "":
        return default
    if text not in _SPORTS:
        raise FitnessInputError(f"sport must be one of {', '.join(_SPORTS)}")
    return text
GOAL_KINDS: Final = ("race", "ftp", "weight", "volume")
MAX_GOALS: Final = 50


class GoalNotFound(ApiError):
    status = 404
    code = "not_found"


def _r(value: float | None, digits: int = 1) -> float | None:
    if value is None or not math.isfinite(value):
        return None
    return round(float(value), digits)


def moving_seconds(row: PeriodRow | StoredActivity) -> float:
    """An activity's moving time, else its elapsed time where the source recorded no
    moving time: the one duration every period total sums (``moving_hours``); answers
    that give elapsed time name it ``elapsed``."""
    return row.moving_s or row.elapsed_s


def _signed(value: float) -> str:
    """A TSB as every summary writes it: one decimal, signed (the field's rounding)."""
    r = _r(value)
    return f"{r:+.1f}" if r else "0.0"


def _score(score: int | None) -> str:
    return "none (no data)" if score is None else str(score)


def local_day(start_at: datetime, utc_offset_s: int | None) -> date:
    return (start_at.astimezone(UTC) + timedelta(seconds=utc_offset_s or 0)).date()


def _midnight(day: date) -> datetime:
    return datetime.combine(day, time.min, UTC)


_hms = clock  # m:ss or h:mm:ss: one definition, _figures'


def _pace(s_per_km: float, units: str = "metric") -> str:
    """A run's pace in text as the person reads it: ``4:00/km``, ``6:26/mi`` (imperial)."""
    per, unit = run_pace_unit(units)
    return f"{_hms(s_per_km * per / 1000.0)}/{unit}"


def aligned(curve: Sequence[float | None] | None, durations: Sequence[int] | None
            ) -> FloatArray:
    """A stored curve on the full ``STANDARD_DURATIONS`` grid (NaN where absent)."""
    out = np.full(len(an.STANDARD_DURATIONS), np.nan)
    if not curve or not durations:
        return out
    n = len(durations)
    if (n == len(curve) and n <= len(out) and durations[0] == an.STANDARD_DURATIONS[0]
            and durations[-1] == an.STANDARD_DURATIONS[n - 1]):
        # What import stores: the standard grid up to the activity's length (a prefix).
        out[:n] = np.array(curve, dtype=np.float64)  # None becomes NaN
        return out
    for d, v in zip(durations, curve, strict=False):
        i = _INDEX.get(int(d))
        if i is not None and v is not None:
            out[i] = float(v)
    return out


def coggan_3zone(seconds: Sequence[float], kind: str, zones: int) -> tuple[float, float, float]:
    """Seconds below / between / above the two thresholds of Seiler's 3-zone model, from
    the stored zone times: power (Coggan 7 levels): Z1 = L1-L2 (< 75 % FTP), Z2 = L3-L4
    (75-105 %), Z3 = L5-L7; HR Friel (7 zones of LTHR) and pace Friel: Z1 = zones 1-2,
    Z2 = 3-4, Z3 = 5a-5c; 5-zone HR models (Karvonen, % max): Z1 = 1-2, Z2 = 3-4, Z3 = 5."""
    s = list(seconds) + [0.0] * max(0, zones - len(seconds))
    return sum(s[0:2]), sum(s[2:4]), sum(s[4:])


def possible_efforts(stored: dict[str, float | None] | None) -> dict[str, float]:
    """An activity's stored best efforts that a runner can have run: metrics stored before
    ``best_efforts`` measured from the first sample may hold a negative time ("10 km in
    -5.0 s"); such a figure is left out until the activity is recomputed."""
    out: dict[str, float] = {}
    for name, t in (stored or {}).items():
        meters = an.BEST_EFFORT_DISTANCES.get(name)
        if t is not None and meters is not None and t >= meters / an.MAX_RUN_SPEED_MPS:
            out[name] = float(t)
    return out


READINESS_INPUTS: Final = {"hrv": ("hrv",), "resting_hr": ("resting_hr",),
                            "sleep": ("sleep_duration", "sleep_score"), "training": ("tsb",)}
# Each readiness input's unit, beside its figures (TSB is in TSS points).
READINESS_UNITS: Final = {"hrv": "ms", "resting_hr": "bpm", "sleep_duration": "h",
                          "sleep_score": "score", "tsb": "TSS"}
READINESS_NONE: Final = ("no HRV, resting heart rate or sleep recorded and no training "
                         "load: connect a device that records them on the Connections page, "
                         "or import activities (import_activity) for a training load")
SETTINGS_HOW: Final = "the update_athlete_settings tool or PATCH /api/athlete"
ZONE_SETTINGS: Final[dict[str, tuple[tuple[str, ...], str]]] = {
    "power": (("ftp_watts",), "no FTP set"),
    "hr": (("lthr_bpm", "max_hr_bpm"), "no threshold or maximum heart rate set"),
    "pace": (("threshold_pace_s_per_km",), "no threshold pace set"),
}
CHANNEL_NAMES: Final = {"power": "power", "hr": "heart rate", "pace": "run speed"}


def set_hint(names: Sequence[str]) -> str:
    """How to set a missing setting, said the same way by every answer that needs one."""
    return (f"set {' or '.join(names)} with {SETTINGS_HOW}, valid_from the first day it "
            "held: the activities from that day on are recomputed with it")


WHERE_DAYS = 30  # an activity older than this says nothing of where its athlete is now




# The unit of a goal's value (and of a feasibility's required / current figures) beside
# them, in the suffix vocabulary of answers (docs/fitness.md): a race is rated in VDOT.
GOAL_UNITS: Final = {"race": "VDOT", "ftp": "W", "weight": "kg", "volume": "h_per_week"}


def goal_json(goal: Goal) -> dict[str, Any]:
    out = {"id": str(goal.id), "kind": goal.kind, "name": goal.name,
           "date": goal.target_date.isoformat() if goal.target_date else None,
           "sport": goal.sport, "distance_m": goal.distance_m, "time_s": goal.time_s,
           "value": goal.value,
           "created_at": goal.created_at.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")}
    if goal.value is not None:
        out["unit"] = GOAL_UNITS.get(goal.kind, "")
    return out


def goal_line(goal: Goal) -> str:
    when = f" by {goal.target_date}" if goal.target_date else ""
    if goal.kind == "race" and goal.distance_m and goal.time_s:
        return f"{goal.name or 'race'} {goal.distance_m / 1000:g} km in {_hms(goal.time_s)}{when}"
    unit = {"ftp": "W FTP", "weight": "kg", "volume": "h/week"}.get(goal.kind, "")
    return f"{goal.name or goal.kind} {goal.value:g} {unit}{when}"


def _activity_uuid(text: str) -> uuid.UUID:
    try:
        return uuid.UUID(text)
    except ValueError:
        raise ActivityNotFound("no such activity") from None


def _goal_uuid(text: str) -> uuid.UUID:
    try:
        return uuid.UUID(text)
    except ValueError:
        raise GoalNotFound("no such goal") from None
