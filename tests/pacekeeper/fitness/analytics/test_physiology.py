"""Critical power fits, FTP estimates, W' balance (against sweat on real rides), VO2max."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pacekeeper.fitness import analytics as an

from ._fit import read_fit
from ._oracle import run_sweat


def test_two_parameter_fit_recovers_exact_data():
    t = np.array([60, 120, 180, 300, 600, 900, 1200, 1800], float)
    p = 280.0 + 21000.0 / t
    fit = an.critical_power_2p(t, p)
    assert fit.cp == pytest.approx(280.0) and fit.w_prime == pytest.approx(21000.0)
    assert fit.r_squared == pytest.approx(1.0)


def test_three_parameter_fit_recovers_exact_data():
    t = np.array([1, 5, 10, 30, 60, 120, 180, 300, 600, 1200, 1800], float)
    p = an.morton_power(t, 270.0, 18000.0, 1100.0)
    # Morton's model: t = W'/(P - CP) + W'/(CP - Pmax) holds at every point
    assert t == pytest.approx(18000.0 / (p - 270.0) + 18000.0 / (270.0 - 1100.0))
    fit = an.critical_power_3p(t, p)
    assert (fit.cp, fit.w_prime, fit.p_max) == pytest.approx((270.0, 18000.0, 1100.0), rel=1e-4)


def test_ftp_estimates_and_detection():
    assert an.ftp_from_20min(300.0) == pytest.approx(285.0)
    assert an.ftp_from_ramp(400.0) == pytest.approx(300.0)
    ds = np.array([60, 180, 300, 600, 1200], float)
    bests = 250.0 + 20000.0 / ds
    found = an.detect_new_ftp(ds, bests, current_ftp=240.0)
    # 20 min best 266.7 -> 253.3; CP 250 -> the larger, 95 % of 20 min, improves on 240
    assert found.estimate == pytest.approx(0.95 * (250 + 20000 / 1200)) and found.improved
    assert not an.detect_new_ftp(ds, bests, current_ftp=260.0).improved


def test_skiba_tau_by_hand():
    # D_CP = 250 - mean(150, 200) = 75 -> 546 e^-0.75 + 316
    assert an.skiba_tau([150, 200, 300], 250) == pytest.approx(546 * np.exp(-0.75) + 316)


def _loop_2015(p, cp, w):
    out, bal = [], w
    for x in p:
        bal = bal + (cp - x) * (w - bal) / w if x < cp else bal + (cp - x)
        out.append(bal)
    return np.array(out)


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 2**31), st.integers(1, 2000))
def test_wbal_2015_equals_the_recurrence(seed, n):
    p = np.random.default_rng(seed).uniform(0, 600, n)
    assert an.w_prime_balance_skiba2015(p, 260.0, 15000.0) == pytest.approx(
        _loop_2015(p, 260.0, 15000.0), rel=1e-9, abs=1e-6
    )


@settings(max_examples=30, deadline=None)
@given(
    st.lists(st.floats(0, 1500), min_size=1, max_size=500),
    st.floats(150, 400),
    st.floats(5000, 30000),
)
def test_wbal_never_above_w_prime(power, cp, w_prime):
    assert np.all(an.w_prime_balance_skiba2012(power, cp, w_prime) <= w_prime + 1e-9)
    assert np.all(an.w_prime_balance_skiba2015(power, cp, w_prime) <= w_prime + 1e-6)


@pytest.mark.parametrize(
    ("name", "cp"),
    [
        ("6449921903_ACTIVITY.fit", 125.0),
        ("sample-activity-indoor-trainer.fit", 220.0),
        ("null_compressed_speed_dist.fit", 150.0),
    ],
)
def test_wbal_matches_sweat(name, cp):
    # sweat's w_prime_balance_skiba is the literal O(n^2) integral, waterworth its
    # running-sum form, froncioni-skiba-clarke the 2015 differential model.
    power = np.nan_to_num(read_fit(name).grid("power"), nan=0.0)
    sw = run_sweat(power.tolist(), cp, 20000.0, skiba=len(power) < 2500)
    ours12 = an.w_prime_balance_skiba2012(power, cp, 20000.0)
    if sw["wbal_skiba"] is not None:
        assert ours12 == pytest.approx(sw["wbal_skiba"], rel=1e-9, abs=1e-6)
    assert ours12 == pytest.approx(sw["wbal_waterworth"], rel=1e-7, abs=1e-4)
    ours15 = an.w_prime_balance_skiba2015(power, cp, 20000.0)
    assert ours15 == pytest.approx(sw["wbal_fsc"], rel=1e-9, abs=1e-6)
    assert ours12.min() < 20000.0  # the ride did dig into W'


def test_vo2max_estimates_by_hand():
    assert an.vo2max_from_power(350.0, 70.0) == pytest.approx(16.6 + 8.87 * 5.0)
    assert an.vo2max_acsm_cycling(300.0, 75.0) == pytest.approx(1.8 * 300 * 6.12 / 75 + 7)
