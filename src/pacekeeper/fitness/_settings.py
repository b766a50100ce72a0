"""Athlete settings with history: what each setting means, its valid range, and the
value valid on a given day (the latest ``valid_from`` on or before it)."""

from __future__ import annotations

import bisect
import zoneinfo
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
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
    # A text setting's own check (a time zone): the value to store, or ValueError.
    parse: Callable[[Any], Any] | None = None

    def check(self, value: Any) -> Any:
        """The value to store, or ValueError with a message naming the setting."""
        if value is None:
            return None  # clears the setting from that day on
        if self.parse is not None:
            return self.parse(value)
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


def time_zone(value: Any) -> str:
    """An IANA time zone name the server's zone database knows (``Europe/Paris``)."""
    if not isinstance(value, str) or not 1 <= len(value) <= 64:
        raise ValueError("time_zone must be an IANA time zone name such as Europe/Paris")
    try:
        zoneinfo.ZoneInfo(value)
    except (zoneinfo.ZoneInfoNotFoundError, ValueError):
        # ValueError: a path-like key ("../etc/passwd"), refused before any file is read
        raise ValueError(f"time_zone {value[:64]!r} is not an IANA time zone name "
                         "(such as Europe/Paris)") from None
    return value


SETTINGS: dict[str, SettingSpec] = {
    s.name: s
    for s in (
        SettingSpec("ftp_watts", "cycling functional threshold power (W)", int, 30, 2000),
        SettingSpec("lthr_bpm", "lactate threshold heart rate (bpm), every sport's unless "
                    "the sport has its own", int, 80, 230),
        SettingSpec("max_hr_bpm", "maximum heart rate (bpm), every sport's unless the "
                    "sport has its own", int, 100, 250),
        SettingSpec("resting_hr_bpm", "resting heart rate (bpm)", int, 25, 120),
        SettingSpec("weight_kg", "body weight (kg)", float, 25, 300),
        SettingSpec("threshold_pace_s_per_km", "running threshold pace (s/km)", float, 120, 900),
        SettingSpec("sex", "sex, for the TRIMP coefficient (M or F)", str, choices=("M", "F")),
        SettingSpec("birth_year", "year of birth", int, 1900, 2100),
        SettingSpec("units", "preferred units", str, choices=("metric", "imperial")),
        # Locale (issue 33): the person's days and weeks. Without a time zone, today is
        # the date at the offset of their latest activity (analysis/_base.py).
        SettingSpec("time_zone", "time zone (IANA name)", str, parse=time_zone),
        SettingSpec("first_day_of_week", "the day weeks start on", str,
                    choices=("monday", "sunday")),
        # Per sport (issue 27 item 10): a run's power, a swim's pace and the heart rate
        # each sport reaches are the sport's own.
        SettingSpec("run_ftp_watts", "running functional threshold power or CP (W)", int,
                    30, 2000),
        SettingSpec("swim_threshold_pace_s_per_100m", "swim threshold pace, CSS (s/100 m)",
                    float, 40, 300),
        *(SettingSpec(f"{sport}_{name}", f"{what} in {word} (bpm)", int, low, high)
          for sport, word in (("ride", "cycling"), ("run", "running"), ("swim", "swimming"))
          for name, what, low, high in (
              ("lthr_bpm", "lactate threshold heart rate", 80, 230),
              ("max_hr_bpm", "maximum heart rate", 100, 250))),
    )
}

# The sports that have thresholds of their own, and the stored sports each covers (walks
# and hikes take the running thresholds, as their rTSS always has).
THRESHOLD_SPORTS: dict[str, tuple[str, ...]] = {
    "ride": ("ride",), "run": ("run", "walk", "hike"), "swim": ("swim",)}
# Per threshold sport: the generic name a threshold goes by -> its stored setting.
_OWN: dict[str, dict[str, str]] = {
    "ride": {"ftp_watts": "ftp_watts", "lthr_bpm": "ride_lthr_bpm",
             "max_hr_bpm": "ride_max_hr_bpm"},
    "run": {"ftp_watts": "run_ftp_watts", "lthr_bpm": "run_lthr_bpm",
            "max_hr_bpm": "run_max_hr_bpm",
            "threshold_pace_s_per_km": "threshold_pace_s_per_km"},
    "swim": {"lthr_bpm": "swim_lthr_bpm", "max_hr_bpm": "swim_max_hr_bpm",
             "threshold_pace_s_per_100m": "swim_threshold_pace_s_per_100m"},
}
# Heart rate has a general value a sport without its own falls back to; power and pace
# never do (a cycling FTP says nothing about a run).
_GENERAL: tuple[str, ...] = ("lthr_bpm", "max_hr_bpm")


def threshold_sport(sport: str | None) -> str | None:
    """``ride``, ``run`` or ``swim`` for a stored sport with thresholds of its own."""
    return next((k for k, v in THRESHOLD_SPORTS.items() if sport in v), None)


def for_sport(values: Mapping[str, Any], sport: str | None
              ) -> tuple[dict[str, Any], list[str]]:
    """The settings an activity of ``sport`` uses, under their generic names
    (``ftp_watts``, ``lthr_bpm``, ``max_hr_bpm``, ``threshold_pace_s_per_km``,
    ``threshold_pace_s_per_100m``, and the ones not per sport), and which of them came
    from the general value because the sport has none of its own."""
    out = {k: v for k, v in values.items() if k in _NOT_PER_SPORT}
    general: list[str] = []
    own = _OWN.get(threshold_sport(sport) or "", {})
    for name, key in own.items():
        if values.get(key) is not None:
            out[name] = values[key]
    for name in _GENERAL:
        if name not in out and values.get(name) is not None:
            out[name] = values[name]
            if own:
                general.append(name)
    return out, general


def sport_values(values: Mapping[str, Any], sport: str | None) -> dict[str, Any]:
    """Values given under generic names for one sport (``{"ftp_watts": 280}`` for runs)
    as the settings they are stored under; without a sport, as given. ValueError for a
    threshold the sport has none of, or a setting that is not per sport."""
    if sport is None:
        # The swim threshold pace has one name only a swim has.
        return {("swim_threshold_pace_s_per_100m" if k == "threshold_pace_s_per_100m"
                 else k): v for k, v in values.items()}
    own = _OWN.get(sport)
    if own is None:
        raise ValueError(f"sport must be one of {', '.join(_OWN)}")
    out: dict[str, Any] = {}
    for name, value in values.items():
        if name not in own:
            raise ValueError(f"{name} is not a {sport} threshold; {sport} has "
                             f"{', '.join(own)}")
        out[own[name]] = value
    return out


_NOT_PER_SPORT: frozenset[str] = frozenset(
    ("resting_hr_bpm", "weight_kg", "sex", "birth_year", "units", "time_zone",
     "first_day_of_week"))


class SettingsHistory:
    """Every setting's values over time, for the days an activity happened on."""

    def __init__(self, values: Iterable[SettingValue]) -> None:
        self._days: dict[str, list[date]] = {}
        self._values: dict[str, list[Any]] = {}
        self._sources: dict[str, list[str | None]] = {}
        for v in sorted(values, key=lambda v: (v.field, v.valid_from)):
            self._days.setdefault(v.field, []).append(v.valid_from)
            self._values.setdefault(v.field, []).append(v.value)
            self._sources.setdefault(v.field, []).append(v.source)

    def on(self, day: date) -> dict[str, Any]:
        """The value of every setting valid on ``day`` (settings with none are absent)."""
        out: dict[str, Any] = {}
        for name, days in self._days.items():
            i = bisect.bisect_right(days, day)
            if i and self._values[name][i - 1] is not None:
                out[name] = self._values[name][i - 1]
        return out

    def history(self) -> dict[str, list[dict[str, Any]]]:
        """Each setting's values by first day; one a provider gave says so
        (``"source": "provider", "provider": "strava"``), the person's own say nothing."""
        return {
            name: [{"valid_from": d.isoformat(), "value": v,
                    **({"source": "provider", "provider": s} if s else {})}
                   for d, v, s in zip(days, self._values[name], self._sources[name],
                                      strict=True)]
            for name, days in self._days.items()
        }


# What a provider's athlete API gives that is a setting here (issue 27 item 10), from its
# mapped profile (models.Athlete): Strava's ``ftp`` (cycling FTP, W) and ``weight`` (kg),
# Fitbit's profile weight, a maximum heart rate where one is given. Garmin's Health API
# gives none; heart-rate zones (Strava's ``/athlete/zones``) are not imported: a zone's
# edges are not a threshold the API states (custom zones may be anything).
PROVIDER_SETTINGS: tuple[str, ...] = ("ftp_watts", "max_hr_bpm", "weight_kg")


def provider_settings(stored: Iterable[SettingValue], offered: Mapping[str, Any]
                      ) -> dict[str, tuple[Any, bool]]:
    """Of the values a provider offers, the ones to store, each with whether the setting
    had no value before: only for a setting the person has never set (their own value,
    whatever its day, always wins and is never overwritten), only a valid value, and
    only when it differs from the provider's value stored last."""
    rows: dict[str, list[SettingValue]] = {}
    for row in sorted(stored, key=lambda r: r.valid_from):
        rows.setdefault(row.field, []).append(row)
    out: dict[str, tuple[Any, bool]] = {}
    for name in PROVIDER_SETTINGS:
        if offered.get(name) is None:
            continue
        try:
            value = SETTINGS[name].check(offered[name])
        except ValueError:
            continue  # a provider's 0 W FTP or a weight out of range: nothing to import
        had = rows.get(name, [])
        if any(r.source is None for r in had) or (had and had[-1].value == value):
            continue
        out[name] = (value, not had)
    return out


def zone_of(history: SettingsHistory, now: datetime) -> str | None:
    """The person's ``time_zone`` as valid now: read on tomorrow's UTC date, so a change
    made today counts at once in a zone ahead of UTC."""
    zone = history.on(now.astimezone(UTC).date() + timedelta(days=1)).get("time_zone")
    return zone if isinstance(zone, str) else None


def day_in(zone: str | None, now: datetime) -> date:
    """``now``'s date in ``zone`` (UTC's without one)."""
    return now.astimezone(zoneinfo.ZoneInfo(zone) if zone else UTC).date()


def local_today(history: SettingsHistory, now: datetime) -> date:
    """Today in the person's ``time_zone`` setting; UTC's date without one."""
    return day_in(zone_of(history, now), now)


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


__all__ = ["PROVIDER_SETTINGS", "SETTINGS", "THRESHOLD_SPORTS", "SettingSpec",
           "SettingsHistory", "check_settings", "day_in", "for_sport", "local_today",
           "provider_settings", "sport_values", "threshold_sport", "time_zone", "zone_of"]
