"""A parsed file as the record the store keeps (``NewActivity``): its summary, a name
for a file without one, and its structure (docs/import.md). Pure: no I/O; the fitness
service (fitness/_service.py) stores what it makes."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict
from datetime import UTC, datetime, timedelta
from typing import Any

from pacekeeper.fitness._records import NewActivity
from pacekeeper.fitness.importers import ParsedActivity
from pacekeeper.fitness.summary import summary_values


def default_name(sport: str, start: datetime, utc_offset_s: int | None) -> str:
    """A name for a file that has none, as a watch's app would give it ("Morning ride"),
    from the local time of day when the file says its offset (else UTC)."""
    hour = (start + timedelta(seconds=utc_offset_s or 0)).astimezone(UTC).hour
    part = ("Night" if hour < 5 else "Morning" if hour < 11 else "Lunch" if hour < 14
            else "Afternoon" if hour < 17 else "Evening" if hour < 21 else "Night")
    return f"{part} {sport}"


def _two(values: Mapping[str, Any]) -> dict[str, Any]:
    # Our figures beside the device's: to 0.01, more than any of them measures.
    return {k: round(v, 2) if isinstance(v, float) else v for k, v in values.items()}


def _plain(item: Any) -> dict[str, Any]:
    """A lap or leg as JSON: times as ISO 8601, the computed figures as a plain dict."""
    return {k: (v.isoformat() if isinstance(v, datetime) else _two(v)
                if isinstance(v, Mapping) else v) for k, v in asdict(item).items()}


def structure_of(parsed: ParsedActivity) -> dict[str, Any]:
    """The file's structure beside the summary (docs/import.md): the device's timer
    time, our figures where the device's totals are shown, a multisport file's legs, a
    pool swim's figures. Empty keys are left out."""
    out: dict[str, Any] = {}
    if parsed.timer_s is not None:
        out["timer_s"] = parsed.timer_s
    if parsed.computed:
        out["computed"] = _two(parsed.computed)
    if parsed.legs:
        out["legs"] = [_two(_plain(leg)) for leg in parsed.legs]
    if parsed.swim is not None:
        out["swim"] = asdict(parsed.swim)
    return out


def summary_of(parsed: ParsedActivity) -> NewActivity:
    laps = [_plain(lap) for lap in parsed.laps]
    return NewActivity(
        sport=parsed.sport.value, start_at=parsed.start,
        source_sport=parsed.file_sport,
        name=parsed.name or default_name("multisport" if parsed.legs else parsed.sport.value,
                                         parsed.start, parsed.utc_offset_s),
        name_generated=not parsed.name,
        utc_offset_s=parsed.utc_offset_s, **summary_values(parsed),
        device_name=parsed.device_name, laps=laps, device_metrics=dict(parsed.device_metrics),
        structure=structure_of(parsed),
    )  # fmt: skip


__all__ = ["default_name", "structure_of", "summary_of"]
