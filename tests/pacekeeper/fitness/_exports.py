"""Whole-account exports built in a temporary folder, after each vendor's documented
layout (docs/import.md, "Whole-account exports"), from the real activity files of
tests/data/activities and generated health data (nobody's personal data). Nothing here
is committed as a binary: each test writes the archive it needs.

Also used by ``bench/run fitness_data`` (the ten-year Strava export).
"""

from __future__ import annotations

import csv
import gzip
import io
import json
import re
import zipfile
from collections.abc import Iterable, Iterator
from datetime import UTC, date, datetime, timedelta, timezone
from pathlib import Path

DATA = Path(__file__).resolve().parents[2] / "data" / "activities"
STRAVA_HEADER = ["Activity ID", "Activity Date", "Activity Name", "Activity Type",
                 "Activity Description", "Elapsed Time", "Distance", "Max Heart Rate",
                 "Relative Effort", "Commute", "Activity Private Note", "Activity Gear",
                 "Filename", "Athlete Weight", "Bike Weight", "Elapsed Time", "Moving Time",
                 "Distance"]
_STAMP = re.compile(rb"(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2})(\.\d+)?Z")


def shifted(data: bytes, delta: timedelta) -> bytes:
    """A GPX or TCX file with every UTC time stamp moved by ``delta`` (another day's
    activity from the same real track: a different file and a different start)."""
    def move(m: re.Match[bytes]) -> bytes:
        moment = datetime.fromisoformat(m.group(1).decode()) + delta
        return moment.strftime("%Y-%m-%dT%H:%M:%S").encode() + (m.group(2) or b"") + b"Z"
    return _STAMP.sub(move, data)


def raw(relative: str) -> bytes:
    return (DATA / relative).read_bytes()


def strava_export(path: Path, activities: Iterable[tuple[str, bytes, dict[str, str]]],
                  *, manual_rows: int = 0) -> Path:
    """Strava's "Download your data": ``activities.csv`` and ``activities/<file>``.
    ``activities``: (file name under activities/, its bytes, the CSV cells by header)."""
    listing = io.StringIO()
    writer = csv.writer(listing)
    writer.writerow(STRAVA_HEADER)
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        for n, (name, data, cells) in enumerate(activities):
            archive.writestr(f"activities/{name}", data)
            row = {"Activity ID": str(1000 + n), "Filename": f"activities/{name}", **cells}
            writer.writerow([row.get(col, "") for col in STRAVA_HEADER])
        for n in range(manual_rows):  # a manual entry has no file
            writer.writerow([str(9000 + n), "Jan 1, 2020, 7:00:00 AM", "Manual", "Run"]
                            + [""] * (len(STRAVA_HEADER) - 4))
        archive.writestr("activities.csv", listing.getvalue())
        archive.writestr("profile.csv", "Athlete ID,Email Address\n1,someone@example.com\n")
        archive.writestr("media/", b"")
    return path


def ten_years(count: int = 3650) -> Iterator[tuple[str, bytes, dict[str, str]]]:
    """``count`` activities, one a day from 2016 on: real GPX and TCX tracks moved to
    each day, compressed as Strava compresses them (.tcx.gz; GPX as is)."""
    sources = [("gpx", raw("gpx/korita-zbevnica.gpx"), datetime(2010, 10, 3, 9, 36, 30)),
               ("gpx", raw("gpx/cerknicko-jezero.gpx"), datetime(2010, 8, 5, 14, 23, 59)),
               ("tcx", gzip.decompress(raw("tcx/3173437224.tcx.gz")),
                datetime(2019, 1, 29, 10, 25, 12))]
    first = datetime(2016, 1, 1, 7, 0)
    for n in range(count):
        kind, data, start = sources[n % len(sources)]
        moved = shifted(data, first + timedelta(days=n) - start)
        name = f"{5_000_000 + n}.{kind}" + (".gz" if kind == "tcx" else "")
        yield name, gzip.compress(moved, mtime=0) if kind == "tcx" else moved, {
            "Activity Name": f"Day {n}", "Commute": "true" if n % 5 == 0 else "false"}


def garmin_export(path: Path) -> Path:
    """Garmin Connect's account export: FIT files in zips under
    ``DI_CONNECT/DI-Connect-Uploaded-Files/``, wellness JSON beside them."""
    inner = io.BytesIO()
    with zipfile.ZipFile(inner, "w", zipfile.ZIP_DEFLATED) as nested:
        nested.writestr("someone@example.com_1001.fit", raw("fit/garmin-fenix-5-bike.fit"))
        nested.writestr("someone@example.com_1002.fit", raw("fit/garmin-fenix-5-walk.fit"))
        # A zip inside the nested zip: deeper than one level, never read.
        deeper = io.BytesIO()
        with zipfile.ZipFile(deeper, "w") as third:
            third.writestr("deep.fit", raw("fit/sample-activity.fit"))
        nested.writestr("deeper.zip", deeper.getvalue())
    days = [date(2023, 3, 1) + timedelta(days=n) for n in range(3)]
    root = "DI_CONNECT"
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr(f"{root}/DI-Connect-Uploaded-Files/UploadedFiles_0-_Part1.zip",
                         inner.getvalue())
        archive.writestr(f"{root}/DI-Connect-Aggregator/UDSFile_2023-03-01_2023-06-09.json",
                         json.dumps([{"calendarDate": d.isoformat(), "totalSteps": 8000 + n,
                                      "restingHeartRate": 50 + n}
                                     for n, d in enumerate(days)]))
        archive.writestr(f"{root}/DI-Connect-Wellness/2023-03-01_2023-06-09_1_sleepData.json",
                         json.dumps([{"calendarDate": d.isoformat(), "deepSleepSeconds": 3600,
                                      "lightSleepSeconds": 14400, "remSleepSeconds": 5400,
                                      "awakeSleepSeconds": 600,
                                      "sleepScores": {"overallScore": 80 + n}}
                                     for n, d in enumerate(days)]))
        archive.writestr(f"{root}/DI-Connect-Wellness/1_healthStatusData.json", json.dumps(
            [{"calendarDate": d.isoformat(), "metrics": [{"type": "HRV", "value": 60 + n}]}
             for n, d in enumerate(days)]))
        archive.writestr(f"{root}/DI-Connect-Wellness/1_userBioMetrics.json", json.dumps(
            [{"metaData": {"calendarDate": days[0].isoformat()}, "weight": 71500.0}]))
        archive.writestr(f"{root}/DI-Connect-User/user_profile.json", "{}")
    return path


def google_export(path: Path) -> Path:
    """Google Takeout for Fitbit: JSON per data type under ``Global Export Data``, the
    HRV summary CSV, and exercise TCX."""
    folder = "Takeout/Fitbit/Global Export Data"
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr(f"{folder}/steps-2023-04-01.json", json.dumps(
            [{"dateTime": f"04/01/23 {h:02d}:00:00", "value": "100"} for h in range(24)]
            + [{"dateTime": "04/02/23 08:00:00", "value": "5000"}]))
        archive.writestr(f"{folder}/resting_heart_rate-2023-04-01.json", json.dumps(
            [{"dateTime": "04/01/23 00:00:00",
              "value": {"date": "04/01/23", "value": 55.5, "error": 6.8}}]))
        archive.writestr(f"{folder}/sleep-2023-04-01.json", json.dumps([
            {"logId": 1, "dateOfSleep": "2023-04-01", "minutesAsleep": 420,
             "minutesAwake": 30, "mainSleep": True, "levels": {"summary": {
                 "deep": {"minutes": 80}, "light": {"minutes": 250},
                 "rem": {"minutes": 90}, "wake": {"minutes": 30}}}},
            {"logId": 2, "dateOfSleep": "2023-04-01", "minutesAsleep": 20,
             "mainSleep": False}]))
        archive.writestr(f"{folder}/weight-2023-04-01.json", json.dumps(
            [{"logId": 1, "weight": 165.0, "bmi": 24.1, "date": "04/01/23",
              "time": "07:00:00", "source": "Aria"}]))
        archive.writestr("Takeout/Fitbit/Heart Rate Variability/Daily Heart Rate "
                         "Variability Summary - 2023-04-(01).csv",
                         "timestamp,rmssd,nremhr,entropy\n2023-04-01T00:00:00,42.5,50.1,2.9\n")
        archive.writestr("Takeout/Fitbit/Global Export Data/exercise-0.json", "[]")
        archive.writestr("Takeout/Fitbit/Activities/3173437224.tcx",
                         gzip.decompress(raw("tcx/3173437224.tcx.gz")))
    return path


def _apple_time(moment: datetime) -> str:
    return moment.strftime("%Y-%m-%d %H:%M:%S %z")


APPLE_DTD = """<!DOCTYPE HealthData [
<!ELEMENT HealthData (ExportDate,Me,(Record|Correlation|Workout|ActivitySummary)*)>
<!ATTLIST HealthData locale CDATA #REQUIRED>
<!ELEMENT Record ((MetadataEntry|HeartRateVariabilityMetadataList)*)>
<!ATTLIST Record type CDATA #REQUIRED unit CDATA #IMPLIED value CDATA #IMPLIED
  sourceName CDATA #REQUIRED startDate CDATA #REQUIRED endDate CDATA #REQUIRED>
<!ELEMENT Workout ((MetadataEntry|WorkoutEvent|WorkoutRoute|WorkoutStatistics)*)>
<!ATTLIST Workout workoutActivityType CDATA #REQUIRED duration CDATA #IMPLIED
  durationUnit CDATA #IMPLIED startDate CDATA #REQUIRED endDate CDATA #REQUIRED>
%s]>
"""


def billion_laughs() -> str:
    """The entity declarations of the "billion laughs" attack (10^9 'lol's if expanded)."""
    decls = ['<!ENTITY lol "lol">'] + [
        f'<!ENTITY lol{i} "{("&lol" + ("" if i == 1 else str(i - 1)) + ";") * 10}">'
        for i in range(1, 10)]
    return "\n".join(decls) + "\n"


def apple_export(path: Path, *, entities: str = "") -> Path:
    """Apple Health's ``export.zip``: ``apple_health_export/export.xml`` with Apple's
    internal DTD subset, and ``workout-routes/*.gpx`` (a real GPX track moved)."""
    plus1 = timezone(timedelta(hours=1))  # the file carries each time's own offset
    day = datetime(2024, 5, 6, 0, 0, tzinfo=plus1)
    records: list[str] = []

    def record(kind: str, start: datetime, end: datetime, value: str, unit: str = "",
               source: str = "Watch") -> None:
        records.append(f'<Record type="{kind}" sourceName="{source}" unit="{unit}" '
                       f'value="{value}" startDate="{_apple_time(start)}" '
                       f'endDate="{_apple_time(end)}"/>')

    q = "HKQuantityTypeIdentifier"
    for n in range(3):
        d = day + timedelta(days=n)
        for h in range(10):  # the watch and the phone count the same steps
            record(f"{q}StepCount", d + timedelta(hours=8 + h), d + timedelta(hours=9 + h),
                   "500", "count", "Watch")
            record(f"{q}StepCount", d + timedelta(hours=8 + h), d + timedelta(hours=9 + h),
                   "450", "count", "Phone")
        record(f"{q}RestingHeartRate", d + timedelta(hours=7), d + timedelta(hours=7),
               str(48 + n), "count/min")
        record(f"{q}HeartRate", d + timedelta(hours=9), d + timedelta(hours=9), "72",
               "count/min")
        record(f"{q}HeartRateVariabilitySDNN", d + timedelta(hours=3),
               d + timedelta(hours=3), "55", "ms")
        # The night before: in bed 23:00-07:00, asleep 23:15-06:45 in stages.
        night = d - timedelta(hours=1)
        s = "HKCategoryTypeIdentifierSleepAnalysis"
        record(s, night, night + timedelta(hours=8), "HKCategoryValueSleepAnalysisInBed")
        stages = [("AsleepCore", 15, 120), ("AsleepDeep", 120, 210), ("AsleepREM", 210, 270),
                  ("Awake", 270, 285), ("AsleepCore", 285, 465)]
        for stage, a, b in stages:
            record(s, night + timedelta(minutes=a), night + timedelta(minutes=b),
                   f"HKCategoryValueSleepAnalysis{stage}")
    record(f"{q}BodyMass", day + timedelta(hours=7), day + timedelta(hours=7), "154.3", "lb",
           "Scale")
    route_start = datetime(2024, 5, 7, 6, 30, tzinfo=plus1)
    gpx = shifted(raw("gpx/korita-zbevnica.gpx"),
                  route_start.astimezone(UTC).replace(tzinfo=None)
                  - datetime(2010, 10, 3, 9, 36, 30))
    route = "route_2024-05-07_6.30am.gpx"
    run_start = datetime(2024, 5, 6, 18, 0, tzinfo=plus1)
    workouts = [
        f'<Workout workoutActivityType="HKWorkoutActivityTypeRunning" duration="45.5" '
        f'durationUnit="min" totalDistance="8.2" totalDistanceUnit="km" '
        f'totalEnergyBurned="520" totalEnergyBurnedUnit="kcal" sourceName="Watch" '
        f'startDate="{_apple_time(run_start)}" '
        f'endDate="{_apple_time(run_start + timedelta(minutes=45.5))}">'
        f'<MetadataEntry key="HKIndoorWorkout" value="0"/>'
        f'<WorkoutStatistics type="{q}HeartRate" startDate="{_apple_time(run_start)}" '
        f'endDate="{_apple_time(run_start)}" average="151" minimum="98" maximum="176" '
        f'unit="count/min"/></Workout>',
        f'<Workout workoutActivityType="HKWorkoutActivityTypeHiking" duration="400" '
        f'durationUnit="min" sourceName="Watch" startDate="{_apple_time(route_start)}" '
        f'endDate="{_apple_time(route_start + timedelta(minutes=400))}">'
        f'<WorkoutStatistics type="{q}ActiveEnergyBurned" startDate="" endDate="" '
        f'sum="900" unit="kcal"/>'
        f'<WorkoutRoute sourceName="Watch"><FileReference path="/workout-routes/{route}"/>'
        f'</WorkoutRoute></Workout>',
    ]
    xml = ('<?xml version="1.0" encoding="UTF-8"?>\n' + APPLE_DTD % entities
           + '<HealthData locale="en_GB">\n<ExportDate value="2024-06-01 10:00:00 +0100"/>\n'
           + '<Me HKCharacteristicTypeIdentifierBiologicalSex="HKBiologicalSexNotSet"/>\n'
           + ("<Record type=\"x\" sourceName=\"&lol9;\" startDate=\"\" endDate=\"\"/>\n"
              if entities else "")
           + "\n".join(records + workouts) + "\n</HealthData>\n")
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("apple_health_export/export.xml", xml)
        archive.writestr("apple_health_export/export_cda.xml", "<ClinicalDocument/>")
        archive.writestr(f"apple_health_export/workout-routes/{route}", gpx)
    return path


__all__ = ["APPLE_DTD", "apple_export", "billion_laughs", "garmin_export", "google_export",
           "raw", "shifted", "strava_export", "ten_years"]
