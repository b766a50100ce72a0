"""CTL / ATL / TSB, ramp, ACWR, monotony, trends: hand computation and properties."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pacekeeper.fitness import analytics as an
from tests._pmc import plain_pmc
from tests.pacekeeper.fitness.analytics._fit import read_fit


def test_ctl_after_one_impulse():
    load = np.zeros(100)
    load[0] = 100.0
    pmc = an.ctl_atl_tsb(load)
    k42, k7 = math.exp(-1 / 42), math.exp(-1 / 7)
    assert pmc.ctl[0] == pytest.approx(100 * (1 - k42))  # 2.353
    assert pmc.ctl[0] == pytest.approx(2.3528, abs=1e-4)
    assert pmc.atl[0] == pytest.approx(100 * (1 - k7))
    assert pmc.ctl[10] == pytest.approx(100 * (1 - k42) * k42**10)
    # TSB of day d uses CTL and ATL of day d - 1 (form going into the day)
    assert pmc.tsb[0] == 0.0
    assert pmc.tsb[1] == pytest.approx(pmc.ctl[0] - pmc.atl[0])


def test_ctl_matches_a_plain_loop_with_a_start_value():
    rng = np.random.default_rng(3)
    load = rng.uniform(0, 150, 400)
    pmc = an.ctl_atl_tsb(load, ctl0=60.0, atl0=80.0)
    ctl, atl = 60.0, 80.0
    for d, x in enumerate(load):
        ctl = ctl * math.exp(-1 / 42) + x * (1 - math.exp(-1 / 42))
        atl = atl * math.exp(-1 / 7) + x * (1 - math.exp(-1 / 7))
        assert pmc.ctl[d] == pytest.approx(ctl) and pmc.atl[d] == pytest.approx(atl)
    assert pmc.tsb[0] == pytest.approx(-20.0)


def test_ctl_over_decades_and_acwr_ewma_match_plain_loops():
    # Twenty-five years with start values and rest days against the tests' plain loop
    # (tests/_pmc.py): lfilter with the start value as its state, to 1e-9.
    rng = np.random.default_rng(11)
    load = rng.gamma(1.2, 60.0, 9000) * (rng.random(9000) > 0.3)
    pmc = an.ctl_atl_tsb(load, ctl0=55.0, atl0=70.0)
    want = np.array(plain_pmc(load.tolist(), ctl0=55.0, atl0=70.0))
    for got, column in ((pmc.ctl, 0), (pmc.atl, 1), (pmc.tsb, 2)):
        np.testing.assert_allclose(got, want[:, column], rtol=0, atol=1e-9)
    assert pmc.tsb[0] == 55.0 - 70.0
    # acwr_ewma: lambda = 2 / (N + 1), so the acute run is only ~2,000 days long.
    la, lc = 2 / 8, 2 / 29
    a = c = 0.0
    want_ratio = []
    for x in load[:5000]:
        a, c = la * x + (1 - la) * a, lc * x + (1 - lc) * c
        want_ratio.append(a / c if c > 0 else np.nan)
    np.testing.assert_allclose(an.acwr_ewma(load[:5000]), want_ratio, rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("name", ["sample-activity-indoor-trainer.fit",
                                  "null_compressed_speed_dist.fit"])
@pytest.mark.parametrize(("ctl_days", "atl_days", "ctl0", "atl0"),
                         [(42.0, 7.0, 0.0, 0.0), (28.0, 5.0, 63.5, 91.25)])
def test_ctl_of_a_real_series_matches_the_plain_loop(name, ctl_days, atl_days, ctl0, atl0):
    # A real series: a real ride's power, second by second (rests of 0 W, sprints, gaps),
    # read with the FIT SDK, taken as daily loads; the plain loop to 1e-9.
    power = np.nan_to_num(read_fit(name).channels["power"], nan=0.0)
    assert len(power) > 1000 and (power == 0).any() and power.max() > 300
    pmc = an.ctl_atl_tsb(power, ctl_days, atl_days, ctl0, atl0)
    want = np.array(plain_pmc(power.tolist(), ctl_days, atl_days, ctl0, atl0))
    for got, column in ((pmc.ctl, 0), (pmc.atl, 1), (pmc.tsb, 2)):
        np.testing.assert_allclose(got, want[:, column], rtol=0, atol=1e-9)


@settings(deadline=None)
@given(st.lists(st.floats(0, 2000), max_size=400), st.floats(0, 200), st.floats(0, 200),
       st.floats(1.5, 90), st.floats(1.5, 30))
def test_ctl_of_random_series_matches_the_plain_loop(load, ctl0, atl0, ctl_days, atl_days):
    pmc = an.ctl_atl_tsb(load, ctl_days, atl_days, ctl0, atl0)
    want = plain_pmc(load, ctl_days, atl_days, ctl0, atl0)
    assert len(pmc.ctl) == len(want)
    for d, (ctl, atl, tsb) in enumerate(want):
        assert abs(pmc.ctl[d] - ctl) <= 1e-9 and abs(pmc.atl[d] - atl) <= 1e-9
        assert abs(pmc.tsb[d] - tsb) <= 1e-9


@settings(deadline=None)
@given(st.lists(st.floats(0, 300), min_size=1, max_size=200), st.floats(0.1, 5))
def test_ctl_and_atl_are_linear_in_load(load, k):
    a = an.ctl_atl_tsb(load)
    b = an.ctl_atl_tsb(np.asarray(load) * k)
    assert b.ctl == pytest.approx(a.ctl * k, rel=1e-9, abs=1e-9)
    assert b.atl == pytest.approx(a.atl * k, rel=1e-9, abs=1e-9)


def test_steady_load_converges_and_ramp_rate():
    pmc = an.ctl_atl_tsb(np.full(2000, 80.0))
    assert pmc.ctl[-1] == pytest.approx(80.0, rel=1e-6)
    ramp = an.ramp_rate(np.arange(20.0))
    assert np.isnan(ramp[:7]).all() and ramp[7:].tolist() == pytest.approx([7.0] * 13)


def test_monotony_and_strain_of_a_known_week():
    week = [100, 0, 80, 60, 0, 120, 40]  # total 400, mean 57.142857
    m = an.monotony_strain(week)
    mean = 400 / 7
    sd = math.sqrt(sum((x - mean) ** 2 for x in week) / 7)  # population SD: 43.79
    assert m.monotony[-1] == pytest.approx(mean / sd)
    assert m.strain[-1] == pytest.approx(400 * mean / sd)
    assert np.isnan(m.monotony[:6]).all()
    assert np.isnan(an.monotony_strain([50] * 7).monotony[-1])


def test_acwr():
    load = np.concatenate([np.full(21, 50.0), np.full(7, 100.0)])
    r = an.acwr_rolling(load)
    assert np.isnan(r[:27]).all()
    assert r[27] == pytest.approx(100 / ((21 * 50 + 7 * 100) / 28))
    e = an.acwr_ewma(np.full(400, 60.0))
    assert e[-1] == pytest.approx(1.0)
    la, lc = 2 / 8, 2 / 29  # Williams et al. 2017: lambda = 2 / (N + 1)
    assert an.acwr_ewma([100.0])[0] == pytest.approx(la / lc)


def test_weekly_totals_intensity_distribution_and_trend():
    assert an.weekly_totals(np.ones(10)).tolist() == [7, 3]
    assert an.weekly_totals(np.ones(10), first_day_offset=2).tolist() == [5, 5]
    d = an.intensity_distribution(8000, 1000, 1000)
    assert (d.zone1, d.zone2, d.zone3) == pytest.approx((0.8, 0.1, 0.1))
    assert d.polarization_index == pytest.approx(math.log10(80 / 10 * 10))
    rng = np.random.default_rng(0)
    up = an.trend(np.arange(60) * 0.5 + rng.normal(0, 1, 60))
    assert (
        up.direction == "up"
        and up.p_value < 1e-6
        and up.slope_per_day == pytest.approx(0.5, abs=0.05)
    )
    flat = an.trend(rng.normal(0, 1, 30))
    assert flat.direction == "flat" or flat.p_value < 0.05


def test_ctl_takes_any_one_dimensional_input_and_an_empty_one():
    # A strided view, ints and a list give the same floats as a contiguous float64 copy.
    load = np.arange(40.0) * 3.0
    want = an.ctl_atl_tsb(load[::2].copy())
    for series in (load[::2], (np.arange(40) * 3)[::2], load[::2].tolist()):
        got = an.ctl_atl_tsb(series)
        np.testing.assert_array_equal(got.ctl, want.ctl)
        np.testing.assert_array_equal(got.tsb, want.tsb)
    empty = an.ctl_atl_tsb([])
    assert empty.ctl.shape == empty.atl.shape == empty.tsb.shape == (0,)


def test_time_constants_are_configurable_against_a_plain_loop():
    # The issue: 42 and 7 days by default, configurable. With 28 and 5 days, by hand:
    # one impulse of 100 gives CTL 100 (1 - e^-1/28) = 3.5084 and ATL 100 (1 - e^-1/5)
    # = 18.127 on its day, then each decays by its own factor a day.
    load = np.zeros(30)
    load[0] = 100.0
    pmc = an.ctl_atl_tsb(load, ctl_days=28.0, atl_days=5.0)
    assert pmc.ctl[0] == pytest.approx(3.5084, abs=1e-4)
    assert pmc.atl[0] == pytest.approx(18.1269, abs=1e-4)
    assert pmc.ctl[9] == pytest.approx(100 * (1 - math.exp(-1 / 28)) * math.exp(-9 / 28))
    assert pmc.atl[9] == pytest.approx(100 * (1 - math.exp(-1 / 5)) * math.exp(-9 / 5))
    assert pmc.tsb[1] == pytest.approx(3.5084 - 18.1269, abs=2e-4)
    rng = np.random.default_rng(28)
    series = rng.uniform(0, 150, 300)
    got = an.ctl_atl_tsb(series, ctl_days=28.0, atl_days=5.0, ctl0=40.0, atl0=45.0)
    kc, ka = math.exp(-1 / 28), math.exp(-1 / 5)
    ctl, atl = 40.0, 45.0
    for d, x in enumerate(series):
        assert got.tsb[d] == pytest.approx(ctl - atl)
        ctl, atl = ctl * kc + x * (1 - kc), atl * ka + x * (1 - ka)
        assert got.ctl[d] == pytest.approx(ctl) and got.atl[d] == pytest.approx(atl)
