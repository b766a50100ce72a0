"""PLAN-1: a workout's steps end by time, distance or lap press, with targets relative to
the sport's threshold; duration, distance and planned load are derived. Every expected
figure is worked out by hand in the test's docstring or comments, never read back from
the code."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from pacekeeper.fitness.streams import StreamSet
from pacekeeper.workouts import Thresholds, WorkoutInvalid, check_workout, derive
from pacekeeper.workouts._calendar import time_in_target

NONE = Thresholds()
FTP = Thresholds(ftp_watts=250)


def _step(kind: str, end: dict[str, Any], target: tuple[str, float, float] | None = None
          ) -> dict[str, Any]:
    out: dict[str, Any] = {"kind": kind, "end": end}
    if target:
        out["target"] = {"type": target[0], "low": target[1], "high": target[2]}
    return out


def test_intervals_on_ftp_give_tss_by_hand() -> None:
    """PLAN-1. 10 min at 50-60 % FTP, 5 x (4 min at 105-110 %, 3 min at 50-60 %), 5 min
    cool-down with no target. Duration 600 + 5 x 420 + 300 = 3000 s. TSS = sum of hours x
    IF^2 x 100: warm-up 1/6 x 0.55^2 x 100 = 5.0417; work 5 x 4 min = 1/3 h x 1.075^2 x 100
    = 38.5208; recoveries 15 min = 0.25 x 30.25 = 7.5625; total 51.125 -> 51.1, and the
    load is incomplete (the cool-down has no target)."""
    workout = check_workout({"name": "5x4", "sport": "cycling", "steps": [
        _step("warmup", {"time_s": 600}, ("ftp_pct", 50, 60)),
        {"repeat": 5, "steps": [_step("active", {"time_s": 240}, ("ftp_pct", 105, 110)),
                                _step("recovery", {"time_s": 180}, ("ftp_pct", 50, 60))]},
        _step("cooldown", {"time_s": 300})]}, FTP)
    assert derive(workout, FTP) == {"duration_s": 3000, "distance_m": None, "load": 51.1,
                                    "load_method": "tss", "load_complete": False}


def test_run_by_pace_and_distance_gives_rtss_by_hand() -> None:
    """PLAN-1. Threshold pace 300 s/km (3.3333 m/s). 2 km at 330-360 s/km (mid 345): 690 s,
    IF 300/345 = 0.869565, rTSS 690/3600 x 0.756144 x 100 = 14.4928. 3 x (1 km at 105 % of
    threshold speed: 3.5 m/s, 285.714 s, IF 1.05; 90 s at 70-80 %: IF 0.75, 90 x 2.5 = 225
    m). Duration 690 + 3 x 375.714 = 1817.1 -> 1817 s; distance 2000 + 3 x 1225 = 5675 m;
    load 14.4928 + 857.143/3600 x 110.25 (26.25) + 270/3600 x 56.25 (4.21875) = 44.96."""
    th = Thresholds(pace_s=300)
    workout = check_workout({"name": "km reps", "sport": "run", "steps": [
        _step("warmup", {"distance_m": 2000}, ("pace", 330, 360)),
        {"repeat": 3, "steps": [_step("active", {"distance_m": 1000}, ("pace_pct", 105, 105)),
                                _step("recovery", {"time_s": 90}, ("pace_pct", 70, 80))]},
    ]}, th)
    assert workout["sport"] == "running"  # the activity name is the workout's alias
    assert derive(workout, th) == {"duration_s": 1817, "distance_m": 5675.0, "load": 45.0,
                                   "load_method": "rtss", "load_complete": True}


def test_heart_rate_rpe_and_swim_pace_by_hand() -> None:
    """hrTSS: 30 min at 150-160 bpm with LTHR 170: IF 155/170 = 0.91176, 0.5 x 0.83131 x 100
    = 41.57 -> 41.6. RPE: 60 min at 7-8 (mid 7.5, between 80 and 100 TSS/h) = 90. A swim:
    400 m at 100 s/100 m (1 m/s) = 400 s; threshold 95 s/100 m: IF 0.95, load 400/3600 x
    90.25 = 10.03 -> 10.0."""
    hr = Thresholds(lthr_bpm=170)
    run = check_workout({"name": "hr", "sport": "running", "steps": [
        _step("active", {"time_s": 1800}, ("bpm", 150, 160))]}, hr)
    assert derive(run, hr)["load"] == 41.6
    assert derive(run, hr)["load_method"] == "hrtss"
    rpe = check_workout({"name": "rpe", "sport": "row", "steps": [
        _step("active", {"time_s": 3600}, ("rpe", 7, 8))]}, NONE)
    assert derive(rpe, NONE)["load"] == 90.0
    swim_th = Thresholds(pace_s=95)
    swim = check_workout({"name": "400", "sport": "swimming", "steps": [
        _step("active", {"distance_m": 400}, ("pace", 100, 100))]}, swim_th)
    assert derive(swim, swim_th) == {"duration_s": 400, "distance_m": 400.0, "load": 10.0,
                                     "load_method": "rtss", "load_complete": True}


def test_lap_press_and_mixed_methods() -> None:
    """A lap-press step has no planned time: the duration is unknown, the load only what
    the timed steps give (20 min at 100 % FTP = 33.3) and incomplete; watts convert with
    FTP (250 W of 250: IF 1.0); two methods together are "mixed"."""
    th = Thresholds(ftp_watts=250, lthr_bpm=160)
    workout = check_workout({"name": "open", "sport": "cycling", "steps": [
        _step("warmup", {"lap_press": True}, ("ftp_pct", 50, 60)),
        _step("active", {"time_s": 1200}, ("watts", 240, 260)),
        _step("active", {"time_s": 1200}, ("lthr_pct", 100, 100))]}, th)
    figures = derive(workout, th)
    assert figures["duration_s"] is None
    assert figures["load"] == 66.7  # 33.33 (watts) + 33.33 (100 % LTHR)
    assert (figures["load_method"], figures["load_complete"]) == ("mixed", False)


@pytest.mark.parametrize(("steps", "th", "message"), [
    ([{"kind": "active"}], NONE, "steps[0]: a step needs an end"),
    ([_step("active", {"time_s": 60}, ("ftp_pct", 90, 95))], NONE,
     "steps[0].target: ftp_pct needs the cycling threshold: set ftp_watts"),
    ([{"repeat": 0, "steps": [_step("active", {"time_s": 60})]}], NONE,
     "steps[0]: repeat must be a whole number from 1 to 100"),
    ([{"repeat": 2, "steps": [{"repeat": 2, "steps": [_step("active", {"time_s": 60})]}]}],
     NONE, "steps[0].steps[0]: a repeat cannot hold another repeat"),
    ([_step("active", {"time_s": 0})], NONE, "end.time_s must be whole seconds"),
    ([_step("active", {"distance_m": -1})], NONE, "end.distance_m must be a number above 0"),
    ([_step("active", {"time_s": 60, "distance_m": 5})], NONE, "end must be one of"),
    ([_step("sprint", {"time_s": 60})], NONE, "kind must be one of"),
    ([_step("active", {"time_s": 60}, ("watts", 300, 200))], FTP, "low <= high"),
    ([_step("active", {"time_s": 60}, ("pace", 300, 310))], FTP,
     "pace targets are for running and swimming"),
    ([], NONE, "steps must be a non-empty list"),
])
def test_bad_workouts_are_refused_with_the_step_named(steps: list[Any], th: Thresholds,
                                                     message: str) -> None:
    with pytest.raises(WorkoutInvalid) as caught:
        check_workout({"name": "x", "sport": "cycling", "steps": steps}, th)
    assert message in caught.value.message
    assert caught.value.status == 400


def test_pace_pct_without_threshold_names_the_setting() -> None:
    with pytest.raises(WorkoutInvalid, match="set swim_threshold_pace_s_per_100m"):
        check_workout({"name": "x", "sport": "swimming", "steps": [
            _step("active", {"distance_m": 100}, ("pace_pct", 90, 95))]}, NONE)
    with pytest.raises(WorkoutInvalid, match="sport must be one of"):
        check_workout({"name": "x", "sport": "curling", "steps": [
            _step("active", {"time_s": 60})]}, NONE)


def test_time_in_target_lays_the_steps_from_the_start() -> None:
    """PLAN-3's time in target, by hand. FTP 200: 60 s at 50-60 % (100-120 W), 2 x 30 s at
    100-110 % (200-220 W), a lap press, 60 s more. The recording: 45 s at 110 W (in) and
    15 s at 90 W (out), 30 s at 210 W (in), 30 s at 230 W (out), then 60 s at 110 W that
    are past the lap press (not counted: the plan and the recording part there). 75 of
    120 counted samples = 0.625; a heart-rate target on a recording without heart rate
    counts nothing (None)."""
    th = Thresholds(ftp_watts=200)
    workout = check_workout({"name": "x", "sport": "cycling", "steps": [
        _step("warmup", {"time_s": 60}, ("ftp_pct", 50, 60)),
        {"repeat": 2, "steps": [_step("active", {"time_s": 30}, ("ftp_pct", 100, 110))]},
        _step("rest", {"lap_press": True}),
        _step("active", {"time_s": 60}, ("watts", 100, 120))]}, th)
    power = np.array([110.0] * 45 + [90.0] * 15 + [210.0] * 30 + [230.0] * 30 + [110.0] * 60)
    streams = StreamSet(np.arange(180, dtype=np.int64), {"power": power})
    assert time_in_target(workout, th, streams) == 0.625
    hr = check_workout({"name": "x", "sport": "cycling", "steps": [
        _step("active", {"time_s": 60}, ("bpm", 120, 140))]}, th)
    assert time_in_target(hr, th, streams) is None

