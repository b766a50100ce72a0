"""The measurements: raw ASGI calls in this process, and uvicorn + wrk over HTTP.

In process, the two sides alternate call by call (`in_process`). Over HTTP with wrk,
each round measures `bare` and `full` back to back, the order swapped every round, so
a pair sees the same machine load and a drift favours neither side; the report takes
the median of the per-round differences (`paired`). On this VM a quarter of the rounds
or so run much slower than the rest, and unpaired medians moved the verdict from run to
run. Every measured request must answer 200."""

from __future__ import annotations

import asyncio
import base64
import contextlib
import json
import os
import random
import re
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
ADMIN, PASSWORD = "bench@example.com", "s3cret-Passw0rd"
MODES = ("bare", "full")
# label -> (method, path, body)
REQUESTS: dict[str, tuple[str, str, bytes]] = {
    "GET /a2a/tools": ("GET", "/a2a/tools", b""),
    "POST /a2a/execute whoami": ("POST", "/a2a/execute", b'{"tool": "whoami"}'),
}
# label -> mode -> the rounds' microseconds per request
Figures = dict[str, dict[str, list[float]]]


def bench_env(data_dir: Path, database_url: str = "", redis_url: str = "") -> dict[str, str]:
    """The service's settings: its own data directory, an admin, an unlimited burst."""
    env = {
        "PACEKEEPER_DATA_DIR": str(data_dir),
        "SERVICE_MASTER_ENCRYPTION_KEY": base64.b64encode(bytes(range(32))).decode(),
        "PACEKEEPER_JWT_RSA_KEY_BITS": "2048",
        "PACEKEEPER_ADMIN_EMAIL": ADMIN,
        "PACEKEEPER_ADMIN_PASSWORD": PASSWORD,
        # Enterprise: no quota; the burst raised so that no measured request is refused.
        "PACEKEEPER_APIKEY_BURST_PER_MINUTE": json.dumps({"enterprise": 10**9}),
        "PACEKEEPER_LOG_LEVEL": "warning",
    }
    if database_url:
        env["PACEKEEPER_DATABASE_URL"] = database_url
    if redis_url:
        env["PACEKEEPER_REDIS_URL"] = redis_url
    return env


async def call(app: Any, method: str, path: str, headers: dict[str, str],
               body: bytes = b"") -> tuple[int, bytes]:
    """One request as a raw ASGI call (no sockets, no HTTP parsing)."""
    scope = {
        "type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1", "method": method,
        "scheme": "http", "path": path, "raw_path": path.encode(), "query_string": b"",
        "root_path": "", "server": ("127.0.0.1", 8080), "client": ("127.0.0.1", 50000),
        "headers": [(k.lower().encode(), v.encode()) for k, v in headers.items()],
    }
    sent = False
    status = 0
    chunks: list[bytes] = []

    async def receive() -> dict[str, Any]:
        nonlocal sent
        if sent:
            await asyncio.sleep(3600)
        sent = True
        return {"type": "http.request", "body": body, "more_body": False}

    async def send(message: dict[str, Any]) -> None:
        nonlocal status
        if message["type"] == "http.response.start":
            status = message["status"]
        elif message["type"] == "http.response.body":
            chunks.append(message.get("body", b""))

    await app(scope, receive, send)
    return status, b"".join(chunks)


async def _make_key(app: Any) -> str:
    form = f"grant_type=password&username={ADMIN}&password={PASSWORD}".encode()
    status, body = await call(app, "POST", "/oauth/token", {
        "content-type": "application/x-www-form-urlencoded", "host": "127.0.0.1:8080"}, form)
    assert status == 200, body
    token = json.loads(body)["jwt_token"]
    status, body = await call(app, "POST", "/api/keys", {
        "authorization": f"Bearer {token}", "content-type": "application/json",
        "host": "127.0.0.1:8080"}, json.dumps({"name": "bench", "tier": "enterprise"}).encode())
    assert status == 201, body
    return str(json.loads(body)["api_key"])


async def _in_process(env: dict[str, str], n: int, rounds: int, warmup: int) -> Figures:
    from pacekeeper.app import create_app
    from pacekeeper.config import Settings

    from .app import make_bare

    os.environ.update(env)
    apps = {mode: create_app(Settings()) for mode in MODES}
    contexts = [a.router.lifespan_context(a) for a in apps.values()]
    for ctx in contexts:
        await ctx.__aenter__()
    figures: Figures = {label: {m: [] for m in MODES} for label in REQUESTS}
    try:
        make_bare(apps["bare"].state.services.api_keys)
        key = await _make_key(apps["full"])
        headers = {"x-api-key": key, "content-type": "application/json",
                   "host": "127.0.0.1:8080"}
        rng = random.Random(2026)
        for label, (method, path, body) in REQUESTS.items():
            for app in apps.values():
                for _ in range(warmup):
                    await call(app, method, path, headers, body)
            out = figures[label]
            for _ in range(rounds * n):
                for mode in (MODES if rng.random() < 0.5 else MODES[::-1]):
                    start = time.perf_counter_ns()
                    status, answer = await call(apps[mode], method, path, headers, body)
                    out[mode].append((time.perf_counter_ns() - start) / 1000)
                    assert status == 200, answer
    finally:
        for ctx in contexts:
            await ctx.__aexit__(None, None, None)
    return figures


def in_process(env: dict[str, str], n: int, rounds: int, warmup: int = 200) -> Figures:
    """Microseconds of every raw ASGI call, `rounds` x `n` per side and request, the two
    sides interleaved call by call in a random order per pair (as `_interleave` does
    over HTTP): rounds of 2,000 calls per side moved the ratio between 5 % and 28 %
    from one run to the next on this VM; call by call, slow phases hit both sides."""
    saved = dict(os.environ)
    try:
        return asyncio.run(_in_process(env, n, rounds, warmup))
    finally:
        os.environ.clear()
        os.environ.update(saved)


def _pinned(cpu: str | None, argv: list[str]) -> list[str]:
    return ["taskset", "-c", cpu, *argv] if cpu is not None else argv


def _start(mode: str, env: dict[str, str], port: int, cpu: str | None, log: Path
           ) -> subprocess.Popen[bytes]:
    # The server's output goes to a log: wrk ending a run mid-request makes uvicorn print
    # a ClientDisconnect traceback per open connection, which is noise here.
    log.parent.mkdir(parents=True, exist_ok=True)
    with log.open("ab") as out:
        return subprocess.Popen(
            _pinned(cpu, [
                sys.executable, "-m", "uvicorn", "bench.limits.app:bench_app", "--factory",
                "--port", str(port), "--loop", "uvloop", "--http", "httptools",
                "--no-access-log", "--log-level", "warning"]),
            cwd=ROOT, stdout=out, stderr=subprocess.STDOUT,
            env={**os.environ, **env, "PK_BENCH_MODE": mode,
                 "PYTHONPATH": os.pathsep.join([str(ROOT), str(ROOT / "src")])},
        )


_UNITS = {"us": 1.0, "ms": 1e3, "s": 1e6}


def _p50_us(output: str) -> float:
    """The median latency of wrk's --latency distribution, in microseconds."""
    found = re.search(r"^\s*50%\s+([\d.]+)(us|ms|s)\s*$", output, re.MULTILINE)
    assert found is not None, output
    return float(found.group(1)) * _UNITS[found.group(2)]


def cpu_seconds(pid: int) -> float:
    """CPU time (user + system) a process has used so far, from /proc."""
    fields = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _wrk_once(base: str, path: str, method: str, body: bytes, key: str, seconds: int,
              connections: int, cpu: str | None, latency: bool = False,
              server_pid: int | None = None) -> tuple[float, float]:
    """Microseconds per request: 1 / req/s (or with ``latency`` wrk's median latency),
    and the server's CPU time per request (0 without ``server_pid``)."""
    fd, name = tempfile.mkstemp(suffix=".lua")
    os.close(fd)
    script = Path(name)
    script.write_text(
        f'wrk.method = "{method}"\nwrk.body = {json.dumps(body.decode())}\n'
        f'wrk.headers["X-API-Key"] = "{key}"\n'
        'wrk.headers["Content-Type"] = "application/json"\n')
    used = cpu_seconds(server_pid) if server_pid else 0.0
    try:
        run = subprocess.run(
            _pinned(cpu, ["wrk", "-t1", f"-c{connections}", f"-d{seconds}s", "-s", str(script),
                          *(["--latency"] if latency else []), f"{base}{path}"]),
            capture_output=True, text=True, check=True)
    finally:
        script.unlink()
    assert "Non-2xx" not in run.stdout, run.stdout
    cpu_us = 0.0
    if server_pid:
        used = cpu_seconds(server_pid) - used
        done = re.search(r"(\d+) requests in", run.stdout)
        assert done is not None, run.stdout
        cpu_us = used / int(done.group(1)) * 1e6
    if latency:
        return _p50_us(run.stdout), cpu_us
    found = re.search(r"Requests/sec:\s+([\d.]+)", run.stdout)
    assert found is not None, run.stdout
    return 1e6 / float(found.group(1)), cpu_us  # mean service time per request, in us


def _wait_healthy(base: str, proc: subprocess.Popen[bytes]) -> None:
    import httpx

    for _ in range(300):
        if proc.poll() is not None:
            raise RuntimeError(f"the {base} server exited with {proc.returncode}")
        try:
            httpx.get(f"{base}/health", timeout=1)
            return
        except httpx.TransportError:
            time.sleep(0.1)
    raise RuntimeError(f"{base} did not answer /health")


def over_http(env: dict[str, str], seconds: int, rounds: int, connections: int = 8,
              server_cpu: str | None = None, load_cpu: str | None = None,
              log_dir: Path = ROOT / "bench" / "results" / "logs",
              latency: bool = False) -> tuple[Figures, Figures]:
    """Microseconds per request (1 / req/s) with wrk, both servers up on one database;
    with ``latency``, the median latency a client sees on one connection instead. Also
    the server process's CPU time per request (user + system, from /proc): wall-clock
    rounds on this VM move by 15 % between two runs of one server, its CPU time by less.

    A server process's history moves its speed: two identical bare servers differed by
    9 % on the POST when one of them had also run the migrations, the Argon2 login and
    the key creation. So a throwaway server does that set-up, and every round starts
    both measured servers anew: each pair has the same history (start-up, /health, the
    measured load), and what is left of one process's luck averages out over rounds.
    Each server's output is appended to `log_dir/limits-<mode>.log`.
    """
    ports = server_ports()
    bases = {mode: f"http://127.0.0.1:{port}" for mode, port in ports.items()}
    figures: Figures = {label: {m: [] for m in MODES} for label in REQUESTS}
    cpu: Figures = {label: {m: [] for m in MODES} for label in REQUESTS}
    key = make_key_over_http(env, ports["full"], server_cpu, log_dir)
    for _ in range(rounds):
        with fresh_servers(env, ports, server_cpu, log_dir) as procs:
            for label, (method, path, body) in REQUESTS.items():
                for mode in order_of(len(figures[label]["bare"])):
                    wall, cpu_us = _wrk_once(
                        bases[mode], path, method, body, key, seconds,
                        1 if latency else connections, load_cpu, latency, procs[mode].pid)
                    figures[label][mode].append(wall)
                    cpu[label][mode].append(cpu_us)
    return figures, cpu


def server_ports() -> dict[str, int]:
    """A port per side, apart from other runs' (the pid picks them)."""
    return {"bare": 18100 + os.getpid() % 500, "full": 18700 + os.getpid() % 500}


def make_key_over_http(env: dict[str, str], port: int, cpu: str | None, log_dir: Path) -> str:
    """A throwaway server creates the schema and the signing key and makes the key."""
    import httpx

    base = f"http://127.0.0.1:{port}"
    setup = _start("full", env, port, cpu, log_dir / "limits-setup.log")
    try:
        _wait_healthy(base, setup)
        login = httpx.post(f"{base}/oauth/token", data={
            "grant_type": "password", "username": ADMIN, "password": PASSWORD})
        assert login.status_code == 200, login.text
        made = httpx.post(f"{base}/api/keys", json={"name": "b", "tier": "enterprise"},
                          headers={"authorization": f"Bearer {login.json()['jwt_token']}"})
        assert made.status_code == 201, made.text
        return str(made.json()["api_key"])
    finally:
        _stop(setup)


@contextlib.contextmanager
def fresh_servers(env: dict[str, str], ports: dict[str, int], cpu: str | None,
                  log_dir: Path, modes: dict[str, str] | None = None
                  ) -> Iterator[dict[str, subprocess.Popen[bytes]]]:
    """Both measured servers, started anew and answering /health; stopped after.
    ``modes`` maps a side to the app it serves (default: itself; an A/A run serves
    ``bare`` on both sides)."""
    procs: dict[str, subprocess.Popen[bytes]] = {}
    try:
        for side, port in ports.items():
            procs[side] = _start((modes or {}).get(side, side), env, port, cpu,
                                 log_dir / f"limits-{side}.log")
        for side, port in ports.items():
            _wait_healthy(f"http://127.0.0.1:{port}", procs[side])
        yield procs
    finally:
        for proc in procs.values():
            _stop(proc)


def _stop(proc: subprocess.Popen[bytes]) -> None:
    proc.terminate()
    proc.wait(15)


def order_of(round_number: int) -> tuple[str, str]:
    """The two sides of a round, the order swapped every round."""
    return MODES if round_number % 2 == 0 else (MODES[1], MODES[0])


def paired(figures: Figures) -> dict[str, tuple[float, float, float]]:
    """Per request: the median bare figure, the median full figure, and the median of the
    rounds' differences (full - bare of the same round): what the key check adds."""
    return {
        label: (statistics.median(modes["bare"]), statistics.median(modes["full"]),
                statistics.median(f - b for b, f in zip(modes["bare"], modes["full"],
                                                          strict=True)))
        for label, modes in figures.items()
    }
