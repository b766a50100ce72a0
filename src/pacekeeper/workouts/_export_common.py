"""What the workout file renderers share: reading a workout mapping, and its targets in
the units each format needs (fractions of FTP, watts, bpm, m/s).

The renderers are pure: a workout and the person's thresholds in, bytes or text out.
They read only what they render, and say which step a format cannot express rather than
drop it: a file that silently differs from the plan would be worse than no file.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, TypeGuard

from pacekeeper.errors import ValidationFailed
from pacekeeper.workouts._steps import WorkoutInvalid, check_workout


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
    """The workout as typed blocks, its shape checked by the one check of it
    (``_steps.check_workout``, which the service applies when it saves one); a bad shape
    is a ``WorkoutExportError`` with that check's message (a clear 400, not a KeyError)."""
    try:
        checked = check_workout(workout, None)
    except WorkoutInvalid as exc:
        raise WorkoutExportError(exc.message) from None
    counter = [0]
    blocks: list[Block] = [
        Repeat(item["repeat"], tuple(_typed(s, counter) for s in item["steps"]))
        if "repeat" in item else _typed(item, counter) for item in checked["steps"]]
    return Workout(name=checked["name"], sport=checked["sport"],
                   description=checked.get("description"), blocks=tuple(blocks))


def _typed(step: Mapping[str, Any], counter: list[int]) -> Step:
    counter[0] += 1
    end, target = step["end"], step.get("target")
    return Step(number=counter[0], kind=step["kind"], time_s=end.get("time_s"),
                distance_m=None if "distance_m" not in end else float(end["distance_m"]),
                target=None if target is None else Target(
                    target["type"], float(target["low"]), float(target["high"])),
                note=step.get("note"))


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
        ftp = threshold(thresholds, "ftp_watts")
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
    all_timed(workout, fmt)


def all_timed(workout: Workout, fmt: str) -> None:
    """Refuse a step that does not end after a time (``fmt`` names the format)."""
    for step in workout.flat_steps():
        if step.time_s is None:
            how = "a lap press" if step.lap_press else "a distance"
            raise WorkoutExportError(
                f"step {step.number} ends on {how}; {fmt} steps must end after a time")


__all__ = ["Block", "Repeat", "Step", "Target", "Workout",
           "WorkoutExportError", "all_timed", "pace_metres", "power_fraction", "power_only_cycling",
           "read_workout", "speed_range_m_s", "threshold", "threshold_speed_m_s", "whole"]
