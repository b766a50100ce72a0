"""Mean-maximal curves (power, heart rate, speed) and best efforts for runs.

Mean-maximal value at duration d: the highest mean over any window of d consecutive
seconds of a 1 Hz stream. With the cumulative sum ``c`` (``c[0] = 0``) a window starting
at ``i`` sums to ``c[i + d] - c[i]``, so each duration is one vectorised pass
(GoldenCheetah ``RideFileCache``; sweat ``mean_max``).

NaN (no sample: a pause or a dropout) is handled per ``nan``:

- ``"zero"`` (the default, GoldenCheetah's rule for power: ``RideFileCache`` resamples to
  1 s and fills gaps with zeroes): a NaN second counts as 0. A window may span a pause
  but the pause adds nothing to it. Used for power and speed.
- ``"exclude"``: windows that contain a NaN second are not candidates; the curve is the
  best over the NaN-free stretches. Used for heart rate (a missing beat is unknown, not 0).
"""

from __future__ import annotations

from typing import Final, Literal

import numpy as np
import numpy.typing as npt
from numpy.lib.stride_tricks import as_strided

from ._types import FloatArray, as_float

NanPolicy = Literal["zero", "exclude"]


def _log_spaced() -> tuple[int, ...]:
    short = (
        1,
        2,
        3,
        5,
        10,
        15,
        20,
        30,
        45,
        60,
        90,
        120,
        180,
        240,
        300,
        360,
        420,
        480,
        540,
        600,
        720,
        900,
        1200,
        1500,
        1800,
        2400,
        2700,
        3600,
    )
    longer = (
        4500,
        5400,
        7200,
        9000,
        10800,
        12600,
        14400,
        16200,
        18000,
        21600,
        25200,
        28800,
        32400,
        36000,
        43200,
        50400,
        57600,
        64800,
        72000,
        79200,
        86400,
    )
    mid = (4, 6, 7, 8, 12, 25, 40, 50, 75, 150, 210, 270, 1080, 3000)
    return tuple(sorted(set(short + longer + mid)))


STANDARD_DURATIONS: Final[tuple[int, ...]] = _log_spaced()
"""About 60 durations from 1 s to 24 h, roughly log-spaced, for stored per-activity
curves (the points GoldenCheetah and TrainingPeaks users read: 1 s, 5 s, 1 min, 5 min,
20 min, 1 h ...)."""

_DIRECT_BELOW: Final = 256  # durations below this: the direct pass (bounds prune little)
_CELLS: Final = 1 << 16  # cells of one 2-D step (stays in cache)
_BLOCKS: Final = ((1024, 32), (1 << 62, 64))  # (durations below, block size B)
_SPLIT: Final = 4  # a block left standing is bounded again in this many parts


def _sums_direct(c: FloatArray, d: int, buf: FloatArray) -> float:
    """The largest window sum of duration ``d`` (``c`` the cumulative sum with c[0] = 0)."""
    k = len(c) - d
    view = buf[:k]
    np.subtract(c[d:], c[:k], out=view)
    return float(view.max())


def _sliding_max(r: FloatArray, width: int) -> FloatArray:
    """``out[t] = max(r[t : t + width])`` for a power-of-two ``width`` (log2 steps)."""
    out, w = r, 1
    while w < width:
        out = np.maximum(out[:-w], out[w:])
        w *= 2
    return out


def _max_window_sums(c: npt.NDArray[np.int32] | FloatArray) -> FloatArray:
    """``out[d - 1] = max_i (c[i + d] - c[i])`` for every d in 1..n, ``c`` non-decreasing
    (int32 or float64).

    Exactly the values of the direct loop ``(c[d:] - c[:-d]).max()``: every maximum is
    one of its subtractions of ``c``, and a window is skipped only when a bound proves it
    cannot be the maximum.

    - Past the end, ``c`` is padded with its last value. A "window" there sums fewer
      than d values (all >= 0), so it never exceeds the last real window: including it
      changes no maximum, and lets a chunk of consecutive durations be one strided 2-D
      step (row r = duration d0 + r).
    - Durations below ``_DIRECT_BELOW``: every window, one 2-D subtraction and row-wise
      max per chunk.
    - Longer ones: branch and bound on blocks of B start positions (B from ``_BLOCKS``).
      With a slope m (the mean, rounded down) and ``r[i] = c[i] - m i``, every window of
      the block starting at s sums ``d m + r[i + d] - r[i]``, at most
      ``d m + max(r[s + d .. s + d + B - 1]) - min(r[s .. s + B - 1])``: a sliding
      maximum and a block minimum, both computed once per B, so the bound of a block
      costs a few operations on one cell, and it is tight to the wander of the power
      around its mean over B seconds (not to B times the power, as a bound from ``c``
      alone). Per duration the block with the highest bound is evaluated first (it
      usually holds the maximum); every other block whose bound exceeds that is split in
      ``_SPLIT`` parts bounded the same way (their own sliding max and minima), and only
      the parts that may still win are evaluated. In float64 the bounds are raised by a
      margin larger than any rounding of ``r`` (integer sums are exact).
    """
    n = len(c) - 1
    out = np.empty(n, dtype=np.float64)
    biggest = _BLOCKS[-1][1]
    padded = np.concatenate((c, np.full(n + 2 * biggest + 2, c[-1], dtype=c.dtype)))
    d = 1
    while d < min(_DIRECT_BELOW, n + 1):
        width = n - d + 1
        rows = max(1, min(_CELLS // width, _DIRECT_BELOW - d, n - d + 1))
        out[d - 1 : d - 1 + rows] = _direct(padded, n, np.arange(d, d + rows))
        d += rows
    if d > n:
        return out
    slope = float(np.floor(float(c[-1]) / n))
    r = padded.astype(np.float64) - slope * np.arange(len(padded), dtype=np.float64)
    integral = np.issubdtype(c.dtype, np.integer)
    margin = 0.0 if integral else 1e-12 * (abs(float(c[-1])) + slope * len(padded) + 1.0)
    for below, block in _BLOCKS:
        if d > n:
            break
        top = min(n, below - 1)
        if d > top:
            continue
        blocks_all = n // block + 1
        levels = [(_sliding_max(r, size),
                   r[: blocks_all * block].reshape(-1, size).min(axis=1) - margin)
                  for size in (block, block // _SPLIT)]
        while d <= top:
            width_blocks = (n - d) // block + 1
            rows = max(1, min(_CELLS // width_blocks, top - d + 1))
            ds = np.arange(d, d + rows)
            out[d - 1 : d - 1 + rows] = _bounded(padded, n, levels, ds, block, slope)
            d += rows
    return out


def _direct(c: npt.NDArray[np.int32] | FloatArray, n: int, ds: npt.NDArray[np.int64]
            ) -> FloatArray:
    width = n - int(ds[0]) + 1
    step = c.strides[0]
    ends = as_strided(
        c[int(ds[0]) :], shape=(len(ds), width), strides=(step, step), writeable=False
    )
    sums = np.subtract(ends, c[:width])
    return sums.max(axis=1)  # type: ignore[no-any-return]


def _bounded(c: npt.NDArray[np.int32] | FloatArray, n: int,
             levels: list[tuple[FloatArray, FloatArray]], ds: npt.NDArray[np.int64],
             block: int, slope: float) -> FloatArray:
    """The largest window sum for each duration in ``ds`` (``_max_window_sums``).
    ``levels``: (sliding max of r, minimum of r per block) for blocks of ``block`` and
    of ``block // _SPLIT`` start positions."""
    (ends, lows), (sub_ends, sub_lows) = levels
    d0 = int(ds[0])
    blocks = (n - d0) // block + 1  # every start 0..n - d0 lies in one of these
    step, fstep = c.strides[0], ends.strides[0]
    # gap[row, j] + d m bounds every window of block j for duration d = d0 + row.
    top = as_strided(ends[d0:], shape=(len(ds), blocks), strides=(fstep, fstep * block),
                     writeable=False)
    gap = np.subtract(top, lows[:blocks])
    # Whole blocks as rows: c at a block's B starts, and at their ends for each duration,
    # so a block's windows are two contiguous row copies.
    heads = c[: blocks * block].reshape(blocks, block)
    tails = as_strided(c[d0:], shape=(len(ds), blocks, block),
                       strides=(step, step * block, step), writeable=False)
    # The block with the highest bound, evaluated in full per duration, usually holds
    # the maximum or comes close: a lower bound that leaves few other blocks standing.
    every = np.arange(len(ds))
    first = np.argmax(gap, axis=1)
    best = np.subtract(tails[every, first], heads[first]).max(axis=1)
    gap[every, first] = -np.inf
    need = best - slope * ds  # a block may hold a better window only if gap > need
    rows, cols = np.divmod(np.flatnonzero(gap > need[:, None]), blocks)
    if len(rows):
        # The blocks left are split in _SPLIT parts, each bounded the same way with its
        # own sliding max and minimum; only the parts that may still win are evaluated.
        size = block // _SPLIT
        parts = (cols * _SPLIT)[:, None] + np.arange(_SPLIT)[None, :]
        sub_gap = sub_ends[parts * size + ds[rows][:, None]] - sub_lows[parts]
        keep = (sub_gap > need[rows][:, None]).ravel()
        rows, parts = np.repeat(rows, _SPLIT)[keep], parts.ravel()[keep]
        heads_sub = c[: blocks * block].reshape(blocks * _SPLIT, size)
        tails_sub = as_strided(c[d0:], shape=(len(ds), blocks * _SPLIT, size),
                               strides=(step, step * size, step), writeable=False)
        sums = np.subtract(tails_sub[rows, parts], heads_sub[parts]).max(axis=1)
        np.maximum.at(best, rows, sums)
    return best.astype(np.float64)  # type: ignore[no-any-return]


def _segments(values: FloatArray) -> list[FloatArray]:
    """The NaN-free stretches of ``values``."""
    missing = np.isnan(values)
    if not missing.any():
        return [values]
    edges = np.flatnonzero(np.diff(np.concatenate(([1], missing.view(np.int8), [1]))))
    return [values[a:b] for a, b in zip(edges[::2], edges[1::2], strict=True) if b > a]


def _exact_int32_sums(values: FloatArray) -> npt.NDArray[np.int32] | None:
    """The cumulative sum as int32 when that is exact: whole non-negative values (what a
    power meter or a heart-rate strap records) whose total stays below 2^31. Then every
    window sum is the same integer the float64 sums hold, and the windows cost half the
    memory traffic and twice the SIMD lanes. None otherwise."""
    if not np.all(values == np.floor(values)):
        return None
    total = float(values.sum())
    if total >= 2**31 - 1:
        return None
    c = np.empty(len(values) + 1, dtype=np.int32)
    c[0] = 0
    np.cumsum(values.astype(np.int32), dtype=np.int32, out=c[1:])
    return c


def _curve_all(values: FloatArray) -> FloatArray:
    n = len(values)
    if np.all(values >= 0):
        ints = _exact_int32_sums(values)
        c = np.concatenate(([0.0], np.cumsum(values))) if ints is None else ints
        sums = _max_window_sums(c)
    else:  # negative values: no monotone bound, the direct pass for every duration
        cf = np.concatenate(([0.0], np.cumsum(values)))
        buf = np.empty(n, dtype=np.float64)
        sums = np.array([_sums_direct(cf, d, buf) for d in range(1, n + 1)])
    return sums / np.arange(1, n + 1)


def _curve_at(values: FloatArray, durations: npt.NDArray[np.int64]) -> FloatArray:
    n = len(values)
    c = np.concatenate(([0.0], np.cumsum(values)))
    buf = np.empty(max(n, 1), dtype=np.float64)
    out = np.full(len(durations), np.nan)
    for k, d in enumerate(durations.tolist()):
        if 1 <= d <= n:
            out[k] = _sums_direct(c, d, buf) / d
    return out


def mean_max(
    values: npt.ArrayLike,
    durations: npt.ArrayLike | None = None,
    *,
    nan: NanPolicy = "zero",
) -> FloatArray:
    """Mean-maximal curve of a 1 Hz stream.

    ``durations=None``: one value per whole second 1..n (``out[d - 1]``), n the length of
    the stream (after dropping NaN-only ends is *not* done: the grid is the activity's).
    Otherwise one value per given duration, NaN for a duration longer than the data (or,
    with ``nan="exclude"``, longer than every NaN-free stretch). NaN handling: module
    docstring. The best *work* d x mean_max(d) never falls as d grows (values >= 0), but
    the mean itself may rise: [300, 0, 300, 300] has 200 W best over 3 s and 225 W over
    4 s. ``monotone_envelope`` gives the non-increasing curve ("at least d seconds").
    """
    v = as_float(values)
    if durations is None:
        if nan == "zero":
            return _curve_all(np.nan_to_num(v, nan=0.0)) if len(v) else np.zeros(0)
        out = np.full(len(v), np.nan)
        for seg in _segments(v):
            part = _curve_all(seg)
            np.fmax(out[: len(part)], part, out=out[: len(part)])
        return out
    ds = np.asarray(durations, dtype=np.int64)
    if nan == "zero":
        return _curve_at(np.nan_to_num(v, nan=0.0), ds)
    out = np.full(len(ds), np.nan)
    for seg in _segments(v):
        out = np.fmax(out, _curve_at(seg, ds))
    return out


def monotone_envelope(curve: npt.ArrayLike) -> FloatArray:
    """The best mean over *at least* d seconds: the running maximum of the curve from
    the long end (sweat's ``mean_max(monotonic=True)``). Non-increasing; NaN ignored."""
    c = as_float(curve)
    filled = np.where(np.isnan(c), -np.inf, c)
    out = np.maximum.accumulate(filled[::-1])[::-1]
    return np.where(np.isneginf(out), np.nan, out)


def standard_curve(values: npt.ArrayLike, *, nan: NanPolicy = "zero") -> FloatArray:
    """``mean_max`` at the ``STANDARD_DURATIONS`` no longer than the stream."""
    v = as_float(values)
    ds = np.array([d for d in STANDARD_DURATIONS if d <= len(v)], dtype=np.int64)
    return mean_max(v, ds, nan=nan)


def merge_curves(*curves: npt.ArrayLike) -> FloatArray:
    """Element-wise best of curves on the same duration grid (period / season bests).

    Curves may differ in length (a short activity has no long durations): the result is
    as long as the longest, NaN ignored where a curve has no value.
    """
    arrays = [as_float(c) for c in curves]
    if not arrays:
        return np.zeros(0)
    out = np.full(max(len(a) for a in arrays), np.nan)
    for a in arrays:
        np.fmax(out[: len(a)], a, out=out[: len(a)])
    return out


BEST_EFFORT_DISTANCES: Final[dict[str, float]] = {
    "400m": 400.0,
    "800m": 800.0,
    "1km": 1000.0,
    "1mile": 1609.344,
    "5km": 5000.0,
    "10km": 10000.0,
    "15km": 15000.0,
    "half_marathon": 21097.5,
    "marathon": 42195.0,
}


MAX_RUN_SPEED_MPS: Final = 12.5
"""No runner covers ground faster (Bolt's peak over 100 m: 12.4 m/s): a distance stream
that gains more in a second is a GPS jump, and counts only this much."""


def best_efforts(
    distance: npt.ArrayLike,
    time: npt.ArrayLike | None = None,
    distances: dict[str, float] | None = None,
) -> dict[str, float | None]:
    """Fastest time (s) to cover each distance anywhere in a run.

    ``distance`` is the cumulative distance stream (m), ``time`` its seconds (default
    0, 1, 2 ... for the 1 Hz grid); NaN samples are dropped and the distance made
    non-decreasing (a GPS step back is no progress) and measured from the first sample.
    A step forward faster than ``MAX_RUN_SPEED_MPS`` over its seconds counts at that
    speed (a GPS jump is no progress either): no effort is ever faster than a runner can
    be. For every sample ``j`` as the end, ``searchsorted`` finds the latest start ``i``
    with ``dist[j] - dist[i] >= D``; the covering time is interpolated linearly inside
    the start's second (the runner passes the start mark between two samples), so a
    1 Hz stream gives sub-second times. None when the run is shorter.

    The distance starts at 0 (the first sample's own distance, often a few metres, is
    subtracted): with it, ``dist[j] - D`` could round below the first sample although
    ``dist[j] - dist[0] >= D``, and the start index -1 took the run's last second, so a
    10 km run read "10 km in -5 s".
    """
    d = as_float(distance)
    t = np.arange(len(d), dtype=np.float64) if time is None else as_float(time)
    ok = ~np.isnan(d) & ~np.isnan(t)
    d, t = d[ok], t[ok]
    if len(d) >= 2:
        steps = np.diff(np.maximum.accumulate(d))
        steps = np.minimum(steps, MAX_RUN_SPEED_MPS * np.maximum(np.diff(t), 0.0))
        d = np.concatenate(([0.0], np.cumsum(steps)))
    out: dict[str, float | None] = {}
    for name, target in (distances or BEST_EFFORT_DISTANCES).items():
        if len(d) < 2 or d[-1] < target:
            out[name] = None
            continue
        ends = np.flatnonzero(d >= target)
        # the start mark, >= 0 = d[0] exactly (IEEE subtraction keeps a >= b as a - b >= 0)
        mark = d[ends] - target
        # latest start i with d[i] <= mark: 0 <= i < end
        i = np.searchsorted(d, mark, side="right") - 1
        # the start mark lies between samples i and i + 1: interpolate its time
        d0, d1 = d[i], d[i + 1]
        t0, t1 = t[i], t[i + 1]
        frac = np.where(d1 > d0, (mark - d0) / np.where(d1 > d0, d1 - d0, 1.0), 0.0)
        start_time = t0 + frac * (t1 - t0)
        out[name] = float(np.min(t[ends] - start_time))
    return out


__all__ = [
    "BEST_EFFORT_DISTANCES",
    "MAX_RUN_SPEED_MPS",
    "STANDARD_DURATIONS",
    "NanPolicy",
    "best_efforts",
    "mean_max",
    "merge_curves",
    "monotone_envelope",
    "standard_curve",
]
