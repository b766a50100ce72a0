"""The activity summary, declared once (issue 29 item 5).

``ActivitySummary`` holds the figures every activity carries whatever its source: a
provider's activity, an imported file, a stored row. Each field says here how it is
served: its name and rounding in the HTTP body (``activity_json``, the OpenAPI schema),
its name in get_activity, whether only the single-activity view shows it. Everything
else is derived from this declaration rather than repeating it:

* the file importers' ``ParsedActivity``, the store's ``NewActivity`` and
  ``StoredActivity`` inherit these fields;
* the store maps a row to a record, and the sync a provider's activity to a new one,
  by ``SUMMARY_FIELDS``;
* the HTTP body, its OpenAPI schema and get_activity's names come from ``FIGURES``.

What a new field still needs by hand: its column (``_tables.py``) and migration, the
computation that fills it (``importers/_summary.py``; a provider's ``_map.py`` and its
wire model ``models.Activity``), see docs/architecture.md, "Add a summary field".
Tests hold each of those to this list (tests/pacekeeper/fitness/test_summary.py).
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from typing import Any


@dataclass(frozen=True, slots=True)
class Figure:
    """How one summary field is served."""

    name: str  # the field (and column) name
    http: str  # its key in the HTTP body
    digits: int  # decimals in the HTTP body
    tool: str  # its key in get_activity (a name that says its unit)
    detail_only: bool  # only in the single-activity view, not in a list


def _figure(http: str, digits: int, *, tool: str | None = None, detail_only: bool = False,
            required: bool = False) -> Any:
    meta = {"http": http, "digits": digits, "tool": tool or http, "detail_only": detail_only}
    if required:
        return field(metadata=meta)
    return field(default=None, metadata=meta)


# Keyword-only: the records that inherit it add fields of their own, with and without
# defaults, in any order. The field order is the HTTP body's key order.
@dataclass(frozen=True, slots=True, kw_only=True)
class ActivitySummary:
    """An activity's summary figures, SI units (seconds, metres, m/s, bpm, W, rpm, kcal)."""

    elapsed_s: float = _figure("elapsed_time_s", 0, required=True)
    moving_s: float | None = _figure("moving_time_s", 0)
    distance_m: float | None = _figure("distance_m", 1)
    elevation_gain_m: float | None = _figure("elevation_gain_m", 1)
    avg_speed_mps: float | None = _figure("average_speed_mps", 3)
    max_speed_mps: float | None = _figure("max_speed_mps", 3, detail_only=True)
    avg_heartrate: float | None = _figure("average_heartrate", 1, tool="avg_hr_bpm")
    max_heartrate: float | None = _figure("max_heartrate", 1, tool="max_hr_bpm")
    avg_watts: float | None = _figure("average_power", 1, tool="avg_power_w")
    max_watts: float | None = _figure("max_power", 1, tool="max_power_w")
    avg_cadence: float | None = _figure("average_cadence", 1, tool="avg_cadence_per_min")
    calories: float | None = _figure("calories", 0, tool="energy_kcal")


FIGURES: tuple[Figure, ...] = tuple(
    Figure(f.name, f.metadata["http"], f.metadata["digits"], f.metadata["tool"],
           f.metadata["detail_only"])
    for f in fields(ActivitySummary)
)
SUMMARY_FIELDS: tuple[str, ...] = tuple(f.name for f in FIGURES)


def summary_values(source: Any) -> dict[str, Any]:
    """The summary fields of anything that has them (a provider's activity, a parsed
    file, a row), by name: the one field-by-field copy."""
    return {name: getattr(source, name) for name in SUMMARY_FIELDS}


__all__ = ["FIGURES", "SUMMARY_FIELDS", "ActivitySummary", "Figure", "summary_values"]
