"""Power metrics (Coggan / TrainingPeaks definitions, as in GoldenCheetah ``Coggan.cpp``).

NaN in a power stream is a second with no sample (a pause or a dropout); a recorded 0 W
(coasting) is a real zero. NaN seconds are dropped before any formula: the rolling
window of normalized power runs over the recorded seconds only, so a pause neither adds
zeros nor breaks the window.
"""

from __future__ import annotations

from typing import Final

import numpy as np
import numpy.typing as npt

from ._types import FloatArray, as_float

COGGAN_POWER_ZONES: Final[tuple[float, ...]] = (0.0, 0.55, 0.75, 0.90, 1.05, 1.20, 1.50)
"""Lower bounds of Coggan's seven power levels as fractions of FTP: 1 active recovery
(< 55 %), 2 endurance (55-75 %), 3 tempo (75-90 %), 4 threshold (90-105 %), 5 VO2max
(105-120 %), 6 anaerobic (120-150 %), 7 neuromuscular (> 150 %)."""


NP_WINDOW_S = 30


def normalized_power(power: npt.ArrayLike, window_s: int = NP_WINDOW_S) -> float | None:
    """Normalized power (Coggan): the 30 s rolling mean of power, raised to the 4th
    power, averaged, 4th root.

    NaN seconds are dropped first (pauses / no sample; recorded zeros stay). Only full
    windows count: the rolling mean starts at the 30th recorded second (TrainingPeaks'
    definition; GoldenCheetah instead pads the first 29 seconds with zeros, which lowers
    NP of short rides). A Garmin Edge's figure matches this choice (tests). None with
    fewer than ``window_s`` recorded seconds.
    """
    p = as_float(power)
    p = p[~np.isnan(p)]
    if len(p) < window_s:
        return None
    c = np.concatenate(([0.0], np.cumsum(p)))
    rolling = (c[window_s:] - c[:-window_s]) / window_s
    return float(np.mean(rolling**4) ** 0.25)


def intensity_factor(np_watts: float, ftp_watts: float) -> float:
    """IF = NP / FTP (Coggan)."""
    return np_watts / ftp_watts


def tss(np_watts: float, ftp_watts: float, duration_s: float) -> float:
    """Training stress score (Coggan): (s x NP x IF) / (FTP x 3600) x 100, i.e. 100 x
    hours x IF^2. ``duration_s`` is the workout's duration: ``analyze_activity`` passes
    the whole power series (every recorded power second, pauses excluded), so an hour
    at FTP is 100. A Garmin Edge counts only the seconds its 30 s average covers
    (recorded - 29), which reads 29 s short: 99.19 for that hour, -1.3 % on 37 min."""
    intensity = np_watts / ftp_watts
    return duration_s * np_watts * intensity / (ftp_watts * 3600.0) * 100.0


def variability_index(np_watts: float, avg_watts: float) -> float | None:
    """VI = NP / average power (Coggan / Allen). None when the average is 0."""
    return np_watts / avg_watts if avg_watts > 0 else None


def efficiency_factor(output: float, avg_hr: float) -> float | None:
    """EF = NP / average HR for rides; normalized graded speed (m/min) / average HR for
    runs (Friel / TrainingPeaks). None when the average HR is 0."""
    return output / avg_hr if avg_hr > 0 else None


def aerobic_decoupling(output: npt.ArrayLike, hr: npt.ArrayLike) -> float | None:
    """Aerobic decoupling Pa:HR in percent: EF of the first half over EF of the second
    half, minus 1 (the definition of the project's notes; positive = HR drifted up
    relative to output). Each half's EF is its mean output over its mean HR
    (GoldenCheetah's Pa:HR uses average power per half, not NP). Only seconds with both
    samples count; the halves split those seconds in two equal counts. TrainingPeaks
    writes (EF1 - EF2) / EF1, which differs by a factor EF1/EF2 (under 1 % at typical
    drifts). None with fewer than 2 paired seconds or zero HR / output.
    """
    o, h = as_float(output), as_float(hr)
    ok = ~np.isnan(o) & ~np.isnan(h)
    o, h = o[ok], h[ok]
    if len(o) < 2:
        return None
    half = len(o) // 2
    o1, h1, o2, h2 = o[:half].mean(), h[:half].mean(), o[half:].mean(), h[half:].mean()
    if min(h1, h2) <= 0 or o2 <= 0:
        return None
    return float(((o1 / h1) / (o2 / h2) - 1.0) * 100.0)


def power_zones(ftp_watts: float) -> FloatArray:
    """Lower bounds (W) of Coggan's seven zones for this FTP (rounded to 1e-6 W, so that
    0.55 x 200 is 110, not 110.00000000000001)."""
    return np.round(np.asarray(COGGAN_POWER_ZONES) * ftp_watts, 6)


def time_in_zones(values: npt.ArrayLike, lower_bounds: npt.ArrayLike) -> FloatArray:
    """Seconds spent in each zone of a 1 Hz stream: zone k holds values in
    ``[lower_bounds[k], lower_bounds[k + 1])``, the last zone is open-ended and values
    below the first bound count in the first zone. NaN seconds count nowhere."""
    v = as_float(values)
    v = v[~np.isnan(v)]
    bounds = as_float(lower_bounds)
    index = np.clip(np.searchsorted(bounds, v, side="right") - 1, 0, len(bounds) - 1)
    return np.bincount(index, minlength=len(bounds)).astype(np.float64)


__all__ = [
    "COGGAN_POWER_ZONES",
    "aerobic_decoupling",
    "efficiency_factor",
    "intensity_factor",
    "normalized_power",
    "power_zones",
    "time_in_zones",
    "tss",
    "variability_index",
]
