"""A workout as the JSON body of Garmin's Training API V2 (Connect Developer Program):
what ``POST /workoutportal/workout/v2`` takes, before ``POST /training-api/schedule``
puts it on a day of the person's Garmin Connect calendar and their device syncs it.

Shapes from the Training API V2 reference as public integrations quote it (fields
``workoutName``, ``sport``, ``segments`` of ``steps``; ``WorkoutStep`` with
``intensity``, ``durationType`` TIME/DISTANCE/OPEN and ``durationValue`` in seconds or
metres, ``targetType`` POWER/HEART_RATE/PACE/OPEN with ``targetValueLow``/``High``, PACE
as a speed in m/s; ``WorkoutRepeatStep`` with ``repeatType``
REPEAT_UNTIL_STEPS_CMPLT and ``repeatValue``; at most 100 steps in a single-sport
workout; ``workoutProvider`` and ``workoutSourceId`` at most 20 characters,
``description`` 1,024 and a step's 512). docs/providers.md names the sources.

Targets are absolute here (watts, bpm, m/s) since the API's percent forms are not in the
public reference: % FTP needs the FTP, % LTHR the LTHR, a pace_pct the threshold pace.
An RPE target has no form: the step is open, its RPE in its description.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pacekeeper.workouts._export_common import (
    Repeat,
    Step,
    WorkoutExportError,
    read_workout,
    speed_range_m_s,
    threshold,
    whole,
)

MAX_STEPS = 100  # a single-sport workout, repeat steps counted
PROVIDER = "Pacekeeper"
_SPORTS = {"cycling": "CYCLING", "running": "RUNNING", "swimming": "LAP_SWIMMING",
           "strength": "STRENGTH_TRAINING", "yoga": "YOGA"}
# A target as the API's absolute one: (its type, the threshold a percent is of, its name).
_ABSOLUTE: dict[str, tuple[str, str | None, str]] = {
    "watts": ("POWER", None, "FTP"), "ftp_pct": ("POWER", "ftp_watts", "FTP"),
    "bpm": ("HEART_RATE", None, "LTHR"), "lthr_pct": ("HEART_RATE", "lthr_bpm", "LTHR")}
_INTENSITY = {"warmup": "WARMUP", "active": "ACTIVE", "recovery": "RECOVERY",
              "cooldown": "COOLDOWN", "rest": "REST"}


def render_garmin_training(workout: Mapping[str, Any], thresholds: Mapping[str, Any], *,
                           source_id: str | None = None) -> dict[str, Any]:
    """The Training API V2 workout body. ``source_id`` (our workout's id, kept only when
    it fits the API's 20 characters) lets the person's Garmin workout be traced back.
    Raises ``WorkoutExportError`` for a target whose threshold is not set, or a workout
    longer than the API takes."""
    parsed = read_workout(workout)
    sport = _SPORTS.get(parsed.sport, "GENERIC")
    order = [0]
    steps = [_block(block, order, parsed.sport, thresholds) for block in parsed.blocks]
    if order[0] > MAX_STEPS:
        raise WorkoutExportError(
            f"Garmin takes at most {MAX_STEPS} steps in a workout; this one has {order[0]}")
    body: dict[str, Any] = {
        "workoutName": parsed.name[:100],
        "sport": sport,
        "workoutProvider": PROVIDER,
        "segments": [{"segmentOrder": 1, "sport": sport, "steps": steps}],
    }
    if parsed.description:
        body["description"] = parsed.description[:1024]
    if source_id and len(source_id) <= 20:
        body["workoutSourceId"] = source_id
    return body


def _block(block: Step | Repeat, order: list[int], sport: str,
           thresholds: Mapping[str, Any]) -> dict[str, Any]:
    order[0] += 1
    if isinstance(block, Step):
        return _step(block, order[0], sport, thresholds)
    number = order[0]
    inner = [_block(step, order, sport, thresholds) for step in block.steps]
    return {"type": "WorkoutRepeatStep", "stepOrder": number,
            "repeatType": "REPEAT_UNTIL_STEPS_CMPLT", "repeatValue": block.times,
            "steps": inner}


def _step(step: Step, number: int, sport: str, thresholds: Mapping[str, Any]
          ) -> dict[str, Any]:
    out: dict[str, Any] = {"type": "WorkoutStep", "stepOrder": number,
                           "intensity": _INTENSITY[step.kind]}
    if step.time_s is not None:
        out.update(durationType="TIME", durationValue=float(step.time_s))
    elif step.distance_m is not None:
        out.update(durationType="DISTANCE", durationValue=step.distance_m,
                   durationValueType="METER")
    else:
        out["durationType"] = "OPEN"  # the lap button ends it
    note, target, where = step.note, step.target, f"step {step.number}"
    if target is None or target.type == "rpe":
        out["targetType"] = "OPEN"
        if target is not None:
            rpe = f"RPE {target.low:g}-{target.high:g}"
            note = f"{rpe}: {note}" if note else rpe
    elif target.type in _ABSOLUTE:
        kind, relative_to, name = _ABSOLUTE[target.type]
        scale = 1.0
        if relative_to is not None:
            reference = threshold(thresholds, relative_to)
            if reference is None:
                raise WorkoutExportError(f"{where}: a % {name} target needs the {name} set")
            scale = reference / 100
        out.update(targetType=kind, targetValueLow=whole(target.low * scale),
                   targetValueHigh=whole(target.high * scale))
    else:
        slow, fast = speed_range_m_s(target, sport, thresholds, where)
        out.update(targetType="PACE", targetValueLow=round(slow, 3),
                   targetValueHigh=round(fast, 3))
    if note:
        out["description"] = note[:512]
    return out


__all__ = ["MAX_STEPS", "render_garmin_training"]
