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

_DIRECT_BELOW: Final = 256  # durations below this: the direct pass (blocks too small)
_SLACK: Final = 32  # block = d // _SLACK start positions: bounds overshoot <= 1/_SLACK
_CELLS: Final = 1 << 16  # cells of one 2-D step (512 KiB of float64: stays in cache)
_GATHER_COST: Final = 3  # a gathered window costs about this many strided ones


def _sums_direct(c: FloatArray, d: int, buf: FloatArray) -> float:
    """The largest window sum of duration ``d`` (``c`` the cumulative sum with c[0] = 0)."""
    k = len(c) - d
    view = buf[:k]
    np.subtract(c[d:], c[:k], out=view)
    return float(view.max())


def _max_window_sums(c: FloatArray) -> FloatArray:
    """``out[d - 1] = max_i (c[i + d] - c[i])`` for every d in 1..n, ``c`` non-decreasing.

    Exactly the values of the direct loop ``(c[d:] - c[:-d]).max()`` (the same
    subtractions, the same maximum), with less work and fewer numpy calls:

    - Past the end, ``c`` is padded with its last value. A "window" there sums fewer
      than d values (all >= 0), so it never exceeds the last real window: including it
      changes no maximum. That lets a chunk of consecutive durations be one strided 2-D
      subtraction (row r = duration d0 + r) and one row-wise max: one call for many
      durations where the direct loop makes two per duration.
    - Branch and bound for durations from ``_DIRECT_BELOW`` on: start positions in blocks
      of B = d // ``_SLACK``; every window of the block starting at ``s`` sums at most
      ``c[s + B - 1 + d] - c[s]``. ``c`` is non-decreasing and rounded subtraction is
      monotone, so the bound holds in floating point too and no window that could be the
      maximum is dropped. The windows at the block starts give a lower bound; blocks
      below it are dropped, the rest split in four, down to single windows. When too
      many blocks survive (long windows all alike), the chunk takes the 2-D pass.
    """
    n = len(c) - 1
    out = np.empty(n, dtype=np.float64)
    padded = np.concatenate((c, np.full(n + 2, c[-1])))
    d0 = 1
    while d0 <= n:
        if d0 < _DIRECT_BELOW:
            block, d1 = 1, min(n, _DIRECT_BELOW - 1)
        else:
            block, d1 = max(1, d0 // _SLACK), min(n, 2 * d0 - 1)
        a = d0
        while a <= d1:
            width = n - a + 1  # windows of the shortest duration in the chunk
            cells = (width // block + 1) if block > 1 else width
            b = min(d1, a + max(1, _CELLS // cells) - 1)
            ds = np.arange(a, b + 1)
            best = _pruned(padded, n, ds, block) if block > 1 else None
            if best is not None:
                out[ds - 1] = best
            else:
                rows = max(1, _CELLS // width)
                for k in range(0, len(ds), rows):
                    part = ds[k : k + rows]
                    out[part - 1] = _direct(padded, n, part)
            a = b + 1
        d0 = d1 + 1
    return out


def _direct(c: FloatArray, n: int, ds: npt.NDArray[np.int64]) -> FloatArray:
    width = n - int(ds[0]) + 1
    step = c.strides[0]
    ends = as_strided(
        c[int(ds[0]) :], shape=(len(ds), width), strides=(step, step), writeable=False
    )
    sums: FloatArray = np.subtract(ends, c[:width])
    return sums.max(axis=1)  # type: ignore[no-any-return]


def _pruned(c: FloatArray, n: int, ds: npt.NDArray[np.int64], block: int) -> FloatArray | None:
    blocks = (n - int(ds[0])) // block + 1
    step = c.strides[0]
    heads = c[: blocks * block : block]  # c at every block start
    shape = (len(ds), blocks)
    strides = (step, step * block)
    at_starts = as_strided(c[int(ds[0]) :], shape=shape, strides=strides, writeable=False)
    best: FloatArray = (at_starts - heads).max(axis=1)
    far = as_strided(c[int(ds[0]) + block - 1 :], shape=shape, strides=strides, writeable=False)
    rows, cols = np.nonzero(far - heads >= best[:, None])
    if len(rows) * block * _GATHER_COST > len(ds) * (n - int(ds[0]) + 1):
        return None  # most blocks survive: the 2-D pass is cheaper
    s = cols * block
    last = n - ds
    while block > 1:
        block = -(-block // 4)
        s = (s[:, None] + block * np.arange(4)[None, :]).ravel()
        rows = np.repeat(rows, 4)
        ok = s <= last[rows]
        rows, s = rows[ok], s[ok]
        d = ds[rows]
        np.maximum.at(best, rows, c[s + d] - c[s])
        if block > 1:
            keep = c[s + (block - 1) + d] - c[s] >= best[rows]
            rows, s = rows[keep], s[keep]
    return best


def _segments(values: FloatArray) -> list[FloatArray]:
    """The NaN-free stretches of ``values``."""
    missing = np.isnan(values)
    if not missing.any():
        return [values]
    edges = np.flatnonzero(np.diff(np.concatenate(([1], missing.view(np.int8), [1]))))
    return [values[a:b] for a, b in zip(edges[::2], edges[1::2], strict=True) if b > a]


def _curve_all(values: FloatArray) -> FloatArray:
    n = len(values)
    c = np.concatenate(([0.0], np.cumsum(values)))
    if np.all(values >= 0):
        sums = _max_window_sums(c)
    else:  # negative values: no monotone bound, the direct pass for every duration
        buf = np.empty(n, dtype=np.float64)
        sums = np.array([_sums_direct(c, d, buf) for d in range(1, n + 1)])
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


def best_efforts(
    distance: npt.ArrayLike,
    time: npt.ArrayLike | None = None,
    distances: dict[str, float] | None = None,
) -> dict[str, float | None]:
    """Fastest time (s) to cover each distance anywhere in a run.

    ``distance`` is the cumulative distance stream (m), ``time`` its seconds (default
    0, 1, 2 ... for the 1 Hz grid); NaN samples are dropped and the distance made
    non-decreasing. For every sample ``j`` as the end, ``searchsorted`` finds the latest
    start ``i`` with ``dist[j] - dist[i] >= D``; the covering time is interpolated
    linearly inside the start's second (the runner passes the start mark between two
    samples), so a 1 Hz stream gives sub-second times. None when the run is shorter.
    """
    d = as_float(distance)
    t = np.arange(len(d), dtype=np.float64) if time is None else as_float(time)
    ok = ~np.isnan(d)
    d, t = np.maximum.accumulate(d[ok]) if ok.any() else d[ok], t[ok]
    out: dict[str, float | None] = {}
    for name, target in (distances or BEST_EFFORT_DISTANCES).items():
        if len(d) < 2 or d[-1] - d[0] < target:
            out[name] = None
            continue
        ends = np.flatnonzero(d - d[0] >= target)
        # latest start i with d[i] <= d[j] - target
        i = np.searchsorted(d, d[ends] - target, side="right") - 1
        # the start mark lies between samples i and i + 1: interpolate its time
        mark = d[ends] - target
        d0, d1 = d[i], d[np.minimum(i + 1, len(d) - 1)]
        t0, t1 = t[i], t[np.minimum(i + 1, len(d) - 1)]
        frac = np.where(d1 > d0, (mark - d0) / np.where(d1 > d0, d1 - d0, 1.0), 0.0)
        start_time = t0 + frac * (t1 - t0)
        out[name] = float(np.min(t[ends] - start_time))
    return out


__all__ = [
    "BEST_EFFORT_DISTANCES",
    "STANDARD_DURATIONS",
    "NanPolicy",
    "best_efforts",
    "mean_max",
    "merge_curves",
    "monotone_envelope",
    "standard_curve",
]
