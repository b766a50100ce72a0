"""One benchmark run: for each server, start it, and for each era verify one real request,
warm up, then measure with wrk. A row fails on a wrong answer or on any non-2xx response.
With several rounds the whole sequence repeats (so background load on a shared machine is
spread over every server) and each row keeps the round with the median req/s."""

from __future__ import annotations

import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

from ._requests import BenchRequest, Era, build_request
from ._servers import ServerFailed, ServerSpec, serve
from ._wrk import WrkResult, lua_script, run_wrk


@dataclass(frozen=True)
class Settings:
    servers: tuple[ServerSpec, ...]
    eras: tuple[Era, ...]
    duration_s: float
    warmup_s: float
    connections: int
    server_cpu: str | None
    load_cpu: str | None
    log_dir: Path
    rounds: int = 1


@dataclass
class Row:
    """One (server, era) measurement. ``status`` is ``ok``, ``skipped`` or ``failed``."""

    server: str
    label: str
    version: str
    era: Era
    status: str
    reason: str = ""
    wrk: WrkResult | None = field(default=None, repr=False)
    rounds_req_per_s: list[float] = field(default_factory=list)


def say(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


class LoadSettings(Protocol):
    @property
    def duration_s(self) -> float: ...
    @property
    def warmup_s(self) -> float: ...
    @property
    def connections(self) -> int: ...
    @property
    def load_cpu(self) -> str | None: ...


def measure(url: str, request: BenchRequest, settings: LoadSettings, script: Path) -> WrkResult:
    """Warm up (any non-2xx fails the row), then one measured wrk run of ``request``."""
    script.write_text(lua_script(request))
    if settings.warmup_s > 0:
        warm = run_wrk(url, script, duration_s=settings.warmup_s,
                       connections=settings.connections, cpu=settings.load_cpu, latency=False)
        if warm.non_2xx:
            raise ServerFailed(f"{warm.non_2xx} non-2xx responses during warm-up")
    return run_wrk(url, script, duration_s=settings.duration_s,
                   connections=settings.connections, cpu=settings.load_cpu)


def _run_server(spec: ServerSpec, settings: Settings, scripts: Path) -> list[Row]:
    version = spec.version()
    rows: list[Row] = []

    def row(era: Era, status: str, reason: str = "", result: WrkResult | None = None) -> Row:
        return Row(spec.key, spec.label, version, era, status, reason, result)

    missing = spec.unavailable_reason()
    if missing is not None:
        say(f"-- {spec.label}: skipped: {missing}")
        return [row(era, "skipped", missing) for era in settings.eras]
    try:
        with serve(spec, cpu=settings.server_cpu, log_dir=settings.log_dir) as server:
            for era in settings.eras:
                say(
                    f"-- {spec.label} ({era}): verifying, warming up, measuring "
                    f"{settings.duration_s:g}s x {settings.connections} connections"
                )
                try:
                    server.verify(build_request(era), era)
                    script = scripts / f"{era}.lua"
                    result = measure(server.url, build_request(era), settings, script)
                except (ServerFailed, RuntimeError) as exc:
                    say(f"   failed: {exc}")
                    rows.append(row(era, "failed", str(exc)))
                    continue
                if not server.alive():
                    rows.append(row(era, "failed", "server died under load", result))
                elif result.non_2xx:
                    rows.append(row(era, "failed", f"{result.non_2xx} non-2xx responses", result))
                else:
                    rows.append(row(era, "ok", "", result))
                say(
                    f"   {result.req_per_s:,.0f} req/s, p50 {result.p50_ms:.2f} ms, "
                    f"p99 {result.p99_ms:.2f} ms, non-2xx {result.non_2xx}"
                )
    except ServerFailed as exc:
        say(f"-- {spec.label}: failed to start: {exc}")
        done = {r.era for r in rows}
        rows += [row(era, "failed", f"server: {exc}") for era in settings.eras if era not in done]
    return rows


def median_rows(rounds: list[list[Row]]) -> list[Row]:
    """One row per (server, era): failed if any round failed, else the median round."""
    grouped: dict[tuple[str, Era], list[Row]] = {}
    for rows in rounds:
        for r in rows:
            grouped.setdefault((r.server, r.era), []).append(r)
    merged: list[Row] = []
    for group in grouped.values():
        ok = sorted((r for r in group if r.status == "ok" and r.wrk), key=_rate)
        failed = [r for r in group if r.status == "failed"]
        chosen = failed[0] if failed else ok[(len(ok) - 1) // 2] if ok else group[0]
        chosen.rounds_req_per_s = [_rate(r) for r in ok]
        merged.append(chosen)
    return merged


def _rate(row: Row) -> float:
    return row.wrk.req_per_s if row.wrk else 0.0


def run_benchmark(settings: Settings) -> list[Row]:
    """All rows, in the order of ``settings.servers``, merged over the rounds."""
    rounds: list[list[Row]] = []
    with tempfile.TemporaryDirectory(prefix="mcp-throughput-") as tmp:
        for number in range(1, max(1, settings.rounds) + 1):
            if settings.rounds > 1:
                say(f"== round {number} of {settings.rounds}")
            rows: list[Row] = []
            for spec in settings.servers:
                rows += _run_server(spec, settings, Path(tmp))
            rounds.append(rows)
    return median_rows(rounds)
