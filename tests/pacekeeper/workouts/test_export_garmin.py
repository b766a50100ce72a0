"""A workout as Garmin's Training API V2 body (issue 32, "Onto the watch"), written out by
hand from the reference's fields, and its refusals."""

from __future__ import annotations

from typing import Any

import pytest

from pacekeeper.workouts import WorkoutExportError, render_garmin_training

FIVE_BY_FOUR: dict[str, Any] = {
    "name": "5 x 4 min VO2", "sport": "cycling", "description": "Hard but even.",
    "steps": [
        {"kind": "warmup", "end": {"time_s": 600}, "target": {"type": "ftp_pct", "low": 50, "high": 65}},
        {"repeat": 5, "steps": [
            {"kind": "active", "end": {"time_s": 240},
             "target": {"type": "ftp_pct", "low": 105, "high": 110}},
            {"kind": "recovery", "end": {"time_s": 180}, "target": {"type": "watts", "low": 120, "high": 150}},
        ]},
        {"kind": "cooldown", "end": {"lap_press": True}, "target": {"type": "rpe", "low": 2, "high": 3},
         "note": "spin easy"},
    ],
}


def test_intervals_are_the_body_written_by_hand() -> None:
    body = render_garmin_training(FIVE_BY_FOUR, {"ftp_watts": 250}, source_id="w123")
    # 105-110 % of 250 W = 262.5 -> 263 (half up), 275; 50-65 % = 125, 162.5 -> 163.
    assert body == {
        "workoutName": "5 x 4 min VO2", "sport": "CYCLING", "workoutProvider": "Pacekeeper",
        "description": "Hard but even.", "workoutSourceId": "w123",
        "segments": [{"segmentOrder": 1, "sport": "CYCLING", "steps": [
            {"type": "WorkoutStep", "stepOrder": 1, "intensity": "WARMUP",
             "durationType": "TIME", "durationValue": 600.0,
             "targetType": "POWER", "targetValueLow": 125, "targetValueHigh": 163},
            {"type": "WorkoutRepeatStep", "stepOrder": 2,
             "repeatType": "REPEAT_UNTIL_STEPS_CMPLT", "repeatValue": 5, "steps": [
                 {"type": "WorkoutStep", "stepOrder": 3, "intensity": "ACTIVE",
                  "durationType": "TIME", "durationValue": 240.0,
                  "targetType": "POWER", "targetValueLow": 263, "targetValueHigh": 275},
                 {"type": "WorkoutStep", "stepOrder": 4, "intensity": "RECOVERY",
                  "durationType": "TIME", "durationValue": 180.0,
                  "targetType": "POWER", "targetValueLow": 120, "targetValueHigh": 150}]},
            {"type": "WorkoutStep", "stepOrder": 5, "intensity": "COOLDOWN",
             "durationType": "OPEN", "targetType": "OPEN",
             "description": "RPE 2-3: spin easy"}]}],
    }


def test_a_run_s_paces_and_heart_rate_become_speeds_and_bpm() -> None:
    run = {"name": "Tempo", "sport": "running", "steps": [
        {"kind": "active", "end": {"distance_m": 3000},
         "target": {"type": "pace", "low": 240, "high": 250}},
        {"kind": "active", "end": {"time_s": 600},
         "target": {"type": "pace_pct", "low": 95, "high": 100}},
        {"kind": "recovery", "end": {"time_s": 120}, "target": {"type": "lthr_pct", "low": 80, "high": 85}},
    ]}
    steps = render_garmin_training(run, {"threshold_pace_s_per_km": 250, "lthr_bpm": 170}
                                   )["segments"][0]["steps"]
    # 4:10-4:00 /km = 1000/250 .. 1000/240 m/s; threshold 4:10/km = 4 m/s, 95-100 %.
    assert steps[0]["durationType"] == "DISTANCE" and steps[0]["durationValue"] == 3000.0
    assert steps[0]["durationValueType"] == "METER"
    assert (steps[0]["targetType"], steps[0]["targetValueLow"], steps[0]["targetValueHigh"]) == (
        "PACE", 4.0, 4.167)
    assert (steps[1]["targetValueLow"], steps[1]["targetValueHigh"]) == (3.8, 4.0)
    # 80-85 % of 170 bpm = 136, 144.5 -> 145.
    assert (steps[2]["targetType"], steps[2]["targetValueLow"], steps[2]["targetValueHigh"]) == (
        "HEART_RATE", 136, 145)


@pytest.mark.parametrize(("target", "missing"), [
    ({"type": "ftp_pct", "low": 90, "high": 95}, "FTP"),
    ({"type": "lthr_pct", "low": 90, "high": 95}, "LTHR"),
    ({"type": "pace_pct", "low": 90, "high": 95}, "threshold pace"),
])
def test_a_percent_target_without_its_threshold_is_refused(target: dict[str, Any],
                                                           missing: str) -> None:
    workout = {"name": "x", "sport": "running",
               "steps": [{"kind": "active", "end": {"time_s": 60}, "target": target}]}
    with pytest.raises(WorkoutExportError, match=missing):
        render_garmin_training(workout, {})


def test_more_steps_than_garmin_takes_are_refused() -> None:
    steps = [{"kind": "active", "end": {"time_s": 30}} for _ in range(101)]
    with pytest.raises(WorkoutExportError, match="at most 100 steps"):
        render_garmin_training({"name": "x", "sport": "cycling", "steps": steps}, {})
    assert len(render_garmin_training({"name": "x", "sport": "cycling", "steps": steps[:100]},
                                      {})["segments"][0]["steps"]) == 100


def test_a_long_source_id_is_left_out_rather_than_cut() -> None:
    body = render_garmin_training(FIVE_BY_FOUR, {"ftp_watts": 250}, source_id="x" * 21)
    assert "workoutSourceId" not in body
