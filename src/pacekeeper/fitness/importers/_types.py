"""The importers' results: one parsed activity, its laps, an archive's members."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Literal

from pacekeeper.fitness.models import Sport
from pacekeeper.fitness.streams import StreamSet

from ._errors import ImportRejected

Format = Literal["fit", "gpx", "tcx"]


@dataclass(frozen=True, slots=True)
class ParsedLap:
    """One lap: ``start`` and ``elapsed_s`` as the file wrote them; the figures are
    computed from the activity's streams over the lap's seconds (the same methods as
    the activity's), except ``calories``, which only the file knows."""

    start: datetime  # aware UTC
    elapsed_s: float
    moving_s: float | None
    distance_m: float | None
    avg_heartrate: float | None
    max_heartrate: float | None
    avg_watts: float | None
    max_watts: float | None
    avg_cadence: float | None
    avg_speed_mps: float | None
    elevation_gain_m: float | None
    calories: float | None


@dataclass(frozen=True, slots=True, eq=False)
class ParsedActivity:
    """One activity read from a FIT, GPX or TCX file.

    Summary figures come from ``streams`` by one method for every format (see
    ``_summary``); what the recording device itself wrote is in ``device_metrics``.
    ``start`` is the time of the first sample, i.e. second 0 of ``streams``.
    """

    format: Format
    sha256: str  # hex SHA-256 of the activity file's bytes after any gzip/zip unwrapping
    sport: Sport
    file_sport: str | None
    name: str | None
    start: datetime  # aware UTC
    utc_offset_s: int | None
    elapsed_s: float
    moving_s: float | None
    distance_m: float | None
    elevation_gain_m: float | None
    avg_speed_mps: float | None
    max_speed_mps: float | None
    avg_heartrate: float | None
    max_heartrate: float | None
    avg_watts: float | None
    max_watts: float | None
    avg_cadence: float | None
    calories: float | None
    device_name: str | None
    laps: tuple[ParsedLap, ...]
    streams: StreamSet
    device_metrics: Mapping[str, float]
    # Sentences for the person: the file was read only in part (a truncated FIT file).
    warnings: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class ArchiveMember:
    """One activity file of a bulk-export archive and what became of it."""

    name: str
    result: ParsedActivity | ImportRejected
