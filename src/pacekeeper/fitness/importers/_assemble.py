"""From decoded samples and file facts to a ``ParsedActivity``: one path for all formats."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, replace
from datetime import UTC, datetime
from typing import Any, Final

import numpy as np
import numpy.typing as npt

from pacekeeper.fitness.models import Sport
from pacekeeper.fitness.streams import FloatArray, StreamSet, resample_1hz

from ._errors import ImportRejected
from ._summary import GAP_S, Figures, build_streams, figures, moved_through
from ._totals import DeviceTotals, Shown, combine, prefer_device
from ._types import Format, ParsedActivity, ParsedLap, ParsedLeg, SwimSummary

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
    device: DeviceTotals | None = None  # the lap message's own totals


@dataclass(frozen=True, slots=True)
class RawLeg:
    """One session of a multisport file."""

    start_s: float  # POSIX seconds (UTC)
    sport: Sport
    file_sport: str | None
    transition: bool
    device: DeviceTotals


@dataclass(frozen=True, slots=True)
class RawLength:
    """One pool length (FIT ``length``): active (swum) or idle (rest)."""

    start_s: float  # POSIX seconds (UTC)
    elapsed_s: float
    timer_s: float
    active: bool
    strokes: float | None
    stroke: str | None


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
    device_totals: DeviceTotals | None = None  # the session's own totals (one session)
    legs: Sequence[RawLeg] = ()  # a multisport file's sessions
    pool_length_m: float | None = None  # a pool swim (with its lengths)
    lengths: Sequence[RawLength] = ()
    # Heart rate on its own clock (FIT ``hr`` messages): (POSIX seconds, bpm).
    heartrate_samples: tuple[FloatArray, FloatArray] | None = None
    # POSIX [start, stop] spans while the device's timer ran (FIT timer events, TCX
    # laps and tracks), or None when the file does not say: gaps are judged by length.
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
    if decoded.heartrate_samples is not None:
        streams = _with_heart_rates(streams, t0, *decoded.heartrate_samples)
    bad = streams.unstorable()
    if bad is not None:  # a damaged field (speed 4e9 m/s): refused here, not a 500 at storage
        raise ImportRejected(
            "corrupt", f"the file's {bad} samples are far outside any possible range"
        )
    pool = _Pool(decoded, streams, t0) if decoded.pool_length_m and decoded.lengths else None
    moved = moved_through(streams)  # once, for the whole, every lap and leg
    laps = []
    for i, lap in enumerate(decoded.laps):
        lo, hi = _lap_window(decoded.laps, i, t0)
        ours = figures(streams, lo, hi, moved, paused)
        swim = None
        if pool is not None:
            ours, swim = pool.lap(ours, lap.start_s, lap.start_s + lap.elapsed_s, lo, hi)
        shown = prefer_device(ours, float(max(0, hi - lo)), lap.calories, lap.device)
        laps.append(_lap(lap, shown, swim))
    legs = [_leg(decoded.legs, i, t0, streams, moved, paused)
            for i in range(len(decoded.legs))]
    ours = figures(streams, moved=moved, stopped=paused)
    ours = replace(ours, moving_s=_within_timer(ours.moving_s, decoded.device_metrics))
    if pool is not None:
        ours = pool.whole(ours)
    device = decoded.device_totals
    if legs:  # the activity is the sum of its legs (each the device's, else ours)
        device = combine([_as_totals(leg) for leg in legs])
    whole = prefer_device(ours, _end(decoded.end_s, t1) - t0, decoded.calories, device)
    fig = whole.figures
    if legs:  # strokes, revolutions and strides a minute make no one cadence: each leg's
        fig = replace(fig, avg_cadence=None)
    return ParsedActivity(
        format=decoded.format,
        sha256=sha256,
        sport=decoded.sport,
        file_sport=decoded.file_sport,
        name=decoded.name,
        start=datetime.fromtimestamp(t0, UTC),
        utc_offset_s=decoded.utc_offset_s,
        # The figures computed from the streams (or the device's), by name: a figure
        # added to ``Figures`` and ``ActivitySummary`` arrives here without an edit.
        **asdict(fig),
        elapsed_s=whole.elapsed_s,
        calories=whole.calories,
        device_name=decoded.device_name,
        laps=tuple(laps),
        streams=streams,
        device_metrics=dict(decoded.device_metrics or {}),
        timer_s=whole.timer_s,
        computed=whole.computed,
        legs=tuple(legs),
        swim=pool.summary() if pool is not None else None,
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


def _lap(lap: RawLap, shown: Shown, swim: Mapping[str, Any] | None) -> ParsedLap:
    fig = shown.figures
    return ParsedLap(
        start=datetime.fromtimestamp(lap.start_s, UTC), elapsed_s=lap.elapsed_s,
        moving_s=fig.moving_s, distance_m=fig.distance_m, avg_heartrate=fig.avg_heartrate,
        max_heartrate=fig.max_heartrate, avg_watts=fig.avg_watts, max_watts=fig.max_watts,
        avg_cadence=fig.avg_cadence, avg_speed_mps=fig.avg_speed_mps,
        elevation_gain_m=fig.elevation_gain_m, calories=shown.calories,
        timer_s=shown.timer_s, computed=shown.computed, swim=swim,
    )  # fmt: skip


def _leg(raw: Sequence[RawLeg], i: int, t0: float, streams: StreamSet,
         moved: npt.NDArray[np.bool_] | None,
         paused: npt.NDArray[np.bool_] | None = None) -> ParsedLeg:
    """Leg ``i`` over its grid seconds: from its start (the first leg: from the first
    sample, whatever its session says) to the next leg's start (the last: the end).
    Legs follow each other, so their distances add up to the activity's."""
    n = len(streams)

    def start(k: int) -> int:
        return 0 if k == 0 else min(n, max(0, round(raw[k].start_s - t0)))

    lo = start(i)
    hi = start(i + 1) if i + 1 < len(raw) else n
    leg = raw[i]
    elapsed = float(max(0, (hi if i + 1 < len(raw) else n - 1) - lo))
    shown = prefer_device(figures(streams, lo, hi, moved, paused), elapsed, None, leg.device)
    fig = shown.figures
    return ParsedLeg(
        sport=leg.sport, file_sport=leg.file_sport, transition=leg.transition,
        start=datetime.fromtimestamp(t0 + lo if i == 0 else leg.start_s, UTC),
        elapsed_s=shown.elapsed_s, timer_s=shown.timer_s, moving_s=fig.moving_s,
        distance_m=fig.distance_m, avg_speed_mps=fig.avg_speed_mps,
        avg_heartrate=fig.avg_heartrate, max_heartrate=fig.max_heartrate,
        avg_watts=fig.avg_watts, max_watts=fig.max_watts, avg_cadence=fig.avg_cadence,
        elevation_gain_m=fig.elevation_gain_m, calories=shown.calories,
        computed=shown.computed,
    )  # fmt: skip


def _as_totals(leg: ParsedLeg) -> DeviceTotals:
    return DeviceTotals(
        distance_m=leg.distance_m, elapsed_s=leg.elapsed_s, timer_s=leg.timer_s,
        elevation_gain_m=leg.elevation_gain_m, avg_heartrate=leg.avg_heartrate,
        max_heartrate=leg.max_heartrate, avg_watts=leg.avg_watts, max_watts=leg.max_watts,
        calories=leg.calories,
    )  # fmt: skip


def _with_heart_rates(streams: StreamSet, t0: float, seconds: FloatArray,
                      bpm: FloatArray) -> StreamSet:
    """The heart rate of ``hr`` messages onto the activity's grid, in place of the
    records' where it has a value (it is the strap's own beat-by-beat series; the
    records' is at best its average between records). Beats before the first record or
    after the last are outside the activity and dropped."""
    n = len(streams)
    rel = seconds - t0
    keep = (rel >= 0) & (rel <= n - 1) & (bpm > 0)
    if not keep.any():
        return streams
    # resample_1hz puts its grid's second 0 at its first sample: a NaN sample at 0 lines
    # this grid up with the activity's.
    grid = resample_1hz(np.concatenate(([0.0], rel[keep])),
                        {"heartrate": np.concatenate(([np.nan], bpm[keep]))},
                        max_gap_s=GAP_S).get("heartrate")
    if grid is None:
        return streams
    strap = np.full(n, np.nan)
    strap[: min(n, len(grid))] = grid[:n]
    own = streams.get("heartrate")
    merged = strap if own is None else np.where(np.isnan(strap), own, strap)
    return StreamSet(streams.time, {**streams.channels, "heartrate": merged})


class _Pool:
    """A pool swim's figures from its lengths: the device counted each length (a pool
    has no GPS), so distance is active lengths x pool length and moving time the active
    lengths' timer time; a length belongs to the lap its middle falls in (its end
    sample often lies in the next, resting lap). Heart rate averages over the active
    lengths' seconds, as the devices do (Fenix 3: 103 bpm, ours 102.7; over all seconds,
    rests included, 96.9)."""

    def __init__(self, decoded: Decoded, streams: StreamSet, t0: float) -> None:
        assert decoded.pool_length_m is not None
        self.pool = decoded.pool_length_m
        self.t0 = t0
        self.streams = streams
        self.active = [x for x in decoded.lengths if x.active]
        self.rest = [(x.start_s - t0, x.elapsed_s) for x in decoded.lengths if not x.active]
        if decoded.laps:  # a lap without an active length is a rest
            self.rest = []
            for lap in decoded.laps:
                if not self._within(lap.start_s, lap.start_s + lap.elapsed_s):
                    self.rest.append((lap.start_s - t0, lap.elapsed_s))

    def _within(self, start: float, end: float) -> list[RawLength]:
        return [x for x in self.active if start <= x.start_s + x.elapsed_s / 2 < end]

    def _ours(self, ours: Figures, lengths: Sequence[RawLength], lo: int, hi: int) -> Figures:
        swum = float(sum(x.timer_s for x in lengths))
        avg_hr = ours.avg_heartrate
        hr = self.streams.get("heartrate")
        if hr is not None and lengths:
            mask = np.zeros(len(hr), dtype=bool)
            for x in lengths:
                a = max(0, round(x.start_s - self.t0))
                mask[a: max(a, round(x.start_s - self.t0 + x.elapsed_s))] = True
            mask[:lo] = False
            mask[hi:] = False
            values = hr[mask]
            values = values[~np.isnan(values)]
            avg_hr = float(values.mean()) if values.size else avg_hr
        return replace(ours, distance_m=len(lengths) * self.pool, moving_s=swum,
                       avg_heartrate=avg_hr,
                       avg_speed_mps=len(lengths) * self.pool / swum if swum else None)

    def lap(self, ours: Figures, start: float, end: float, lo: int, hi: int
            ) -> tuple[Figures, dict[str, Any]]:
        lengths = self._within(start, end)
        return self._ours(ours, lengths, lo, hi), self._figures(lengths)

    def whole(self, ours: Figures) -> Figures:
        return self._ours(ours, self.active, 0, len(self.streams))

    def _figures(self, lengths: Sequence[RawLength]) -> dict[str, Any]:
        distance = len(lengths) * self.pool
        swum = sum(x.timer_s for x in lengths)
        stroked = [x for x in lengths if x.strokes]
        strokes = [x.stroke for x in lengths if x.stroke]
        return {
            "lengths": len(lengths),
            "rest": not lengths,
            "pace_s_per_100m": round(swum / distance * 100, 1) if distance else None,
            "strokes": int(sum(x.strokes or 0 for x in stroked)) if stroked else None,
            # SWOLF: a length's seconds plus its strokes (lengths with strokes recorded).
            "swolf": round(float(np.mean([x.timer_s + (x.strokes or 0) for x in stroked])), 1)
            if stroked else None,
            "stroke": Counter(strokes).most_common(1)[0][0] if strokes else None,
        }

    def summary(self) -> SwimSummary:
        each = self._figures(self.active)
        distance = len(self.active) * self.pool
        swum = float(sum(x.timer_s for x in self.active))
        return SwimSummary(
            pool_length_m=self.pool, active_lengths=len(self.active), distance_m=distance,
            swim_time_s=round(swum, 2),
            pace_s_per_100m=each["pace_s_per_100m"], strokes=each["strokes"],
            swolf=each["swolf"],
            rest=tuple((round(a, 1), round(b, 1)) for a, b in self.rest),
            rest_s=round(sum(b for _, b in self.rest), 1),
        )  # fmt: skip


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
