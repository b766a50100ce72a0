"""A daily readiness score from recovery markers and training load.

Pacekeeper's own composite (no published score is open), built on the HRV-baseline
method of Plews et al. (2013) and Altini & Plews (2021): compare the last 7 days'
mean of a marker with its 60-day baseline as a z-score. Inputs, each optional:

- HRV (rMSSD, ms; compared as ln rMSSD): higher than baseline is good. Weight 0.35.
- Resting HR (bpm): lower than baseline is good. Weight 0.20.
- Sleep duration (h): (h - 7.5) / 1 h; 9.5 h or more counts fully. Weight 0.15.
- Sleep score (0-100): (score - 75) / 12.5. Weight 0.10.
- TSB (form): TSB / 15 (+15 fresh, -15 loaded, -30 very fatigued). Weight 0.20.

Each input becomes a signal s in [-1, 1] (its z clipped to +-2, halved); the score is
50 + 50 x sum(w s) / sum(w) over the inputs present, so 50 is "as usual", 100 every
marker two SD better. Each input's ``contribution`` is its share of the points.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Final

import numpy as np
import numpy.typing as npt

from ._types import as_float

WEIGHTS: Final[dict[str, float]] = {
    "hrv": 0.35,
    "resting_hr": 0.20,
    "sleep_duration": 0.15,
    "sleep_score": 0.10,
    "tsb": 0.20,
}


@dataclass(frozen=True, slots=True)
class ReadinessInput:
    name: str
    value: float  # the recent value (7-day mean for HRV / resting HR)
    baseline: float | None  # the 60-day mean, or the fixed reference
    z: float  # standardised deviation, signed so that positive is good
    weight: float
    contribution: float  # points added to (or taken from) 50


@dataclass(frozen=True, slots=True)
class Readiness:
    score: float
    inputs: tuple[ReadinessInput, ...]


def _baseline_z(
    series: npt.ArrayLike, recent: int, baseline: int
) -> tuple[float, float, float] | None:
    x = as_float(series)
    rec, base = x[-recent:], x[-baseline:]
    rec, base = rec[~np.isnan(rec)], base[~np.isnan(base)]
    if len(rec) == 0 or len(base) < 7:
        return None
    sd = float(base.std(ddof=1))
    mean = float(base.mean())
    if sd <= 0:
        return float(rec.mean()), mean, 0.0
    return float(rec.mean()), mean, (float(rec.mean()) - mean) / sd


def readiness(
    *,
    hrv_ms: npt.ArrayLike | None = None,
    resting_hr: npt.ArrayLike | None = None,
    sleep_hours: float | None = None,
    sleep_score: float | None = None,
    tsb: float | None = None,
    recent_days: int = 7,
    baseline_days: int = 60,
) -> Readiness | None:
    """Readiness 0-100 from daily series (oldest first, the last value today; NaN for a
    missing day) and today's sleep and TSB. None when no input is usable."""
    raw: list[tuple[str, float, float | None, float]] = []
    if hrv_ms is not None:
        h = as_float(hrv_ms)
        logged = np.log(np.where(h > 0, h, np.nan))
        got = _baseline_z(logged, recent_days, baseline_days)
        if got:
            raw.append(("hrv", math.exp(got[0]), math.exp(got[1]), got[2]))
    if resting_hr is not None:
        got = _baseline_z(resting_hr, recent_days, baseline_days)
        if got:
            raw.append(("resting_hr", got[0], got[1], -got[2]))
    if sleep_hours is not None:
        raw.append(("sleep_duration", sleep_hours, 7.5, (sleep_hours - 7.5) / 1.0))
    if sleep_score is not None:
        raw.append(("sleep_score", sleep_score, 75.0, (sleep_score - 75.0) / 12.5))
    if tsb is not None:
        raw.append(("tsb", tsb, 0.0, tsb / 15.0))
    if not raw:
        return None
    total_weight = sum(WEIGHTS[name] for name, *_ in raw)
    inputs = []
    for name, value, base, z in raw:
        signal = max(-2.0, min(2.0, z)) / 2.0
        points = 50.0 * WEIGHTS[name] * signal / total_weight
        inputs.append(ReadinessInput(name, value, base, z, WEIGHTS[name], points))
    score = 50.0 + sum(i.contribution for i in inputs)
    return Readiness(max(0.0, min(100.0, score)), tuple(inputs))


__all__ = ["WEIGHTS", "Readiness", "ReadinessInput", "readiness"]
