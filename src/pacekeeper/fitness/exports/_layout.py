"""What an uploaded export is and the units of work in it (docs/import.md,
"Whole-account exports"). Each layout is recognised by the names its vendor gives:

- ``strava``: ``activities.csv`` beside an ``activities/`` folder of .fit.gz/.gpx/.tcx.gz.
- ``garmin``: ``DI_CONNECT/``: FIT files inside the zips of
  ``DI_CONNECT/DI-Connect-Uploaded-Files/`` (exactly one level of nesting), and the
  wellness JSON (``UDSFile_*.json``, ``*_sleepData.json``, ``*_healthStatusData.json``,
  ``*_userBioMetrics.json``).
- ``google``: ``Takeout/Fitbit/``: the per-type JSON of ``Global Export Data``, the
  HRV summaries (CSV) and the exercise TCX files.
- ``apple``: ``apple_health_export/export.xml`` and its ``workout-routes/*.gpx``.
- ``files``: any other zip of activity files, or a single activity file.

A unit is one activity file, one health file, or one Apple workout; the job's progress
counts units, and a restarted job skips the ones done.
"""

from __future__ import annotations

import posixpath
import zipfile
from dataclasses import dataclass
from typing import Final, Literal

from pacekeeper.fitness.exports._health import is_health_file
from pacekeeper.fitness.exports._strava import CSV_NAME
from pacekeeper.fitness.importers._archive import activity_kind, activity_members

Kind = Literal["strava", "garmin", "google", "apple", "files"]
KINDS: Final = ("strava", "garmin", "google", "apple", "files")
GARMIN_UPLOADS: Final = "di_connect/di-connect-uploaded-files/"
APPLE_XML: Final = "export.xml"


@dataclass(frozen=True, slots=True)
class Unit:
    action: Literal["activity", "health", "days", "workout"]
    name: str  # the member (in ``container`` when set), or the workout's index
    container: str | None = None  # the nested zip it is in (Garmin)


def _top(name: str) -> str:
    return name.split("/", 1)[0].lower()


def apple_xml(archive: zipfile.ZipFile) -> str | None:
    for info in archive.infolist():
        parts = info.filename.split("/")
        if parts[-1] == APPLE_XML and len(parts) <= 2:
            return info.filename
    return None


def detect(archive: zipfile.ZipFile) -> Kind:
    names = [i.filename for i in archive.infolist()]
    if apple_xml(archive) is not None:
        return "apple"
    if any(_top(n) == "di_connect" for n in names):
        return "garmin"
    if any(n.lower().startswith("takeout/fitbit/") for n in names):
        return "google"
    if any(posixpath.basename(n) == CSV_NAME and n.count("/") <= 1 for n in names):
        return "strava"
    return "files"


def nested_zips(archive: zipfile.ZipFile) -> list[zipfile.ZipInfo]:
    """A Garmin export's zips of uploaded files (the only nesting read)."""
    return [i for i in archive.infolist() if not i.is_dir()
            and i.filename.lower().startswith(GARMIN_UPLOADS)
            and i.filename.lower().endswith(".zip")]


def plan(kind: Kind, archive: zipfile.ZipFile,
         nested: dict[str, zipfile.ZipFile]) -> list[Unit]:
    """The units of an archive in a fixed order (the same on every run: the progress
    is an index into it). ``nested``: the Garmin zips, opened from disk."""
    units = [Unit("activity", i.filename) for i in activity_members(archive)]
    if kind == "garmin":
        for container, inner in sorted(nested.items()):
            units += [Unit("activity", i.filename, container) for i in inner.infolist()
                      if not i.is_dir() and activity_kind(i.filename) is not None]
    if kind in ("garmin", "google"):
        units += [Unit("health", i.filename) for i in archive.infolist()
                  if not i.is_dir() and is_health_file(kind, i.filename)]
    return units


__all__ = ["KINDS", "Kind", "Unit", "apple_xml", "detect", "nested_zips", "plan"]
