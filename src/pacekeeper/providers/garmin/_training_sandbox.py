"""The sandbox's Garmin Training API V2: workouts pushed to a person's Garmin Connect and
put on their calendar, kept per athlete so a test reads back what the device would get.

It checks what the reference says a body must hold (a name, a sport, segments of steps
with known intensities, durations and targets, at most 100 steps, low <= high) and
answers like Garmin: the created workout with its ``workoutId`` and ``ownerId``, a
schedule's id as a bare number, 404 for another person's workout.
"""

from __future__ import annotations

import itertools
from datetime import date
from typing import Any, TypeGuard

SPORTS = frozenset({"RUNNING", "CYCLING", "LAP_SWIMMING", "STRENGTH_TRAINING",
                    "CARDIO_TRAINING", "YOGA", "PILATES", "GENERIC"})
INTENSITIES = frozenset({"REST", "WARMUP", "COOLDOWN", "RECOVERY", "ACTIVE", "INTERVAL",
                         "MAIN"})
DURATIONS = frozenset({"TIME", "DISTANCE", "OPEN", "HR_LESS_THAN", "HR_GREATER_THAN",
                       "CALORIES", "POWER_LESS_THAN", "POWER_GREATER_THAN", "FIXED_REST",
                       "REPS"})
TARGETS = frozenset({"SPEED", "HEART_RATE", "CADENCE", "POWER", "GRADE", "RESISTANCE",
                     "POWER_3S", "POWER_10S", "POWER_30S", "POWER_LAP", "SPEED_LAP",
                     "HEART_RATE_LAP", "OPEN", "PACE"})
MAX_STEPS = 100


def workout_problem(body: Any) -> str | None:
    """What makes ``body`` a workout Garmin refuses (400), or None."""
    if not isinstance(body, dict):
        return "body must be a workout object"
    name = body.get("workoutName")
    if not isinstance(name, str) or not name.strip():
        return "workoutName is required"
    if body.get("sport") not in SPORTS:
        return "sport is not a Training API sport"
    if len(str(body.get("workoutProvider", ""))) > 20:
        return "workoutProvider is at most 20 characters"
    segments = body.get("segments")
    if not isinstance(segments, list) or not segments:
        return "segments are required"
    count = 0
    for segment in segments:
        steps = segment.get("steps") if isinstance(segment, dict) else None
        if not isinstance(steps, list) or not steps:
            return "a segment needs steps"
        for step in steps:
            problem, n = _step_problem(step, nested=False)
            if problem:
                return problem
            count += n
    return f"at most {MAX_STEPS} steps" if count > MAX_STEPS else None


def _step_problem(step: Any, *, nested: bool) -> tuple[str | None, int]:
    if not isinstance(step, dict):
        return "a step must be an object", 0
    if step.get("type") == "WorkoutRepeatStep":
        if nested:
            return "repeat steps do not nest here", 0
        if step.get("repeatType") != "REPEAT_UNTIL_STEPS_CMPLT":
            return "repeatType not supported", 0
        times = step.get("repeatValue")
        inner = step.get("steps")
        if not isinstance(times, int) or times < 1 or not isinstance(inner, list) or not inner:
            return "a repeat needs repeatValue >= 1 and steps", 0
        total = 1
        for child in inner:
            problem, n = _step_problem(child, nested=True)
            if problem:
                return problem, 0
            total += n
        return None, total
    if step.get("type") != "WorkoutStep":
        return "step type must be WorkoutStep or WorkoutRepeatStep", 0
    if step.get("intensity") not in INTENSITIES:
        return "unknown intensity", 0
    duration = step.get("durationType")
    if duration not in DURATIONS:
        return "unknown durationType", 0
    if duration != "OPEN" and not _positive(step.get("durationValue")):
        return "durationValue must be positive", 0
    target = step.get("targetType", "OPEN")
    if target not in TARGETS:
        return "unknown targetType", 0
    if target != "OPEN":
        low, high = step.get("targetValueLow"), step.get("targetValueHigh")
        if not (_positive(low) and _positive(high)) or low > high:
            return "targetValueLow and targetValueHigh must be positive, low <= high", 0
    return None, 1


def _positive(value: Any) -> TypeGuard[float]:
    return isinstance(value, int | float) and not isinstance(value, bool) and value > 0


class TrainingCalendar:
    """Workouts and schedules per athlete (in memory, as the rest of the sandbox)."""

    def __init__(self) -> None:
        self._ids = itertools.count(9_000_001)
        self._workouts: dict[int, tuple[int, dict[str, Any]]] = {}
        self._schedules: dict[int, tuple[int, int, date]] = {}

    def add_workout(self, athlete_id: int, body: dict[str, Any]) -> dict[str, Any]:
        workout_id = next(self._ids)
        stored = {**body, "workoutId": workout_id, "ownerId": athlete_id}
        self._workouts[workout_id] = (athlete_id, stored)
        return stored

    def workout(self, athlete_id: int, workout_id: str) -> dict[str, Any] | None:
        try:
            owner, body = self._workouts[int(workout_id)]
        except (KeyError, ValueError):
            return None
        return body if owner == athlete_id else None

    def delete_workout(self, athlete_id: int, workout_id: int) -> None:
        self._workouts.pop(workout_id, None)
        for key, (owner, wid, _day) in list(self._schedules.items()):
            if owner == athlete_id and wid == workout_id:
                del self._schedules[key]

    def schedule(self, athlete_id: int, workout_id: int, day: date) -> int:
        schedule_id = next(self._ids)
        self._schedules[schedule_id] = (athlete_id, workout_id, day)
        return schedule_id

    def schedules(self, athlete_id: int, start: date, end: date) -> list[dict[str, Any]]:
        return [{"scheduleId": key, "workoutId": wid, "date": day.isoformat()}
                for key, (owner, wid, day) in sorted(self._schedules.items())
                if owner == athlete_id and start <= day <= end]


__all__ = ["TrainingCalendar", "workout_problem"]
