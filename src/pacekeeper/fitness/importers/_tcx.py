"""TCX (Garmin Training Center Database v2) activities with lxml.

The parser is hardened: no entity resolution, no DTD loading or validation, no
network, ``huge_tree`` off (libxml2's limits on depth and text size stay on), comments
and processing instructions dropped. ``_detect`` has already refused any DOCTYPE.
Leading white space before the XML declaration (some Strava exports have it) is
stripped.

The first ``Activity`` is read (a TCX may hold several; uploads hold one). Every
``Trackpoint`` of every ``Lap``: ``Time``, ``Position``, ``AltitudeMeters``,
``DistanceMeters``, ``HeartRateBpm/Value``, ``Cadence``, and from the ActivityExtension
``TPX``: ``Speed``, ``Watts``, ``RunCadence``. Laps from ``Lap/@StartTime`` and
``TotalTimeSeconds`` (with their ``Calories``). ``device_metrics`` holds the laps'
own totals (``total_timer_time``, ``total_distance``, ``total_calories``,
``max_speed``, ``max_heart_rate``, ``avg_heart_rate`` weighted by lap time).
A TCX with courses but no activity is ``not_an_activity``. When the timer ran comes
from the laps and their tracks (``_timer_spans``): a track break is a pause, a recording
gap inside a lap whose timer covers it is not.
"""

from __future__ import annotations

import codecs
from datetime import UTC, datetime
from typing import Any, Final

import numpy as np
from lxml import etree  # type: ignore[import-untyped]

from pacekeeper.values import number

from . import _sport
from ._assemble import Decoded, RawLap
from ._errors import ImportRejected
from ._totals import DeviceTotals
from ._totals import combine as combine_totals

_POINT_FIELDS: Final[dict[str, str]] = {
    "LatitudeDegrees": "lat",
    "LongitudeDegrees": "lng",
    "AltitudeMeters": "altitude",
    "DistanceMeters": "distance",
    "Cadence": "cadence",
    "RunCadence": "cadence",
    "Speed": "speed",
    "Watts": "power",
}


def _parser() -> Any:
    return etree.XMLParser(
        resolve_entities=False,
        no_network=True,
        load_dtd=False,
        dtd_validation=False,
        huge_tree=False,
        remove_comments=True,
        remove_pis=True,
    )


def _local(tag: Any) -> str:
    return tag.rpartition("}")[2] if isinstance(tag, str) else ""


def _time(text: str | None) -> float | None:
    if not text:
        return None
    try:
        value = datetime.fromisoformat(text.strip())
    except ValueError:
        return None
    if value.tzinfo is None:
        value = value.replace(tzinfo=UTC)
    return value.timestamp()


def _float(text: str | None) -> float | None:
    return number(text, text=True)


def _child_value(element: Any, name: str) -> float | None:
    for child in element:
        if _local(child.tag) == name:
            if name.endswith("HeartRateBpm"):
                for value in child:
                    return _float(value.text)
                return None
            return _float(child.text)
    return None


def _track_span(track: Any) -> tuple[float, float] | None:
    times = [t for t in (_time(e.text) for e in track.iter("{*}Time")) if t is not None]
    return (min(times), max(times)) if times else None


def _timer_spans(activity: Any) -> list[tuple[float, float]] | None:
    """When the timer ran, from the laps: a lap whose points end within its timer time
    (``TotalTimeSeconds``, to max(2 s, 1 %)) had no pause, so the timer ran from its start
    through start + timer time, recording gaps and all; a lap with more time than its
    timer holds its pauses between its ``Track`` elements (a track break is a stop and a
    resume), so its tracks are the spans. None (gaps judged by length, as in GPX) when a
    lap hides a pause inside a single track, or a lap has no start or timer time."""
    spans: list[tuple[float, float]] = []
    for lap in activity.iter("{*}Lap"):
        start = _time(lap.get("StartTime"))
        timer = _child_value(lap, "TotalTimeSeconds")
        tracks = [t for t in (_track_span(tr) for tr in lap.iter("{*}Track")) if t is not None]
        if start is None or not timer or not tracks:
            return None
        last = max(end for _, end in tracks)
        if last - start <= timer + max(2.0, 0.01 * timer):
            spans.append((min(start, tracks[0][0]), max(start + timer, last)))
        elif len(tracks) > 1:
            spans.extend(tracks)
        else:
            return None
    return spans or None


def decode(data: bytes) -> Decoded:
    if data.startswith(codecs.BOM_UTF8):
        data = data[len(codecs.BOM_UTF8) :]
    data = data.lstrip(b" \t\r\n")
    try:
        root = etree.fromstring(data, _parser())
    except etree.XMLSyntaxError:
        raise ImportRejected("corrupt", "the TCX file is not well-formed XML") from None
    except (ValueError, etree.LxmlError):
        raise ImportRejected("corrupt", "the TCX file cannot be read") from None

    activity = next(root.iter("{*}Activity"), None)
    if activity is None:
        if next(root.iter("{*}Course"), None) is not None:
            raise ImportRejected("not_an_activity", "the TCX file holds a course, not an activity")
        raise ImportRejected("empty", "the TCX file holds no activity")

    times: list[float | None] = []
    columns: dict[str, list[float | None]] = {}
    heart: list[float | None] = []
    for n, point in enumerate(activity.iter("{*}Trackpoint")):
        times.append(None)
        heart.append(None)
        for element in point.iter():
            name = _local(element.tag)
            if name == "Time":
                times[n] = _time(element.text)
            elif name == "HeartRateBpm":
                heart[n] = _child_value(point, "HeartRateBpm")
            else:
                channel = _POINT_FIELDS.get(name)
                if channel is not None and len(element) == 0:
                    column = columns.setdefault(channel, [])
                    if len(column) < n + 1:
                        column.extend([None] * (n + 1 - len(column)))
                    column[n] = _float(element.text)
    total = len(times)
    if total == 0:
        raise ImportRejected("empty", "the TCX activity holds no track points")
    channels = {}
    for channel, values in columns.items():
        values.extend([None] * (total - len(values)))
        channels[channel] = np.array(values, dtype=np.float64)
    channels["heartrate"] = np.array(heart, dtype=np.float64)
    channels = {k: v for k, v in channels.items() if not np.all(np.isnan(v))}
    seconds = np.array(times, dtype=np.float64)
    if np.count_nonzero(~np.isnan(seconds)) < 2:
        raise ImportRejected("not_an_activity", "the TCX track points have no times")

    laps: list[RawLap] = []
    metrics: dict[str, float] = {}
    hr_weighted = 0.0
    hr_time = 0.0
    for lap in activity.iter("{*}Lap"):
        start = _time(lap.get("StartTime"))
        elapsed = _child_value(lap, "TotalTimeSeconds")
        calories = _child_value(lap, "Calories")
        # The lap's own totals (TotalTimeSeconds is the timer's time): shown over ours.
        device = DeviceTotals(
            distance_m=_child_value(lap, "DistanceMeters"), timer_s=elapsed,
            avg_heartrate=_child_value(lap, "AverageHeartRateBpm"),
            max_heartrate=_child_value(lap, "MaximumHeartRateBpm"), calories=calories)
        if start is not None:
            laps.append(RawLap(start_s=start, elapsed_s=elapsed or 0.0, calories=calories,
                               device=device))
        for key, value, combine in (
            ("total_timer_time", elapsed, "sum"),
            ("total_distance", _child_value(lap, "DistanceMeters"), "sum"),
            ("total_calories", calories, "sum"),
            ("max_speed", _child_value(lap, "MaximumSpeed"), "max"),
            ("max_heart_rate", _child_value(lap, "MaximumHeartRateBpm"), "max"),
        ):
            if value is None:
                continue
            if combine == "sum":
                metrics[key] = metrics.get(key, 0.0) + value
            else:
                metrics[key] = max(metrics.get(key, value), value)
        avg_hr = _child_value(lap, "AverageHeartRateBpm")
        if avg_hr is not None and elapsed:
            hr_weighted += avg_hr * elapsed
            hr_time += elapsed
    if hr_time:
        metrics["avg_heart_rate"] = hr_weighted / hr_time

    sport_label = activity.get("Sport")
    creator = next((c for c in activity if _local(c.tag) == "Creator"), None)
    device_name = None
    if creator is not None:
        for child in creator:
            if _local(child.tag) == "Name" and child.text and child.text.strip():
                device_name = child.text.strip()
                break
    return Decoded(
        format="tcx",
        seconds=seconds,
        channels=channels,
        sport=_sport.from_tcx(sport_label),
        file_sport=sport_label or None,
        calories=metrics.get("total_calories"),
        device_name=device_name,
        laps=laps,
        device_metrics=metrics,
        device_totals=combine_totals([lap.device for lap in laps if lap.device]) if laps else None,
        running=_timer_spans(activity),
    )
