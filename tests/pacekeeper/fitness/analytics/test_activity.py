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
    # Coggan's whole power series; the device counts 29 s fewer (test_power.py).
    seconds = int(np.sum(~np.isnan(ride.channels["power"])))
    assert m.tss == pytest.approx(
        ride.session["training_stress_score"] * seconds / (seconds - 29), rel=0.005)
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


# -- TSS over the whole power series (issue 27, item 6) ------------------------------------


def _ride(power: np.ndarray, ftp: float) -> an.ActivityMetrics:
    streams = StreamSet(np.arange(len(power), dtype=np.int64), {"power": power})
    return an.analyze_activity(streams, Sport.RIDE, an.AthleteSnapshot(ftp_watts=ftp))


def test_an_hour_at_ftp_is_exactly_100_tss():
    # Coggan: TSS = s x NP x IF / (FTP x 3600) x 100; one hour at FTP is 100 by
    # definition (counting the 30 s window's 29 warm-up seconds out gave 99.19).
    m = _ride(np.full(3600, 250.0), 250.0)
    assert m.normalized_power == pytest.approx(250.0, rel=1e-12)
    assert m.tss == pytest.approx(100.0, rel=1e-12)


def test_tss_of_a_synthetic_trainer_ride_by_hand():
    # 40 min alternating 0 / 200 W each second: every 30 s window holds 15 x 200 W, so
    # NP = 100 W exactly; at FTP 200, IF = 0.5 and TSS = 100 x 2400/3600 x 0.25.
    m = _ride(np.tile([0.0, 200.0], 1200), 200.0)
    assert m.normalized_power == pytest.approx(100.0, rel=1e-12)
    assert m.tss == pytest.approx(100.0 * 2400 / 3600 * 0.25, rel=1e-12)  # 16.667
    # 20 min at FTP, a 10 min pause (no samples), 20 min at FTP: the pause is no
    # training time; the 2,400 recorded seconds at IF 1 are 66.667.
    paused = np.concatenate([np.full(1200, 250.0), np.full(600, np.nan),
                             np.full(1200, 250.0)])
    assert _ride(paused, 250.0).tss == pytest.approx(100.0 * 2400 / 3600, rel=1e-12)
    # A short ride: 5 min at 300 W, FTP 250 -> 100 x 300/3600 x 1.2^2 = 12.0
    assert _ride(np.full(300, 300.0), 250.0).tss == pytest.approx(12.0, rel=1e-12)
