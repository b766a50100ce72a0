"""Mean-max curves and best efforts: brute force, properties, and sweat on real rides."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pacekeeper.fitness import analytics as an

from ._fit import read_fit
from ._oracle import run_sweat

RIDES = [
    "sample-activity-indoor-trainer.fit",
    "null_compressed_speed_dist.fit",
    "6449921903_ACTIVITY.fit",
]


def brute(values):
    """Every window, in plain Python: the independent reference."""
    n = len(values)
    return [max(sum(values[i : i + d]) / d for i in range(n - d + 1)) for d in range(1, n + 1)]


@given(st.lists(st.integers(0, 1500).map(float), min_size=1, max_size=80))
def test_mean_max_equals_brute_force(values):
    assert an.mean_max(values) == pytest.approx(brute(values), rel=1e-12)


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 2**31), st.integers(300, 3000))
def test_fast_all_durations_path_is_exactly_the_direct_loop(seed, n):
    rng = np.random.default_rng(seed)
    p = np.clip(rng.normal(200, 80, n) + 100 * np.sin(np.arange(n) / rng.uniform(20, 400)), 0, None)
    p[rng.random(n) < 0.05] = 0.0
    c = np.concatenate([[0.0], np.cumsum(p)])
    direct = np.array([(c[d:] - c[:-d]).max() / d for d in range(1, n + 1)])
    assert np.array_equal(an.mean_max(p), direct)


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 2**31), st.integers(300, 3000), st.sampled_from([0, 1, 2000]))
def test_whole_watts_take_the_int32_path_with_exactly_the_direct_loop_answer(seed, n, spike):
    # Whole values (what power meters record) take exact int32 sums; bursts and zeros
    # (coasting) make the bounds of some blocks tight and others loose.
    rng = np.random.default_rng(seed)
    p = np.round(np.clip(rng.normal(220, 90, n) + 120 * np.sin(np.arange(n) / 150), 0, None))
    p[rng.random(n) < 0.1] = 0.0
    p[rng.integers(0, n, 3)] = spike
    c = np.concatenate([[0.0], np.cumsum(p)])
    direct = np.array([(c[d:] - c[:-d]).max() / d for d in range(1, n + 1)])
    assert np.array_equal(an.mean_max(p), direct)


@given(
    st.lists(
        st.one_of(st.floats(0, 2000, allow_subnormal=False), st.just(float("nan"))),
        min_size=1,
        max_size=200,
    )
)
def test_best_work_never_falls_and_the_envelope_never_rises(values):
    for nan in ("zero", "exclude"):
        curve = an.mean_max(values, nan=nan)
        d = np.arange(1, len(curve) + 1)
        ok = ~np.isnan(curve)
        work = (curve * d)[ok]
        if nan == "zero":  # with "exclude" a longer window may exist only in a worse stretch
            assert np.all(np.diff(work) >= -1e-9 * np.maximum(work[1:], 1))
        env = an.monotone_envelope(curve)
        e = env[~np.isnan(env)]
        assert np.all(np.diff(e) <= 0)
        assert np.all(env[ok] >= curve[ok])


def test_mean_max_itself_may_rise_with_duration():
    # The counterexample to "non-increasing": 3 s best 200 W, 4 s best 225 W.
    curve = an.mean_max([300.0, 0.0, 300.0, 300.0])
    assert curve.tolist() == pytest.approx([300, 300, 200, 225])
    assert an.monotone_envelope(curve).tolist() == pytest.approx([300, 300, 225, 225])


def test_nan_policies():
    v = [100.0, 300.0, np.nan, 300.0, 300.0]
    zero = an.mean_max(v)  # NaN as 0 W
    assert zero.tolist() == pytest.approx([300, 300, 200, 225, 200])
    excl = an.mean_max(v, nan="exclude")  # best over the NaN-free stretches
    assert excl[:2].tolist() == pytest.approx([300, 300])
    assert np.isnan(excl[2:]).all()
    at = an.mean_max(v, [1, 2, 3, 10])
    assert at[:3].tolist() == pytest.approx([300, 300, 200]) and np.isnan(at[3])


def test_standard_durations_and_merge():
    ds = an.STANDARD_DURATIONS
    assert 55 <= len(ds) <= 65 and ds[0] == 1 and ds[-1] == 86400
    assert list(ds) == sorted(set(ds))
    for d in (1, 2, 3, 5, 10, 15, 20, 30, 45, 60, 90, 120, 180, 300, 600, 1200, 3600):
        assert d in ds
    merged = an.merge_curves([300, 250, 200], [320, 240], [np.nan, 260, 210, 150])
    assert merged.tolist() == [320, 260, 210, 150]


def test_best_efforts_by_hand():
    # 4 m/s for 3000 s: 400 m in 100 s, 1 km in 250 s, 1 mile in 402.336 s, 5 km None
    dist = 4.0 * np.arange(3001.0)
    out = an.best_efforts(dist)
    assert out["400m"] == pytest.approx(100.0)
    assert out["1km"] == pytest.approx(250.0)
    assert out["1mile"] == pytest.approx(1609.344 / 4)
    assert out["10km"] == pytest.approx(2500.0)
    assert out["15km"] is None
    # a faster kilometre in the middle: 1 km at 5 m/s is found
    speed = np.full(2000, 3.0)
    speed[500:700] = 5.0
    d = np.concatenate([[0.0], np.cumsum(speed)])
    assert an.best_efforts(d)["1km"] == pytest.approx(200.0)
    assert an.best_efforts(d)["400m"] == pytest.approx(80.0)


def test_best_efforts_on_a_real_run():
    run = read_fit("activity-small-fenix2-run.fit")
    out = an.best_efforts(run.channels["distance"], run.seconds)
    # 9.0 km in 47 min: 5 km best is between the average pace and much faster
    avg_pace = run.seconds[-1] / np.nanmax(run.channels["distance"])
    assert 3.0 * 5000 * avg_pace / 4 < out["5km"] <= 5000 * avg_pace * 1.001
    assert out["400m"] < out["800m"] < out["1km"] < out["1mile"] < out["5km"]
    assert out["10km"] is None


@pytest.mark.parametrize("name", RIDES)
def test_mean_max_power_matches_sweat(name):
    # sweat.metrics.core.mean_max is GoldenCheetah's algorithm (cumulative energy,
    # diff(t).max() / t); its input is the 1 Hz grid with pauses as 0 W, as ours.
    power = np.nan_to_num(read_fit(name).grid("power"), nan=0.0)
    theirs = run_sweat(power.tolist(), 250.0, 20000.0, skiba=False)["mean_max"]
    ours = an.mean_max(read_fit(name).grid("power"))
    assert len(theirs) == len(ours)
    assert ours == pytest.approx(theirs, rel=1e-12, abs=1e-9)
