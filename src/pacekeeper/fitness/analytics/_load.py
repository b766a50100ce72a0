"""Training load over days: Banister impulse-response (CTL / ATL / TSB, GoldenCheetah
``PMCData.cpp``), ramp rate, acute:chronic workload ratio, Foster monotony and strain,
weekly totals, intensity distribution and trends.

Inputs are one value per calendar day, oldest first, 0 for a rest day (a missing day
is a rest day: fill it with 0 before calling).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Literal

import numpy as np
import numpy.typing as npt

from ._ewma import ewma_pair
from ._stats import line_fit
from ._types import FloatArray, as_float


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
    ctl, atl, tsb = ewma_pair(as_float(daily_load), math.exp(-1.0 / ctl_days),
                              math.exp(-1.0 / atl_days), ctl0, atl0)
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
    a, c, _ = ewma_pair(as_float(daily_load), 1.0 - 2.0 / (acute + 1),
                        1.0 - 2.0 / (chronic + 1), 0.0, 0.0)
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
    p-value of the slope (``_stats.line_fit``: Wald test with Student's t, as
    scipy.stats.linregress computes it).
    ``direction`` is "flat" unless p < alpha. None with fewer than 3 values."""
    y = as_float(values)
    x = np.arange(len(y), dtype=np.float64)
    ok = ~np.isnan(y)
    if ok.sum() < 3:
        return None
    if np.ptp(y[ok]) == 0:
        return Trend(0.0, float(y[ok][0]), 1.0, 0.0, "flat")
    r = line_fit(x[ok], y[ok])
    slope, p = r.slope, r.p_value
    direction: Literal["up", "down", "flat"] = (
        "flat" if not p < alpha else ("up" if slope > 0 else "down")
    )
    return Trend(slope, r.intercept, p, r.r**2, direction)


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
