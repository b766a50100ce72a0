"""Streams onto the 1 Hz grid, and the summary figures computed from them.

Every format goes through the same two steps, so a FIT, a TCX and a GPX of the same
ride give the same figures (within what each format carries):

1. ``build_streams``: samples at their own times onto the 1 Hz grid with
   ``resample_1hz``. A gap between samples of at most ``max(GAP_S, 3 x the median
   sampling interval)`` is interpolated (Garmin's smart recording writes every 1-8 s,
   old GPS loggers every 10-30 s); a longer one is a pause and its seconds stay NaN.
   A heart rate of 0 is "no strap", not a reading, and becomes NaN. Distance missing
   but positions present: cumulative great-circle (haversine) distance between
   consecutive positions. Speed missing but distance present: the
   centred difference of distance on the grid.
2. ``figures``: the summary over all seconds or over a lap's seconds.

Methods (and where they come from):

- elapsed: last sample time minus first.
- moving time: seconds with speed above ``MOVING_SPEED_MPS`` (0.5 m/s, 1.8 km/h:
  slower than any walk, faster than GPS jitter at a standstill). Without a usable
  speed (indoor rides, no speed sensor), the seconds with power or cadence above zero:
  GoldenCheetah's "time moving or pedalling" (``src/Metrics/BasicRideMetrics.cpp``).
  None when the file has neither.
- distance: the cumulative distance channel's last value (over a lap: its end value
  minus its start value).
- elevation gain: altitude with gaps removed, smoothed by a centred moving average of
  ``ELEVATION_SMOOTHING_S`` seconds, then the climbs of a zig-zag with a hysteresis of
  ``ELEVATION_HYSTERESIS_M``: a climb runs from a low point to the next high point
  and counts only when the altitude then turns down by at least the hysteresis (or the
  activity ends), and only when it is itself at least the hysteresis. This is the
  method Strava describes ("the difference between a low point and a high point ...
  a gain must exceed a threshold ... data is smoothed", support article 216917087);
  the 3 m default is GoldenCheetah's ``GC_ELEVATION_HYSTERESIS`` default.
- averages over the seconds that hold a sample (NaN excluded): heart rate, speed
  (distance over moving time, as Strava shows it), power (recorded zeros included:
  coasting is part of the ride), cadence (zeros excluded: Garmin's default
  "non-zero" cadence averaging, so the device's ``avg_cadence`` is comparable).
- maxima: the largest sample (of the speed above: derived speed without its spikes).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Final

import numpy as np
import numpy.typing as npt

from pacekeeper.fitness.streams import FloatArray, StreamSet, resample_1hz

GAP_S: Final = 10.0  # Garmin "smart recording" writes every 1-8 s while moving
MOVING_SPEED_MPS: Final = 0.5
ELEVATION_HYSTERESIS_M: Final = 3.0
ELEVATION_SMOOTHING_S: Final = 9
# Derived speed's spike filter (``despike``): a window of seven seconds outvotes a GPS
# jump (at most three seconds on the grid); smaller excesses than 2 m/s are left alone.
SPIKE_WINDOW_S: Final = 7
SPIKE_FLOOR_MPS: Final = 2.0
# Channels that change smoothly, interpolated across a recording gap of any length
# while the timer ran (the device's averages are time-weighted over its timer).
BRIDGED: Final = frozenset({"heartrate", "distance", "altitude", "lat", "lng",
                            "temperature", "grade"})
_EARTH_RADIUS_M: Final = 6_371_008.8  # mean Earth radius (IUGG)


def haversine_cumulative(lat: FloatArray, lng: FloatArray,
                         resumed: FloatArray | None = None) -> FloatArray:
    """Cumulative distance in metres along positions in degrees (NaN where no position).

    ``resumed``: True at each position where recording resumed (a GPX segment's first
    point): the way from the position before is not counted, since the recorder was off
    and the straight line between the two is not a way anyone went."""
    out = np.full(len(lat), np.nan)
    ok = ~(np.isnan(lat) | np.isnan(lng))
    if ok.sum() < 1:
        return out
    phi = np.radians(lat[ok])
    lam = np.radians(lng[ok])
    dphi = np.diff(phi)
    dlam = np.diff(lam)
    a = np.sin(dphi / 2) ** 2 + np.cos(phi[:-1]) * np.cos(phi[1:]) * np.sin(dlam / 2) ** 2
    step = 2 * _EARTH_RADIUS_M * np.arcsin(np.sqrt(np.clip(a, 0.0, 1.0)))
    if resumed is not None:
        # A resumption at a point without a position carries over to the next one.
        carried = np.cumsum(np.asarray(resumed, dtype=bool))[ok]
        step[np.diff(carried) > 0] = 0.0
    out[ok] = np.concatenate(([0.0], np.cumsum(step)))
    return out


def despike(values: FloatArray, width: int = SPIKE_WINDOW_S,
            floor: float = SPIKE_FLOOR_MPS) -> FloatArray:
    """A Hampel filter for upward spikes (Hampel 1974; Pearson 2002, "Outliers in process
    modeling and identification"): a sample more than three scaled median absolute
    deviations and ``floor`` above the median of the ``width`` samples around it becomes
    that median. NaN (a pause) is skipped over, not a neighbour, and at either end the
    window moves inward, so the first seconds after a pause are judged against the
    seconds that follow them. A jump of one GPS position lifts at most three seconds of
    derived speed on the grid; with a window of seven those are outvoted, while an effort
    of four seconds or more holds the median and is kept."""
    present = ~np.isnan(values)
    kept = values[present]
    n = kept.size
    if n < width:
        return values
    windows = np.lib.stride_tricks.sliding_window_view(kept, width)
    centre = np.median(windows, axis=1)
    spread = 1.4826 * np.median(np.abs(windows - centre[:, None]), axis=1)
    rows = np.clip(np.arange(n) - width // 2, 0, n - width)
    median = centre[rows]
    spike = kept - median > np.maximum(3.0 * spread[rows], floor)
    out = values.copy()
    out[present] = np.where(spike, median, kept)
    return out


def max_gap(seconds: FloatArray) -> float:
    """The longest gap that is interpolated rather than treated as a pause."""
    steps = np.diff(np.unique(seconds))
    if steps.size == 0:
        return GAP_S
    return max(GAP_S, 3.0 * float(np.median(steps)))


def build_streams(seconds: FloatArray, channels: Mapping[str, FloatArray],
                  paused: npt.NDArray[np.bool_] | None = None) -> StreamSet:
    """Samples (seconds since any origin, one array per channel) onto the 1 Hz grid.

    ``paused``: per grid second (from the first sample), True where the device's timer
    was stopped (``resample_1hz``); None when the file does not say."""
    raw = {name: np.asarray(v, dtype=np.float64) for name, v in channels.items()}
    heart = raw.get("heartrate")
    if heart is not None:
        raw["heartrate"] = np.where(heart > 0, heart, np.nan)
    power = raw.get("power")
    if power is not None:
        # A second the device recorded without power (a dropout of the meter) is 0 W, as
        # GoldenCheetah counts it; interpolating would make power up. Only where no
        # sample of that second has power: some apps (Strava's) write two records a
        # second, one of them with distance alone.
        missing = np.isnan(power)
        dropout = missing & ~np.isin(seconds, seconds[~missing])
        # Only where a meter was recording: from its first power sample to its last. A
        # leg or stretch with no meter at all (a triathlon's swim and bike before a run
        # with a foot pod) has no power, not 0 W (corpus finding: 157 W shown for a run
        # at 403 W, the only leg with power).
        recorded = seconds[~missing]
        dropout &= (seconds >= recorded.min()) & (seconds <= recorded.max()) if (
            recorded.size) else np.zeros(len(seconds), dtype=bool)
        if paused is not None and len(paused):
            # While the timer runs only: the record a device writes as its timer starts
            # again (Edge 1000, 500) is not a second of timer time.
            at = np.clip(np.round(seconds - seconds.min()).astype(np.int64), 0, len(paused) - 1)
            dropout &= ~paused[at]
        raw["power"] = np.where(dropout, 0.0, power)
    has_distance = "distance" in raw and bool(np.any(~np.isnan(raw["distance"])))
    resumed = raw.pop("resumed", None)  # not a channel: where recording resumed
    if not has_distance and "lat" in raw and "lng" in raw:
        derived = haversine_cumulative(raw["lat"], raw["lng"], resumed)
        if np.any(~np.isnan(derived)):
            raw["distance"] = derived
            has_distance = True
    streams = resample_1hz(seconds, raw, max_gap_s=max_gap(seconds), paused=paused,
                           bridged=BRIDGED)
    speed = streams.get("speed")
    if (speed is None or not streams.has("speed")) and has_distance:
        distance = streams.get("distance")
        if distance is not None and len(distance) > 1:
            derived_speed = despike(np.clip(np.gradient(distance), 0.0, None))
            chans = dict(streams.channels)
            chans["speed"] = derived_speed
            streams = StreamSet(streams.time, chans)
    return streams


@dataclass(frozen=True, slots=True)
class Figures:
    moving_s: float | None
    distance_m: float | None
    elevation_gain_m: float | None
    avg_speed_mps: float | None
    max_speed_mps: float | None
    avg_heartrate: float | None
    max_heartrate: float | None
    avg_watts: float | None
    max_watts: float | None
    avg_cadence: float | None


def _present(values: FloatArray | None) -> FloatArray | None:
    if values is None:
        return None
    kept = values[~np.isnan(values)]
    return kept if kept.size else None


def _mean(values: FloatArray | None) -> float | None:
    kept = _present(values)
    return None if kept is None else float(kept.mean())


def _max(values: FloatArray | None) -> float | None:
    kept = _present(values)
    return None if kept is None else float(kept.max())


def _window(streams: StreamSet, name: str, lo: int, hi: int) -> FloatArray | None:
    values = streams.get(name)
    return None if values is None else values[lo:hi]


def moved_through(streams: StreamSet) -> npt.NDArray[np.bool_] | None:
    """Per grid second: True inside a gap (no speed sample) across which the distance grew
    faster than ``MOVING_SPEED_MPS``. The recorder wrote nothing (smart recording, GPS
    lost in a tunnel) but the athlete kept moving, as the distance on either side shows;
    a pause (an auto-pause, a stop) adds no distance."""
    speed = streams.get("speed")
    distance = streams.get("distance")
    if speed is None or distance is None:
        return None
    out = np.zeros(len(speed), dtype=bool)
    missing = np.isnan(speed)
    if not missing.any():
        return out
    edges = np.diff(np.concatenate(([0], missing.astype(np.int8), [0])))
    for first, end in zip(np.flatnonzero(edges == 1), np.flatnonzero(edges == -1), strict=True):
        before, after = first - 1, end  # the samples either side of the gap
        if before < 0 or after >= len(distance):
            continue
        grown = distance[after] - distance[before]
        if grown / (after - before) > MOVING_SPEED_MPS:  # NaN (no distance) compares False
            out[first:end] = True
    return out


def moving_seconds(streams: StreamSet, lo: int, hi: int,
                   moved: npt.NDArray[np.bool_] | None = None,
                   stopped: npt.NDArray[np.bool_] | None = None) -> float | None:
    """Moving seconds in ``[lo, hi)``; ``moved``: ``moved_through(streams)``, when the
    caller asks for many windows of one activity (its laps). ``stopped``: per grid
    second, True where the device's timer was not running (a record written during a
    pause, a gap across one): never moving time, so moving time stays within the timer."""
    speed = _window(streams, "speed", lo, hi)
    whole_speed = streams.get("speed")
    # The seconds the window spans, counted from the sample before it (as its distance
    # is), or from its first sample at the start: the count is capped at that.
    span = float(max(0, hi - lo if lo > 0 else hi - lo - 1))
    running = None if stopped is None else ~stopped[lo:hi]
    if speed is not None and whole_speed is not None and np.any(whole_speed > MOVING_SPEED_MPS):
        counted = speed > MOVING_SPEED_MPS
        gaps = moved if moved is not None else moved_through(streams)
        if gaps is not None:
            counted |= gaps[lo:hi]
        if running is not None:
            counted &= running
        return min(span, float(np.count_nonzero(counted)))
    power = _window(streams, "power", lo, hi)
    cadence = _window(streams, "cadence", lo, hi)
    if power is None and cadence is None:
        return None
    active = np.zeros(hi - lo, dtype=bool)
    for values in (power, cadence):
        if values is not None:
            active |= values > 0
    if running is not None:
        active &= running
    return min(span, float(np.count_nonzero(active)))


def _distance(streams: StreamSet, lo: int, hi: int) -> float | None:
    distance = streams.get("distance")
    if distance is None or not streams.has("distance"):
        return None
    # Forward-fill: a pause holds the distance reached before it.
    index = np.where(np.isnan(distance), 0, np.arange(len(distance)))
    np.maximum.accumulate(index, out=index)
    filled = distance[index]
    first = int(np.argmax(~np.isnan(distance)))
    filled[:first] = distance[first]
    end = float(np.nanmax(filled[lo:hi])) if hi > lo else 0.0
    # From the sample before the window: where the previous lap ended (the device's own
    # lap distances are counted so), so laps that follow each other add up to the whole.
    start = float(filled[lo - 1]) if lo > 0 else 0.0
    return max(0.0, end - start)


def elevation_gain(
    altitude: FloatArray | None,
    *,
    hysteresis_m: float = ELEVATION_HYSTERESIS_M,
    smoothing_s: int = ELEVATION_SMOOTHING_S,
) -> float | None:
    """Sum of the zig-zag climbs of the smoothed altitude (see the module docstring)."""
    alt = _present(altitude)
    if alt is None:
        return None
    if alt.size > smoothing_s > 1:
        kernel = np.ones(smoothing_s) / smoothing_s
        padded = np.pad(alt, (smoothing_s // 2, smoothing_s - 1 - smoothing_s // 2), mode="edge")
        alt = np.convolve(padded, kernel, mode="valid")
    # The zig-zag only changes state at local extrema: keep the turning points (and the
    # ends), which makes the loop below run over hundreds of points, not every second.
    step = np.diff(alt)
    moving = step != 0
    alt = np.concatenate(([alt[0]], alt[1:][moving]))
    if alt.size > 2:
        slope = np.sign(np.diff(alt))
        turning = np.flatnonzero(slope[1:] != slope[:-1]) + 1
        alt = alt[np.concatenate(([0], turning, [alt.size - 1]))]
    # A turn of exactly the hysteresis counts: float error in the altitudes (4.1 - 1.1 is
    # 2.9999999999999996) must not decide it, nor the order the average was summed in.
    threshold = hysteresis_m - 1e-6
    gain = 0.0
    trend = 0  # +1 climbing, -1 descending, 0 not yet known
    anchor = low = high = float(alt[0])
    candidate = anchor
    for value in alt[1:].tolist():
        if trend == 0:
            low = min(low, value)
            high = max(high, value)
            if value - low >= threshold:
                trend, anchor, candidate = 1, low, value
            elif high - value >= threshold:
                trend, anchor, candidate = -1, high, value
        elif trend > 0:
            if value > candidate:
                candidate = value
            elif candidate - value >= threshold:
                gain += candidate - anchor
                trend, anchor, candidate = -1, candidate, value
        elif value < candidate:
            candidate = value
        elif value - candidate >= threshold:
            trend, anchor, candidate = 1, candidate, value
    if trend > 0 and candidate - anchor >= threshold:
        gain += candidate - anchor
    return gain


def figures(streams: StreamSet, lo: int = 0, hi: int | None = None,
            moved: npt.NDArray[np.bool_] | None = None,
            stopped: npt.NDArray[np.bool_] | None = None) -> Figures:
    """The summary over grid seconds ``lo`` (inclusive) to ``hi`` (exclusive); distance and
    moving time count from the second before ``lo`` (a lap from where the previous one
    ended). ``moved``, ``stopped``: as for ``moving_seconds``."""
    hi = len(streams) if hi is None else min(hi, len(streams))
    lo = max(0, min(lo, hi))
    moving = moving_seconds(streams, lo, hi, moved, stopped)
    distance = _distance(streams, lo, hi)
    cadence = _window(streams, "cadence", lo, hi)
    nonzero_cadence = None if cadence is None else cadence[cadence > 0]
    avg_speed = None
    if distance is not None and moving:
        avg_speed = distance / moving
    return Figures(
        moving_s=moving,
        distance_m=distance,
        elevation_gain_m=elevation_gain(_window(streams, "altitude", lo, hi)),
        avg_speed_mps=avg_speed,
        max_speed_mps=_max(_window(streams, "speed", lo, hi)),
        avg_heartrate=_mean(_window(streams, "heartrate", lo, hi)),
        max_heartrate=_max(_window(streams, "heartrate", lo, hi)),
        avg_watts=_mean(_window(streams, "power", lo, hi)),
        max_watts=_max(_window(streams, "power", lo, hi)),
        avg_cadence=_mean(nonzero_cadence),
    )
