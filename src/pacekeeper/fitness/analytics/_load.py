"""Training load over days: Banister impulse-response (CTL / ATL / TSB, GoldenCheetah
``PMCData.cpp``), ramp rate, acute:chronic workload ratio, Foster monotony and strain,
weekly totals, intensity distribution and trends.

Inputs are one value per calendar day, oldest first, 0 for a rest day (a missing day
is a rest day: fill it with 0 before calling).
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass
from typing import Final, Literal

import numpy as np
import numpy.typing as npt
from scipy import signal, stats  # type: ignore[import-untyped]

from ._types import FloatArray, as_float


def _ewma(x: FloatArray, k: float, y0: float) -> FloatArray:
    """y[d] = k y[d-1] + (1 - k) x[d] with y[-1] = y0, run in C by scipy.signal.lfilter."""
    if len(x) == 0:
        return np.zeros(0)
    y, _ = signal.lfilter([1.0 - k], [1.0, -k], x, zi=[k * y0])
    return np.asarray(y, dtype=np.float64)


_BLOCK: Final = 8  # days per block of the paired filter
_SPAN: Final = 600.0  # exponent range of the carried sums, in time constants


@functools.lru_cache(maxsize=16)
def _pair_tables(k1: float, k2: float) -> tuple[FloatArray, FloatArray, FloatArray,
                                                 FloatArray, FloatArray, int]:
    """Constants of ``_ewma_pair`` for the factors (k1, k2), columns interleaved (k1, k2,
    k1, k2, ...): the in-block filter ``inner`` (w x 2w: (1 - k) k^(j-m) for m <= j), the
    carry ``after`` (2 x 2w: k^(j+1)), the block scales ``up`` = K^-(b-h) and ``down`` =
    K^(b-h) (K = k^w, h the middle: within e^300 either way), the start weight, and the
    number of blocks one run can carry."""
    w = _BLOCK
    ks = np.array([k1, k2])
    taus = -1.0 / np.log(ks)  # time constants in days
    m, j = np.arange(w)[:, None], np.arange(w)[None, :]
    inner = np.zeros((w, 2 * w))
    after = np.zeros((2, 2 * w))
    for s, k in enumerate(ks):
        inner[:, s::2] = np.where(j >= m, (1.0 - k) * k ** np.maximum(j - m, 0), 0.0)
        after[s, s::2] = k ** (np.arange(w) + 1.0)
    blocks = max(2, int(_SPAN * float(taus.min())) // w)
    h = (blocks - 1) / 2.0
    b = np.arange(blocks, dtype=np.float64)[:, None]
    up = np.exp(w * (b - h) / taus[None, :])
    down = np.exp(-w * (b - h) / taus[None, :])
    start = np.exp(-w * (h + 1.0) / taus)  # K^(h+1): the start value in the scaled sum
    return inner, after, up, down, start, blocks


def _ewma_pair(x: FloatArray, k1: float, k2: float, y1: float, y2: float
               ) -> tuple[FloatArray, FloatArray]:
    """Two exponential filters of one series at once, ``_ewma`` with (k1, y1) and (k2,
    y2), for 0 < k < 1, to about 1e-12 of the recursion.

    Blocks of w = ``_BLOCK`` days: one BLAS product of the (blocks x w) loads with the
    in-block filter gives every day's response to its own block's loads, both filters
    interleaved. The value carried out of block b is Y_b = K Y_(b-1) + e_b (e_b: the
    block's own response on its last day, K = k^w); its closed form is a running sum,
    Y_b = K^(b-h) (sum_{b' <= b} K^-(b'-h) e_b' + K^(h+1) Y_-1), one complex ``cumsum``
    over the blocks for both filters (real part one, imaginary part the other). A second
    small product adds k^(j+1) Y_(b-1) to day j of block b. So about ten numpy calls
    instead of two ``lfilter`` calls (about 20 us each in argument checks) or a float
    ``cumsum`` over every day (about 3 ns a step: numpy's float accumulate is a
    dependent chain through memory). Runs longer than the carried sums allow (600 time
    constants, about 11 years for ATL) go one after the other."""
    if not (0.0 < k1 < 1.0 and 0.0 < k2 < 1.0):  # no decay: the plain recursion
        return _ewma(x, k1, y1), _ewma(x, k2, y2)
    if len(x) == 0:
        return np.zeros(0), np.zeros(0)
    inner, after, up, down, start, most = _pair_tables(k1, k2)
    w, n = _BLOCK, len(x)
    if n > most * w:
        parts1, parts2 = [], []
        for a in range(0, n, most * w):
            r1, r2 = _ewma_pair(x[a : a + most * w], k1, k2, y1, y2)
            parts1.append(r1)
            parts2.append(r2)
            y1, y2 = float(r1[-1]), float(r2[-1])
        return np.concatenate(parts1), np.concatenate(parts2)
    blocks = -(-n // w)
    if blocks * w != n:
        x = np.concatenate((x, np.zeros(blocks * w - n)))
    s = x.reshape(blocks, w) @ inner  # each block's own response, (k1, k2) interleaved
    if blocks > 1 or y1 or y2:
        # The block ends as one complex column (a fast strided copy), then as pairs.
        carried = s.view(np.complex128)[:, -1].copy()
        e = carried.view(np.float64).reshape(blocks, 2)
        e *= up[:blocks]  # scaled
        if y1 or y2:
            e[0] += start * (y1, y2)
        np.cumsum(carried, out=carried)
        e *= down[:blocks]  # the value carried out of each block
        if y1 or y2:
            s[0] += np.array([y1, y2]) @ after
        if blocks > 1:
            s[1:] += e[:-1] @ after
    y = s.reshape(-1)
    return y[0 : 2 * n : 2], y[1 : 2 * n : 2]


@dataclass(frozen=True, slots=True)
class Pmc:
    """Performance management chart, one value per day. ``tsb[d] = ctl[d-1] - atl[d-1]``
    (form going into day d, before its training: TrainingPeaks' and GoldenCheetah's
    reading), ``tsb[0] = ctl0 - atl0``."""

    ctl: FloatArray
    atl: FloatArray
    tsb: FloatArray


def ctl_atl_tsb(
    daily_load: npt.ArrayLike,
    ctl_days: float = 42.0,
    atl_days: float = 7.0,
    ctl0: float = 0.0,
    atl0: float = 0.0,
) -> Pmc:
    """Chronic and acute training load (Banister; Coggan's CTL / ATL): the exponential form
    CTL_d = CTL_(d-1) e^(-1/42) + TSS_d (1 - e^(-1/42)), ATL the same with 7 days
    (GoldenCheetah ``PMCData.cpp``), and TSB; see ``Pmc`` for which day's TSB."""
    x = as_float(daily_load)
    ctl, atl = _ewma_pair(x, math.exp(-1.0 / ctl_days), math.exp(-1.0 / atl_days),
                          ctl0, atl0)
    tsb = np.empty(len(x))
    if len(x):
        tsb[0] = ctl0 - atl0
        np.subtract(ctl[:-1], atl[:-1], out=tsb[1:])
    return Pmc(ctl, atl, tsb)


def ramp_rate(ctl: npt.ArrayLike, days: int = 7) -> FloatArray:
    """CTL change over the last ``days`` days (TrainingPeaks' ramp rate, per week by
    default); NaN for the first ``days`` days."""
    c = as_float(ctl)
    out = np.full(len(c), np.nan)
    out[days:] = c[days:] - c[:-days]
    return out


def _rolling_sum(x: FloatArray, window: int) -> FloatArray:
    out = np.full(len(x), np.nan)
    if len(x) >= window:
        c = np.concatenate(([0.0], np.cumsum(x)))
        out[window - 1 :] = c[window:] - c[:-window]
    return out


def acwr_rolling(daily_load: npt.ArrayLike, acute: int = 7, chronic: int = 28) -> FloatArray:
    """Acute:chronic workload ratio, rolling averages (Hulin et al. 2014; "coupled": the
    chronic window includes the acute one): mean of the last 7 days over the mean of the
    last 28. NaN before 28 days of data and where the chronic mean is 0."""
    x = as_float(daily_load)
    a = _rolling_sum(x, acute) / acute
    c = _rolling_sum(x, chronic) / chronic
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(c > 0, a / c, np.nan)


def acwr_ewma(daily_load: npt.ArrayLike, acute: int = 7, chronic: int = 28) -> FloatArray:
    """Acute:chronic ratio of exponentially weighted moving averages (Williams et al.
    2017): EWMA_d = lambda x load_d + (1 - lambda) EWMA_(d-1), lambda = 2 / (N + 1),
    both started at 0. NaN where the chronic EWMA is 0."""
    x = as_float(daily_load)
    a, c = _ewma_pair(x, 1.0 - 2.0 / (acute + 1), 1.0 - 2.0 / (chronic + 1), 0.0, 0.0)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(c > 0, a / c, np.nan)


@dataclass(frozen=True, slots=True)
class MonotonyStrain:
    monotony: FloatArray
    strain: FloatArray
    weekly_load: FloatArray


def monotony_strain(daily_load: npt.ArrayLike, window: int = 7) -> MonotonyStrain:
    """Foster (1998): monotony = mean daily load / SD of daily load over the last 7 days
    (population SD, ddof = 0), strain = weekly load x monotony. NaN before 7 days and
    where the SD is 0 (an identical load every day: monotony unbounded)."""
    x = as_float(daily_load)
    total = _rolling_sum(x, window)
    mean = total / window
    sq = _rolling_sum(x * x, window) / window
    sd = np.sqrt(np.maximum(sq - mean * mean, 0.0))
    with np.errstate(divide="ignore", invalid="ignore"):
        mono: FloatArray = np.where(sd > 1e-9 * np.maximum(mean, 1.0), mean / sd, np.nan)
    return MonotonyStrain(mono, total * mono, total)


def weekly_totals(daily: npt.ArrayLike, first_day_offset: int = 0) -> FloatArray:
    """Sums per week of 7 days. ``first_day_offset``: how many days of the first week
    come before the first value (0 when the series starts on the week's first day);
    a partial last week is summed as it is."""
    x = np.concatenate((np.zeros(first_day_offset), as_float(daily)))
    pad = (-len(x)) % 7
    weeks: FloatArray = np.concatenate((x, np.zeros(pad))).reshape(-1, 7).sum(axis=1)
    return weeks


@dataclass(frozen=True, slots=True)
class IntensityDistribution:
    """Shares of time in the three zones of a 3-zone model (below the first threshold,
    between, above the second) and Treff's polarization index."""

    zone1: float
    zone2: float
    zone3: float
    polarization_index: float | None


def intensity_distribution(z1_s: float, z2_s: float, z3_s: float) -> IntensityDistribution:
    """Seiler's 3-zone intensity distribution as shares of the total time, and the
    polarization index of Treff et al. (2019): log10(z1 / z2 x z3 x 100) with shares in
    percent (> 2.0 reads as polarised). The index is None when z2 or z3 is 0."""
    total = z1_s + z2_s + z3_s
    if total <= 0:
        return IntensityDistribution(0.0, 0.0, 0.0, None)
    f1, f2, f3 = z1_s / total, z2_s / total, z3_s / total
    pi = math.log10((f1 * 100) / (f2 * 100) * (f3 * 100)) if f2 > 0 and f3 > 0 else None
    return IntensityDistribution(f1, f2, f3, pi)


@dataclass(frozen=True, slots=True)
class Trend:
    slope_per_day: float
    intercept: float
    p_value: float
    r_squared: float
    direction: Literal["up", "down", "flat"]


def trend(values: npt.ArrayLike, alpha: float = 0.05) -> Trend | None:
    """Least-squares line through a daily series (NaN days skipped) with the two-sided
    p-value of the slope (scipy.stats.linregress, Wald test with a t distribution).
    ``direction`` is "flat" unless p < alpha. None with fewer than 3 values."""
    y = as_float(values)
    x = np.arange(len(y), dtype=np.float64)
    ok = ~np.isnan(y)
    if ok.sum() < 3:
        return None
    if np.ptp(y[ok]) == 0:
        return Trend(0.0, float(y[ok][0]), 1.0, 0.0, "flat")
    r = stats.linregress(x[ok], y[ok])
    slope, p = float(r.slope), float(r.pvalue)
    direction: Literal["up", "down", "flat"] = (
        "flat" if not p < alpha else ("up" if slope > 0 else "down")
    )
    return Trend(slope, float(r.intercept), p, float(r.rvalue) ** 2, direction)


__all__ = [
    "IntensityDistribution",
    "MonotonyStrain",
    "Pmc",
    "Trend",
    "acwr_ewma",
    "acwr_rolling",
    "ctl_atl_tsb",
    "intensity_distribution",
    "monotony_strain",
    "ramp_rate",
    "trend",
    "weekly_totals",
]
