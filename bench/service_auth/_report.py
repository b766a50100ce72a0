"""Present a run: the table, pacekeeper's ratios over FastMCP and over mcpcast without
authentication, the targets (issue 19), login latency, the JSON record."""

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
from ._service import PINNED

TARGET_RATIO = 12.0  # x FastMCP (issue 19; the service core promised 10x)
TARGET_MCPCAST = 0.8  # x mcpcast serving a call without authentication (issue 19)
TARGET_P99_MS = 10.0


def ratios(rows: list[Row], peer: str = "fastmcp") -> dict[str, float | None]:
    """``<pacekeeper row> <era>`` -> its req/s over ``peer``'s in the same era."""
    rate = {(r.server, r.era): r.wrk.req_per_s for r in rows if r.status == "ok" and r.wrk}
    out: dict[str, float | None] = {}
    for r in rows:
        if not r.server.startswith("pacekeeper") or r.server.startswith(PINNED):
            continue
        mine, theirs = rate.get((r.server, r.era)), rate.get((peer, r.era))
        out[f"{r.label} {r.era}"] = mine / theirs if mine and theirs else None
    return out


def authentication_share(rows: list[Row]) -> dict[str, float | None]:
    """``<era>`` -> the authenticated row's req/s over the same service's with the caller
    pinned (same key size, same call): what resolving the caller on every request keeps
    of the service's speed without it."""
    pinned = {r.era: r for r in rows if r.server.startswith(PINNED)}
    out: dict[str, float | None] = {}
    for era, ref in pinned.items():
        bits = ref.server.removeprefix(f"{PINNED}-")
        mine = next((r for r in rows if r.server == f"pacekeeper-{bits}" and r.era == era), None)
        ok = ref.status == "ok" and ref.wrk and mine is not None and mine.status == "ok"
        out[era] = (mine.wrk.req_per_s / ref.wrk.req_per_s  # type: ignore[union-attr]
                    if ok else None)
    return out


def verdicts(rows: list[Row]) -> list[str]:
    """The target per pacekeeper row: >= 12x FastMCP, >= 0.8x mcpcast without
    authentication (judged when its row ran) and p99 < 10 ms."""
    over_fastmcp, over_mcpcast = ratios(rows), ratios(rows, "mcpcast")
    lines = []
    for r in rows:
        if not r.server.startswith("pacekeeper") or r.server.startswith(PINNED) or r.wrk is None \
                or r.status != "ok":
            continue
        ratio = over_fastmcp.get(f"{r.label} {r.era}")
        framework = over_mcpcast.get(f"{r.label} {r.era}")
        hit = (ratio is not None and ratio >= TARGET_RATIO and r.wrk.p99_ms < TARGET_P99_MS
               and (framework is None or framework >= TARGET_MCPCAST))
        shown = f"{ratio:.2f}x" if ratio is not None else "n/a"
        versus = f", {framework:.2f}x mcpcast" if framework is not None else ""
        lines.append(
            f"target ({r.label} {r.era}): {shown} FastMCP{versus}, p99 {r.wrk.p99_ms:.2f} ms"
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
        f"{'server':<36} {'era':<8} {'auth':<11} {'req/s':>9} {'p50 ms':>8} "
        f"{'p99 ms':>8} {'non-2xx':>8} {'sock err':>8}  status"
    )
    lines = [header, "-" * len(header)]
    for r in outcome.rows:
        name = f"{r.label} {r.version}" if r.version != "?" else r.label
        auth = ("pinned" if r.server.startswith(PINNED) else "bearer JWT"
                if r.server.startswith("pacekeeper") else "none")
        w = r.wrk
        figures = (
            f"{w.req_per_s:>9,.0f} {w.p50_ms:>8.2f} {w.p99_ms:>8.2f} {w.non_2xx:>8} "
            f"{w.socket_errors:>8}"
            if w is not None
            else f"{'-':>9} {'-':>8} {'-':>8} {'-':>8} {'-':>8}"
        )
        status = r.status if not r.reason else f"{r.status}: {r.reason.splitlines()[0][:80]}"
        lines.append(f"{name:<36} {r.era:<8} {auth:<11} {figures}  {status}")
    for peer, label in (("fastmcp", "FastMCP"), ("mcpcast", "mcpcast (no auth)")):
        for name, value in ratios(outcome.rows, peer).items():
            shown = f"{value:.2f}" if value is not None else "n/a"
            lines.append(f"ratio {name} / {label}: {shown}")
    for era, value in authentication_share(outcome.rows).items():
        shown = f"{value:.2f}" if value is not None else "n/a"
        lines.append(f"authentication ({era}): authenticated / caller pinned: {shown}")
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
        "ratios_over_mcpcast": ratios(outcome.rows, "mcpcast"),
        "authenticated_over_pinned": authentication_share(outcome.rows),
        "logins": [dataclasses.asdict(login) for login in outcome.logins],
    }


def write_json(data: dict[str, Any], out_dir: Path, started: dt.datetime) -> Path:
    return shared_write_json(data, out_dir, started, "service_auth")
