"""What API key authentication + rate limiting add per request (target: under 10 %).

    .venv/bin/python bench/limits/limits.py                 # in-process ASGI, SQLite
    .venv/bin/python bench/limits/limits.py --wrk           # + uvicorn and wrk over HTTP
    .venv/bin/python bench/limits/limits.py --redis-url redis://127.0.0.1:6379/0
    .venv/bin/python bench/limits/limits.py --database-url postgresql+asyncpg://...

Requests: `GET /a2a/tools` and `POST /a2a/execute {"tool": "whoami"}` with an enterprise
key (no quota; the burst limit raised so it never refuses). `full` is the shipped app;
`bare` the same app with the key check done once and reused (see app.py). In-process,
requests are raw ASGI calls (no HTTP parsing), which makes the ratio its largest;
with `--wrk` the same comparison runs through uvicorn (uvloop, httptools) and wrk.
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path[:0] = [str(ROOT / "src"), str(ROOT / "bench" / "limits")]

from app import make_bare  # noqa: E402

from pacekeeper.app import create_app  # noqa: E402
from pacekeeper.config import Settings  # noqa: E402

ADMIN, PASSWORD = "bench@example.com", "s3cret-Passw0rd"


def _env(data_dir: Path, args: argparse.Namespace) -> dict[str, str]:
    env = {
        "PACEKEEPER_DATA_DIR": str(data_dir),
        "SERVICE_MASTER_ENCRYPTION_KEY": base64.b64encode(bytes(range(32))).decode(),
        "PACEKEEPER_JWT_RSA_KEY_BITS": "2048",
        "PACEKEEPER_ADMIN_EMAIL": ADMIN,
        "PACEKEEPER_ADMIN_PASSWORD": PASSWORD,
        "PACEKEEPER_APIKEY_BURST_PER_MINUTE": json.dumps({"enterprise": 10**9}),
        "PACEKEEPER_LOG_LEVEL": "warning",
    }
    if args.database_url:
        env["PACEKEEPER_DATABASE_URL"] = args.database_url
    if args.redis_url:
        env["PACEKEEPER_REDIS_URL"] = args.redis_url
    return env


async def _call(app: Any, method: str, path: str, headers: dict[str, str],
                body: bytes = b"") -> tuple[int, bytes]:
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
    status, body = await _call(app, "POST", "/oauth/token", {
        "content-type": "application/x-www-form-urlencoded", "host": "127.0.0.1:8080"}, form)
    assert status == 200, body
    token = json.loads(body)["jwt_token"]
    status, body = await _call(app, "POST", "/api/keys", {
        "authorization": f"Bearer {token}", "content-type": "application/json",
        "host": "127.0.0.1:8080"}, json.dumps({"name": "bench", "tier": "enterprise"}).encode())
    assert status == 201, body
    return str(json.loads(body)["api_key"])


REQUESTS = {
    "GET /a2a/tools": ("GET", "/a2a/tools", b""),
    "POST /a2a/execute whoami": ("POST", "/a2a/execute", b'{"tool": "whoami"}'),
}


async def _in_process(env: dict[str, str], n: int, rounds: int) -> dict[str, dict[str, float]]:
    os.environ.update(env)
    apps = {mode: create_app(Settings()) for mode in ("bare", "full")}
    contexts = {m: a.router.lifespan_context(a) for m, a in apps.items()}
    for ctx in contexts.values():
        await ctx.__aenter__()
    make_bare(apps["bare"].state.services.api_keys)
    key = await _make_key(apps["full"])
    results: dict[str, dict[str, list[float]]] = {r: {"bare": [], "full": []} for r in REQUESTS}
    try:
        for _ in range(rounds):
            for label, (method, path, body) in REQUESTS.items():
                headers = {"x-api-key": key, "content-type": "application/json",
                           "host": "127.0.0.1:8080"}
                for mode in ("bare", "full"):  # alternate: both see the same machine load
                    app = apps[mode]
                    for _ in range(50):  # warm-up
                        await _call(app, method, path, headers, body)
                    start = time.perf_counter()
                    for _ in range(n):
                        status, answer = await _call(app, method, path, headers, body)
                        assert status == 200, answer
                    results[label][mode].append((time.perf_counter() - start) / n * 1e6)
    finally:
        for ctx in contexts.values():
            await ctx.__aexit__(None, None, None)
    return {label: {m: statistics.median(v) for m, v in modes.items()}
            for label, modes in results.items()}


def _start(mode: str, env: dict[str, str], port: int) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [sys.executable, "-m", "uvicorn", "app:bench_app", "--factory", "--port", str(port),
         "--loop", "uvloop", "--http", "httptools", "--no-access-log", "--log-level", "warning"],
        cwd=ROOT / "bench" / "limits",
        env={**os.environ, **env, "PK_BENCH_MODE": mode, "PYTHONPATH": f"{ROOT / 'src'}"},
    )


def _wrk_once(base: str, path: str, method: str, body: bytes, key: str, seconds: int) -> float:
    script = Path(tempfile.mkstemp(suffix=".lua")[1])
    script.write_text(
        f'wrk.method = "{method}"\nwrk.body = {json.dumps(body.decode())}\n'
        f'wrk.headers["X-API-Key"] = "{key}"\n'
        'wrk.headers["Content-Type"] = "application/json"\n')
    run = subprocess.run(["wrk", "-t1", "-c8", f"-d{seconds}s", "-s", str(script),
                          f"{base}{path}"], capture_output=True, text=True, check=True)
    script.unlink()
    assert "Non-2xx" not in run.stdout, run.stdout
    found = re.search(r"Requests/sec:\s+([\d.]+)", run.stdout)
    assert found is not None, run.stdout
    return 1e6 / float(found.group(1))  # mean service time per request, in us


def _wrk(env: dict[str, str], seconds: int, rounds: int) -> dict[str, dict[str, float]]:
    """Both servers up at once (one database); runs alternate bare/full, medians kept."""
    import httpx

    ports = {"bare": 18100 + os.getpid() % 500, "full": 18700 + os.getpid() % 500}
    bases = {mode: f"http://127.0.0.1:{port}" for mode, port in ports.items()}
    runs: dict[str, dict[str, list[float]]] = {r: {"bare": [], "full": []} for r in REQUESTS}
    procs: dict[str, subprocess.Popen[bytes]] = {}
    try:
        # One after the other: the first creates the schema and the signing key.
        for mode in ("full", "bare"):
            procs[mode] = _start(mode, env, ports[mode])
            for _ in range(300):
                try:
                    httpx.get(f"{bases[mode]}/health", timeout=1)
                    break
                except httpx.TransportError:
                    time.sleep(0.1)
        login = httpx.post(f"{bases['full']}/oauth/token", data={
            "grant_type": "password", "username": ADMIN, "password": PASSWORD})
        made = httpx.post(f"{bases['full']}/api/keys", json={"name": "b", "tier": "enterprise"},
                          headers={"authorization": f"Bearer {login.json()['jwt_token']}"})
        key = made.json()["api_key"]
        for _ in range(rounds):
            for label, (method, path, body) in REQUESTS.items():
                for mode in ("bare", "full"):
                    runs[label][mode].append(
                        _wrk_once(bases[mode], path, method, body, key, seconds))
    finally:
        for proc in procs.values():
            proc.terminate()
            proc.wait(15)
    return {label: {m: statistics.median(v) for m, v in modes.items()}
            for label, modes in runs.items()}


def _report(title: str, figures: dict[str, dict[str, float]]) -> None:
    print(f"\n{title}")
    print(f"{'request':28} {'bare us':>9} {'full us':>9} {'added us':>9} {'ratio':>7}")
    for label, modes in figures.items():
        bare, full = modes["bare"], modes["full"]
        print(f"{label:28} {bare:9.1f} {full:9.1f} {full - bare:9.1f} "
              f"{(full - bare) / bare * 100:6.1f}%")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("-n", type=int, default=2000, help="requests per measured run")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--database-url", default="")
    parser.add_argument("--redis-url", default="")
    parser.add_argument("--wrk", action="store_true", help="also measure over HTTP with wrk")
    parser.add_argument("--seconds", type=int, default=5, help="wrk duration per run")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        env = _env(Path(tmp), args)
        where = (args.database_url.split(":")[0] or "sqlite") + (
            " + redis" if args.redis_url else " + memory limiter")
        figures = asyncio.run(_in_process(env, args.n, args.rounds))
        _report(f"in-process ASGI, {where}, median of {args.rounds} x {args.n}", figures)
    if args.wrk:
        with tempfile.TemporaryDirectory() as tmp:
            env = _env(Path(tmp), args)
            _report(f"uvicorn + wrk -t1 -c8, {where}, median of {args.rounds} x "
                    f"{args.seconds} s (us = 1/rps)", _wrk(env, args.seconds, args.rounds))


if __name__ == "__main__":
    main()
