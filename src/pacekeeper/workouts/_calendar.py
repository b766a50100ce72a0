"""The calendar's pure part: done activities matched to the day's planned workouts, and
each match's compliance (PLAN-3)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import date
from typing import Any

import numpy as np

from pacekeeper.fitness.streams import StreamSet
from pacekeeper.workouts._steps import Thresholds, step_seconds


@dataclass(frozen=True, slots=True)
class Planned:
    id: str
    day: date
    sport: str  # the stored activity sport it matches (``ride`` for cycling)
    duration_s: float | None
    load: float | None


@dataclass(frozen=True, slots=True)
class Done:
    id: str
    day: date  # the activity's local day
    sport: str
    moving_s: float
    load: float | None


def _ratio(done: float | None, planned: float | None) -> float | None:
    if done is None or not planned:
        return None
    return round(done / planned, 2)


def compliance(planned: Planned, done: Done, in_target: float | None = None
               ) -> dict[str, Any]:
    """How closely ``done`` followed ``planned``: ``duration_ratio`` = the activity's
    moving time / the planned duration, ``load_ratio`` = its load / the planned load
    (each to 2 decimals; None where either side is unknown). 1.0 is as planned.
    ``time_in_target``: the share of samples in the planned target, where the
    activity's streams give one (``time_in_target``)."""
    out = {"activity_id": done.id,
           "duration_ratio": _ratio(done.moving_s, planned.duration_s),
           "load_ratio": _ratio(done.load, planned.load)}
    if in_target is not None:
        out["time_in_target"] = round(in_target, 2)
    return out


def _band(target: dict[str, Any], sport: str, th: Thresholds
          ) -> tuple[str, float, float] | None:
    """A target as (channel, low, high) in the stream's units, or None (RPE, or a
    threshold not set)."""
    low, high, kind = float(target["low"]), float(target["high"]), target["type"]
    unit_m = 100.0 if sport == "swimming" else 1000.0
    if kind == "watts":
        return "power", low, high
    if kind == "ftp_pct" and th.ftp_watts:
        return "power", low * th.ftp_watts / 100, high * th.ftp_watts / 100
    if kind == "bpm":
        return "heartrate", low, high
    if kind == "lthr_pct" and th.lthr_bpm:
        return "heartrate", low * th.lthr_bpm / 100, high * th.lthr_bpm / 100
    if kind == "pace":  # seconds per unit: the higher number is the slower speed
        return "speed", unit_m / high, unit_m / low
    if kind == "pace_pct" and th.pace_s:
        speed = unit_m / th.pace_s
        return "speed", speed * low / 100, speed * high / 100
    return None


def time_in_target(workout: dict[str, Any], th: Thresholds, streams: StreamSet
                   ) -> float | None:
    """The share of the activity's samples inside the target of the step planned at
    their time: the steps laid end to end from the activity's start (repeats expanded,
    each its planned time), up to the first step of unknown time (a lap press: the plan
    and the recording part there); a step's samples count where its target's channel
    (power, heart rate, speed) has a value. None when no sample counts (no targets, or
    no such channel)."""
    sport = workout["sport"]
    t = np.asarray(streams.time, dtype=np.float64)
    start, inside, counted = 0.0, 0, 0
    expanded: list[dict[str, Any]] = []
    for item in workout["steps"]:
        expanded += ([s for _ in range(item["repeat"]) for s in item["steps"]]
                     if "repeat" in item else [item])
    for step in expanded:
        seconds = step_seconds(step, sport, th)
        if seconds is None:
            break
        band = None if "target" not in step else _band(step["target"], sport, th)
        values = None if band is None else streams.get(band[0])
        if band is not None and values is not None:
            window = (t >= start) & (t < start + seconds) & ~np.isnan(values)
            counted += int(window.sum())
            inside += int((window & (values >= band[1]) & (values <= band[2])).sum())
        start += seconds
    return None if counted == 0 else inside / counted


def match(planned: Sequence[Planned], done: Sequence[Done]) -> dict[str, Done]:
    """Planned workout id -> the activity that did it: on each day, a sport's planned
    workouts (in the order given: created first) take that day's activities of the same
    sport in the order given (started first), one each; the rest stay unmatched."""
    pool: dict[tuple[date, str], list[Done]] = {}
    for d in done:
        pool.setdefault((d.day, d.sport), []).append(d)
    found: dict[str, Done] = {}
    for p in planned:
        waiting = pool.get((p.day, p.sport))
        if waiting:
            found[p.id] = waiting.pop(0)
    return found


def days(first: date, last: date, planned: Mapping[date, list[dict[str, Any]]],
         done: Mapping[date, list[dict[str, Any]]]) -> list[dict[str, Any]]:
    """One entry per day of [first, last] that has anything planned or done."""
    out = []
    for day in sorted(set(planned) | set(done)):
        if first <= day <= last:
            out.append({"date": day.isoformat(), "planned": planned.get(day, []),
                        "done": done.get(day, [])})
    return out


__all__ = ["Done", "Planned", "compliance", "days", "match", "time_in_target"]
