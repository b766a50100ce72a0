"""GPX activities with ``gpxpy``.

A GPX file is an activity when its tracks hold at least two points with distinct
times. Every segment of every track is read in time order as one activity; points
without a time are dropped, and a segment whose points are mostly untimed is skipped
whole (GPSBabel and Garmin units write a "saved" copy of the log without times beside
the timed active log: korita-zbevnica.gpx). No laps: a GPX track segment marks where the recorder
stopped and resumed (a pause), not a lap the athlete pressed, so segments are not laps
(the pause already shows as missing seconds in the streams).

Rejected: no track points at all but routes or waypoints (``not_an_activity``: a
planned route is not a recording), track points without times (``not_an_activity``),
times that never advance (``not_an_activity``: GPSBabel's 1901-12-13 placeholder for
an unknown time is such a case), nothing at all (``empty``).

Extensions read from each point (any namespace): ``hr``/``heartrate``,
``cad``/``cadence``, ``atemp``/``temp``, ``power``/``watts``, ``speed`` (Garmin's
TrackPointExtension v1/v2 and the plain ``<power>`` Strava and Wahoo write). Distance
is not in GPX: it is the cumulative great-circle distance of the positions within each
segment (the way between two segments is not counted: the recorder was off), and speed
its derivative (``_summary.build_streams``).

``gpxpy`` parses with lxml's default parser, which would expand entities, so
``_detect`` refuses any document with a DOCTYPE before this module sees it.
"""

from __future__ import annotations

import codecs
from datetime import UTC, datetime
from typing import Any, Final

import gpxpy
import gpxpy.gpx
import numpy as np

from . import _sport
from ._assemble import Decoded
from ._errors import ImportRejected

_EXTENSION_CHANNELS: Final[dict[str, str]] = {
    "hr": "heartrate",
    "heartrate": "heartrate",
    "cad": "cadence",
    "cadence": "cadence",
    "atemp": "temperature",
    "temp": "temperature",
    "power": "power",
    "watts": "power",
    "speed": "speed",
}


def _posix(value: datetime) -> float:
    if value.tzinfo is None:  # GPX times are UTC (GPX 1.1 schema, xsd:dateTime in UTC)
        value = value.replace(tzinfo=UTC)
    return value.timestamp()


def _extensions(point: gpxpy.gpx.GPXTrackPoint) -> dict[str, float]:
    found: dict[str, float] = {}
    for ext in point.extensions:
        for element in ext.iter():
            tag = element.tag
            if not isinstance(tag, str):
                continue
            channel = _EXTENSION_CHANNELS.get(tag.rpartition("}")[2].lower())
            if channel is None or channel in found:
                continue
            try:
                found[channel] = float((element.text or "").strip())
            except ValueError:
                continue
    return found


def decode(data: bytes) -> Decoded:
    if data.startswith(codecs.BOM_UTF8):
        data = data[len(codecs.BOM_UTF8) :]
    try:
        gpx = gpxpy.parse(data.decode("utf-8"))
    except UnicodeDecodeError:
        raise ImportRejected("corrupt", "the GPX file is not valid UTF-8 text") from None
    except Exception:  # gpxpy.gpx.GPXException, lxml errors, bad numbers ...
        raise ImportRejected("corrupt", "the GPX file is not well-formed GPX") from None

    points: list[gpxpy.gpx.GPXTrackPoint] = []
    starts: set[int] = set()  # index of each later segment's first point
    name: str | None = None
    type_: str | None = None
    any_points = False
    for track in gpx.tracks:
        for segment in track.segments:
            any_points = any_points or bool(segment.points)
            segment_timed = [p for p in segment.points if p.time is not None]
            if 2 * len(segment_timed) < len(segment.points):
                continue  # mostly untimed: a saved copy of the track, not the recording
            if segment_timed and name is None:
                name, type_ = track.name, track.type
            if segment_timed and points:
                starts.add(len(points))  # recording resumed here (see build_streams)
            points.extend(segment_timed)
    if not any_points:
        if gpx.routes or gpx.waypoints:
            raise ImportRejected(
                "not_an_activity", "the GPX file holds a route or waypoints, not a recorded track"
            )
        raise ImportRejected("empty", "the GPX file holds no track points")
    timed = points
    if len(timed) < 2:
        raise ImportRejected(
            "not_an_activity", "the GPX track has no times: it is a path, not a recording"
        )

    seconds = np.array([_posix(p.time) for p in timed if p.time is not None], dtype=np.float64)
    lat = np.array([p.latitude for p in timed], dtype=np.float64)
    lng = np.array([p.longitude for p in timed], dtype=np.float64)
    altitude = np.array([p.elevation for p in timed], dtype=np.float64)
    extras: dict[str, list[Any]] = {}
    for i, point in enumerate(timed):
        if not point.extensions:
            continue
        for channel, value in _extensions(point).items():
            extras.setdefault(channel, [None] * len(timed))[i] = value
    channels = {"lat": lat, "lng": lng, "altitude": altitude}
    for channel, values in extras.items():
        channels[channel] = np.array(values, dtype=np.float64)
    channels = {k: v for k, v in channels.items() if not np.all(np.isnan(v))}
    if starts:
        channels["resumed"] = np.isin(np.arange(len(timed)), sorted(starts)).astype(np.float64)
    if seconds.max() <= seconds.min():
        raise ImportRejected(
            "not_an_activity", "the GPX track's times never advance: they are placeholders"
        )
    return Decoded(
        format="gpx",
        seconds=seconds,
        channels=channels,
        sport=_sport.from_gpx(type_),
        file_sport=type_ or None,
        name=(name or gpx.name or None),
        device_metrics={},
    )
