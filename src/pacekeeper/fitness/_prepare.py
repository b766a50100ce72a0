"""The CPU work of getting an activity in: parse a file (or an archive member), compress
its samples, compute its metrics. Pure functions whose arguments and results pickle: the
service runs them in its process pool (``pacekeeper.cpu``, issue 30), never on the event
loop. Nothing here does I/O."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from typing import Any

from pacekeeper.fitness._records import NewActivity, SettingValue
from pacekeeper.fitness._settings import SettingsHistory, for_sport
from pacekeeper.fitness.analytics import AthleteSnapshot, analyze_activity, swim_tss, tss_for
from pacekeeper.fitness.importers import (
    ImportRejected,
    ParsedActivity,
    Reason,
    parse_activity,
    parse_member,
)
from pacekeeper.fitness.models import Sport
from pacekeeper.fitness.streams import StreamSet


def snapshot(values: Mapping[str, Any], sport: str | None) -> AthleteSnapshot:
    """The settings an activity of ``sport`` is analysed with: its sport's thresholds (a
    run never gets the cycling FTP), heart rate falling back to the general value."""
    values, _ = for_sport(values, sport)
    return AthleteSnapshot(
        ftp_watts=values.get("ftp_watts"),
        lthr_bpm=values.get("lthr_bpm"),
        max_hr_bpm=values.get("max_hr_bpm"),
        resting_hr_bpm=values.get("resting_hr_bpm"),
        threshold_pace_s_per_km=values.get("threshold_pace_s_per_km"),
        threshold_pace_s_per_100m=values.get("threshold_pace_s_per_100m"),
        weight_kg=values.get("weight_kg"),
        sex=values.get("sex"),
        birth_year=values.get("birth_year"),
    )


@dataclass(frozen=True, slots=True)
class Computed:
    """What an activity's streams give before it is stored: the stored form of the
    samples, and the metrics with the settings valid on its day."""

    blob: bytes | None
    metrics: dict[str, Any]


def _computed(streams: StreamSet | None, sport: str, start: datetime,
              distance_m: float | None, history: SettingsHistory,
              moving_s: float | None = None) -> Computed:
    if streams is None:
        return Computed(None, {})
    athlete = snapshot(history.on(start.astimezone(UTC).date()), sport)
    return Computed(streams.to_bytes(), analyze(streams, sport, athlete, distance_m, moving_s))


def compute(streams: StreamSet | None, new: NewActivity, history: SettingsHistory) -> Computed:
    return _computed(streams, new.sport, new.start_at, new.distance_m, history, new.moving_s)


@dataclass(frozen=True, slots=True)
class Prepared:
    """``prepare_file``'s answer, which crosses a process boundary (so it pickles:
    ``ImportRejected`` does not, hence its reason and message as a pair)."""

    parsed: ParsedActivity | None = None
    computed: Computed | None = None
    rejected: tuple[Reason, str] | None = None


def _prepared(parsed: ParsedActivity, settings: list[SettingValue]) -> Prepared:
    streams = parsed.streams if len(parsed.streams) else None
    return Prepared(parsed, _computed(streams, parsed.sport.value, parsed.start,
                                      parsed.distance_m, SettingsHistory(settings),
                                      parsed.moving_s))


def prepare_file(data: bytes, filename: str | None, max_bytes: int,
                 settings: list[SettingValue]) -> Prepared:
    """All the CPU work of importing one file (parse, assemble, compress, metrics)."""
    try:
        parsed = parse_activity(data, filename, max_bytes=max_bytes)
    except ImportRejected as exc:
        return Prepared(rejected=(exc.reason, exc.message))
    return _prepared(parsed, settings)


def prepare_member(raw: bytes, name: str, max_bytes: int,
                   settings: list[SettingValue]) -> Prepared:
    """``prepare_file`` for one member of a bulk-export archive (a zip inside is refused)."""
    parsed = parse_member(raw, name, max_bytes)
    if isinstance(parsed, ImportRejected):
        return Prepared(rejected=(parsed.reason, parsed.message))
    return _prepared(parsed, settings)


def analyze(streams: StreamSet, sport: str, athlete: AthleteSnapshot,
            distance_m: float | None, moving_s: float | None = None) -> dict[str, Any]:
    try:
        kind = Sport(sport)
    except ValueError:
        kind = Sport.OTHER
    metrics = analyze_activity(streams, kind, athlete)
    css = athlete.threshold_pace_s_per_100m
    if kind is Sport.SWIM and css and distance_m and moving_s:
        # The activity's distance and moving time (a pool swim's from its lengths), not
        # the streams': the swim's own figures, the ones its page shows.
        metrics = replace(metrics, stss=swim_tss(distance_m, moving_s, css))
    result: dict[str, Any] = metrics.to_json()
    if distance_m is not None:
        # One distance everywhere: the activity's (the device's total where the file
        # has one), not a second reading of the stream (a pool swim's first sample is
        # one length in: its span is a length short).
        result["distance_m"] = distance_m
    # The one load figure the load model uses (power TSS, else rTSS, else hrTSS).
    load = tss_for(metrics)
    result["load"], result["load_method"] = (None, None) if load is None else load
    return result


def reanalyze(blob: bytes, sport: str, athlete: AthleteSnapshot,
              distance_m: float | None, moving_s: float | None = None) -> dict[str, Any]:
    """A stored activity's metrics computed again from its stored samples (a recompute
    after a settings change, a re-derivation without a kept file)."""
    return analyze(StreamSet.from_bytes(blob), sport, athlete, distance_m, moving_s)


__all__ = ["Computed", "Prepared", "analyze", "compute", "prepare_file", "prepare_member",
           "reanalyze", "snapshot"]
