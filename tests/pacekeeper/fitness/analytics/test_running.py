"""Daniels' tables, training paces, Riegel, Minetti, rTSS, round trips."""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from pacekeeper.fitness import analytics as an

# Daniels' Running Formula (3rd ed.), table 5.1, the VDOT 50 row (the project's notes).
VDOT50 = {
    1500: 5 * 60 + 24,
    1609.344: 5 * 60 + 50,
    3000: 11 * 60 + 33,
    5000: 19 * 60 + 57,
    10000: 41 * 60 + 21,
    15000: 63 * 60 + 36,
    21097.5: 3600 + 31 * 60 + 35,
    42195: 3 * 3600 + 10 * 60 + 49,
}


@pytest.mark.parametrize(("distance", "seconds"), list(VDOT50.items()))
def test_race_times_for_vdot_50_match_daniels_table(distance, seconds):
    assert an.race_time_for_vdot(50.0, distance) == pytest.approx(seconds, rel=0.003)


def test_vdot_of_a_1957_5k_is_50():
    assert an.vdot_from_race(5000, 19 * 60 + 57) == pytest.approx(50.0, abs=0.1)


def test_training_paces_for_vdot_50():
    # Notes: E 4:56-5:34 /km, M 4:31, T 4:15, I 3:55, R 87 s per 400 m. The E fractions
    # are set from this row (see _running), so E checks the code, not the fractions.
    p = an.training_paces(50.0)
    assert p.easy_fast == pytest.approx(4 * 60 + 56, abs=1.0)
    assert p.easy_slow == pytest.approx(5 * 60 + 34, abs=1.0)
    assert p.marathon == pytest.approx(4 * 60 + 31, rel=0.003)
    assert p.threshold == pytest.approx(4 * 60 + 15, rel=0.003)
    assert p.interval == pytest.approx(3 * 60 + 55, rel=0.003)
    assert p.r_per_400m == pytest.approx(87, rel=0.003)


def test_riegel_by_hand():
    # 20:00 5 km -> 10 km: 1200 x 2^1.06 = 1200 x 2.0849315 = 2501.92 s
    assert an.riegel(1200, 5000, 10000) == pytest.approx(1200 * 2**1.06)
    assert an.riegel(1200, 5000, 10000) == pytest.approx(2501.92, abs=0.01)


@given(st.floats(30, 85), st.sampled_from([1500.0, 5000.0, 10000.0, 21097.5, 42195.0]))
def test_vdot_round_trip(vdot, distance):
    t = an.race_time_for_vdot(vdot, distance)
    assert an.vdot_from_race(distance, t) == pytest.approx(vdot, rel=1e-9)
    assert an.race_time_for_vdot(an.vdot_from_race(distance, t), distance) == pytest.approx(
        t, rel=1e-9
    )


@given(st.floats(0.5, 12.0))
def test_pace_speed_round_trip(speed):
    assert an.pace_to_speed(an.speed_to_pace(speed)) == pytest.approx(speed, rel=1e-12)


def test_minetti_cost_and_gap():
    assert an.minetti_cost([0.0]).tolist() == pytest.approx([3.6])
    # +10 %: 155.4e-5 - 30.4e-4 - 43.3e-3 + 46.3e-2 + 19.5e-1 + 3.6
    c10 = 155.4e-5 - 30.4e-4 - 43.3e-3 + 0.463 + 1.95 + 3.6
    assert an.minetti_cost([0.1])[0] == pytest.approx(c10)
    assert an.grade_adjusted_speed([3.0], [0.1])[0] == pytest.approx(3.0 * c10 / 3.6)
    assert an.grade_adjusted_speed([3.0], [0.0])[0] == pytest.approx(3.0)
    # the cost is lowest around -10 to -20 %
    grades = np.linspace(-0.45, 0.45, 91)
    assert -0.25 < grades[np.argmin(an.minetti_cost(grades))] < -0.1


def test_rtss_is_100_for_an_hour_at_threshold_pace():
    speed = np.full(3600, 1000 / 240)  # 4:00 /km flat
    ngs = an.normalized_graded_speed(speed)
    assert an.running_tss(ngs, 1000 / 240, 3600) == pytest.approx(100.0)


def test_pace_zones():
    bounds = an.pace_zones(240.0)  # threshold 4:00 /km
    assert bounds[0] == 0.0
    assert bounds[4] == pytest.approx(1000 / 240)
    assert np.all(np.diff(bounds) > 0)


def test_pace_zones_are_friels_percentages_of_threshold_pace_by_hand():
    # Friel's run pace zones, each zone's slowest pace as a share of threshold pace
    # (time per km): 129 / 114 / 106 / 100 / 97 / 90 %. Threshold 4:00 /km = 240 s/km:
    # 309.6, 273.6, 254.4, 240, 232.8, 216 s/km, as speeds 1000 / pace (m/s).
    by_hand = [0.0, 1000 / 309.6, 1000 / 273.6, 1000 / 254.4, 1000 / 240, 1000 / 232.8,
               1000 / 216]
    assert by_hand[1:] == pytest.approx([3.22997, 3.65497, 3.93082, 4.16667, 4.29553,
                                         4.62963], abs=1e-5)
    assert an.pace_zones(240.0).tolist() == pytest.approx(by_hand, rel=1e-12)
    # One second at each of 6:00, 5:00, 4:20, 4:05, 3:55, 3:45 and 3:30 /km falls in
    # zones 1, 2, 3, 4, 5a, 5b and 5c (recovery ... anaerobic).
    paces = np.array([360.0, 300.0, 260.0, 245.0, 235.0, 225.0, 210.0])
    counts = an.time_in_zones(1000 / paces, an.pace_zones(240.0))
    assert counts.tolist() == [1, 1, 1, 1, 1, 1, 1]
