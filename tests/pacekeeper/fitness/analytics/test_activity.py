"""analyze_activity on real recordings, the JSON shape and the load choice."""

import json

import numpy as np
import pytest

from pacekeeper.fitness import analytics as an
from pacekeeper.fitness.models import Sport
from pacekeeper.fitness.streams import StreamSet

from ._fit import read_fit


def _streams(name, channels):
    ride = read_fit(name)
    grid = {ours: ride.grid(ours) for ours in channels}
    n = len(next(iter(grid.values())))
    return ride, StreamSet(np.arange(n, dtype=np.int64), grid)


def test_ride_metrics():
    ride, s = _streams("sample-activity-indoor-trainer.fit", ["power", "heartrate"])
    athlete = an.AthleteSnapshot(
        ftp_watts=250, lthr_bpm=165, max_hr_bpm=190, resting_hr_bpm=50, sex="M"
    )
    m = an.analyze_activity(s, Sport.RIDE, athlete)
    assert m.normalized_power == pytest.approx(an.normalized_power(ride.channels["power"]))
    assert m.intensity_factor == pytest.approx(ride.session["intensity_factor"], rel=0.005)
    assert m.tss == pytest.approx(ride.session["training_stress_score"], rel=0.005)
    assert sum(m.time_in_power_zones) == np.sum(~np.isnan(ride.channels["power"]))
    assert m.hr_zone_model == "friel_lthr" and m.trimp > 0 and m.hr_tss > 0
    assert m.avg_hr == pytest.approx(ride.session["avg_heart_rate"], abs=1)
    assert m.curve_durations[-1] <= len(s) and len(m.power_curve) == len(m.curve_durations)
    assert m.power_curve[0] == pytest.approx(ride.session["max_power"])
    assert m.best_efforts is None and m.rtss is None
    assert an.tss_for(m) == (m.tss, "power")
    payload = json.loads(json.dumps(m.to_json()))
    assert payload["normalized_power"] == m.normalized_power


def test_missing_inputs_give_none():
    _, s = _streams("sample-activity-indoor-trainer.fit", ["power"])
    m = an.analyze_activity(s, Sport.RIDE, an.AthleteSnapshot())
    assert m.normalized_power is not None
    assert m.tss is None and m.intensity_factor is None and m.trimp is None and m.avg_hr is None
    assert an.tss_for(m) is None


def test_run_metrics():
    run, s = _streams(
        "activity-small-fenix2-run.fit", ["speed", "distance", "altitude", "heartrate"]
    )
    athlete = an.AthleteSnapshot(
        threshold_pace_s_per_km=270, max_hr_bpm=190, resting_hr_bpm=50, lthr_bpm=170
    )
    m = an.analyze_activity(s, Sport.RUN, athlete)
    assert m.distance_m == pytest.approx(run.session["total_distance"], rel=0.01)
    assert m.normalized_graded_speed is not None and m.rtss is not None
    assert m.best_efforts["5km"] is not None and m.best_efforts["10km"] is None
    assert an.tss_for(m) == (m.rtss, "running")
    assert sum(m.time_in_pace_zones) == np.sum(~np.isnan(s.get("speed")))
    json.dumps(m.to_json())
