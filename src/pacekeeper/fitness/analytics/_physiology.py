"""Critical power models, FTP estimates, W' balance and VO2max estimates."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Final

import numpy as np
import numpy.typing as npt

from ._ewma import ewma
from ._stats import hyperbola_fit, line_fit
from ._types import FloatArray, as_float


@dataclass(frozen=True, slots=True)
class CriticalPower:
    cp: float  # W
    w_prime: float  # J
    r_squared: float
    p_max: float | None = None  # W, 3-parameter model only


def _points(
    durations: npt.ArrayLike, powers: npt.ArrayLike, min_s: float, max_s: float
) -> tuple[FloatArray, FloatArray]:
    t, p = as_float(durations), as_float(powers)
    ok = (t >= min_s) & (t <= max_s) & ~np.isnan(p) & (p > 0)
    return t[ok], p[ok]


def critical_power_2p(
    durations: npt.ArrayLike,
    powers: npt.ArrayLike,
    min_s: float = 120.0,
    max_s: float = 1200.0,
) -> CriticalPower | None:
    """Monod & Scherrer's 2-parameter model as the linear work-time regression
    W = CP x t + W' (Hill 1993) over mean-maximal points between 2 and 20 minutes.
    R^2 of that regression. None with fewer than 2 points or a non-positive fit."""
    t, p = _points(durations, powers, min_s, max_s)
    if len(t) < 2 or np.ptp(t) == 0:
        return None
    fit = line_fit(t, p * t)
    cp, w_prime = fit.slope, fit.intercept
    if cp <= 0 or w_prime <= 0:
        return None
    return CriticalPower(cp, w_prime, fit.r**2)


def morton_power(t: npt.ArrayLike, cp: float, w_prime: float, p_max: float) -> FloatArray:
    """Power sustainable for t seconds in Morton's (1996) 3-parameter model,
    t = W'/(P - CP) + W'/(CP - Pmax), solved for P: CP + W' / (t + W'/(Pmax - CP))."""
    return cp + w_prime / (as_float(t) + w_prime / (p_max - cp))


P_MAX_CEILING_W: Final = 5000.0  # above any human's 1 s power


def critical_power_3p(
    durations: npt.ArrayLike,
    powers: npt.ArrayLike,
    min_s: float = 1.0,
    max_s: float = 1800.0,
) -> CriticalPower | None:
    """Morton's 3-parameter critical power model fitted by least squares on power over
    mean-maximal points from ``min_s`` to ``max_s``: P = CP + W' / (t + k) with
    k = W' / (Pmax - CP) and Pmax at most 5,000 W, by variable projection
    (``_stats.hyperbola_fit``; the bounded least-squares optimum scipy.optimize.curve_fit
    reached when it did this, tested against it). R^2 = 1 - SS_res / SS_tot on power.
    None with fewer than 4 points or a fit outside physiology (CP 1-3,000 W,
    W' 100-200,000 J, Pmax above CP)."""
    t, p = _points(durations, powers, min_s, max_s)
    if len(t) < 4:
        return None
    fit = hyperbola_fit(t, p, (0.01, 1e5), P_MAX_CEILING_W)
    if fit is None:
        return None
    cp, w_prime, k = fit
    if not (1.0 <= cp <= 3000.0 and 100.0 <= w_prime <= 200000.0):
        return None
    p_max = cp + w_prime / k
    if not cp < p_max <= P_MAX_CEILING_W * (1 + 1e-12):
        return None
    residual = p - morton_power(t, cp, w_prime, p_max)
    total = float(np.sum((p - p.mean()) ** 2))
    r2 = 1.0 - float(np.sum(residual**2)) / total if total > 0 else 1.0
    return CriticalPower(cp, w_prime, r2, p_max)


def ftp_from_20min(best_20min_watts: float) -> float:
    """FTP = 95 % of the best 20-minute power (Allen & Coggan)."""
    return 0.95 * best_20min_watts


def ftp_from_ramp(best_1min_watts: float) -> float:
    """FTP = 75 % of the best 1-minute power in a ramp test (Zwift / TrainerRoad ramp)."""
    return 0.75 * best_1min_watts


@dataclass(frozen=True, slots=True)
class FtpDetection:
    estimate: float
    source: str  # "20min" or "cp"
    current: float | None
    improved: bool


def detect_new_ftp(
    durations: npt.ArrayLike,
    powers: npt.ArrayLike,
    current_ftp: float | None,
    margin: float = 0.01,
) -> FtpDetection | None:
    """An FTP estimate from recent mean-maximal bests: 95 % of the 20-minute best, or the
    2-parameter CP when that is higher and the fit is good (R^2 >= 0.95, points spanning
    3 to 20 minutes). ``improved`` when it beats the current FTP by more than ``margin``
    (1 %; below that, noise). None when the bests reach neither."""
    t, p = as_float(durations), as_float(powers)
    estimates: list[tuple[float, str]] = []
    at20 = p[t == 1200]
    if len(at20) and not np.isnan(at20[0]):
        estimates.append((ftp_from_20min(float(at20[0])), "20min"))
    cp = critical_power_2p(t, p, 180.0, 1200.0)
    if cp is not None and cp.r_squared >= 0.95:
        estimates.append((cp.cp, "cp"))
    if not estimates:
        return None
    estimate, source = max(estimates)
    improved = current_ftp is None or estimate > current_ftp * (1.0 + margin)
    return FtpDetection(estimate, source, current_ftp, improved)


def skiba_tau(power: npt.ArrayLike, cp: float) -> float:
    """Skiba 2012 recovery time constant: tau = 546 e^(-0.01 D_CP) + 316 s, D_CP = CP minus
    the mean of the recorded powers below CP (over the whole ride; 0 if none)."""
    p = as_float(power)
    below = p[(p < cp) & ~np.isnan(p)]
    d_cp = cp - (float(below.mean()) if len(below) else 0.0)
    return 546.0 * math.exp(-0.01 * d_cp) + 316.0


def w_prime_balance_skiba2012(
    power: npt.ArrayLike, cp: float, w_prime: float, tau: float | None = None
) -> FloatArray:
    """W' balance, Skiba et al. (2012), integral form:
    W'bal(t) = W' - sum over u <= t of W'exp(u) e^(-(t - u) / tau),
    W'exp(u) = max(0, P(u) - CP) x 1 s. The sum is a first-order recursive filter
    S(t) = e^(-1/tau) S(t - 1) + W'exp(t), run as ``_ewma.ewma`` (numpy blocks, O(n);
    S = ewma(W'exp / (1 - k), k) with k = e^(-1/tau)).
    ``tau`` defaults to ``skiba_tau`` over the ride (sweat's static tau). NaN seconds
    (pauses) count as 0 W: recovery goes on in real time."""
    p = np.nan_to_num(as_float(power), nan=0.0)
    if tau is None:
        tau = skiba_tau(p, cp)
    expended = np.maximum(p - cp, 0.0)
    if len(p) == 0:
        return np.zeros(0)
    k = math.exp(-1.0 / tau)
    spent = ewma(expended / (1.0 - k), k, 0.0)
    return w_prime - spent


_BLOCK: Final = 128


def w_prime_balance_skiba2015(power: npt.ArrayLike, cp: float, w_prime: float) -> FloatArray:
    """W' balance, Skiba et al. (2015), differential form (Froncioni-Skiba-Clarke):
    above CP W'bal falls by P - CP each second; below CP it recovers by
    (CP - P) (W' - W'bal) / W'.

    In the deficit D = W' - W'bal this is the linear recurrence D_t = a_t D_(t-1) + b_t,
    a_t = 1 - max(0, CP - P_t) / W', b_t = max(0, P_t - CP), solved in closed form per
    block of 128 seconds with cumulative products (D_t = A_t (D_0 + sum b_u / A_u)); the
    blocks chain in a loop of n / 128 steps. NaN seconds count as 0 W.
    """
    p = np.nan_to_num(as_float(power), nan=0.0)
    a = 1.0 - np.maximum(cp - p, 0.0) / w_prime
    b = np.maximum(p - cp, 0.0)
    out = np.empty(len(p))
    deficit = 0.0
    for s in range(0, len(p), _BLOCK):
        aa, bb = a[s : s + _BLOCK], b[s : s + _BLOCK]
        prod = np.cumprod(aa)
        if np.all(prod > 1e-250):
            block = prod * (deficit + np.cumsum(bb / prod))
        else:  # a run long and deep enough to underflow: step through this block
            block = np.empty(len(aa))
            d = deficit
            for k in range(len(aa)):
                d = aa[k] * d + bb[k]
                block[k] = d
        out[s : s + len(aa)] = block
        deficit = float(block[-1])
    return w_prime - out


def vo2max_from_power(power_5min_watts: float, weight_kg: float) -> float:
    """VO2max (ml/kg/min) from the best 5-minute power, Sitko et al. (2021, Int J Sports
    Physiol Perform): 16.6 + 8.87 x W/kg (road cyclists)."""
    return 16.6 + 8.87 * power_5min_watts / weight_kg


def vo2max_acsm_cycling(watts: float, weight_kg: float) -> float:
    """ACSM leg-cycling equation: VO2 = 1.8 x work (kg m/min) / kg + 7 ml/kg/min, with
    1 W = 6.12 kg m/min; at maximal aerobic power it estimates VO2max."""
    return 1.8 * watts * 6.12 / weight_kg + 7.0


__all__ = [
    "CriticalPower",
    "FtpDetection",
    "critical_power_2p",
    "critical_power_3p",
    "detect_new_ftp",
    "ftp_from_20min",
    "ftp_from_ramp",
    "morton_power",
    "skiba_tau",
    "vo2max_acsm_cycling",
    "vo2max_from_power",
    "w_prime_balance_skiba2012",
    "w_prime_balance_skiba2015",
]
