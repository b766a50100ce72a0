"""Athlete settings with history: what each setting means, its valid range, and the
value valid on a given day (the latest ``valid_from`` on or before it)."""

from __future__ import annotations

import bisect
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import date
from typing import Any

from pacekeeper.fitness._records import SettingValue


@dataclass(frozen=True, slots=True)
class SettingSpec:
    name: str
    description: str
    kind: type
    low: float | None = None
    high: float | None = None
    choices: tuple[str, ...] = ()

    def check(self, value: Any) -> Any:
        """The value to store, or ValueError with a message naming the setting."""
        if value is None:
            return None  # clears the setting from that day on
        if self.choices:
            if not isinstance(value, str) or value not in self.choices:
                raise ValueError(f"{self.name} must be one of {', '.join(self.choices)}")
            return value
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise ValueError(f"{self.name} must be a number")
        number = float(value)
        if number != number or (self.low is not None and number < self.low) or (
                self.high is not None and number > self.high):
            raise ValueError(f"{self.name} must be between {self.low:g} and {self.high:g}")
        return round(number) if self.kind is int else number


SETTINGS: dict[str, SettingSpec] = {
    s.name: s
    for s in (
        SettingSpec("ftp_watts", "functional threshold power (W)", int, 30, 2000),
        SettingSpec("lthr_bpm", "lactate threshold heart rate (bpm)", int, 80, 230),
        SettingSpec("max_hr_bpm", "maximum heart rate (bpm)", int, 100, 250),
        SettingSpec("resting_hr_bpm", "resting heart rate (bpm)", int, 25, 120),
        SettingSpec("weight_kg", "body weight (kg)", float, 25, 300),
        SettingSpec("threshold_pace_s_per_km", "running threshold pace (s/km)", float, 120, 900),
        SettingSpec("sex", "sex, for the TRIMP coefficient (M or F)", str, choices=("M", "F")),
        SettingSpec("birth_year", "year of birth", int, 1900, 2100),
        SettingSpec("units", "preferred units", str, choices=("metric", "imperial")),
    )
}


class SettingsHistory:
    """Every setting's values over time, for the days an activity happened on."""

    def __init__(self, values: Iterable[SettingValue]) -> None:
        self._days: dict[str, list[date]] = {}
        self._values: dict[str, list[Any]] = {}
        for v in sorted(values, key=lambda v: (v.field, v.valid_from)):
            self._days.setdefault(v.field, []).append(v.valid_from)
            self._values.setdefault(v.field, []).append(v.value)

    def on(self, day: date) -> dict[str, Any]:
        """The value of every setting valid on ``day`` (settings with none are absent)."""
        out: dict[str, Any] = {}
        for name, days in self._days.items():
            i = bisect.bisect_right(days, day)
            if i and self._values[name][i - 1] is not None:
                out[name] = self._values[name][i - 1]
        return out

    def history(self) -> dict[str, list[dict[str, Any]]]:
        return {
            name: [{"valid_from": d.isoformat(), "value": v}
                   for d, v in zip(days, self._values[name], strict=True)]
            for name, days in self._days.items()
        }


def check_settings(values: Mapping[str, Any]) -> dict[str, Any]:
    """Validated values; ValueError naming the first bad or unknown setting."""
    if not values:
        raise ValueError(f"name at least one setting: {', '.join(SETTINGS)}")
    checked: dict[str, Any] = {}
    for name, value in values.items():
        spec = SETTINGS.get(name)
        if spec is None:
            raise ValueError(f"unknown setting {name!r}; settings are {', '.join(SETTINGS)}")
        checked[name] = spec.check(value)
    return checked


__all__ = ["SETTINGS", "SettingSpec", "SettingsHistory", "check_settings"]
