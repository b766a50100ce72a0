"""Present a run: the table, pacekeeper's ratios over FastMCP, login latency, JSON record."""

from __future__ import annotations

import dataclasses
import datetime as dt
import statistics
from pathlib import Path
from typing import Any

from bench.mcp_throughput._report import _git_head, environment, row_record
from bench.mcp_throughput._report import write_json as shared_write_json
from bench.mcp_throughput._runner import Row

from ._runner import Login, Outcome, Settings

TARGET_RATIO = 10.0
TARGET_P99_MS = 10.0


def ratios(rows: list[Row]) -> dict[str, float | None]:
    """``<pacekeeper row> <era>`` -> its req/s over FastMCP's in the same era."""
    rate = {(r.server, r.era): r.wrk.req_per_s for r in rows if r.status == "ok" and r.wrk}
    out: dict[str, float | None] = {}
    for r in rows:
        if not r.server.startswith("pacekeeper"):
            continue
        mine, peer = rate.get((r.server, r.era)), rate.get(("fastmcp", r.era))
        out[f"{r.label} {r.era}"] = mine / peer if mine and peer else None
    return out


def verdicts(rows: list[Row]) -> list[str]:
    """The issue's target per pacekeeper row: >= 10x FastMCP and p99 < 10 ms."""
    found = ratios(rows)
    lines = []
    for r in rows:
        if not r.server.startswith("pacekeeper") or r.wrk is None or r.status != "ok":
            continue
        ratio = found.get(f"{r.label} {r.era}")
        hit = ratio is not None and ratio >= TARGET_RATIO and r.wrk.p99_ms < TARGET_P99_MS
        shown = f"{ratio:.2f}x" if ratio is not None else "n/a"
        lines.append(
            f"target ({r.label} {r.era}): {shown} FastMCP, p99 {r.wrk.p99_ms:.2f} ms"
            f" -> {'met' if hit else 'MISSED'}"
        )
    return lines


def login_line(login: Login) -> str:
    s = sorted(login.samples_ms)
    return (
        f"login RS256-{login.key_bits} ({login.argon2}): p50 {statistics.median(s):.1f} ms, "
        f"min {s[0]:.1f}, max {s[-1]:.1f} over {len(s)} logins"
    )


def table(outcome: Outcome) -> str:
    header = (
        f"{'server':<28} {'era':<8} {'auth':<11} {'req/s':>9} {'p50 ms':>8} "
        f"{'p99 ms':>8} {'non-2xx':>8} {'sock err':>8}  status"
    )
    lines = [header, "-" * len(header)]
    for r in outcome.rows:
        name = f"{r.label} {r.version}" if r.version != "?" else r.label
        auth = "bearer JWT" if r.server.startswith("pacekeeper") else "none"
        w = r.wrk
        figures = (
            f"{w.req_per_s:>9,.0f} {w.p50_ms:>8.2f} {w.p99_ms:>8.2f} {w.non_2xx:>8} "
            f"{w.socket_errors:>8}"
            if w is not None
            else f"{'-':>9} {'-':>8} {'-':>8} {'-':>8} {'-':>8}"
        )
        status = r.status if not r.reason else f"{r.status}: {r.reason.splitlines()[0][:80]}"
        lines.append(f"{name:<28} {r.era:<8} {auth:<11} {figures}  {status}")
    for name, value in ratios(outcome.rows).items():
        shown = f"{value:.2f}" if value is not None else "n/a"
        lines.append(f"ratio {name} / FastMCP: {shown}")
    lines += verdicts(outcome.rows)
    lines += [login_line(login) for login in outcome.logins if login.samples_ms]
    return "\n".join(lines)


def record(outcome: Outcome, settings: Settings, started: dt.datetime) -> dict[str, Any]:
    return {
        "benchmark": "service_auth",
        "started": started.isoformat(timespec="seconds"),
        "git_head": _git_head(),
        "settings": {
            "eras": list(settings.eras),
            "key_bits": list(settings.key_bits),
            "duration_s": settings.duration_s,
            "warmup_s": settings.warmup_s,
            "connections": settings.connections,
            "logins": settings.logins,
            "server_cpu": settings.server_cpu,
            "load_cpu": settings.load_cpu,
            "uvicorn": "--loop uvloop --http httptools, one worker, no access log",
            "service": "SQLite in a temp dir, registration open, no Redis",
        },
        "environment": environment(),
        "rows": [
            row_record(r) for r in outcome.rows
        ],
        "ratios_over_fastmcp": ratios(outcome.rows),
        "logins": [dataclasses.asdict(login) for login in outcome.logins],
    }


def write_json(data: dict[str, Any], out_dir: Path, started: dt.datetime) -> Path:
    return shared_write_json(data, out_dir, started, "service_auth")
