"""What the workout file renderers share: reading a workout mapping, and its targets in
the units each format needs (fractions of FTP, watts, bpm, m/s).

The renderers are pure: a workout and the person's thresholds in, bytes or text out.
They read only what they render, and say which step a format cannot express rather than
drop it: a file that silently differs from the plan would be worse than no file.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, TypeGuard

from pacekeeper.errors import ValidationFailed

KINDS = ("warmup", "active", "recovery", "cooldown", "rest")
TARGET_TYPES = ("ftp_pct", "watts", "lthr_pct", "bpm", "pace", "pace_pct", "rpe")
# The workout's sport names, plus the short names activities are stored under.
_SPORT_ALIASES = {"ride": "cycling", "run": "running", "swim": "swimming",
                  "walk": "walking", "hike": "hiking", "row": "rowing"}


class WorkoutExportError(ValidationFailed):
    """400: the workout cannot be written in the asked format (the message says why)."""

    code = "export_unsupported"


@dataclass(frozen=True, slots=True)
class Target:
    type: str
    low: float
    high: float


@dataclass(frozen=True, slots=True)
class Step:
    """One step; ``number`` counts steps from 1 in the order written, for messages."""

    number: int
    kind: str
    time_s: int | None
    distance_m: float | None
    target: Target | None
    note: str | None

    @property
    def lap_press(self) -> bool:
        return self.time_s is None and self.distance_m is None


@dataclass(frozen=True, slots=True)
class Repeat:
    times: int
    steps: tuple[Step, ...]


Block = Step | Repeat


@dataclass(frozen=True, slots=True)
class Workout:
    name: str
    sport: str
    description: str | None
    blocks: tuple[Block, ...]

    def flat_steps(self) -> list[Step]:
        """Every step in the order it is done, repeats unrolled."""
        out: list[Step] = []
        for block in self.blocks:
            out.extend(block.steps * block.times if isinstance(block, Repeat) else (block,))
        return out


def read_workout(workout: Mapping[str, Any]) -> Workout:
    """The mapping as typed blocks; a shape a renderer cannot read is a WorkoutExportError.

    The workouts service validates workouts when they are saved; this only guards the
    renderers against a mapping that never went through it (a clear error, not a KeyError).
    """
    name = workout.get("name")
    if not isinstance(name, str) or not name.strip():
        raise WorkoutExportError("the workout needs a name")
    sport = workout.get("sport")
    if not isinstance(sport, str) or not sport:
        raise WorkoutExportError("the workout needs a sport")
    description = workout.get("description")
    raw_steps = workout.get("steps")
    if not isinstance(raw_steps, Sequence) or isinstance(raw_steps, str) or not raw_steps:
        raise WorkoutExportError("the workout needs at least one step")
    counter = [0]
    blocks: list[Block] = []
    for raw in raw_steps:
        if isinstance(raw, Mapping) and "repeat" in raw:
            times = raw.get("repeat")
            inner = raw.get("steps")
            if not isinstance(times, int) or isinstance(times, bool) or times < 1:
                raise WorkoutExportError("a repeat needs a whole number of times, 1 or more")
            if not isinstance(inner, Sequence) or isinstance(inner, str) or not inner:
                raise WorkoutExportError("a repeat needs at least one step")
            blocks.append(Repeat(times, tuple(_read_step(s, counter) for s in inner)))
        else:
            blocks.append(_read_step(raw, counter))
    return Workout(name=name.strip(), sport=_SPORT_ALIASES.get(sport, sport),
                   description=description if isinstance(description, str) else None,
                   blocks=tuple(blocks))


def _read_step(raw: object, counter: list[int]) -> Step:
    counter[0] += 1
    number = counter[0]
    if not isinstance(raw, Mapping):
        raise WorkoutExportError(f"step {number} is not an object")
    if isinstance(raw.get("steps"), Sequence) and "repeat" not in raw:
        raise WorkoutExportError(f"step {number}: steps inside a step need a repeat count")
    kind = raw.get("kind")
    if kind not in KINDS:
        raise WorkoutExportError(f"step {number}: kind must be one of {', '.join(KINDS)}")
    end = raw.get("end")
    if not isinstance(end, Mapping):
        raise WorkoutExportError(f"step {number} needs an end (time_s, distance_m or lap_press)")
    time_s = end.get("time_s")
    distance_m = end.get("distance_m")
    if time_s is not None:
        if not _is_number(time_s) or time_s <= 0:
            raise WorkoutExportError(f"step {number}: time_s must be a positive number")
        time_s = whole(time_s)
        distance_m = None
    elif distance_m is not None:
        if not _is_number(distance_m) or distance_m <= 0:
            raise WorkoutExportError(f"step {number}: distance_m must be a positive number")
        distance_m = float(distance_m)
    elif end.get("lap_press") is not True:
        raise WorkoutExportError(f"step {number} needs an end (time_s, distance_m or lap_press)")
    note = raw.get("note")
    return Step(number=number, kind=str(kind), time_s=time_s, distance_m=distance_m,
                target=_read_target(raw.get("target"), number),
                note=note if isinstance(note, str) and note else None)


def _read_target(raw: object, number: int) -> Target | None:
    if raw is None:
        return None
    if not isinstance(raw, Mapping) or raw.get("type") not in TARGET_TYPES:
        raise WorkoutExportError(
            f"step {number}: a target's type must be one of {', '.join(TARGET_TYPES)}")
    low, high = raw.get("low"), raw.get("high")
    if not _is_number(low) or not _is_number(high) or low < 0 or high < 0:
        raise WorkoutExportError(f"step {number}: a target needs numbers low and high")
    return Target(str(raw["type"]), float(min(low, high)), float(max(low, high)))


def whole(value: float) -> int:
    """``value`` rounded half up (137.5 W -> 138), not to even as ``round`` does, so the
    numbers in a file are the ones a person computes by hand."""
    return math.floor(value + 0.5)


def _is_number(value: object) -> TypeGuard[float]:
    return isinstance(value, int | float) and not isinstance(value, bool)


def threshold(thresholds: Mapping[str, Any], key: str) -> float | None:
    value = thresholds.get(key)
    return float(value) if _is_number(value) and value > 0 else None


def threshold_speed_m_s(sport: str, thresholds: Mapping[str, Any]) -> float | None:
    """The sport's threshold pace as a speed (a swim's may be given per 100 m)."""
    if sport == "swimming":
        per_100 = threshold(thresholds, "threshold_pace_s_per_100m")
        if per_100 is not None:
            return 100.0 / per_100
    per_km = threshold(thresholds, "threshold_pace_s_per_km")
    return 1000.0 / per_km if per_km is not None else None


def pace_metres(sport: str) -> float:
    """The distance a "pace" target is per: 100 m in the water, 1 km elsewhere."""
    return 100.0 if sport == "swimming" else 1000.0


def speed_range_m_s(target: Target, sport: str, thresholds: Mapping[str, Any],
                    where: str) -> tuple[float, float]:
    """A pace or pace_pct target as (slowest, fastest) in m/s.

    A pace is seconds per km (per 100 m swimming): the higher number is the slower end.
    A pace_pct is a percent of the threshold speed, so 105 % is faster than threshold
    (the convention of Zwift's run workouts and TrainingPeaks).
    """
    if target.type == "pace":
        if target.low <= 0:
            raise WorkoutExportError(f"{where}: a pace must be above 0 s")
        unit = pace_metres(sport)
        return unit / target.high, unit / target.low
    speed = threshold_speed_m_s(sport, thresholds)
    if speed is None:
        raise WorkoutExportError(f"{where}: a pace_pct target needs the threshold pace set")
    return speed * target.low / 100, speed * target.high / 100


def power_fraction(target: Target | None, thresholds: Mapping[str, Any],
                   where: str) -> tuple[float, float]:
    """A power target as fractions of FTP (low, high); what ZWO and MRC files hold."""
    if target is None:
        raise WorkoutExportError(f"{where} has no power target; this format needs one")
    if target.type == "ftp_pct":
        return target.low / 100, target.high / 100
    if target.type == "watts":
        ftp = threshold(thresholds, "ftp_w")
        if ftp is None:
            raise WorkoutExportError(f"{where}: a target in watts needs the FTP set")
        return target.low / ftp, target.high / ftp
    raise WorkoutExportError(
        f"{where} targets {target.type}; this format holds only power (ftp_pct or watts)")


def power_only_cycling(workout: Workout, fmt: str) -> None:
    """ERG, MRC and a bike ZWO are trainer files: a ride whose steps all end on time."""
    if workout.sport != "cycling":
        raise WorkoutExportError(
            f"{fmt} files are for cycling on a trainer; this workout is {workout.sport}")
    for step in workout.flat_steps():
        if step.time_s is None:
            how = "a lap press" if step.lap_press else "a distance"
            raise WorkoutExportError(
                f"step {step.number} ends on {how}; {fmt} steps must end after a time")


__all__ = ["KINDS", "TARGET_TYPES", "Block", "Repeat", "Step", "Target", "Workout",
           "WorkoutExportError", "pace_metres", "power_fraction", "power_only_cycling",
           "read_workout", "speed_range_m_s", "threshold", "threshold_speed_m_s", "whole"]
