"""One run: FastMCP and mcpcast without authentication (the reference rows, served exactly
as in mcp_throughput), then the Pacekeeper service per RSA key size with a logged-in user
calling ``whoami`` under a bearer JWT. Each row: verify one real request, warm up, measure
with wrk; a row fails on a wrong answer or any non-2xx response."""

from __future__ import annotations

import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from bench.mcp_throughput import SERVERS, Era, build_request
from bench.mcp_throughput._runner import Row, measure, say
from bench.mcp_throughput._servers import ServerFailed, ServerSpec, serve
from bench.mcp_throughput._wrk import WrkResult

from ._service import pacekeeper_spec, serve_service

PEERS = ("fastmcp", "mcpcast")


@dataclass(frozen=True)
class Settings:
    eras: tuple[Era, ...]
    key_bits: tuple[int, ...]
    duration_s: float
    warmup_s: float
    connections: int
    logins: int
    server_cpu: str | None
    load_cpu: str | None
    log_dir: Path
    peers: tuple[str, ...] = PEERS
    pinned: bool = True  # also the service with each credential resolved once


@dataclass
class Login:
    """Login latency for one service start: every sample and the parameters in force."""

    key_bits: int
    argon2: str
    samples_ms: list[float] = field(default_factory=list)


@dataclass
class Outcome:
    rows: list[Row]
    logins: list[Login]


def _judge(spec: ServerSpec, era: Era, result: WrkResult, alive: bool) -> Row:
    version = spec.version()
    say(
        f"   {result.req_per_s:,.0f} req/s, p50 {result.p50_ms:.2f} ms, "
        f"p99 {result.p99_ms:.2f} ms, non-2xx {result.non_2xx}"
    )
    if not alive:
        return Row(spec.key, spec.label, version, era, "failed", "server died under load", result)
    if result.non_2xx:
        why = f"{result.non_2xx} non-2xx responses"
        return Row(spec.key, spec.label, version, era, "failed", why, result)
    return Row(spec.key, spec.label, version, era, "ok", "", result)


def _peer_rows(spec: ServerSpec, settings: Settings, scripts: Path) -> list[Row]:
    missing = spec.unavailable_reason()
    if missing is not None:
        return [
            Row(spec.key, spec.label, spec.version(), e, "skipped", missing) for e in settings.eras
        ]
    rows: list[Row] = []
    try:
        with serve(spec, cpu=settings.server_cpu, log_dir=settings.log_dir) as server:
            for era in settings.eras:
                say(f"-- {spec.label} ({era}, no auth): verifying, warming up, measuring")
                request = build_request(era)
                try:
                    server.verify(request, era)
                    result = measure(server.url, request, settings, scripts / f"{spec.key}.lua")
                except (ServerFailed, RuntimeError) as exc:
                    rows.append(Row(spec.key, spec.label, spec.version(), era, "failed", str(exc)))
                    continue
                rows.append(_judge(spec, era, result, server.alive()))
    except ServerFailed as exc:
        done = {r.era for r in rows}
        rows += [
            Row(spec.key, spec.label, spec.version(), e, "failed", f"server: {exc}")
            for e in settings.eras
            if e not in done
        ]
    return rows


def _service_rows(bits: int, settings: Settings, scripts: Path, *, pinned: bool = False
                  ) -> tuple[list[Row], Login | None]:
    spec = pacekeeper_spec(bits, pinned=pinned)
    rows: list[Row] = []
    login: Login | None = None
    try:
        with serve_service(bits, cpu=settings.server_cpu, log_dir=settings.log_dir,
                           factory=spec.factory) as service:
            say(f"-- {spec.label}: register, {settings.logins} timed logins, MCP session")
            service.sign_in(settings.logins)
            login = Login(bits, service.argon2, service.login_ms)
            say(f"   login p50 {service.login_p50_ms:.1f} ms ({service.argon2})")
            for era in settings.eras:
                say(f"-- {spec.label} ({era}, bearer JWT): verifying, warming up, measuring")
                try:
                    service.verify(era)
                    request = service.request(era)
                    result = measure(service.url, request, settings, scripts / f"{spec.key}.lua")
                except (ServerFailed, RuntimeError) as exc:
                    say(f"   failed: {exc}")
                    rows.append(Row(spec.key, spec.label, spec.version(), era, "failed", str(exc)))
                    continue
                rows.append(_judge(spec, era, result, service.alive()))
    except ServerFailed as exc:
        say(f"-- {spec.label}: failed: {exc}")
        done = {r.era for r in rows}
        rows += [
            Row(spec.key, spec.label, spec.version(), e, "failed", f"service: {exc}")
            for e in settings.eras
            if e not in done
        ]
    return rows, login


def run_benchmark(settings: Settings) -> Outcome:
    """Reference rows first, then each key size, all in one run (same machine state)."""
    outcome = Outcome([], [])
    with tempfile.TemporaryDirectory(prefix="service-auth-") as tmp:
        for key in settings.peers:
            spec = next(s for s in SERVERS if s.key == key)
            outcome.rows += _peer_rows(spec, settings, Path(tmp))
        for bits in settings.key_bits:
            rows, login = _service_rows(bits, settings, Path(tmp))
            outcome.rows += rows
            if login is not None:
                outcome.logins.append(login)
        if settings.pinned:
            # Authentication's own cost: the same service and call, the caller pinned.
            rows, _ = _service_rows(min(settings.key_bits), settings, Path(tmp), pinned=True)
            outcome.rows += rows
    return outcome
