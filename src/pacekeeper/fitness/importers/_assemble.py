"""From decoded samples and file facts to a ``ParsedActivity``: one path for all formats."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Final

import numpy as np
import numpy.typing as npt

from pacekeeper.fitness.models import Sport
from pacekeeper.fitness.streams import FloatArray

from ._errors import ImportRejected
from ._summary import build_streams, figures, moved_through
from ._types import Format, ParsedActivity, ParsedLap

# The GPS epoch (1980-01-06): no recording is older; GPSBabel writes 1901-12-13 for
# "no time" and a FIT "relative" time (below 0x10000000) would land before 1999.
_EARLIEST: Final = 315_964_800.0
# The 1 Hz grid holds one value per second: a damaged timestamp years away would make
# it gigabytes. Seven days covers multi-day ultra events recorded as one activity.
MAX_SPAN_S: Final = 7 * 86_400.0


@dataclass(frozen=True, slots=True)
class RawLap:
    start_s: float  # POSIX seconds (UTC)
    elapsed_s: float
    calories: float | None


@dataclass(slots=True)
class Decoded:
    """What a format module read; ``seconds`` are POSIX seconds (UTC), one per sample."""

    format: Format
    seconds: FloatArray
    channels: dict[str, FloatArray]
    sport: Sport
    file_sport: str | None
    name: str | None = None
    utc_offset_s: int | None = None
    calories: float | None = None
    device_name: str | None = None
    laps: Sequence[RawLap] = ()
    device_metrics: Mapping[str, float] | None = None
    # POSIX [start, stop] spans while the device's timer ran (FIT timer events, TCX
    # tracks), or None when the file does not say: gaps are then judged by length.
    running: Sequence[tuple[float, float]] | None = None
    # The session's end when the file records it past the last sample (the timer's
    # final stop event): elapsed time runs to it.
    end_s: float | None = None
    # What a person should know about the import (a truncated file read in part).
    warnings: tuple[str, ...] = ()


def assemble(decoded: Decoded, sha256: str) -> ParsedActivity:
    seconds = decoded.seconds
    ok = ~np.isnan(seconds)
    if np.count_nonzero(ok) < 2:
        raise ImportRejected("not_an_activity", "the file holds fewer than two timed samples")
    seconds = seconds[ok]
    channels = {k: v[ok] for k, v in decoded.channels.items()}
    t0 = float(seconds.min())
    t1 = float(seconds.max())
    if t1 - t0 < 1.0:
        raise ImportRejected("not_an_activity", "the samples' times do not advance")
    if t1 - t0 > MAX_SPAN_S:
        raise ImportRejected(
            "corrupt",
            "the samples' times span more than 7 days: a damaged or misread timestamp",
        )
    if t0 < _EARLIEST:
        raise ImportRejected(
            "not_an_activity", "the samples' times are placeholders (before 1980), not real times"
        )
    paused = _paused(decoded.running, seconds, t0, t1)
    streams = build_streams(seconds - t0, channels, paused)
    bad = streams.unstorable()
    if bad is not None:  # a damaged field (speed 4e9 m/s): refused here, not a 500 at storage
        raise ImportRejected(
            "corrupt", f"the file's {bad} samples are far outside any possible range"
        )
    moved = moved_through(streams)  # once, for the whole and every lap
    whole = figures(streams, moved=moved, stopped=paused)
    start = datetime.fromtimestamp(t0, UTC)
    laps = []
    for i, lap in enumerate(decoded.laps):
        lo, hi = _lap_window(decoded.laps, i, t0)
        fig = figures(streams, lo, hi, moved, paused)
        laps.append(
            ParsedLap(
                start=datetime.fromtimestamp(lap.start_s, UTC),
                elapsed_s=lap.elapsed_s,
                moving_s=fig.moving_s,
                distance_m=fig.distance_m,
                avg_heartrate=fig.avg_heartrate,
                max_heartrate=fig.max_heartrate,
                avg_watts=fig.avg_watts,
                max_watts=fig.max_watts,
                avg_cadence=fig.avg_cadence,
                avg_speed_mps=fig.avg_speed_mps,
                elevation_gain_m=fig.elevation_gain_m,
                calories=lap.calories,
            )
        )
    return ParsedActivity(
        format=decoded.format,
        sha256=sha256,
        sport=decoded.sport,
        file_sport=decoded.file_sport,
        name=decoded.name,
        start=start,
        utc_offset_s=decoded.utc_offset_s,
        elapsed_s=_end(decoded.end_s, t1) - t0,
        moving_s=_within_timer(whole.moving_s, decoded.device_metrics),
        distance_m=whole.distance_m,
        elevation_gain_m=whole.elevation_gain_m,
        avg_speed_mps=whole.avg_speed_mps,
        max_speed_mps=whole.max_speed_mps,
        avg_heartrate=whole.avg_heartrate,
        max_heartrate=whole.max_heartrate,
        avg_watts=whole.avg_watts,
        max_watts=whole.max_watts,
        avg_cadence=whole.avg_cadence,
        calories=decoded.calories,
        device_name=decoded.device_name,
        laps=tuple(laps),
        streams=streams,
        device_metrics=dict(decoded.device_metrics or {}),
        warnings=decoded.warnings,
    )


def _within_timer(moving_s: float | None, device: Mapping[str, float] | None) -> float | None:
    """Moving time is part of the timer's time by definition: never more than the
    device's own ``total_timer_time`` (whole grid seconds against its fractions)."""
    timer = (device or {}).get("total_timer_time")
    if moving_s is None or not timer or timer <= 0:
        return moving_s
    return min(moving_s, timer)


def _end(end_s: float | None, t1: float) -> float:
    """The activity's end: its last sample, or the session's recorded end (a final
    timer stop after the last record) when that is later, within the span limit."""
    if end_s is None or not t1 < end_s <= t1 + MAX_SPAN_S:
        return t1
    return end_s


def _paused(running: Sequence[tuple[float, float]] | None, seconds: FloatArray,
            t0: float, t1: float) -> npt.NDArray[np.bool_] | None:
    """Per grid second, True where the timer was not running; None when the file does
    not say, or when its timer spans disagree with its samples (more than 1 % of them,
    and more than two, lie outside every span): then gaps are judged by length.

    Grid second ``k`` stands for the second that ends at ``k``: a span from ``a`` to
    ``b`` runs through ``a < k <= b``, ``b - a`` seconds of timer time, so the seconds
    counted as moving never add up to more than the device's timer (counting both ends
    of each span adds a second per pause: 47 on the Edge 500's ride)."""
    if not running:
        return None
    grid = np.arange(0, int(np.floor(t1 - t0)) + 1, dtype=np.float64)
    paused = np.ones(len(grid), dtype=bool)
    outside = np.ones(len(grid), dtype=bool)
    for start, stop in running:
        a, b = start - t0, stop - t0
        paused[(grid > a + 1e-6) & (grid <= b + 1e-6)] = False
        outside[(grid >= a - 1e-6) & (grid <= b + 1e-6)] = False
    at = np.clip(np.round(seconds - t0).astype(np.int64), 0, len(grid) - 1)
    stray = int(np.count_nonzero(outside[at]))
    if stray > max(2, 0.01 * len(seconds)):
        return None
    return paused


def _lap_window(laps: Sequence[RawLap], i: int, t0: float) -> tuple[int, int]:
    """Lap ``i``'s grid seconds ``[lo, hi)``: from its start through its end, but never
    into the next lap's first second. ``figures`` counts its distance and moving time
    from the second before ``lo``, where the previous lap ended, as devices count their
    laps' distances; so laps that follow each other share no second and add up."""
    lap = laps[i]
    lo = max(0, round(lap.start_s - t0))
    hi = round(lap.start_s - t0 + lap.elapsed_s) + 1
    if i + 1 < len(laps):
        hi = min(hi, max(lo, round(laps[i + 1].start_s - t0)))
    return lo, hi


def posix(value: datetime) -> float:
    if value.tzinfo is None:
        value = value.replace(tzinfo=UTC)
    return value.timestamp()
