"""Heart-rate load against the notes' check values and hand computation."""

import math

import numpy as np
import pytest

from pacekeeper.fitness import analytics as an


def test_banister_check_values():
    # x = 0.5 for one minute: HRrest 50, HRmax 190 -> HR 120.
    hr = np.full(60, 120.0)
    assert an.banister_trimp(hr, 50, 190, "M") == pytest.approx(0.8357, abs=5e-5)
    assert an.banister_trimp(hr, 50, 190, "F") == pytest.approx(0.9911, abs=5e-5)
    assert an.banister_trimp(hr, 50, 190, None) == an.banister_trimp(hr, 50, 190, "M")
    # NaN seconds count nowhere
    assert an.banister_trimp(np.concatenate([hr, np.full(30, np.nan)]), 50, 190) == pytest.approx(
        0.8357, abs=5e-5
    )


def test_edwards_by_hand():
    # HRmax 200: 10 min at 110 (55 %, x1), 10 min at 150 (75 %, x3), 5 min at 190 (95 %, x5), 5 min at 90 (45 %, 0)
    hr = np.concatenate(
        [np.full(600, 110.0), np.full(600, 150.0), np.full(300, 190.0), np.full(300, 90.0)]
    )
    assert an.edwards_trimp(hr, 200) == pytest.approx(10 * 1 + 10 * 3 + 5 * 5)


def test_hr_tss_is_100_for_an_hour_at_lthr():
    hr = np.full(3600, 170.0)
    assert an.hr_tss(hr, 170, 50, 190, "M") == pytest.approx(100.0)
    assert an.hr_tss(np.full(1800, 170.0), 170, 50, 190, "F") == pytest.approx(50.0)
    x = (150 - 50) / 140
    xt = (170 - 50) / 140
    expected = 100 * x * math.exp(1.92 * x) / (xt * math.exp(1.92 * xt))
    assert an.hr_tss(np.full(3600, 150.0), 170, 50, 190) == pytest.approx(expected)


def test_zone_models():
    assert an.karvonen_zones(50, 190).tolist() == pytest.approx([50, 134, 148, 162, 176])
    assert an.max_hr_zones(200).tolist() == pytest.approx([0, 120, 140, 160, 180])
    assert an.lthr_zones(170).tolist() == pytest.approx([0, 137.7, 153, 159.8, 170, 175.1, 180.2])
