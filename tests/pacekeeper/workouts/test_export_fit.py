"""The FIT workout file, proved by decoding it with Garmin's own SDK: every step's
duration, target and repeat comes back as the FIT profile defines it (issue 32)."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest
from garmin_fit_sdk import Decoder, Stream

from pacekeeper.workouts import WorkoutExportError, render_fit
from tests.pacekeeper.workouts._samples import five_by_four, run_repeats

_KEYS = ("message_index", "intensity", "duration_type", "duration_time",
         "duration_distance", "duration_step", "repeat_steps", "target_type",
         "target_value", "custom_target_power_low", "custom_target_power_high",
         "custom_target_heart_rate_low", "custom_target_heart_rate_high",
         "custom_target_speed_low", "custom_target_speed_high", "notes")


def _decode(data: bytes) -> dict[str, Any]:
    checker = Decoder(Stream.from_byte_array(bytearray(data)))
    assert checker.is_fit()
    assert checker.check_integrity()  # header and file CRC-16 both valid
    messages, errors = Decoder(Stream.from_byte_array(bytearray(data))).read()
    assert errors == []
    return messages


def _steps(messages: dict[str, Any]) -> list[dict[str, Any]]:
    return [{k: m[k] for k in _KEYS if k in m} for m in messages["workout_step_mesgs"]]


def test_five_by_four_decodes_to_the_planned_steps() -> None:
    """PLAN-2: decoded by garmin-fit-sdk, a workout file with the planned steps."""
    messages = _decode(render_fit(five_by_four(), {}))
    assert messages["file_id_mesgs"][0]["type"] == "workout"
    workout = messages["workout_mesgs"][0]
    assert workout["wkt_name"] == "5 x 4 min VO2"
    assert workout["sport"] == "cycling"
    assert workout["num_valid_steps"] == 5
    assert workout["wkt_description"] == "VO2max intervals"
    power = {"target_type": "power", "target_value": 0}
    assert _steps(messages) == [
        {"message_index": 0, "intensity": "warmup", "duration_type": "time",
         "duration_time": 600.0, **power,
         "custom_target_power_low": 50, "custom_target_power_high": 75},
        {"message_index": 1, "intensity": "active", "duration_type": "time",
         "duration_time": 240.0, **power,
         "custom_target_power_low": 105, "custom_target_power_high": 110},
        {"message_index": 2, "intensity": "recovery", "duration_type": "time",
         "duration_time": 180.0, **power,
         "custom_target_power_low": 50, "custom_target_power_high": 60},
        # The repeat follows its steps and points back at the first of them.
        {"message_index": 3, "duration_type": "repeat_until_steps_cmplt",
         "duration_step": 1, "repeat_steps": 5, "target_value": 5},
        {"message_index": 4, "intensity": "cooldown", "duration_type": "time",
         "duration_time": 600.0, **power,
         "custom_target_power_low": 50, "custom_target_power_high": 75},
    ]


def test_a_run_with_every_end_and_target_round_trips() -> None:
    thresholds = {"lthr_bpm": 170, "threshold_pace_s_per_km": 250}
    messages = _decode(render_fit(run_repeats(), thresholds))
    assert messages["workout_mesgs"][0]["sport"] == "running"
    assert messages["workout_mesgs"][0]["num_valid_steps"] == 7
    hr = {"target_type": "heart_rate", "target_value": 0}
    speed = {"target_type": "speed", "target_value": 0}
    assert _steps(messages) == [
        # 70-80 % of LTHR 170 = 119-136 bpm, stored as bpm + 100.
        {"message_index": 0, "intensity": "warmup", "duration_type": "open", **hr,
         "custom_target_heart_rate_low": 219, "custom_target_heart_rate_high": 236},
        # 3:50-4:00 /km = 4.348-4.167 m/s, stored in mm/s, slow end low.
        {"message_index": 1, "intensity": "active", "duration_type": "distance",
         "duration_distance": 800.0, **speed, "custom_target_speed_low": 4.167,
         "custom_target_speed_high": 4.348, "notes": "relaxed, even splits"},
        {"message_index": 2, "intensity": "recovery", "duration_type": "time",
         "duration_time": 90.0, **hr,
         "custom_target_heart_rate_low": 220, "custom_target_heart_rate_high": 240},
        {"message_index": 3, "duration_type": "repeat_until_steps_cmplt",
         "duration_step": 1, "repeat_steps": 6, "target_value": 6},
        {"message_index": 4, "intensity": "rest", "duration_type": "time",
         "duration_time": 120.0, "target_type": "open"},
        # 95-100 % of threshold speed 4 m/s (250 s/km).
        {"message_index": 5, "intensity": "active", "duration_type": "distance",
         "duration_distance": 1000.0, **speed, "custom_target_speed_low": 3.8,
         "custom_target_speed_high": 4.0},
        # FIT has no RPE target: open, with the RPE in the notes the watch shows.
        {"message_index": 6, "intensity": "cooldown", "duration_type": "open",
         "target_type": "open", "notes": "RPE 2-3"},
    ]


def test_watts_and_swim_pace_use_the_profile_offsets() -> None:
    ride = {"name": "Sweet spot", "sport": "cycling", "steps": [
        {"kind": "active", "end": {"time_s": 1200},
         "target": {"type": "watts", "low": 220, "high": 235}}]}
    step = _steps(_decode(render_fit(ride, {})))[0]
    assert (step["custom_target_power_low"], step["custom_target_power_high"]) == (1220, 1235)
    swim = {"name": "CSS", "sport": "swimming", "steps": [
        {"kind": "active", "end": {"distance_m": 100},
         "target": {"type": "pace", "low": 100, "high": 125}}]}
    messages = _decode(render_fit(swim, {}))
    assert messages["workout_mesgs"][0]["sport"] == "swimming"
    step = _steps(messages)[0]
    # per 100 m: 1:40-2:05 = 1.0-0.8 m/s
    assert (step["custom_target_speed_low"], step["custom_target_speed_high"]) == (0.8, 1.0)
    assert step["duration_distance"] == 100.0


def test_the_crc_is_checked_by_the_decoder() -> None:
    data = bytearray(render_fit(five_by_four(), {}))
    data[40] ^= 0x01  # one bit in a step
    assert not Decoder(Stream.from_byte_array(data)).check_integrity()


def test_the_same_workout_renders_the_same_bytes_and_created_is_written() -> None:
    when = datetime(2026, 12, 7, 6, 30, tzinfo=UTC)
    first = render_fit(five_by_four(), {}, created=when)
    assert first == render_fit(five_by_four(), {}, created=when)
    assert _decode(first)["file_id_mesgs"][0]["time_created"] == when
    with pytest.raises(WorkoutExportError, match="aware"):
        render_fit(five_by_four(), {}, created=datetime(2026, 12, 7))  # noqa: DTZ001


def test_a_long_unicode_name_is_cut_on_a_character_boundary() -> None:
    workout = five_by_four() | {"name": "Schwelle " + "ü" * 60}
    name = _decode(render_fit(workout, {}))["workout_mesgs"][0]["wkt_name"]
    assert name.startswith("Schwelle ü")
    assert len(name.encode()) <= 63


@pytest.mark.parametrize(("target", "thresholds", "message"), [
    ({"type": "lthr_pct", "low": 80, "high": 90}, {}, "LTHR"),
    ({"type": "pace_pct", "low": 95, "high": 100}, {}, "threshold pace"),
    ({"type": "ftp_pct", "low": 900, "high": 1100}, {}, "<= 300 for ftp_pct"),
])
def test_a_target_fit_cannot_hold_is_refused(target: dict[str, Any],
                                             thresholds: dict[str, Any], message: str) -> None:
    workout = {"name": "x", "sport": "running",
               "steps": [{"kind": "active", "end": {"time_s": 60}, "target": target}]}
    with pytest.raises(WorkoutExportError, match=message):
        render_fit(workout, thresholds)


@pytest.mark.parametrize(("steps", "message"), [
    ([{"kind": "active", "end": {}}], "end must be one of"),
    ([{"kind": "active"}], "needs an end"),
    ([{"kind": "sprint", "end": {"time_s": 60}}], "kind must be"),
    ([{"repeat": 0, "steps": [{"kind": "active", "end": {"time_s": 60}}]}], "from 1 to 100"),
    ([], "steps must be a non-empty list"),
])
def test_a_malformed_workout_is_a_clear_error(steps: list[Any], message: str) -> None:
    with pytest.raises(WorkoutExportError, match=message):
        render_fit({"name": "x", "sport": "cycling", "steps": steps}, {})


@pytest.mark.parametrize(("sport", "fit_sport"), [
    ("running", "running"), ("run", "running"), ("strength", "training"),
    ("yoga", "generic")])
def test_sports_map_to_the_profile_and_unknown_ones_load_as_generic(sport: str,
                                                                   fit_sport: str) -> None:
    workout = {"name": "x", "sport": sport,
               "steps": [{"kind": "active", "end": {"time_s": 600}}]}
    assert _decode(render_fit(workout, {}))["workout_mesgs"][0]["sport"] == fit_sport
