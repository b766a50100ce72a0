"""The limits benchmark's text table and JSON record."""

from __future__ import annotations

import datetime as dt
from typing import Any

from bench.mcp_throughput._report import environment

from ._measure import Figures, paired


def table(title: str, figures: Figures) -> str:
    lines = [title, f"{'request':28} {'bare us':>9} {'full us':>9} {'added us':>9} {'ratio':>7}"]
    for label, (bare, full, added) in paired(figures).items():
        lines.append(f"{label:28} {bare:9.1f} {full:9.1f} {added:9.1f} "
                     f"{added / bare * 100:6.1f}%")
    return "\n".join(lines)


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
           cpu: Figures | None = None, target_pct: float = 10.0) -> dict[str, Any]:
    """Everything needed to compare runs later, as plain JSON data."""
    data: dict[str, Any] = {
        "benchmark": "limits",
        "started": started.isoformat(timespec="seconds"),
        "settings": settings,
        "environment": environment(),
        "target_added_pct": target_pct,
        "in_process": _rows(in_process),
        "http": None if http is None else _rows(http),
    }
    judged = data["http"] if http is not None else data["in_process"]
    data["meets_target"] = all(row["added_pct"] < target_pct for row in judged)
    if cpu is not None:
        data["http_server_cpu"] = _rows(cpu)
        data["meets_target_cpu"] = all(
            row["added_pct"] < target_pct for row in data["http_server_cpu"])
    if latency is not None:
        data["http_latency_p50"] = _rows(latency)
        data["meets_target_latency"] = all(
            row["added_pct"] < target_pct for row in data["http_latency_p50"])
    return data
