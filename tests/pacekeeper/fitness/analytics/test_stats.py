"""The analytics' own statistics against scipy, their oracle (issue 30: scipy left the
runtime; each function here replaced one scipy call and must give its answer)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import optimize, special, stats  # type: ignore[import-untyped]

from pacekeeper.fitness import analytics as an
from pacekeeper.fitness.analytics import _stats


@pytest.mark.parametrize("seed", range(40))
def test_line_fit_is_linregress(seed: int) -> None:
    rng = np.random.default_rng(seed)
    n = int(rng.integers(3, 400))
    x = np.arange(n, dtype=np.float64)
    y = rng.normal(50.0, 10.0, n) + rng.normal(0.0, 0.2) * x
    ours, theirs = _stats.line_fit(x, y), stats.linregress(x, y)
    assert ours.slope == pytest.approx(theirs.slope, rel=1e-9, abs=1e-12)
    assert ours.intercept == pytest.approx(theirs.intercept, rel=1e-9)
    assert ours.r == pytest.approx(theirs.rvalue, rel=1e-9, abs=1e-12)
    assert ours.p_value == pytest.approx(theirs.pvalue, rel=1e-8, abs=1e-300)


def test_line_fit_of_a_perfect_line_has_p_zero() -> None:
    x = np.arange(10, dtype=np.float64)
    fit = _stats.line_fit(x, 3.0 * x + 2.0)
    assert (fit.slope, fit.intercept, fit.r) == pytest.approx((3.0, 2.0, 1.0))
    assert fit.p_value == pytest.approx(stats.linregress(x, 3.0 * x + 2.0).pvalue, abs=1e-12)


@pytest.mark.parametrize("a", [0.5, 1.0, 2.5, 15.0, 200.0])
@pytest.mark.parametrize("b", [0.5, 1.0, 4.0, 60.0])
def test_regularized_beta_is_betainc(a: float, b: float) -> None:
    for x in np.linspace(0.0, 1.0, 41):
        assert _stats.regularized_beta(a, b, float(x)) == pytest.approx(
            float(special.betainc(a, b, x)), rel=1e-10, abs=1e-14), (a, b, x)


@pytest.mark.parametrize("df", [1, 2, 5, 28, 365])
def test_student_t_two_sided_is_scipys(df: int) -> None:
    for t in (0.0, 0.1, 1.0, 1.96, 2.5, 6.0, 40.0):
        assert _stats.student_t_two_sided(t, df) == pytest.approx(
            2.0 * float(stats.t.sf(t, df)), rel=1e-9, abs=1e-300), (t, df)


def test_bisection_finds_the_root_brentq_finds() -> None:
    for distance in (1500.0, 5000.0, 10000.0, 21097.5, 42195.0):
        for vdot in (30.0, 45.0, 60.0, 85.0):
            want = optimize.brentq(lambda t, d=distance, v=vdot: an.vdot_from_race(d, t) - v,
                                   1.0, 172800.0, xtol=1e-9, rtol=1e-12)
            assert an.race_time_for_vdot(vdot, distance) == pytest.approx(want, rel=1e-11)


def test_bisection_refuses_an_unbracketed_root() -> None:
    with pytest.raises(ValueError, match="bracketed"):
        _stats.bisect_decreasing(lambda t: t - 10.0, 1.0, 5.0)


def _morton(t: np.ndarray, cp: float, w: float, pmax: float) -> np.ndarray:
    return np.asarray(an.morton_power(t, cp, w, pmax))


@pytest.mark.parametrize("seed", range(25))
def test_three_parameter_fit_is_curve_fits_optimum(seed: int) -> None:
    """On noisy mean-maximal curves of plausible riders, the variable-projection fit
    reaches the least-squares optimum curve_fit reaches (the parameters agree, and its
    residual is never larger)."""
    rng = np.random.default_rng(seed)
    cp, w, pmax = rng.uniform(150, 400), rng.uniform(8000, 30000), rng.uniform(700, 1600)
    t = np.array([1, 2, 5, 10, 15, 20, 30, 45, 60, 90, 120, 180, 300, 420, 600, 900,
                  1200, 1800], dtype=np.float64)
    p = _morton(t, cp, w, pmax) * rng.normal(1.0, 0.02, len(t))
    ours = an.critical_power_3p(t, p)
    assert ours is not None and ours.p_max is not None
    start = an.critical_power_2p(t, p, 120.0, 1800.0)
    assert start is not None
    (tcp, tw, tpmax), _ = optimize.curve_fit(
        _morton, t, p, p0=(start.cp, start.w_prime, max(float(p.max()), start.cp * 1.5)),
        bounds=([1.0, 100.0, 1.0], [3000.0, 200000.0, 5000.0]), maxfev=20000)
    ss_ours = float(np.sum((p - _morton(t, ours.cp, ours.w_prime, ours.p_max)) ** 2))
    ss_theirs = float(np.sum((p - _morton(t, tcp, tw, tpmax)) ** 2))
    assert ss_ours <= ss_theirs * (1 + 1e-9)
    assert (ours.cp, ours.w_prime, ours.p_max) == pytest.approx((tcp, tw, tpmax), rel=1e-4)


def test_three_parameter_fit_at_the_ceiling_is_curve_fits_bounded_optimum() -> None:
    """A pure two-parameter curve (Pmax unbounded) puts the optimum on Pmax = 5,000 W,
    where curve_fit's bounds held it: the fit is the one on that bound, not none."""
    t = np.array([1, 2, 3, 5, 8, 12, 20, 30, 60, 120, 300, 600, 1200, 1800], dtype=float)
    p = 250.0 + 2000.0 / t
    ours = an.critical_power_3p(t, p)
    (tcp, tw, tpmax), _ = optimize.curve_fit(
        _morton, t, p, p0=(200.0, 20000.0, 400.0),
        bounds=([1.0, 100.0, 1.0], [3000.0, 200000.0, 5000.0]), maxfev=20000)
    assert ours is not None and ours.p_max == pytest.approx(5000.0)
    assert (ours.cp, ours.w_prime) == pytest.approx((tcp, tw), rel=1e-5)


def test_three_parameter_fit_outside_physiology_is_none() -> None:
    """Power rising with duration has no positive W': no fit rather than a clamped one."""
    t = np.array([60.0, 120.0, 300.0, 600.0, 1200.0])
    assert an.critical_power_3p(t, np.array([200.0, 210.0, 220.0, 230.0, 240.0])) is None


@pytest.mark.parametrize("tau", [300.0, 546.0, 900.0])
def test_wbal_2012_is_the_recursive_filter(tau: float) -> None:
    rng = np.random.default_rng(int(tau))
    power = rng.uniform(0.0, 500.0, 5000)
    cp, w = 250.0, 20000.0
    from scipy import signal  # type: ignore[import-untyped]

    k = math.exp(-1.0 / tau)
    spent = signal.lfilter([1.0], [1.0, -k], np.maximum(power - cp, 0.0))
    ours = an.w_prime_balance_skiba2012(power, cp, w, tau)
    assert np.allclose(ours, w - spent, rtol=0, atol=1e-6)
