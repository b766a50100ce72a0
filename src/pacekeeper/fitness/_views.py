"""The JSON shapes of fitness data, one definition for HTTP, MCP tools, A2A and exports.

Summaries come first and stay small (a list item is ~0.5 KB); detail (laps, every
metric, the device's own figures) only in the single-activity view.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone
from typing import TYPE_CHECKING, Any

from pacekeeper.fitness._records import HEADLINE_METRICS, DailyHealth, StoredActivity
from pacekeeper.fitness.summary import FIGURES, Figure

if TYPE_CHECKING:  # the service imports the views' callers, not the views
    from pacekeeper.fitness._service import ImportOutcome


def _r(value: float | None, digits: int = 1) -> float | None:
    return None if value is None else round(float(value), digits)


# The summary figures of a list's item, and those only the single-activity view adds
# (fitness/summary.py declares both, with their names and decimals here).
LIST_FIGURES = tuple(f for f in FIGURES if not f.detail_only)
DETAIL_FIGURES = tuple(f for f in FIGURES if f.detail_only)


def _figures(activity: StoredActivity, figures: tuple[Figure, ...]) -> dict[str, Any]:
    return {f.http: _r(getattr(activity, f.name), f.digits) for f in figures}


def local_start(activity: StoredActivity) -> str:
    """The start time in the activity's own offset when known (ISO 8601)."""
    if activity.utc_offset_s is None:
        return activity.start_at.astimezone(UTC).isoformat().replace("+00:00", "Z")
    zone = timezone(timedelta(seconds=activity.utc_offset_s))
    return activity.start_at.astimezone(zone).isoformat()


def activity_json(activity: StoredActivity, *, detail: bool = False) -> dict[str, Any]:
    metrics = activity.metrics
    out: dict[str, Any] = {
        "id": str(activity.id),
        "name": activity.name,
        "sport": activity.sport,
        "start_time": local_start(activity),
        **_figures(activity, LIST_FIGURES),
        **{k: metrics.get(k) for k in HEADLINE_METRICS},
        "sources": [s.provider or s.file_format for s in activity.sources],
        "streams": list(activity.stream_channels),
    }
    if detail:
        out.update(
            start_time_utc=activity.start_at.astimezone(UTC).isoformat().replace("+00:00", "Z"),
            utc_offset_s=activity.utc_offset_s,
            source_sport=activity.source_sport,
            # The person's own words; notes are private to the person and the
            # assistants they authorised (docs/fitness.md, "Editing an activity").
            description=activity.description,
            notes=activity.notes,
            edited=list(activity.edited),
            gear_id=None if activity.gear_id is None else str(activity.gear_id),
            **_figures(activity, DETAIL_FIGURES),
            device=activity.device_name,
            laps=activity.laps,
            metrics=metrics,
            device_metrics=activity.device_metrics,
            **_structure(activity.structure),
            sources=[s.to_json() for s in activity.sources],
            created_at=_iso(activity.created_at),
            updated_at=_iso(activity.updated_at),
        )
        # An export's listing (fitness/exports): only where it said something.
        out.update({k: v for k in ("description", "gear", "commute")
                    if (v := getattr(activity, k)) is not None})
    return out


def _structure(structure: dict[str, Any]) -> dict[str, Any]:
    """The file's structure (docs/import.md): the device's timer time, a multisport
    file's legs, a pool swim's figures, and ``computed``: our figure of each total the
    device wrote, beside the device's, which is the one shown above."""
    out: dict[str, Any] = {}
    if structure.get("timer_s") is not None:
        out["timer_time_s"] = _r(structure["timer_s"], 0)
    for key in ("legs", "swim", "computed"):
        if structure.get(key):
            out[key] = structure[key]
    return out


def activity_event(activity: StoredActivity, source: str) -> dict[str, Any]:
    """The live feed's event for a newly stored activity (pacekeeper.live): `source` is
    the provider, or "import"."""
    return {"type": "activity", "source": source, "activity": activity_json(activity)}


def _iso(moment: datetime) -> str:
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def daily_json(days: list[DailyHealth]) -> list[dict[str, Any]]:
    """One entry per day: each figure from the first source that has it (sources in
    name order), and which sources contributed."""
    merged: dict[str, dict[str, Any]] = {}
    for d in days:
        entry = merged.setdefault(d.day.isoformat(), {"date": d.day.isoformat(),
                                                      "sources": []})
        entry["sources"].append(d.source)
        for name in ("resting_hr", "hrv_rmssd_ms", "sleep_s", "sleep_score", "sleep_deep_min",
                     "sleep_light_min", "sleep_rem_min", "sleep_awake_min", "steps",
                     "weight_kg"):
            value = getattr(d, name)
            if value is not None and entry.get(name) is None:
                entry[name] = value
    return list(merged.values())


def outcome_json(outcome: ImportOutcome) -> dict[str, Any]:
    if outcome.rejected is not None:
        return {"file": outcome.name, "status": "rejected", "reason": outcome.rejected.reason,
                "message": outcome.rejected.message}
    assert outcome.activity is not None
    status = "duplicate" if outcome.duplicate else "merged" if outcome.merged else "imported"
    out: dict[str, Any] = {"file": outcome.name, "status": status,
                           "duplicate": outcome.duplicate,
                           "activity": activity_json(outcome.activity, detail=True)}
    if outcome.warnings:  # read in part: the person must know (FIG-11)
        out["warnings"] = list(outcome.warnings)
    return out


__all__ = ["HEADLINE_METRICS", "activity_event", "activity_json", "daily_json", "local_start",
           "outcome_json"]
