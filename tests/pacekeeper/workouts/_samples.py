"""Workouts the exporter tests share, in the workout JSON shape of issue 32."""

from __future__ import annotations

from typing import Any


def five_by_four() -> dict[str, Any]:
    """"5 x 4 min at 105-110 % FTP with 3 min easy", with a 10 min warm-up ramping
    50 -> 75 % and a 10 min cool-down 75 -> 50 %: 55 minutes in all."""
    return {
        "name": "5 x 4 min VO2",
        "sport": "cycling",
        "description": "VO2max intervals",
        "steps": [
            {"kind": "warmup", "end": {"time_s": 600},
             "target": {"type": "ftp_pct", "low": 50, "high": 75}},
            {"repeat": 5, "steps": [
                {"kind": "active", "end": {"time_s": 240},
                 "target": {"type": "ftp_pct", "low": 105, "high": 110}},
                {"kind": "recovery", "end": {"time_s": 180},
                 "target": {"type": "ftp_pct", "low": 50, "high": 60}},
            ]},
            {"kind": "cooldown", "end": {"time_s": 600},
             "target": {"type": "ftp_pct", "low": 50, "high": 75}},
        ],
    }


def run_repeats() -> dict[str, Any]:
    """Like the FIT SDK's sample run workouts: open warm-up, 800 m repeats on pace,
    recoveries on heart rate, an RPE cool-down ended by the lap button."""
    return {
        "name": "800 m repeats",
        "sport": "running",
        "steps": [
            {"kind": "warmup", "end": {"lap_press": True},
             "target": {"type": "lthr_pct", "low": 70, "high": 80}},
            {"repeat": 6, "steps": [
                {"kind": "active", "end": {"distance_m": 800},
                 "target": {"type": "pace", "low": 230, "high": 240},
                 "note": "relaxed, even splits"},
                {"kind": "recovery", "end": {"time_s": 90},
                 "target": {"type": "bpm", "low": 120, "high": 140}},
            ]},
            {"kind": "rest", "end": {"time_s": 120}},
            {"kind": "active", "end": {"distance_m": 1000},
             "target": {"type": "pace_pct", "low": 95, "high": 100}},
            {"kind": "cooldown", "end": {"lap_press": True},
             "target": {"type": "rpe", "low": 2, "high": 3}},
        ],
    }
