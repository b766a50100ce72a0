"""Daily health from the JSON of a Garmin Connect account export and of Google Takeout
for Fitbit (docs/import.md, "Whole-account exports", names the files and fields read).
Pure functions of a file's name and bytes; the result is the daily records the service
already keeps (``DailyHealth``), one source per export kind."""

from __future__ import annotations

import csv
import io
import posixpath
import re
from collections import defaultdict
from datetime import date, datetime
from typing import Any, Final

import orjson

from pacekeeper.fitness._records import DailyHealth
from pacekeeper.values import number

GARMIN: Final = "garmin_export"
GOOGLE: Final = "fitbit_export"
_LB: Final = 0.45359237


def _day(text: Any) -> date | None:
    if isinstance(text, dict):
        text = text.get("date")
    if not isinstance(text, str):
        return None
    for fmt in ("%Y-%m-%d", "%m/%d/%y", "%m/%d/%y %H:%M:%S", "%Y-%m-%dT%H:%M:%S"):
        try:
            return datetime.strptime(text[:19] if "T" in text else text, fmt).date()
        except ValueError:
            continue
    try:
        return date.fromisoformat(text[:10])
    except ValueError:
        return None


def _num(value: object) -> float | None:
    return number(value, text=True)  # exports are text


def _rows(data: bytes) -> list[dict[str, Any]]:
    parsed = orjson.loads(data)
    if isinstance(parsed, dict):
        parsed = [parsed]
    return [r for r in parsed if isinstance(r, dict)] if isinstance(parsed, list) else []


def is_health_file(kind: str, name: str) -> bool:
    base = posixpath.basename(name)
    if kind == "garmin":
        return base.endswith(".json") and (base.startswith("UDSFile") or any(
            base.endswith(f"_{k}.json") for k in ("sleepData", "healthStatusData",
                                                   "userBioMetrics")))
    if kind == "google":
        return bool(re.match(r"(steps|resting_heart_rate|sleep|weight)-\d{4}-\d{2}-\d{2}"
                             r"\.json$", base)) or (
            base.startswith("Daily Heart Rate Variability Summary") and base.endswith(".csv"))
    return False


def _put(out: dict[date, dict[str, Any]], day: date | None, key: str, value: Any) -> None:
    if day is not None and value is not None:
        out[day][key] = value


def _garmin(base: str, rows: list[dict[str, Any]], out: dict[date, dict[str, Any]]) -> None:
    for r in rows:
        day = _day(r.get("calendarDate") or (r.get("metaData") or {}).get("calendarDate"))
        if base.startswith("UDSFile"):
            steps = _num(r.get("totalSteps"))
            _put(out, day, "steps", None if steps is None else int(steps))
            _put(out, day, "resting_hr", _num(r.get("restingHeartRate")))
        elif base.endswith("_sleepData.json"):
            stages = {k: _num(r.get(f"{k}SleepSeconds")) for k in ("deep", "light", "rem",
                                                                    "awake")}
            asleep = [v for k, v in stages.items() if k != "awake" and v is not None]
            _put(out, day, "sleep_s", sum(asleep) if asleep else None)
            for k, v in stages.items():
                _put(out, day, f"sleep_{k}_min", None if v is None else round(v / 60, 1))
            _put(out, day, "sleep_score", _num((r.get("sleepScores") or {}).get("overallScore")))
        elif base.endswith("_healthStatusData.json"):
            for metric in r.get("metrics") or ():
                if isinstance(metric, dict) and metric.get("type") == "HRV":
                    _put(out, day, "hrv_rmssd_ms", _num(metric.get("value")))
        elif base.endswith("_userBioMetrics.json"):
            grams = _num(r.get("weight"))
            _put(out, day, "weight_kg", None if grams is None else round(grams / 1000, 2))


def _google(base: str, data: bytes, out: dict[date, dict[str, Any]]) -> None:
    if base.endswith(".csv"):  # Heart Rate Variability summary: timestamp,rmssd,...
        for row in csv.DictReader(io.StringIO(data.decode("utf-8-sig"))):
            _put(out, _day((row.get("timestamp") or "")[:10]), "hrv_rmssd_ms",
                 _num(row.get("rmssd")))
        return
    rows = _rows(data)
    if base.startswith("steps-"):  # minute values: the day's sum
        sums: dict[date, float] = defaultdict(float)
        for r in rows:
            if (day := _day(r.get("dateTime"))) is not None:
                sums[day] += _num(r.get("value")) or 0.0
        for day, total in sums.items():
            _put(out, day, "steps", int(total))
    elif base.startswith("resting_heart_rate-"):
        for r in rows:
            value = r.get("value") or {}
            bpm = _num(value.get("value")) if isinstance(value, dict) else None
            _put(out, _day(value.get("date") if isinstance(value, dict) else None),
                 "resting_hr", bpm or None)  # 0: no reading that day
    elif base.startswith("sleep-"):
        for r in rows:
            if r.get("mainSleep") is False:
                continue  # a nap is not the night's sleep
            day = _day(r.get("dateOfSleep"))
            asleep = _num(r.get("minutesAsleep"))
            _put(out, day, "sleep_s", None if asleep is None else asleep * 60)
            summary = (r.get("levels") or {}).get("summary") or {}
            for stage, key in (("deep", "deep"), ("light", "light"), ("rem", "rem"),
                               ("wake", "awake")):
                _put(out, day, f"sleep_{key}_min", _num((summary.get(stage) or {}).get(
                    "minutes")))
    elif base.startswith("weight-"):  # pounds, as the export writes them (docs/import.md)
        for r in rows:
            pounds = _num(r.get("weight"))
            _put(out, _day(r.get("date")), "weight_kg",
                 None if pounds is None else round(pounds * _LB, 2))


def daily_from(kind: str, name: str, data: bytes) -> list[DailyHealth]:
    """The days one health file gives (``ValueError`` for a file that is not its JSON)."""
    base = posixpath.basename(name)
    out: dict[date, dict[str, Any]] = defaultdict(dict)
    if kind == "garmin":
        _garmin(base, _rows(data), out)
        source = GARMIN
    else:
        _google(base, data, out)
        source = GOOGLE
    return [DailyHealth(day, source, **values) for day, values in sorted(out.items())]


__all__ = ["GARMIN", "GOOGLE", "daily_from", "is_health_file"]
