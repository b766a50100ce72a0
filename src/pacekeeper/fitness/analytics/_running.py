"""Running: Daniels-Gilbert VDOT, race equivalents, training paces, Riegel, grade-adjusted
pace (Minetti 2002), normalized graded pace and running TSS, pace zones.

Speeds are m/s and paces s/km unless a name says otherwise; Daniels' equations take
velocity in m/min and time in minutes.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Final

import numpy as np
import numpy.typing as npt

from ._stats import bisect_decreasing
from ._types import FloatArray, as_float

MILE_M: Final = 1609.344
MARATHON_M: Final = 42195.0


def speed_to_pace(speed_mps: float) -> float:
    """m/s -> s/km."""
    return 1000.0 / speed_mps


def pace_to_speed(pace_s_per_km: float) -> float:
    """s/km -> m/s."""
    return 1000.0 / pace_s_per_km


def daniels_vo2(velocity_m_per_min: float) -> float:
    """Oxygen cost of running (ml/kg/min) at a velocity in m/min (Daniels & Gilbert 1979):
    VO2 = -4.60 + 0.182258 v + 0.000104 v^2."""
    v = velocity_m_per_min
    return -4.60 + 0.182258 * v + 0.000104 * v * v


def daniels_fraction(minutes: float) -> float:
    """Fraction of VO2max sustainable for a race of ``minutes`` (Daniels & Gilbert 1979):
    0.8 + 0.1894393 e^(-0.012778 t) + 0.2989558 e^(-0.1932605 t)."""
    t = minutes
    return 0.8 + 0.1894393 * math.exp(-0.012778 * t) + 0.2989558 * math.exp(-0.1932605 * t)


def vdot_from_race(distance_m: float, time_s: float) -> float:
    """VDOT of a race performance: VO2 at race velocity over the sustainable fraction
    for its duration (Daniels' Running Formula; the Daniels-Gilbert equations)."""
    minutes = time_s / 60.0
    return daniels_vo2(distance_m / minutes) / daniels_fraction(minutes)


def race_time_for_vdot(vdot: float, distance_m: float) -> float:
    """Race time (s) over ``distance_m`` for a VDOT: the t solving
    ``vdot_from_race(distance_m, t) == vdot``, by bisection (VDOT falls strictly as t
    grows over the bracket 1 s .. 2 days)."""
    return bisect_decreasing(lambda t: vdot_from_race(distance_m, t) - vdot, 1.0, 172800.0)


def velocity_for_vo2(vo2: float) -> float:
    """Velocity (m/min) whose Daniels oxygen cost is ``vo2``: the positive root of
    0.000104 v^2 + 0.182258 v - (4.60 + vo2) = 0."""
    a, b, c = 0.000104, 0.182258, -(4.60 + vo2)
    return (-b + math.sqrt(b * b - 4.0 * a * c)) / (2.0 * a)


def riegel(time_s: float, distance_m: float, target_m: float, exponent: float = 1.06) -> float:
    """Riegel (1981): T2 = T1 x (D2 / D1)^1.06."""
    return float(time_s * (target_m / distance_m) ** exponent)


# Fractions of VO2max for the training intensities. T and I are Daniels' (88 % and
# 97.5 %: "threshold" and "interval" pace); E's band is 63-73.2 %, inside Daniels' stated
# 59-74 %, placed so that VDOT 50 gives his table's 4:56-5:34 /km. M is marathon race
# pace and R is mile race pace, both from the race equations (as Daniels defines them).
E_FAST_FRACTION: Final = 0.732
E_SLOW_FRACTION: Final = 0.630
T_FRACTION: Final = 0.88
I_FRACTION: Final = 0.975


@dataclass(frozen=True, slots=True)
class TrainingPaces:
    """Daniels training paces (s/km; ``r_per_400m`` in s per 400 m)."""

    easy_fast: float
    easy_slow: float
    marathon: float
    threshold: float
    interval: float
    repetition: float

    @property
    def r_per_400m(self) -> float:
        return self.repetition * 0.4


def training_paces(vdot: float) -> TrainingPaces:
    """E range, M, T, I, R paces for a VDOT (Daniels' Running Formula, table 5.2)."""

    def at(fraction: float) -> float:
        return 60000.0 / velocity_for_vo2(vdot * fraction)

    return TrainingPaces(
        easy_fast=at(E_FAST_FRACTION),
        easy_slow=at(E_SLOW_FRACTION),
        marathon=race_time_for_vdot(vdot, MARATHON_M) / (MARATHON_M / 1000.0),
        threshold=at(T_FRACTION),
        interval=at(I_FRACTION),
        repetition=race_time_for_vdot(vdot, MILE_M) / (MILE_M / 1000.0),
    )


def minetti_cost(grade: npt.ArrayLike) -> FloatArray:
    """Energy cost of running (J/kg/m) on a gradient ``grade`` (a fraction: 0.1 = 10 %),
    Minetti et al. (2002): 155.4 i^5 - 30.4 i^4 - 43.3 i^3 + 46.3 i^2 + 19.5 i + 3.6.
    Grades are clipped to the measured range -0.45 .. 0.45."""
    i = np.clip(as_float(grade), -0.45, 0.45)
    return ((((155.4 * i - 30.4) * i - 43.3) * i + 46.3) * i + 19.5) * i + 3.6


def grade_adjusted_speed(speed: npt.ArrayLike, grade: npt.ArrayLike) -> FloatArray:
    """Flat-ground speed of equal metabolic cost: speed x C(grade) / C(0) (Minetti)."""
    return as_float(speed) * minetti_cost(grade) / 3.6


def grade_from_altitude(
    altitude: npt.ArrayLike, distance: npt.ArrayLike, window_s: int = 10
) -> FloatArray:
    """Grade (fraction) from altitude and cumulative distance on the 1 Hz grid: rise over
    run between the ends of a centred ``window_s`` window (smooths GPS / barometer
    noise); 0 where the runner covers under 1 m in the window; NaN where a sample is
    missing."""
    alt, dist = as_float(altitude), as_float(distance)
    n = len(alt)
    half = window_s // 2
    lo = np.clip(np.arange(n) - half, 0, max(n - 1, 0))
    hi = np.clip(np.arange(n) + half, 0, max(n - 1, 0))
    run = dist[hi] - dist[lo]
    rise = alt[hi] - alt[lo]
    safe = np.where(run > 1.0, run, 1.0)
    return np.where(run > 1.0, rise / safe, np.where(np.isnan(run), np.nan, 0.0))


def normalized_graded_speed(graded_speed: npt.ArrayLike, window_s: int = 30) -> float | None:
    """Normalized graded speed (m/s), TrainingPeaks' NGP as a speed: the NP algorithm
    (30 s rolling mean, 4th power, mean, 4th root) on grade-adjusted speed, NaN seconds
    dropped first. None under ``window_s`` recorded seconds."""
    s = as_float(graded_speed)
    s = s[~np.isnan(s)]
    if len(s) < window_s:
        return None
    c = np.concatenate(([0.0], np.cumsum(s)))
    rolling = (c[window_s:] - c[:-window_s]) / window_s
    return float(np.mean(rolling**4) ** 0.25)


def running_tss(ngs_mps: float, threshold_speed_mps: float, duration_s: float) -> float:
    """rTSS (TrainingPeaks): 100 x hours x IF^2 with IF = NGP / functional threshold pace,
    both as speeds (pace ratio inverted)."""
    intensity = ngs_mps / threshold_speed_mps
    return 100.0 * duration_s / 3600.0 * intensity * intensity


FRIEL_PACE_ZONES: Final[tuple[float, ...]] = (math.inf, 1.29, 1.14, 1.06, 1.00, 0.97, 0.90)
"""Running pace zones after Friel, as fractions of threshold pace (time per km), each
zone's slowest pace: 1 recovery (slower than 129 %), 2 aerobic (114-129 %), 3 tempo
(106-114 %), 4 sub-threshold (100-106 %), 5a super-threshold (97-100 %), 5b aerobic
capacity (90-97 %), 5c anaerobic (faster than 90 %)."""


def pace_zones(threshold_pace_s_per_km: float) -> FloatArray:
    """Lower bounds of the pace zones as speeds (m/s), for ``time_in_zones`` on a speed
    stream: threshold speed / pace fraction (0 for the first zone)."""
    threshold_speed = 1000.0 / threshold_pace_s_per_km
    return np.array([threshold_speed / f for f in FRIEL_PACE_ZONES])


__all__ = [
    "E_FAST_FRACTION",
    "E_SLOW_FRACTION",
    "FRIEL_PACE_ZONES",
    "I_FRACTION",
    "MARATHON_M",
    "MILE_M",
    "T_FRACTION",
    "TrainingPaces",
    "daniels_fraction",
    "daniels_vo2",
    "grade_adjusted_speed",
    "grade_from_altitude",
    "minetti_cost",
    "normalized_graded_speed",
    "pace_to_speed",
    "pace_zones",
    "race_time_for_vdot",
    "riegel",
    "running_tss",
    "speed_to_pace",
    "training_paces",
    "vdot_from_race",
    "velocity_for_vo2",
]
