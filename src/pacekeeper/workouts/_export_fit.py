"""A workout as a FIT workout file (``file_id`` type workout, ``workout``, ``workout_step``)
that Garmin, Wahoo and COROS devices load from their ``NewFiles``/``Workouts`` folder.

Encoded with Garmin's own SDK (``garmin_fit_sdk.Encoder``, the dependency the FIT importer
already has): it writes the header, definitions, data and both CRCs from the official
profile, so nothing here re-implements the protocol. The SDK writes a field's raw value
(sub-field names such as ``duration_time`` are ignored by its encoder), so this module
applies the profile's scales itself; the conventions, from the FIT profile's
``workout_step`` sub-fields:

- duration: time in ms (``duration_time``, scale 1000), distance in cm
  (``duration_distance``, scale 100), ``open`` for a lap press; a repeat is a step of its
  own after the steps it repeats, ``repeat_until_steps_cmplt`` with ``duration_value`` =
  the ``message_index`` it goes back to and ``target_value`` = the number of times.
- target, custom range (``target_value`` 0): power 0-1000 = % FTP, above 1000 = watts +
  1000; heart rate 0-100 = % max HR, above 100 = bpm + 100; speed in m/s x 1000.

% FTP stays a percent so the device applies its own FTP; % LTHR has no FIT form, so it
becomes bpm from the LTHR. An RPE target has none either: the step gets an open target
and the RPE in its notes, where the watch shows it.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import Any

from pacekeeper.workouts._export_common import (
    Repeat,
    Step,
    Target,
    WorkoutExportError,
    read_workout,
    speed_range_m_s,
    threshold,
    whole,
)

_FILE_ID, _WORKOUT, _WORKOUT_STEP = 0, 26, 27
# The FIT profile's sport names for the workout's sports; others load as generic.
# (The workout's sports are _steps.SPORT_NAMES.)
_SPORTS = {"cycling": "cycling", "running": "running", "swimming": "swimming",
           "walk": "walking", "hike": "hiking", "row": "rowing", "strength": "training",
           "ski": "cross_country_skiing"}
_INTENSITY = {"warmup": "warmup", "active": "active", "recovery": "recovery",
              "cooldown": "cooldown", "rest": "rest"}
# A string field holds at most 255 bytes with its terminating NUL; devices show far fewer
# characters of a name, so names are kept short enough to stay readable in lists.
_NAME_BYTES, _TEXT_BYTES = 63, 254


def render_fit(workout: Mapping[str, Any], thresholds: Mapping[str, Any], *,
               created: datetime | None = None) -> bytes:
    """The workout as a FIT workout file.

    ``created`` (an aware datetime) fills ``file_id.time_created``; it is passed in rather
    than read from the clock so the same workout always renders the same bytes.
    Raises ``WorkoutExportError`` for a target that needs a threshold not given.
    """
    from garmin_fit_sdk import Encoder  # the SDK's profile costs 12-28 ms: load it on use

    plan = read_workout(workout)
    steps: list[dict[str, Any]] = []
    for block in plan.blocks:
        if isinstance(block, Repeat):
            first = len(steps)
            steps.extend([_step(s, first + i, plan.sport, thresholds)
                          for i, s in enumerate(block.steps)])
            steps.append({"mesg_num": _WORKOUT_STEP, "message_index": len(steps),
                          "duration_type": "repeat_until_steps_cmplt",
                          "duration_value": first, "target_value": block.times})
        else:
            steps.append(_step(block, len(steps), plan.sport, thresholds))

    encoder = Encoder()
    file_id: dict[str, Any] = {"mesg_num": _FILE_ID, "type": "workout",
                               "manufacturer": "development", "product": 0}
    if created is not None:
        if created.tzinfo is None:
            raise WorkoutExportError("created must be an aware datetime")
        file_id["time_created"] = created
    encoder.write_mesg(file_id)
    header: dict[str, Any] = {
        "mesg_num": _WORKOUT, "wkt_name": _clip(plan.name, _NAME_BYTES),
        "sport": _SPORTS.get(plan.sport, "generic"), "num_valid_steps": len(steps)}
    if plan.description:
        header["wkt_description"] = _clip(plan.description, _TEXT_BYTES)
    encoder.write_mesg(header)
    for step in steps:
        encoder.write_mesg(step)
    return encoder.close()


def _step(step: Step, index: int, sport: str, thresholds: Mapping[str, Any]
          ) -> dict[str, Any]:
    out: dict[str, Any] = {"mesg_num": _WORKOUT_STEP, "message_index": index,
                           "intensity": _INTENSITY[step.kind]}
    if step.time_s is not None:
        out["duration_type"], out["duration_value"] = "time", step.time_s * 1000
    elif step.distance_m is not None:
        out["duration_type"] = "distance"
        out["duration_value"] = whole(step.distance_m * 100)
    else:
        out["duration_type"] = "open"  # ends when the lap button is pressed
    notes = step.note
    target = step.target
    if target is None or target.type == "rpe":
        out["target_type"] = "open"
        if target is not None:
            rpe = f"RPE {_num(target.low)}-{_num(target.high)}"
            notes = f"{rpe}: {notes}" if notes else rpe
    else:
        kind, low, high = _custom_target(target, sport, thresholds, f"step {step.number}")
        out.update(target_type=kind, target_value=0,
                   custom_target_value_low=low, custom_target_value_high=high)
    if notes:
        out["notes"] = _clip(notes, _TEXT_BYTES)
    return out


def _custom_target(target: Target, sport: str, thresholds: Mapping[str, Any],
                   where: str) -> tuple[str, int, int]:
    """(target_type, custom low, custom high) in the profile's encodings."""
    if target.type == "ftp_pct":  # at most 300 % (the shape's check): under FIT's 1000
        return "power", whole(target.low), whole(target.high)
    if target.type == "watts":
        return "power", whole(target.low) + 1000, whole(target.high) + 1000
    if target.type == "bpm":
        return "heart_rate", whole(target.low) + 100, whole(target.high) + 100
    if target.type == "lthr_pct":
        lthr = threshold(thresholds, "lthr_bpm")
        if lthr is None:
            raise WorkoutExportError(f"{where}: a % LTHR target needs the LTHR set")
        return ("heart_rate", whole(lthr * target.low / 100) + 100,
                whole(lthr * target.high / 100) + 100)
    slow, fast = speed_range_m_s(target, sport, thresholds, where)
    return "speed", whole(slow * 1000), whole(fast * 1000)


def _clip(text: str, limit: int) -> str:
    """``text`` cut to ``limit`` UTF-8 bytes without splitting a character."""
    data = text.encode("utf-8")
    return text if len(data) <= limit else data[:limit].decode("utf-8", "ignore")


def _num(value: float) -> str:
    return f"{value:g}"


__all__ = ["render_fit"]
