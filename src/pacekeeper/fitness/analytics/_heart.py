"""Heart-rate load and zones: Banister TRIMP, Edwards TRIMP, hrTSS, zone models.

NaN in a heart-rate stream is a second with no sample: it counts nowhere (no minutes,
no zone time). Streams are 1 Hz: one sample is one second.
"""

from __future__ import annotations

import math
from typing import Final, Literal

import numpy as np
import numpy.typing as npt

from ._types import FloatArray, as_float

Sex = Literal["M", "F"]

BANISTER_COEFFICIENTS: Final[dict[str, tuple[float, float]]] = {
    "M": (0.64, 1.92),
    "F": (0.86, 1.67),
}
"""Banister (1991) weighting y = a e^(b x): men 0.64 e^(1.92 x), women 0.86 e^(1.67 x)
(Morton, Fitz-Clarke & Banister 1990; the commonly cited female coefficients).
GoldenCheetah's ``TRIMPPoints.cpp`` uses 0.64 e^(1.67 x) for women; we follow the
published pair. Unknown sex uses the men's coefficients (the original model)."""

FRIEL_LTHR_ZONES: Final[tuple[float, ...]] = (0.0, 0.81, 0.90, 0.94, 1.00, 1.03, 1.06)
"""Friel's seven heart-rate zones for cycling as fractions of LTHR (lower bounds):
1 < 81 %, 2 81-89 %, 3 90-93 %, 4 94-99 %, 5a 100-102 %, 5b 103-106 %, 5c > 106 %
(Friel, "A Quick Guide to Setting Zones", 2009, "Bike Zones")."""

FRIEL_LTHR_RUN_ZONES: Final[tuple[float, ...]] = (0.0, 0.85, 0.90, 0.95, 1.00, 1.03, 1.06)
"""The same seven zones for running (the same guide's "Run Zones"): 1 < 85 %, 2 85-89 %,
3 90-94 %, 4 95-99 %, 5a 100-102 %, 5b 103-106 %, 5c > 106 %."""

PERCENT_MAX_ZONES: Final[tuple[float, ...]] = (0.0, 0.60, 0.70, 0.80, 0.90)
"""Five zones as fractions of HRmax (lower bounds, zone 1 includes everything < 60 %)."""

KARVONEN_ZONES: Final[tuple[float, ...]] = (0.0, 0.60, 0.70, 0.80, 0.90)
"""Five zones as fractions of heart-rate reserve (Karvonen 1957)."""

_HRTSS_LTHR_FRACTION: Final = 1.0


def banister_trimp(
    hr: npt.ArrayLike, resting_hr: float, max_hr: float, sex: str | None = None
) -> float | None:
    """Banister TRIMP = sum over seconds of (1/60) x x x a e^(b x), with
    x = (HR - HRrest) / (HRmax - HRrest) clipped to [0, 1].

    Computed second by second (the integral form, GoldenCheetah's); for a constant HR it
    equals the textbook minutes x x x a e^(b x). Check values (x = 0.5, one minute):
    0.8357 men, 0.9911 women. Coefficients: ``BANISTER_COEFFICIENTS``.
    """
    if max_hr <= resting_hr:
        return None
    h = as_float(hr)
    h = h[~np.isnan(h)]
    a, b = BANISTER_COEFFICIENTS.get(sex or "M", BANISTER_COEFFICIENTS["M"])
    x = np.clip((h - resting_hr) / (max_hr - resting_hr), 0.0, 1.0)
    return float(np.sum(x * a * np.exp(b * x)) / 60.0)


def edwards_trimp(hr: npt.ArrayLike, max_hr: float) -> float:
    """Edwards (1993) TRIMP: minutes in the zones 50-60, 60-70, 70-80, 80-90 and
    90-100 % of HRmax weighted 1 to 5 (above 100 % counts as 5, below 50 % as 0)."""
    h = as_float(hr)
    h = h[~np.isnan(h)]
    fraction = h / max_hr
    weight = np.clip(np.floor(fraction * 10.0) - 4.0, 0.0, 5.0)
    return float(weight.sum() / 60.0)


def hr_tss(
    hr: npt.ArrayLike, lthr: float, resting_hr: float, max_hr: float, sex: str | None = None
) -> float | None:
    """hrTSS (TrainingPeaks): the activity's TRIMP over the TRIMP of one hour at LTHR,
    x 100. One hour at threshold heart rate scores 100, like one hour at FTP in TSS.

    TRIMP is Banister's (above) with the same sex coefficients, so hrTSS is
    100 x TRIMP / (60 x x_t x a e^(b x_t)), x_t = (LTHR - HRrest) / (HRmax - HRrest).
    """
    trimp = banister_trimp(hr, resting_hr, max_hr, sex)
    if trimp is None or not resting_hr < lthr <= max_hr:
        return None
    a, b = BANISTER_COEFFICIENTS.get(sex or "M", BANISTER_COEFFICIENTS["M"])
    xt = (lthr * _HRTSS_LTHR_FRACTION - resting_hr) / (max_hr - resting_hr)
    hour_at_lthr = 60.0 * xt * a * math.exp(b * xt)
    return 100.0 * trimp / hour_at_lthr


def karvonen_zones(
    resting_hr: float, max_hr: float, fractions: tuple[float, ...] = KARVONEN_ZONES
) -> FloatArray:
    """Lower bounds (bpm): HRrest + p x (HRmax - HRrest) for each fraction p (Karvonen)."""
    return np.round(resting_hr + np.asarray(fractions) * (max_hr - resting_hr), 6)


def max_hr_zones(max_hr: float, fractions: tuple[float, ...] = PERCENT_MAX_ZONES) -> FloatArray:
    """Lower bounds (bpm) as fractions of HRmax."""
    return np.round(np.asarray(fractions) * max_hr, 6)


def lthr_zones(lthr: float, fractions: tuple[float, ...] = FRIEL_LTHR_ZONES) -> FloatArray:
    """Lower bounds (bpm) as fractions of LTHR (Friel)."""
    return np.round(np.asarray(fractions) * lthr, 6)


__all__ = [
    "BANISTER_COEFFICIENTS",
    "FRIEL_LTHR_RUN_ZONES",
    "FRIEL_LTHR_ZONES",
    "KARVONEN_ZONES",
    "PERCENT_MAX_ZONES",
    "Sex",
    "banister_trimp",
    "edwards_trimp",
    "hr_tss",
    "karvonen_zones",
    "lthr_zones",
    "max_hr_zones",
]
