"""Apple Health's ``export.xml`` read in one streaming pass (issue 31 item 3).

The file is one XML document of every sample the phone holds (often gigabytes), with
an internal DTD subset. It is read with expat, chunk by chunk, element by element,
never as a tree: memory holds the day totals and the workouts' summaries, not the
samples. No entity is ever expanded: an ENTITY declaration (Apple's DTD declares none;
a "billion laughs" file declares many) stops the parse at the declaration, before any
reference could be expanded, and external entities and parameter entities are never
loaded. Pure functions of a readable stream: the service runs them in its import pool.
"""

from __future__ import annotations

import hashlib
from collections import defaultdict
from dataclasses import dataclass, field
from datetime import date, datetime
from typing import IO, Any, Final
from xml.parsers import expat

from pacekeeper.errors import PacekeeperError
from pacekeeper.fitness._parsed import default_name
from pacekeeper.fitness._records import DailyHealth, NewActivity
from pacekeeper.fitness.models import Sport

CHUNK: Final = 1 << 20
SOURCE: Final = "apple_export"

_SPORTS: Final = {
    "Running": "run", "Cycling": "ride", "Swimming": "swim", "Walking": "walk",
    "Hiking": "hike", "Rowing": "row", "CrossCountrySkiing": "ski",
    "DownhillSkiing": "ski", "TraditionalStrengthTraining": "strength",
    "FunctionalStrengthTraining": "strength", "Yoga": "yoga", "Elliptical": "workout",
    "HighIntensityIntervalTraining": "workout", "MixedCardio": "workout",
}
_TO_M: Final = {"m": 1.0, "km": 1000.0, "mi": 1609.344, "yd": 0.9144, "ft": 0.3048}
_TO_S: Final = {"s": 1.0, "min": 60.0, "hr": 3600.0}
_TO_KG: Final = {"kg": 1.0, "lb": 0.45359237, "g": 0.001}
_TO_KCAL: Final = {"kcal": 1.0, "Cal": 1.0, "kJ": 1 / 4.184}
_SLEEP_STAGE: Final = {
    "HKCategoryValueSleepAnalysisAsleepDeep": "deep",
    "HKCategoryValueSleepAnalysisAsleepCore": "light",
    "HKCategoryValueSleepAnalysisAsleepREM": "rem",
    "HKCategoryValueSleepAnalysisAsleepUnspecified": "asleep",
    "HKCategoryValueSleepAnalysisAsleep": "asleep",
    "HKCategoryValueSleepAnalysisAwake": "awake",
}
_Q = "HKQuantityTypeIdentifier"


class UnsafeXml(PacekeeperError, ValueError):
    """The document declares an entity (or is not well-formed XML)."""


@dataclass(slots=True)
class Workout:
    """One ``<Workout>``: what the service stores as an activity without a file."""

    sport: str
    source_sport: str
    start: datetime
    end: datetime
    elapsed_s: float
    distance_m: float | None = None
    calories: float | None = None
    avg_hr: float | None = None
    max_hr: float | None = None
    route: str | None = None  # the workout-routes/*.gpx it refers to
    key: str = ""  # stable across exports: its de-duplication digest

    @property
    def offset_s(self) -> int | None:
        delta = self.start.utcoffset()
        return None if delta is None else int(delta.total_seconds())


@dataclass(slots=True)
class AppleScan:
    workouts: list[Workout] = field(default_factory=list)
    days: list[DailyHealth] = field(default_factory=list)
    records: int = 0
    skipped_sdnn: int = 0  # HRV samples (SDNN: not the RMSSD the daily record keeps)


def _when(text: str | None) -> datetime | None:
    if not text:
        return None
    try:
        return datetime.strptime(text, "%Y-%m-%d %H:%M:%S %z")
    except ValueError:
        return None


def _num(text: str | None) -> float | None:
    try:
        return float(text) if text else None
    except ValueError:
        return None


def _scaled(value: str | None, unit: str | None, table: dict[str, float]) -> float | None:
    number = _num(value)
    factor = table.get(unit or "")
    return None if number is None or factor is None else number * factor


class _Days:
    """Per-day totals. Steps and sleep come from several devices at once (a phone and
    a watch count the same steps): per day, the one source with the most is kept, as
    the Health app shows one of them, not their sum."""

    def __init__(self) -> None:
        self.steps: dict[date, dict[str, float]] = defaultdict(lambda: defaultdict(float))
        self.sleep: dict[date, dict[str, dict[str, float]]] = defaultdict(
            lambda: defaultdict(lambda: defaultdict(float)))
        self.resting: dict[date, float] = {}
        self.weight: dict[date, float] = {}

    def result(self) -> list[DailyHealth]:
        out: dict[date, dict[str, Any]] = defaultdict(dict)
        for day, by_source in self.steps.items():
            out[day]["steps"] = round(max(by_source.values()))
        for day, sources in self.sleep.items():
            stages = max(sources.values(), key=lambda s: sum(
                v for k, v in s.items() if k != "awake"))
            asleep = sum(v for k, v in stages.items() if k != "awake")
            out[day]["sleep_s"] = asleep
            for stage, name in (("deep", "sleep_deep_min"), ("light", "sleep_light_min"),
                                ("rem", "sleep_rem_min"), ("awake", "sleep_awake_min")):
                if stage in stages:
                    out[day][name] = round(stages[stage] / 60.0, 1)
        for day, bpm in self.resting.items():
            out[day]["resting_hr"] = bpm
        for day, kg in self.weight.items():
            out[day]["weight_kg"] = round(kg, 2)
        return [DailyHealth(day, SOURCE, **values) for day, values in sorted(out.items())]


class _Scanner:
    def __init__(self) -> None:
        self.scan = AppleScan()
        self.days = _Days()
        self.workout: Workout | None = None
        self.parser = expat.ParserCreate()
        self.parser.SetParamEntityParsing(expat.XML_PARAM_ENTITY_PARSING_NEVER)
        self.parser.EntityDeclHandler = self._entity
        self.parser.ExternalEntityRefHandler = self._external
        self.parser.StartElementHandler = self._start
        self.parser.EndElementHandler = self._end
        self.parser.buffer_text = True

    @staticmethod
    def _entity(name: str, *_: Any) -> None:
        raise UnsafeXml(f"export.xml declares the entity {name!r}; entities are never "
                        "expanded, so the file is not read")

    @staticmethod
    def _external(*_: Any) -> int:
        raise UnsafeXml("export.xml refers to an external entity")

    def _start(self, tag: str, attrs: dict[str, str]) -> None:
        if tag == "Record":
            self.scan.records += 1
            self._record(attrs)
        elif tag == "Workout":
            self.workout = self._new_workout(attrs)
        elif self.workout is not None:
            self._workout_part(tag, attrs)

    def _end(self, tag: str) -> None:
        if tag == "Workout" and self.workout is not None:
            self.scan.workouts.append(self.workout)
            self.workout = None

    def _record(self, a: dict[str, str]) -> None:
        kind = a.get("type", "")
        start, end = _when(a.get("startDate")), _when(a.get("endDate"))
        if start is None or end is None:
            return
        if kind == f"{_Q}StepCount":
            self.days.steps[start.date()][a.get("sourceName", "")] += _num(a.get("value")) or 0
        elif kind == f"{_Q}RestingHeartRate":
            if (bpm := _num(a.get("value"))) is not None:
                self.days.resting[start.date()] = bpm
        elif kind == f"{_Q}BodyMass":
            if (kg := _scaled(a.get("value"), a.get("unit"), _TO_KG)) is not None:
                self.days.weight[start.date()] = kg
        elif kind == f"{_Q}HeartRateVariabilitySDNN":
            self.scan.skipped_sdnn += 1
        elif kind == "HKCategoryTypeIdentifierSleepAnalysis":
            stage = _SLEEP_STAGE.get(a.get("value", ""))
            if stage is not None:  # "in bed" is not sleep
                stages = self.days.sleep[end.date()][a.get("sourceName", "")]
                stages[stage] += (end - start).total_seconds()

    @staticmethod
    def _new_workout(a: dict[str, str]) -> Workout | None:
        start, end = _when(a.get("startDate")), _when(a.get("endDate"))
        if start is None or end is None:
            return None
        raw = a.get("workoutActivityType", "")
        name = raw.removeprefix("HKWorkoutActivityType")
        elapsed = _scaled(a.get("duration"), a.get("durationUnit", "min"), _TO_S)
        digest = hashlib.sha256(
            f"apple-health|{raw}|{start.isoformat()}|{end.isoformat()}|"
            f"{a.get('sourceName', '')}".encode()).hexdigest()
        return Workout(
            sport=_SPORTS.get(name, "other"), source_sport=name or "unknown",
            start=start, end=end, elapsed_s=elapsed or (end - start).total_seconds(),
            distance_m=_scaled(a.get("totalDistance"), a.get("totalDistanceUnit"), _TO_M),
            calories=_scaled(a.get("totalEnergyBurned"), a.get("totalEnergyBurnedUnit"),
                             _TO_KCAL), key=digest)

    def _workout_part(self, tag: str, a: dict[str, str]) -> None:
        w = self.workout
        assert w is not None
        if tag == "WorkoutStatistics":
            kind, unit = a.get("type", ""), a.get("unit")
            if kind == f"{_Q}HeartRate":
                w.avg_hr, w.max_hr = _num(a.get("average")), _num(a.get("maximum"))
            elif kind.startswith(f"{_Q}Distance") and w.distance_m is None:
                w.distance_m = _scaled(a.get("sum"), unit, _TO_M)
            elif kind == f"{_Q}ActiveEnergyBurned" and w.calories is None:
                w.calories = _scaled(a.get("sum"), unit, _TO_KCAL)
        elif tag == "FileReference" and (path := a.get("path")):
            w.route = path.lstrip("/")

    def feed(self, stream: IO[bytes]) -> AppleScan:
        try:
            while chunk := stream.read(CHUNK):
                self.parser.Parse(chunk, False)
            self.parser.Parse(b"", True)
        except expat.ExpatError as exc:
            raise UnsafeXml(f"export.xml is not well-formed XML ({exc})") from None
        self.scan.days = self.days.result()
        return self.scan


def workout_summary(w: Workout) -> NewActivity:
    """A workout without a route that reads, from its own statistics (Apple's names
    mapped to the summary's, as a provider's mapper does)."""
    return NewActivity(
        sport=Sport(w.sport).value, start_at=w.start, source_sport=w.source_sport,
        name=default_name(w.sport, w.start, w.offset_s), name_generated=True,
        utc_offset_s=w.offset_s, elapsed_s=w.elapsed_s, distance_m=w.distance_m,
        calories=w.calories, avg_heartrate=w.avg_hr, max_heartrate=w.max_hr,
        avg_speed_mps=(w.distance_m / w.elapsed_s
                       if w.distance_m and w.elapsed_s > 0 else None))


def scan_export_xml(stream: IO[bytes]) -> AppleScan:
    """Every workout and the day totals of an ``export.xml`` stream (``UnsafeXml`` for a
    document that declares an entity or is not well-formed)."""
    return _Scanner().feed(stream)


__all__ = ["SOURCE", "AppleScan", "UnsafeXml", "Workout", "scan_export_xml",
           "workout_summary"]
