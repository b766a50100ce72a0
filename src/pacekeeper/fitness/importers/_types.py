"""The importers' results: one parsed activity, its laps, an archive's members."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Literal

from pacekeeper.fitness.models import Sport
from pacekeeper.fitness.streams import StreamSet
from pacekeeper.fitness.summary import ActivitySummary

from ._errors import ImportRejected

Format = Literal["fit", "gpx", "tcx"]


# The figures a device may total itself (FIT session and lap messages) and that we also
# compute; ``computed`` maps each of these names to our own value where the shown one is
# the device's (see ``_totals``).
Computed = Mapping[str, float | None]


@dataclass(frozen=True, slots=True)
class ParsedLap:
    """One lap: ``start`` and ``elapsed_s`` as the file wrote them. Each figure is the
    device's own lap total where the file has one, else computed from the activity's
    streams over the lap's seconds (the same methods as the activity's); ``computed``
    keeps our value beside the device's. ``swim``: a pool swim's lap figures (lengths,
    strokes, SWOLF, pace per 100 m, rest), else None."""

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
    timer_s: float | None = None
    computed: Computed = field(default_factory=dict)
    swim: Mapping[str, Any] | None = None


@dataclass(frozen=True, slots=True)
class ParsedLeg:
    """One leg of a multisport file (a FIT ``session``: swim, transition, bike, run):
    its own sport, start, times and figures. Figures are the device's session totals
    where written, else computed from the activity's streams over the leg's seconds;
    ``computed`` keeps ours beside. The legs' distances add up to the activity's."""

    sport: Sport
    file_sport: str | None
    transition: bool
    start: datetime  # aware UTC
    elapsed_s: float
    timer_s: float | None
    moving_s: float | None
    distance_m: float | None
    avg_speed_mps: float | None
    avg_heartrate: float | None
    max_heartrate: float | None
    avg_watts: float | None
    max_watts: float | None
    avg_cadence: float | None
    elevation_gain_m: float | None
    calories: float | None
    computed: Computed = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class SwimSummary:
    """A pool swim's own figures, from the device's ``length`` messages (a pool has no
    GPS: the watch counts lengths). ``rest`` lists each rest interval (a lap without an
    active length) as (seconds from the activity's start, i.e. on the streams' grid,
    duration)."""

    pool_length_m: float
    active_lengths: int
    distance_m: float  # active lengths x pool length
    swim_time_s: float  # the active lengths' timer time: a pool swim's moving time
    pace_s_per_100m: float | None
    strokes: int | None
    swolf: float | None  # mean over active lengths with strokes: seconds + strokes
    rest: tuple[tuple[float, float], ...]
    rest_s: float


@dataclass(frozen=True, slots=True, eq=False, kw_only=True)
class ParsedActivity(ActivitySummary):
    """One activity read from a FIT, GPX or TCX file.

    Summary figures (the ``ActivitySummary`` fields) come from ``streams`` by one
    method for every format (see ``_summary``), except where the file carries the
    device's own total (FIT session: distance, elapsed and timer time, ascent, HR,
    power, cadence, calories): the device's figure is shown and ours kept in
    ``computed`` (docs/import.md, "Device totals"). Everything the device wrote is in
    ``device_metrics``. ``legs``: a multisport file's legs; ``swim``: a pool swim's
    figures. ``start`` is the time of the first sample, i.e. second 0 of ``streams``.
    """

    format: Format
    sha256: str  # hex SHA-256 of the activity file's bytes after any gzip/zip unwrapping
    sport: Sport
    file_sport: str | None
    name: str | None
    start: datetime  # aware UTC
    utc_offset_s: int | None
    device_name: str | None
    laps: tuple[ParsedLap, ...]
    streams: StreamSet
    device_metrics: Mapping[str, float]
    timer_s: float | None = None
    computed: Computed = field(default_factory=dict)
    legs: tuple[ParsedLeg, ...] = ()
    swim: SwimSummary | None = None
    # Sentences for the person: the file was read only in part (a truncated FIT file).
    warnings: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class ArchiveMember:
    """One activity file of a bulk-export archive and what became of it."""

    name: str
    result: ParsedActivity | ImportRejected
