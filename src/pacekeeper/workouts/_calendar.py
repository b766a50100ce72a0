"""The calendar's pure part: done activities matched to the day's planned workouts, and
each match's compliance (PLAN-3)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import date
from typing import Any


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


def compliance(planned: Planned, done: Done) -> dict[str, Any]:
    """How closely ``done`` followed ``planned``: ``duration_ratio`` = the activity's
    moving time / the planned duration, ``load_ratio`` = its load / the planned load
    (each to 2 decimals; None where either side is unknown). 1.0 is as planned."""
    return {"activity_id": done.id,
            "duration_ratio": _ratio(done.moving_s, planned.duration_s),
            "load_ratio": _ratio(done.load, planned.load)}


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


__all__ = ["Done", "Planned", "compliance", "days", "match"]
