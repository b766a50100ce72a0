"""The few statistics the analytics need, in numpy and the standard library (issue 30).

Why not scipy, which did these before (``stats.linregress``, ``optimize.brentq``,
``optimize.curve_fit``): each first use in a serving process imported it on the event
loop (0.4-0.9 s held on this machine) and kept 51-78 MiB resident in every process, for
a line fit, a bisection, a p-value and one three-parameter fit. Each function here
names its method; tests/pacekeeper/fitness/analytics/test_stats.py holds every one to
scipy's answer (scipy is a test oracle now, not a runtime dependency).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from ._types import FloatArray


@dataclass(frozen=True, slots=True)
class LineFit:
    slope: float
    intercept: float
    r: float  # Pearson's correlation coefficient
    p_value: float  # two-sided, slope = 0 (Wald test with Student's t, n - 2 df)


def line_fit(x: FloatArray, y: FloatArray) -> LineFit:
    """Ordinary least squares y = slope x + intercept with Pearson's r and the slope's
    two-sided p-value: t = r sqrt(df / (1 - r^2)), df = n - 2 (as scipy.stats.linregress
    computes them). Needs at least 2 points and x not constant."""
    xm, ym = float(x.mean()), float(y.mean())
    dx, dy = x - xm, y - ym
    sxx, syy, sxy = float(dx @ dx), float(dy @ dy), float(dx @ dy)
    slope = sxy / sxx
    r = 0.0 if syy == 0.0 else max(-1.0, min(1.0, sxy / math.sqrt(sxx * syy)))
    df = len(x) - 2
    if df <= 0:
        p = 1.0 if syy == 0.0 else 0.0
    else:
        # 1e-20 keeps a perfect fit finite (t huge, p 0), as linregress does.
        t = r * math.sqrt(df / ((1.0 - r) * (1.0 + r) + 1e-20))
        p = student_t_two_sided(t, df)
    return LineFit(slope, ym - slope * xm, r, p)


def student_t_two_sided(t: float, df: float) -> float:
    """P(|T| >= |t|) for Student's t with ``df`` degrees of freedom:
    I_x(df / 2, 1 / 2) with x = df / (df + t^2) (DLMF 8.17.2, 8.17.22)."""
    return regularized_beta(df / 2.0, 0.5, df / (df + t * t))


def regularized_beta(a: float, b: float, x: float) -> float:
    """The regularized incomplete beta function I_x(a, b) by its continued fraction
    (DLMF 8.17.22), evaluated with the modified Lentz method; the symmetry
    I_x(a, b) = 1 - I_(1-x)(b, a) keeps x on the side where the fraction converges fast
    (Numerical Recipes, 3rd ed., section 6.4)."""
    if x <= 0.0:
        return 0.0
    if x >= 1.0:
        return 1.0
    front = math.exp(math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b)
                     + a * math.log(x) + b * math.log1p(-x))
    if x < (a + 1.0) / (a + b + 2.0):
        return front * _beta_fraction(a, b, x) / a
    return 1.0 - front * _beta_fraction(b, a, 1.0 - x) / b


_TINY = 1e-300


def _beta_fraction(a: float, b: float, x: float) -> float:
    """The continued fraction of I_x(a, b), modified Lentz (Thompson & Barnett 1986)."""
    c, d = 1.0, 1.0 - (a + b) * x / (a + 1.0)
    d = 1.0 / (d if abs(d) > _TINY else _TINY)
    h = d
    for m in range(1, 400):
        for numerator in (m * (b - m) * x / ((a + 2 * m - 1.0) * (a + 2 * m)),
                          -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1.0))):
            d = 1.0 + numerator * d
            d = 1.0 / (d if abs(d) > _TINY else _TINY)
            c = 1.0 + numerator / c
            c = c if abs(c) > _TINY else _TINY
            h *= d * c
        if abs(d * c - 1.0) < 1e-15:
            break
    return h


def bisect_decreasing(f: Callable[[float], float], lo: float, hi: float,
                      rtol: float = 1e-12) -> float:
    """The root of a function that falls strictly over [lo, hi] with f(lo) >= 0 >= f(hi),
    by bisection to ``rtol`` of the root (at most ~80 halvings over any float bracket).
    Bisection cannot miss a bracketed root; speed is not a concern for a closed-form f."""
    if not f(lo) >= 0.0 >= f(hi):
        raise ValueError("root not bracketed")
    while hi - lo > rtol * max(abs(lo), abs(hi), 1e-300):
        mid = 0.5 * (lo + hi)
        if mid in (lo, hi):
            break
        if f(mid) >= 0.0:
            lo = mid
        else:
            hi = mid
    return 0.5 * (lo + hi)


def hyperbola_fit(t: FloatArray, p: FloatArray, k_bounds: tuple[float, float],
                  ceiling: float) -> tuple[float, float, float] | None:
    """Least squares of p = c + w / (t + k) over (c, w, k) with the value at t = 0,
    c + w / k, at most ``ceiling``, by variable projection (Golub & Pereyra 1973): for a
    fixed k the model is linear in (c, w), a convex problem solved exactly (the
    unconstrained solution, or when it passes the ceiling the one on it, w = k (ceiling
    - c), linear in c alone), which leaves a one-dimensional search over k: a grid of
    161 points, log-spaced over ``k_bounds``, then golden-section refinement between the
    best point's neighbours. Returns (c, w, k), or None with fewer than 3 points."""
    if len(t) < 3:
        return None

    def solve(k: float) -> tuple[float, float, float]:
        basis = np.column_stack((np.ones_like(t), 1.0 / (t + k)))
        coef, *_ = np.linalg.lstsq(basis, p, rcond=None)
        c, w = float(coef[0]), float(coef[1])
        if c + w / k > ceiling:
            u, v = t / (t + k), ceiling * k / (t + k)
            c = float((p - v) @ u) / float(u @ u)
            w = k * (ceiling - c)
        residual = p - c - w / (t + k)
        return c, w, float(residual @ residual)

    grid = np.geomspace(k_bounds[0], k_bounds[1], 161)
    costs = [solve(float(k))[2] for k in grid]
    best = int(np.argmin(costs))
    lo = math.log(grid[max(best - 1, 0)])
    hi = math.log(grid[min(best + 1, len(grid) - 1)])
    ratio = (math.sqrt(5.0) - 1.0) / 2.0
    a, b = hi - ratio * (hi - lo), lo + ratio * (hi - lo)
    fa, fb = solve(math.exp(a))[2], solve(math.exp(b))[2]
    while hi - lo > 1e-10:
        if fa <= fb:
            hi, b, fb = b, a, fa
            a = hi - ratio * (hi - lo)
            fa = solve(math.exp(a))[2]
        else:
            lo, a, fa = a, b, fb
            b = lo + ratio * (hi - lo)
            fb = solve(math.exp(b))[2]
    k = math.exp(0.5 * (lo + hi))
    if costs[best] < min(fa, fb):  # the grid point itself (at a bound of the bracket)
        k = float(grid[best])
    c, w, _ = solve(k)
    return c, w, k


__all__ = [
    "LineFit",
    "bisect_decreasing",
    "hyperbola_fit",
    "line_fit",
    "regularized_beta",
    "student_t_two_sided",
]
