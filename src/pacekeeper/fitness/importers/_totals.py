"""The device's own totals against ours: which figure is shown, and ours kept beside it.

A FIT file's ``session`` and ``lap`` messages carry the recording device's own totals
(distance, elapsed and timer time, ascent, average and maximum heart rate and power,
average cadence, calories). Where the file has one, the device's figure is the one
shown and our figure (computed from the streams) is kept in ``computed`` beside it,
as Strava, Garmin Connect and GoldenCheetah show the device's: the device measured at
its own rate before any recording interval thinned the samples (smart recording,
swim lengths), counted its own pauses, read a barometer for ascent and chose how to
count zero cadence; the file cannot say how to redo each of these. Our figure stays
for files without totals (GPX, most third-party writers) and as a check.

Average speed is the shown distance over the shown moving time (as Strava shows it),
so the figures shown agree with each other.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, fields, replace
from typing import Any

from ._summary import Figures

# Figure name -> FIT session/lap field (cadence adds ``avg_fractional_cadence``).
_FIT_FIELDS = {
    "distance_m": "total_distance",
    "elapsed_s": "total_elapsed_time",
    "timer_s": "total_timer_time",
    "elevation_gain_m": "total_ascent",
    "avg_heartrate": "avg_heart_rate",
    "max_heartrate": "max_heart_rate",
    "avg_watts": "avg_power",
    "max_watts": "max_power",
    "avg_cadence": "avg_cadence",
    "calories": "total_calories",
}


@dataclass(frozen=True, slots=True)
class DeviceTotals:
    """What one session or lap message totals (None where the file has no value)."""

    distance_m: float | None = None
    elapsed_s: float | None = None
    timer_s: float | None = None
    elevation_gain_m: float | None = None
    avg_heartrate: float | None = None
    max_heartrate: float | None = None
    avg_watts: float | None = None
    max_watts: float | None = None
    avg_cadence: float | None = None
    calories: float | None = None


def _value(value: Any) -> float | None:
    # Only a plain finite non-negative number is a figure (the SDK gives a list where a
    # field and its expanded component collide, e.g. ``enhanced_avg_speed``).
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    number = float(value)
    return number if math.isfinite(number) and number >= 0 else None


def from_fit(mesg: Mapping[str, Any]) -> DeviceTotals:
    """The totals of a FIT ``session`` or ``lap`` message (decoded by the Garmin SDK)."""
    values = {name: _value(mesg.get(key)) for name, key in _FIT_FIELDS.items()}
    fraction = _value(mesg.get("avg_fractional_cadence"))
    if values["avg_cadence"] is not None and fraction is not None and fraction < 1:
        values["avg_cadence"] = values["avg_cadence"] + fraction
    if values["avg_heartrate"] == 0:  # no strap: the device writes 0 bpm
        values["avg_heartrate"] = values["max_heartrate"] = None
    return DeviceTotals(**values)


def combine(parts: Sequence[DeviceTotals]) -> DeviceTotals:
    """A multisport file's totals over its legs: distance, times, ascent and calories
    add up; averages are weighted by each leg's timer (else elapsed) time, over the legs
    that have the figure; maxima are the largest. Cadence is left out: a swim's strokes, a ride's
    revolutions and a run's strides per minute do not average into one figure."""

    def total(name: str) -> float | None:
        known = [getattr(p, name) for p in parts if getattr(p, name) is not None]
        return sum(known) if known else None

    def weighted(name: str) -> float | None:
        pairs: list[tuple[float, float]] = [
            (getattr(p, name), p.timer_s or p.elapsed_s or 0.0) for p in parts
            if getattr(p, name) is not None]
        pairs = [(v, w) for v, w in pairs if w > 0]
        weight = sum(w for _, w in pairs)
        return sum(v * w for v, w in pairs) / weight if weight else None

    def largest(name: str) -> float | None:
        known = [getattr(p, name) for p in parts if getattr(p, name) is not None]
        return max(known) if known else None

    return DeviceTotals(
        distance_m=total("distance_m"), elapsed_s=total("elapsed_s"), timer_s=total("timer_s"),
        elevation_gain_m=total("elevation_gain_m"), avg_heartrate=weighted("avg_heartrate"),
        max_heartrate=largest("max_heartrate"), avg_watts=weighted("avg_watts"),
        max_watts=largest("max_watts"), avg_cadence=None, calories=total("calories"),
    )  # fmt: skip


@dataclass(frozen=True, slots=True)
class Shown:
    """The figures shown (the device's where it has one) and ours for those it had."""

    figures: Figures
    elapsed_s: float
    timer_s: float | None
    calories: float | None
    computed: dict[str, float | None]


_SHARED = [f.name for f in fields(Figures) if f.name in _FIT_FIELDS]


def prefer_device(ours: Figures, elapsed_s: float, calories: float | None,
                  device: DeviceTotals | None, *, moving_s: float | None = None) -> Shown:
    """The figures to show: the device's total where it has one, else ours; ``computed``
    holds our value of each figure the device gave. ``moving_s``: a moving time known
    better than the streams' (a pool swim's active lengths), shown in place of ours."""
    figures = ours if moving_s is None else replace(ours, moving_s=moving_s)
    if device is None:
        return Shown(_with_speed(figures), elapsed_s, None, calories, {})
    computed: dict[str, float | None] = {}
    changes: dict[str, float | None] = {}
    for name in _SHARED:
        value = getattr(device, name)
        if value is not None:
            computed[name] = getattr(ours, name)
            changes[name] = value
    if device.elapsed_s is not None:
        computed["elapsed_s"] = elapsed_s
        elapsed_s = device.elapsed_s
    if device.calories is not None:
        calories = device.calories
    if changes:
        computed["avg_speed_mps"] = ours.avg_speed_mps
    return Shown(_with_speed(replace(figures, **changes)), elapsed_s, device.timer_s, calories,
                 computed)


def _with_speed(figures: Figures) -> Figures:
    speed = None
    if figures.distance_m is not None and figures.moving_s:
        speed = figures.distance_m / figures.moving_s
    return replace(figures, avg_speed_mps=speed)
