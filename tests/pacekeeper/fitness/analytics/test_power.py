"""Power metrics against hand-computed values and against what recording devices wrote."""

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from pacekeeper.fitness import analytics as an
from pacekeeper.fitness.models import Sport
from pacekeeper.fitness.streams import StreamSet

from ._fit import read_fit


def test_np_of_a_constant_is_the_constant():
    assert an.normalized_power(np.full(600, 250.0)) == pytest.approx(250.0, rel=1e-12)


def test_np_of_a_one_second_square_wave_is_its_mean():
    # 0, 200, 0, 200 ...: every 30 s window holds 15 x 200 W -> 100 W, so NP = 100.
    p = np.tile([0.0, 200.0], 300)
    assert an.normalized_power(p) == pytest.approx(100.0, rel=1e-12)


def test_np_of_a_long_square_wave_by_hand():
    # 300 s at 300 W then 300 s at 100 W: 271 windows at 300, 271 at 100, and 29
    # transition windows whose means are 300 - 200 k / 30 for k = 1..29.
    p = np.concatenate([np.full(300, 300.0), np.full(300, 100.0)])
    means = [300.0] * 271 + [300 - 200 * k / 30 for k in range(1, 30)] + [100.0] * 271
    expected = (sum(m**4 for m in means) / len(means)) ** 0.25
    assert an.normalized_power(p) == pytest.approx(expected, rel=1e-12)


def test_np_drops_nan_but_keeps_zeros():
    p = np.concatenate([np.full(100, 200.0), np.full(50, np.nan), np.full(100, 200.0)])
    assert an.normalized_power(p) == pytest.approx(200.0)
    zeros = np.concatenate([np.full(100, 200.0), np.zeros(50), np.full(100, 200.0)])
    assert an.normalized_power(zeros) < 190.0
    assert an.normalized_power(np.full(29, 200.0)) is None


def test_tss_of_an_hour_at_ftp_is_100():
    np_w = an.normalized_power(np.full(3600, 280.0))
    assert an.tss(np_w, 280.0, 3600) == pytest.approx(100.0)
    assert an.intensity_factor(210.0, 280.0) == pytest.approx(0.75)
    # 100 x hours x IF^2: 2 h at IF 0.75 -> 112.5
    assert an.tss(210.0, 280.0, 7200) == pytest.approx(112.5)


@given(
    watts=st.floats(50, 500),
    ftp=st.floats(150, 400),
    seconds=st.integers(30, 20000),
    k=st.integers(2, 5),
)
def test_tss_is_linear_in_duration_at_constant_power(watts, ftp, seconds, k):
    one = an.tss(an.normalized_power(np.full(seconds, watts)), ftp, seconds)
    many = an.tss(an.normalized_power(np.full(seconds * k, watts)), ftp, seconds * k)
    assert many == pytest.approx(k * one, rel=1e-9)


def test_vi_ef_and_decoupling_by_hand():
    assert an.variability_index(220.0, 200.0) == pytest.approx(1.1)
    assert an.efficiency_factor(210.0, 140.0) == pytest.approx(1.5)
    # first half 200 W at 130 bpm, second half 200 W at 140 bpm:
    # EF1 / EF2 - 1 = (200/130) / (200/140) - 1 = 140/130 - 1 = 7.6923 %
    p = np.full(1000, 200.0)
    hr = np.concatenate([np.full(500, 130.0), np.full(500, 140.0)])
    assert an.aerobic_decoupling(p, hr) == pytest.approx((140 / 130 - 1) * 100)


def test_coggan_zones_and_time_in_zones():
    bounds = an.power_zones(200.0)
    assert bounds.tolist() == pytest.approx([0, 110, 150, 180, 210, 240, 300])
    p = np.array([50, 109.9, 110, 149, 150, 200, 210, 250, 300, 1000, np.nan])
    assert an.time_in_zones(p, bounds).tolist() == [2, 2, 1, 1, 1, 1, 2]


# --- the devices' own figures (FIT session messages) -------------------------------


def _ours(name):
    ride = read_fit(name)
    s = ride.session
    power = ride.channels["power"]
    np_w = an.normalized_power(power)
    ftp = s["threshold_power"]
    recorded = int((~np.isnan(power)).sum())
    return s, np_w, an.intensity_factor(np_w, ftp), an.tss(np_w, ftp, recorded), recorded


def test_indoor_trainer_np_and_if_match_the_device():
    # sample-activity-indoor-trainer.fit: 37 min, the device wrote NP 228 (an integer),
    # IF 0.914 (3 decimals), FTP 250. IF x FTP pins the device's unrounded NP to
    # [228.375, 228.625): ours is inside, so NP and IF agree within the rounding.
    s, np_w, intensity, _, _ = _ours("sample-activity-indoor-trainer.fit")
    assert np_w == pytest.approx(s["normalized_power"], rel=0.005)
    assert intensity == pytest.approx(s["intensity_factor"], rel=0.005)
    assert 228.375 <= np_w < 228.625
    assert abs(np_w - s["normalized_power"]) < 1.0  # the device truncates to whole watts


def test_indoor_trainer_tss_against_the_device():
    # The device's TSS 50.8 is 100 x h x IF^2 with h = the seconds its 30 s rolling
    # average covers (recorded seconds - 29 = 2193 s). Ours is Coggan's, over the whole
    # power series (2222 s): the device's figure scaled by 2222 / 2193, within 0.5 %.
    ride = read_fit("sample-activity-indoor-trainer.fit")
    s = ride.session
    streams = StreamSet(np.arange(len(ride.channels["power"])), {"power": ride.channels["power"]})
    metrics = an.analyze_activity(streams, Sport.RIDE,
                                  an.AthleteSnapshot(ftp_watts=s["threshold_power"]))
    recorded = int((~np.isnan(ride.channels["power"])).sum())
    assert recorded == 2222
    assert metrics.tss == pytest.approx(
        s["training_stress_score"] * recorded / (recorded - 29), rel=0.005)
    assert metrics.intensity_factor == pytest.approx(s["intensity_factor"], rel=0.005)


@pytest.mark.parametrize(
    ("name", "implied_np"),
    [("2020-06-01-16-52-40.fit", 150.4), ("6449921903_ACTIVITY.fit", 131.49)],
)
def test_short_rides_np_against_the_device(name, implied_np):
    # Two rides of 95 s and 192 s of recorded power, each with a pause. NP over so few
    # 30 s windows (66 and 163) depends on how the first window and the pauses are
    # treated, which the device does on samples it does not record; every variant
    # tried (zero-padded start, pauses as zeros, windows restarted after a pause,
    # forward-filled gaps) moves NP by 1-15 %. Ours differs from the device's implied NP
    # (IF x FTP) by 0.9 % and 1.2 %: asserted at 1.5 %, not at the 0.5 % of the 37 min ride.
    s, np_w, intensity, _, _ = _ours(name)
    assert abs(np_w / implied_np - 1) < 0.015
    assert abs(intensity / s["intensity_factor"] - 1) < 0.015
    assert abs(np_w - s["normalized_power"]) < 1.5


@pytest.mark.parametrize(
    "name",
    ["sample-activity-indoor-trainer.fit", "null_compressed_speed_dist.fit"],
)
def test_average_power_matches_the_device(name):
    # (6449921903_ACTIVITY.fit is left out: its device averages 130 W over a ride whose
    # records average 124 W with ten 0 W seconds; its total_work / timer time is 128 W.)
    ride = read_fit(name)
    p = ride.channels["power"]
    assert math.floor(np.nanmean(p) + 0.5) == pytest.approx(ride.session["avg_power"], abs=1)
