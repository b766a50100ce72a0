"""Zwift .zwo, ERG and MRC files: "5 x 4 min at 105-110 % FTP with 3 min easy" written
out by hand in each format, and the workouts each format cannot hold (issue 32)."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from typing import Any

import pytest

from pacekeeper.workouts import WorkoutExportError, render_erg, render_mrc, render_zwo
from tests.pacekeeper.workouts._samples import five_by_four

# Warm-up ramps 50 -> 75 %, each 4 min holds the middle of 105-110 % = 1.075, each 3 min
# the middle of 50-60 % = 0.55, the cool-down ramps back 75 -> 50 % (Zwift's Cooldown
# starts at PowerLow).
_ZWO = """<?xml version="1.0" encoding="UTF-8"?>
<workout_file>
  <author>Pacekeeper</author>
  <name>5 x 4 min VO2</name>
  <description>VO2max intervals</description>
  <sportType>bike</sportType>
  <tags />
  <workout>
    <Warmup Duration="600" PowerLow="0.5" PowerHigh="0.75" />
    <IntervalsT Repeat="5" OnDuration="240" OffDuration="180" OnPower="1.075" OffPower="0.55" />
    <Cooldown Duration="600" PowerLow="0.75" PowerHigh="0.5" />
  </workout>
</workout_file>
"""


def test_zwo_five_by_four_by_hand() -> None:
    assert render_zwo(five_by_four(), {}) == _ZWO


def test_zwo_escapes_names_and_stays_well_formed() -> None:
    workout = five_by_four() | {"name": 'Tempo <"hard"> & fast', "description": "a\x01b"}
    workout["steps"][0]["note"] = "spin > 90 rpm & relax"
    root = ET.fromstring(render_zwo(workout, {}))  # raises on malformed XML
    assert root.findtext("name") == 'Tempo <"hard"> & fast'
    assert root.findtext("description") == "ab"  # XML 1.0 cannot hold U+0001
    event = root.find("workout/Warmup/textevent")
    assert event is not None
    assert event.get("message") == "spin > 90 rpm & relax"


def test_zwo_watts_become_fractions_of_ftp_and_odd_repeats_are_written_out() -> None:
    workout = {"name": "Over-unders", "sport": "cycling", "steps": [
        {"repeat": 2, "steps": [
            {"kind": "active", "end": {"time_s": 120},
             "target": {"type": "watts", "low": 260, "high": 260}},
            {"kind": "active", "end": {"time_s": 60},
             "target": {"type": "watts", "low": 300, "high": 300}},
            {"kind": "rest", "end": {"time_s": 30}},
        ]}]}
    body = ET.fromstring(render_zwo(workout, {"ftp_watts": 250})).find("workout")
    assert body is not None
    assert [(e.tag, e.get("Duration"), e.get("Power")) for e in body] == [
        ("SteadyState", "120", "1.04"), ("SteadyState", "60", "1.2"),
        ("FreeRide", "30", None)] * 2


def test_zwo_run_on_threshold_pace() -> None:
    run = {"name": "Tempo", "sport": "running", "steps": [
        {"kind": "active", "end": {"time_s": 1200},
         "target": {"type": "pace", "low": 250, "high": 250}},
        {"kind": "active", "end": {"time_s": 300},
         "target": {"type": "pace_pct", "low": 90, "high": 90}}]}
    root = ET.fromstring(render_zwo(run, {"threshold_pace_s_per_km": 240}))
    assert root.findtext("sportType") == "run"
    # 250 s/km against a 240 s/km threshold: 240/250 = 0.96 of threshold speed.
    assert [e.get("Power") for e in root.iter("SteadyState")] == ["0.96", "0.9"]


_ERG = "\r\n".join([
    "[COURSE HEADER]", "VERSION = 2", "UNITS = ENGLISH", "DESCRIPTION = VO2max intervals",
    "FILE NAME = 5 x 4 min VO2", "FTP = 250", "MINUTES WATTS", "[END COURSE HEADER]",
    "[COURSE DATA]",
    # 50 -> 75 % of 250 W = 125 -> 187.5 (188, half up)
    "0.00\t125", "10.00\t188",
    # 107.5 % = 268.75 -> 269 W for 4 min; 55 % = 137.5 -> 138 W for 3 min; five times
    "10.00\t269", "14.00\t269", "14.00\t138", "17.00\t138",
    "17.00\t269", "21.00\t269", "21.00\t138", "24.00\t138",
    "24.00\t269", "28.00\t269", "28.00\t138", "31.00\t138",
    "31.00\t269", "35.00\t269", "35.00\t138", "38.00\t138",
    "38.00\t269", "42.00\t269", "42.00\t138", "45.00\t138",
    "45.00\t188", "55.00\t125",
    "[END COURSE DATA]", ""])


def test_erg_five_by_four_by_hand() -> None:
    assert render_erg(five_by_four(), {"ftp_watts": 250}) == _ERG


def test_mrc_five_by_four_by_hand() -> None:
    expected = "\r\n".join([
        "[COURSE HEADER]", "VERSION = 2", "UNITS = ENGLISH",
        "DESCRIPTION = VO2max intervals", "FILE NAME = 5 x 4 min VO2", "MINUTES PERCENT",
        "[END COURSE HEADER]", "[COURSE DATA]", "0.00\t50", "10.00\t75",
        "10.00\t107.5", "14.00\t107.5", "14.00\t55", "17.00\t55",
        "17.00\t107.5", "21.00\t107.5", "21.00\t55", "24.00\t55",
        "24.00\t107.5", "28.00\t107.5", "28.00\t55", "31.00\t55",
        "31.00\t107.5", "35.00\t107.5", "35.00\t55", "38.00\t55",
        "38.00\t107.5", "42.00\t107.5", "42.00\t55", "45.00\t55",
        "45.00\t75", "55.00\t50", "[END COURSE DATA]", ""])
    assert render_mrc(five_by_four(), {}) == expected


def test_erg_and_mrc_convert_between_watts_and_percent_with_the_ftp() -> None:
    ride = {"name": "Line\tbreak\nname", "sport": "cycling", "steps": [
        {"kind": "active", "end": {"time_s": 90},
         "target": {"type": "watts", "low": 200, "high": 200}}]}
    assert "0.00\t200\r\n1.50\t200\r\n" in render_erg(ride, {})  # watts need no FTP
    assert "FILE NAME = Line break name\r\n" in render_erg(ride, {})
    assert "0.00\t80\r\n1.50\t80\r\n" in render_mrc(ride, {"ftp_watts": 250})
    with pytest.raises(WorkoutExportError, match="needs the FTP"):
        render_mrc(ride, {})
    with pytest.raises(WorkoutExportError, match="needs the FTP"):
        render_erg(five_by_four(), {})


def _one_step(sport: str, end: dict[str, Any], target: dict[str, Any] | None
              ) -> dict[str, Any]:
    step: dict[str, Any] = {"kind": "active", "end": end}
    if target is not None:
        step["target"] = target
    return {"name": "x", "sport": sport, "steps": [step]}


_PACE = {"type": "pace", "low": 240, "high": 250}
_FTP = {"type": "ftp_pct", "low": 90, "high": 95}
_HR = {"type": "bpm", "low": 140, "high": 150}


@pytest.mark.parametrize("render", [render_erg, render_mrc])
@pytest.mark.parametrize(("workout", "message"), [
    (_one_step("running", {"time_s": 60}, _PACE), "for cycling"),
    (_one_step("cycling", {"lap_press": True}, _FTP), "lap press"),
    (_one_step("cycling", {"distance_m": 1000}, _FTP), "a distance"),
    (_one_step("cycling", {"time_s": 60}, _HR), "only power"),
    (_one_step("cycling", {"time_s": 60}, None), "no power target"),
])
def test_erg_and_mrc_refuse_what_they_cannot_hold(render: Any, workout: dict[str, Any],
                                                  message: str) -> None:
    with pytest.raises(WorkoutExportError, match=message):
        render(workout, {"ftp_watts": 250})


@pytest.mark.parametrize(("workout", "message"), [
    (_one_step("swimming", {"time_s": 60}, None), "rides or runs"),
    (_one_step("running", {"time_s": 60}, _HR), "only pace"),
    (_one_step("running", {"time_s": 60}, _PACE), "threshold pace"),
    (_one_step("running", {"lap_press": True}, None), "lap press"),
    (_one_step("cycling", {"time_s": 60}, _PACE), "for running and swimming"),
    (_one_step("cycling", {"time_s": 60}, _HR), "only power"),
    (_one_step("cycling", {"time_s": 60}, {"type": "watts", "low": 1, "high": 2}), "FTP"),
])
def test_zwo_refuses_what_it_cannot_hold(workout: dict[str, Any], message: str) -> None:
    with pytest.raises(WorkoutExportError, match=message):
        render_zwo(workout, {})
