"""Present a run: a text table, mcpcast's throughput ratios, and a JSON record."""

from __future__ import annotations

import dataclasses
import datetime as dt
import json
import os
import platform
import subprocess
from importlib import metadata
from pathlib import Path
from typing import Any

from ._requests import Era
from ._runner import Row, Settings

# mcpcast over each peer, by req/s.
RATIO_PEERS = (
    ("fastmcp", "mcpcast / FastMCP"),
    ("starlette", "mcpcast / bare Starlette"),
    ("sdk", "mcpcast / official SDK"),
    ("minimal", "mcpcast / hand-written minimum"),
)


def ratios(rows: list[Row]) -> dict[Era, dict[str, float | None]]:
    """Per era, mcpcast's req/s divided by each peer's (``None`` where a side has no figure)."""
    rate = {(r.server, r.era): r.wrk.req_per_s for r in rows if r.status == "ok" and r.wrk}
    out: dict[Era, dict[str, float | None]] = {}
    for era in dict.fromkeys(r.era for r in rows):
        mine = rate.get(("mcpcast", era))
        out[era] = {
            name: (mine / rate[(peer, era)] if mine and rate.get((peer, era)) else None)
            for peer, name in RATIO_PEERS
        }
    return out


def table(rows: list[Row]) -> str:
    header = (
        f"{'server':<26} {'era':<8} {'req/s':>9} {'p50 ms':>8} {'p99 ms':>8}"
        f" {'rounds req/s':>15}  status"
    )
    lines = [header, "-" * len(header)]
    for r in rows:
        name = f"{r.label} {r.version}" if r.version != "?" else r.label
        if r.wrk is not None and r.status == "ok":
            w = r.wrk
            figures = f"{w.req_per_s:>9,.0f} {w.p50_ms:>8.2f} {w.p99_ms:>8.2f}"
        else:
            figures = f"{'-':>9} {'-':>8} {'-':>8}"
        spread = r.rounds_req_per_s
        figures += f" {_range(spread) if len(spread) > 1 else '':>15}"
        status = r.status if not r.reason else f"{r.status}: {r.reason.splitlines()[0][:90]}"
        lines.append(f"{name:<26} {r.era:<8} {figures}  {status}")
    for era, values in ratios(rows).items():
        shown = ", ".join(
            f"{name} = {value:.2f}" if value is not None else f"{name} = n/a"
            for name, value in values.items()
        )
        lines.append(f"ratios ({era}): {shown}")
    for server, value in era_ratios(rows).items():
        lines.append(f"current era / legacy era ({server}) = {value:.2f}")
    return "\n".join(lines)


def era_ratios(rows: list[Row]) -> dict[str, float]:
    """Per server measured in both eras, its current-era req/s over its legacy-era req/s."""
    rate = {(r.server, r.era): r.wrk.req_per_s for r in rows if r.status == "ok" and r.wrk}
    return {server: rate[(server, "current")] / rate[(server, "legacy")]
            for server in dict.fromkeys(r.server for r in rows)
            if rate.get((server, "current")) and rate.get((server, "legacy"))}


def _range(rates: list[float]) -> str:
    return f"{min(rates):,.0f}-{max(rates):,.0f}"


def _versions() -> dict[str, str]:
    found = {}
    for dist in ("pacekeeper", "fastmcp", "mcp", "starlette", "uvicorn", "uvloop", "httptools"):
        try:
            found[dist] = metadata.version(dist)
        except metadata.PackageNotFoundError:
            found[dist] = "absent"
    return found


def _git_head() -> str:
    proc = subprocess.run(
        ["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, check=False
    )
    return proc.stdout.strip() or "?"


def _wrk_version() -> str:
    proc = subprocess.run(["wrk", "--version"], capture_output=True, text=True, check=False)
    return (proc.stdout or proc.stderr).splitlines()[0] if (proc.stdout or proc.stderr) else "?"


def record(rows: list[Row], settings: Settings, started: dt.datetime) -> dict[str, Any]:
    """Everything needed to compare runs later, as plain JSON data."""
    return {
        "benchmark": "mcp_throughput",
        "started": started.isoformat(timespec="seconds"),
        "git_head": _git_head(),
        "settings": {
            "servers": [s.key for s in settings.servers],
            "eras": list(settings.eras),
            "duration_s": settings.duration_s,
            "warmup_s": settings.warmup_s,
            "connections": settings.connections,
            "rounds": settings.rounds,
            "server_cpu": settings.server_cpu,
            "load_cpu": settings.load_cpu,
            "uvicorn": "--loop uvloop --http httptools, one worker, no access log",
        },
        "environment": environment(),
        "rows": [
            {**row_record(r), "rounds_req_per_s": r.rounds_req_per_s,
             "wrk_output": None if r.wrk is None else r.wrk.raw_output}
            for r in rows
        ],
        "ratios": ratios(rows),
        "current_over_legacy": era_ratios(rows),
    }


def environment() -> dict[str, Any]:
    """Where a run happened: the same block in every benchmark's JSON record."""
    return {"python": platform.python_version(), "cpus": os.cpu_count(),
            "loadavg_at_start": os.getloadavg(), "wrk": _wrk_version(), "versions": _versions()}


def row_record(r: Row) -> dict[str, Any]:
    wrk = None if r.wrk is None else {
        k: v for k, v in dataclasses.asdict(r.wrk).items() if k != "raw_output"}
    return {"server": r.server, "label": r.label, "version": r.version, "era": r.era,
            "status": r.status, "reason": r.reason, "wrk": wrk}


def write_json(data: dict[str, Any], out_dir: Path, started: dt.datetime,
               name: str = "mcp_throughput") -> Path:
    """``<name>-<UTC time>.json`` and ``<name>-latest.json`` in ``out_dir``."""
    out_dir.mkdir(parents=True, exist_ok=True)
    text = json.dumps(data, indent=2) + "\n"
    path = out_dir / f"{name}-{started.strftime('%Y%m%dT%H%M%SZ')}.json"
    path.write_text(text)
    (out_dir / f"{name}-latest.json").write_text(text)
    return path
