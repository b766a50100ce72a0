"""The readiness score: neutral inputs read 50, contributions add up, direction of each input."""

import numpy as np
import pytest

from pacekeeper.fitness import analytics as an


def test_neutral_is_50_and_contributions_add_up():
    rng = np.random.default_rng(1)
    hrv = 60 + rng.normal(0, 5, 60)
    rhr = 50 + rng.normal(0, 2, 60)
    r = an.readiness(hrv_ms=hrv, resting_hr=rhr, sleep_hours=7.5, sleep_score=75, tsb=0)
    assert 40 < r.score < 60
    assert r.score == pytest.approx(50 + sum(i.contribution for i in r.inputs))
    assert {i.name for i in r.inputs} == {
        "hrv",
        "resting_hr",
        "sleep_duration",
        "sleep_score",
        "tsb",
    }


def test_directions():
    base = np.full(60, 60.0) + np.tile([-3.0, 3.0], 30)
    low_hrv = np.concatenate([base[:53], np.full(7, 45.0)])
    high_rhr = np.concatenate([np.full(53, 50.0) + np.tile([-1.0, 1.0], 27)[:53], np.full(7, 58.0)])
    assert an.readiness(hrv_ms=low_hrv).score < 30
    assert an.readiness(resting_hr=high_rhr).score < 30
    assert an.readiness(tsb=-30).score == pytest.approx(0.0)
    assert an.readiness(tsb=30, sleep_hours=9.5).score == pytest.approx(100.0)
    assert an.readiness() is None
