"""A sandbox athlete's physiology: duration curves, thresholds per sport, heart-rate kinetics.

Pure functions of their arguments (no I/O, no clock), so the generator and the tests
compute the same figures from the same parameters. Sources, per formula:

- Power-duration: the omni-domain power-duration model (OmPD) of Puccinelli et al.
  (2018), which extends the critical-power family (2-parameter model; Morton's 1996
  3-parameter model, ``t = W'/(P - CP) + W'/(CP - Pmax)``, both in
  /work/shared/notes/sports-science.md) from a finite sprint power ``Pmax`` at t -> 0 to a
  slow decline below CP past 30 minutes:
  ``P(t) = W'/t (1 - exp(-t (Pmax - CP) / W')) + CP``, minus ``A ln(t / 1800)`` when
  t > 1800 s. Morton's model is not used because it keeps the hour power above CP,
  which would put FTP (the hour power, Coggan) above CP, the wrong way round.
- Running: the same form on speed, critical speed CS and D' (the 2-parameter model on
  distance, D = CS t + D') with a top speed ``vmax``; checked against Riegel (1981),
  T2 = T1 (D2/D1)^1.06, in the tests. Running power is mechanical power as running
  power meters report it: an energy cost of about 1.04 J/kg/m on the flat, scaled on a
  gradient by Minetti et al. (2002)'s cost of running C(i) / C(0).
- Swimming: critical swim speed (CSS) from a 400 m and a 200 m time trial, Wakayoshi et
  al. (1992): CSS = (400 - 200) / (T400 - T200), the trial times taken from the swim's
  own speed-duration curve.
- Heart rate: a first-order response (a time constant of tens of seconds, the order of
  magnitude of heart-rate on-kinetics in moderate exercise; the brief of issue 27, not
  a fitted value) towards a steady state set by the intensity relative to the sport's
  threshold, with cardiac drift of a few bpm per hour.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

FloatArray = npt.NDArray[np.float64]

TCP_MAX_S = 1800.0
"""OmPD: the duration (30 min) past which power declines below CP by A ln(t / TCPmax)."""

RUN_COST_J_PER_KG_M = 1.04
"""Mechanical energy cost of running on the flat, as running power meters report it."""


def minetti_cost(grade: FloatArray | float) -> FloatArray:
    """Energy cost of running on ``grade`` (rise/run), J/kg/m, Minetti et al. (2002):
    155.4 i^5 - 30.4 i^4 - 43.3 i^3 + 46.3 i^2 + 19.5 i + 3.6 (valid for |i| <= 0.45)."""
    i = np.clip(np.asarray(grade, dtype=np.float64), -0.45, 0.45)
    return np.asarray(155.4 * i**5 - 30.4 * i**4 - 43.3 * i**3 + 46.3 * i**2 + 19.5 * i + 3.6)


def ompd(t: FloatArray | float, cp: float, w_prime: float, pmax: float, a: float) -> FloatArray:
    """Best mean output sustainable for ``t`` seconds, Puccinelli et al. (2018) OmPD.

    Works in any unit of output: W and J for power, m/s and m for running or swimming
    speed (CS, D', vmax)."""
    t = np.maximum(np.asarray(t, dtype=np.float64), 1e-9)
    base = w_prime / t * (1.0 - np.exp(-t * (pmax - cp) / w_prime)) + cp
    return np.asarray(np.where(t <= TCP_MAX_S, base, base - a * np.log(t / TCP_MAX_S)))


def all_out(seconds: int, cp: float, w_prime: float, pmax: float, a: float) -> FloatArray:
    """Output second by second of an all-out effort of ``seconds`` from its start.

    Sample k is the work of second [k, k + 1]: W(k + 1) - W(k) with W(t) = t P(t) from
    ``ompd``. Its mean over the first d samples is then exactly P(d), and as the samples
    fall, the first d seconds are the effort's best d seconds: an all-out effort lies on
    the athlete's curve at every duration it covers."""
    t = np.arange(seconds + 1, dtype=np.float64)
    work = t * ompd(t, cp, w_prime, pmax, a)
    work[0] = 0.0
    return np.diff(work)


@dataclass(frozen=True, slots=True)
class Curve:
    """One sport's duration curve (OmPD parameters) in its own unit of output."""

    cp: float  # critical power (W) or critical speed (m/s)
    w_prime: float  # W' (J) or D' (m)
    pmax: float  # sprint power (W) or top speed (m/s)
    a: float  # OmPD long-duration decline, same unit as cp

    def at(self, t: FloatArray | float) -> FloatArray:
        return ompd(t, self.cp, self.w_prime, self.pmax, self.a)

    def best(self, t: float) -> float:
        return float(self.at(t))

    def all_out(self, seconds: int) -> FloatArray:
        return all_out(seconds, self.cp, self.w_prime, self.pmax, self.a)

    def time_for_distance(self, metres: float) -> float:
        """Seconds for an all-out ``metres`` on a speed curve: t with t v(t) = metres
        (bisection on the increasing distance-time relation)."""
        lo, hi = 1.0, 50_000.0
        for _ in range(60):
            mid = (lo + hi) / 2
            lo, hi = (mid, hi) if mid * self.best(mid) < metres else (lo, mid)
        return (lo + hi) / 2


@dataclass(frozen=True, slots=True)
class Physiology:
    """Everything a sandbox athlete's sessions follow, and the thresholds it implies."""

    ride: Curve  # W
    run: Curve  # m/s
    swim: Curve  # m/s
    mass_kg: float
    rest_hr: int
    max_hr_ride: int
    max_hr_run: int
    lthr_ride: int
    lthr_run: int
    hr_tau_s: float  # first-order heart-rate time constant
    drift_bpm_per_h: float  # cardiac drift at threshold intensity

    @property
    def ftp(self) -> float:
        """Cycling FTP: the best hour power (Coggan's definition), from the curve."""
        return self.ride.best(3600)

    @property
    def run_threshold_speed(self) -> float:
        """Running threshold speed (m/s): the best hour speed, from the curve."""
        return float(self.run.best(3600))

    @property
    def run_ftp(self) -> float:
        """Running threshold power (W): threshold speed at the flat cost of running."""
        return float(running_power(self.run_threshold_speed, self.mass_kg, 0.0))

    @property
    def css(self) -> float:
        """Critical swim speed (m/s), Wakayoshi et al. (1992): 200 m over T400 - T200."""
        return 200.0 / (self.swim.time_for_distance(400) - self.swim.time_for_distance(200))


def running_power(
    speed: FloatArray | float, mass_kg: float, grade: FloatArray | float
) -> FloatArray:
    """Mechanical running power (W): 1.04 J/kg/m x mass x speed on the flat, scaled by
    Minetti et al. (2002)'s C(i) / C(0) on a gradient (never below 0)."""
    scale = minetti_cost(grade) / 3.6
    return np.asarray(np.maximum(0.0, RUN_COST_J_PER_KG_M * mass_kg * np.asarray(speed) * scale))


def steady_state_hr(x: FloatArray | float, rest: float, lthr: float, max_hr: float) -> FloatArray:
    """Heart rate that an intensity ``x`` (output over the sport's hour threshold) settles at.

    Linear in x below threshold, through LTHR at x = 1 and 85 % of LTHR at x = 0.65
    (an endurance ride lands in Friel's zone 2, 81-89 % of LTHR); above threshold it
    climbs to max HR at x = 1.2 (VO2max work reaches 95-100 % of max HR)."""
    x = np.asarray(x, dtype=np.float64)
    f_low = 0.4 + 0.6 * x
    below = rest + (lthr - rest) * f_low
    above = lthr + (max_hr - lthr) * np.clip((x - 1.0) / 0.2, 0.0, 1.0)
    return np.asarray(np.where(x <= 1.0, below, above))


def hr_response(target: FloatArray, start_hr: float, tau_s: float) -> FloatArray:
    """First-order heart-rate kinetics at 1 Hz: hr_k = hr_(k-1) + (target_k - hr_(k-1))
    (1 - e^(-1/tau)), the exact step response of dHR/dt = (target - HR) / tau."""
    alpha = 1.0 - math.exp(-1.0 / tau_s)
    out = np.empty_like(target)
    hr = start_hr
    for k, goal in enumerate(target.tolist()):
        hr += (goal - hr) * alpha
        out[k] = hr
    return out


def physiology_for(
    athlete_id: int, sex: str, mass_kg: float, ftp_wkg: float, max_hr: int, rest_hr: int
) -> Physiology:
    """Draw an athlete's physiology from their id (deterministic), around an hour power
    of ``ftp_wkg`` W/kg. Ranges are those of trained amateurs: W' 200-340 J/kg, sprint
    11-17 W/kg (men) or 9-13 (women), hour power 93-97 % of CP; running CP 90-110 % of
    the cycling CP (a runner's or a cyclist's background, the reason they may differ)."""
    rng = random.Random(f"physiology:{athlete_id}")  # noqa: S311 - synthetic data
    cp = ftp_wkg * mass_kg / rng.uniform(0.93, 0.97)
    w_prime = mass_kg * rng.uniform(200, 340)
    pmax = mass_kg * (rng.uniform(11, 17) if sex == "M" else rng.uniform(9, 13))
    a = _decline_for(cp, w_prime, pmax, ftp_wkg * mass_kg)
    run_cp_w = cp * rng.uniform(0.9, 1.1)
    cs = run_cp_w / (RUN_COST_J_PER_KG_M * mass_kg)
    d_prime = rng.uniform(150, 300)
    vmax = rng.uniform(7.0, 9.0) if sex == "M" else rng.uniform(6.0, 8.0)
    # Running's decline past 30 min is set so that 5 and 10 km times keep Riegel's
    # exponent (1.06) within about 3 %; the hour speed is then 97-99 % of CS.
    run_a = cs * rng.uniform(0.05, 0.055)
    css = rng.uniform(0.75, 1.25)  # m/s: 2:13 to 1:20 per 100 m
    swim = Curve(css, rng.uniform(15, 35), css * 2.0, 0.0)
    max_ride = max_hr - rng.randint(3, 8)  # cycling max HR is a few bpm below running's
    return Physiology(
        ride=Curve(cp, w_prime, pmax, a),
        run=Curve(cs, d_prime, vmax, run_a),
        swim=swim,
        mass_kg=mass_kg,
        rest_hr=rest_hr,
        max_hr_ride=max_ride,
        max_hr_run=max_hr,
        lthr_ride=round(max_ride * rng.uniform(0.89, 0.93)),
        lthr_run=round(max_hr * rng.uniform(0.90, 0.94)),
        hr_tau_s=rng.uniform(25.0, 45.0),
        drift_bpm_per_h=rng.uniform(3.0, 6.0),
    )


def _decline_for(cp: float, w_prime: float, pmax: float, hour: float) -> float:
    """OmPD's A that puts the hour (3600 s) on ``hour``: solve P(3600) = hour for A."""
    base = float(ompd(3600.0, cp, w_prime, pmax, 0.0))
    return max(0.0, (base - hour) / math.log(3600.0 / TCP_MAX_S))


__all__ = [
    "Curve",
    "Physiology",
    "all_out",
    "hr_response",
    "minetti_cost",
    "ompd",
    "physiology_for",
    "running_power",
    "steady_state_hr",
]
