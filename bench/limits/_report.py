"""The limits benchmark's text table and JSON record."""

from __future__ import annotations

import datetime as dt
from typing import Any

from bench.mcp_throughput._report import environment

from ._interleave import estimate_added
from ._measure import Figures, paired


def table(title: str, figures: Figures) -> str:
    lines = [title, f"{'request':28} {'bare us':>9} {'full us':>9} {'added us':>9} {'ratio':>7}"]
    for label, (bare, full, added) in paired(figures).items():
        lines.append(f"{label:28} {bare:9.1f} {full:9.1f} {added:9.1f} "
                     f"{added / bare * 100:6.1f}%")
    return "\n".join(lines)


def interleaved_table(title: str, figures: Figures) -> str:
    lines = [title, f"{'request':28} {'bare us':>9} {'full us':>9} {'added us':>9} {'ratio':>7}"
                    f"  {'95 % interval':>15}"]
    for label, sides in figures.items():
        a = estimate_added(sides["bare"], sides["full"])
        lines.append(f"{label:28} {a.bare_us:9.1f} {a.full_us:9.1f} {a.added_us:9.1f} "
                     f"{a.added_pct:6.1f}%  [{a.low_pct:5.1f}, {a.high_pct:5.1f}]%")
    return "\n".join(lines)


def _interleaved_rows(figures: Figures) -> list[dict[str, Any]]:
    rows = []
    for label, sides in figures.items():
        a = estimate_added(sides["bare"], sides["full"])
        rows.append({
            "request": label, "bare_us": round(a.bare_us, 2), "full_us": round(a.full_us, 2),
            "added_us": round(a.added_us, 2), "added_pct": round(a.added_pct, 2),
            "interval_pct": [round(a.low_pct, 2), round(a.high_pct, 2)],
            "samples_per_side": a.samples,
        })
    return rows


def _rows(figures: Figures) -> list[dict[str, Any]]:
    rows = []
    for label, (bare, full, added) in paired(figures).items():
        rows.append({
            "request": label, "bare_us": round(bare, 2), "full_us": round(full, 2),
            # The median of the rounds' differences, not the difference of the medians.
            "added_us": round(added, 2), "added_pct": round(added / bare * 100, 1),
            "rounds_us": {m: [round(x, 2) for x in v] for m, v in figures[label].items()},
        })
    return rows


def record(settings: dict[str, Any], started: dt.datetime, in_process: Figures,
           http: Figures | None, latency: Figures | None = None,
           cpu: Figures | None = None, target_pct: float = 10.0,
           interleaved: Figures | None = None) -> dict[str, Any]:
    """Everything needed to compare runs later, as plain JSON data."""
    data: dict[str, Any] = {
        "benchmark": "limits",
        "started": started.isoformat(timespec="seconds"),
        "settings": settings,
        "environment": environment(),
        "target_added_pct": target_pct,
        "in_process": _interleaved_rows(in_process),
        "http": None if http is None else _rows(http),
    }
    judged = data["http"] if http is not None else data["in_process"]
    data["meets_target"] = all(row["added_pct"] < target_pct for row in judged)
    if interleaved is not None:
        # The steadiest reading (A/A within +-0.5 %), so it decides: the whole 95 %
        # interval must lie under the target, not just the middle of it.
        data["http_interleaved"] = _interleaved_rows(interleaved)
        data["meets_target"] = all(
            row["interval_pct"][1] < target_pct for row in data["http_interleaved"])
    if cpu is not None:
        data["http_server_cpu"] = _rows(cpu)
        data["meets_target_cpu"] = all(
            row["added_pct"] < target_pct for row in data["http_server_cpu"])
    if latency is not None:
        data["http_latency_p50"] = _rows(latency)
        data["meets_target_latency"] = all(
            row["added_pct"] < target_pct for row in data["http_latency_p50"])
    return data
