"""A burst of sign-ins beside cheap reads, in one process (issue 30): the password
hashes on the default executor (``asyncio.to_thread``: min(32, cores + 4) threads at the
loop's priority, how they ran before) against the hasher's own threads (one fewer than
the cores, nice 10), alternated round by round in the same run, so both sides see the
same machine.

The app runs in process (SQLite, Argon2id at the defaults: m=19 MiB, t=2) behind
httpx's ASGI transport. Each round: ``--readers`` clients ask ``GET /api/athlete`` (an
authenticated small read) every ``--every`` ms, and a probe task sleeps 10 ms in a loop
and records how late it wakes, for 1 s alone and then while ``--people`` sign-ins
(``POST /oauth/token``, password grant, each its own account) start at once, until the
last is answered. Prints per side: read latency alone and during the burst, the
probe's lag during the burst, and the sign-ins' own latency.

Run: ``PYTHONPATH=$PWD/src:$PWD python -m bench.imports_beside_reads._signins
[--rounds 5] [--people 24] [--sides before,after,'not niced']``.
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import json
import os
import statistics
import tempfile
import time
from collections.abc import Callable
from concurrent.futures import Executor, ThreadPoolExecutor
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, TypeVar

import httpx

from bench.imports_beside_reads._lag import _probe
from pacekeeper.app import create_app
from pacekeeper.config import Settings
from pacekeeper.cpu import NicedThreads, usable_cores

T = TypeVar("T")
PASSWORD = "bench-Passw0rd!"
RESULTS = Path(__file__).resolve().parents[2] / "bench" / "results"


class _DefaultExecutor:
    """The hasher's pool as it was: ``asyncio.to_thread``, unbounded, not niced."""

    workers = min(32, (os.cpu_count() or 1) + 4)

    async def run(self, fn: Callable[..., T], *args: Any) -> T:
        return await asyncio.to_thread(fn, *args)

    def close(self) -> None:
        pass


class _NotNiced(NicedThreads):
    """The hasher's bound (one fewer thread than the cores) without the lower priority:
    which of the two the figures owe to."""

    def _executor_now(self) -> Executor:
        if self._executor is None:
            self._executor = ThreadPoolExecutor(self.workers)
        return self._executor


async def _reader(client: httpx.AsyncClient, token: str, every: float, stop: asyncio.Event,
                  times: list[tuple[float, float]]) -> None:
    headers = {"authorization": f"Bearer {token}"}
    next_at = time.perf_counter()
    while not stop.is_set():
        started = time.perf_counter()
        response = await client.get("/api/athlete", headers=headers)
        assert response.status_code == 200, response.text
        times.append((started, time.perf_counter() - started))
        next_at += every
        await asyncio.sleep(max(0.0, next_at - time.perf_counter()))


async def _sign_in(client: httpx.AsyncClient, email: str) -> float:
    started = time.perf_counter()
    response = await client.post("/oauth/token", data={
        "grant_type": "password", "username": email, "password": PASSWORD})
    assert response.status_code == 200, response.text
    return time.perf_counter() - started


def _pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[int(q * (len(ordered) - 1))] * 1e3


async def _round(client: httpx.AsyncClient, tokens: list[str], people: list[str],
                 every: float) -> dict[str, list[float]]:
    stop = asyncio.Event()
    lags: list[float] = []
    reads: list[tuple[float, float]] = []
    probe = asyncio.create_task(_probe(stop, lags))
    readers = [asyncio.create_task(_reader(client, t, every, stop, reads)) for t in tokens]
    await asyncio.sleep(1.0)
    burst_at, quiet_lags = time.perf_counter(), len(lags)
    signins = await asyncio.gather(*(_sign_in(client, e) for e in people))
    stop.set()
    await asyncio.gather(probe, *readers)
    return {"alone": [d for t, d in reads if t < burst_at],
            "burst": [d for t, d in reads if t >= burst_at],
            "lag": lags[quiet_lags:], "signin": list(signins)}


async def run(rounds: int, n_people: int, n_readers: int, every_ms: float,
              names: list[str]) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="pk-bench-signins-") as tmp:
        many = 10**6
        settings = Settings(
            data_dir=Path(tmp), jwt_rsa_key_bits=2048, registration="open",
            master_encryption_key=base64.b64encode(bytes(32)).decode(), worker="off",
            import_workers=0, base_url="https://pk.bench", redis_url="",
            login_limit_per_address=many, login_limit_per_account=many,
            register_limit_per_address=many, register_limit_per_account=many,
            tenant_rate_limit_per_minute=many)
        app = create_app(settings)
        async with app.router.lifespan_context(app):
            transport = httpx.ASGITransport(app=app)
            async with httpx.AsyncClient(transport=transport, base_url="https://pk.bench",
                                         timeout=120) as client:
                tokens = []
                for i in range(n_readers):
                    body = (await client.post("/api/auth/register", json={
                        "email": f"reader{i}@example.com", "password": PASSWORD})).json()
                    tokens.append(str(body["token"]))
                people = [f"person{i}@example.com" for i in range(n_people)]
                for email in people:
                    response = await client.post("/api/auth/register",
                                                 json={"email": email, "password": PASSWORD})
                    assert response.status_code == 201, response.text
                accounts = app.state.services.accounts
                hasher = accounts._hasher
                every = {"before": _DefaultExecutor(), "after": hasher.pool,
                         "not niced": _NotNiced(hasher.pool.workers, hasher.pool.limit)}
                sides = {name: every[name] for name in names}
                samples: dict[str, dict[str, list[float]]] = {
                    side: {"alone": [], "burst": [], "lag": [], "signin": []} for side in sides}
                for r in range(rounds + 1):  # round 0 of each side: warm-up, not counted
                    for side, pool in sides.items():
                        hasher.pool = pool
                        got = await _round(client, tokens, people, every_ms / 1e3)
                        if r > 0:
                            for key, values in got.items():
                                samples[side][key].extend(values)
                hasher.pool = every["after"]
                every["not niced"].close()
    out: dict[str, Any] = {"cores": usable_cores(), "rounds": rounds, "people": n_people,
                           "readers": n_readers, "every_ms": every_ms,
                           "threads": {s: p.workers for s, p in sides.items()}}
    for side, got in samples.items():
        out[side] = {key: {"n": len(v), "p50_ms": statistics.median(v) * 1e3,
                           "p99_ms": _pct(v, 0.99), "max_ms": max(v) * 1e3}
                     for key, v in got.items()}
    return out


def describe(result: dict[str, Any]) -> str:
    lines = [f"{result['people']} sign-ins at once beside {result['readers']} readers "
             f"(GET /api/athlete every {result['every_ms']:.0f} ms), {result['rounds']} rounds "
             f"per side, {result['cores']} usable cores"]
    names = {"alone": "reads, 1 s alone", "burst": "reads during the burst",
             "lag": "loop lag (10 ms probe)", "signin": "sign-in latency"}
    labels = {"before": "default executor", "after": "hash threads, nice 10",
              "not niced": "hash threads at the loop's priority"}
    for side in result["threads"]:
        label = labels[side]
        lines.append(f"{side} ({label}, {result['threads'][side]} threads):")
        for key, name in names.items():
            row = result[side][key]
            lines.append(f"  {name:<24} n {row['n']:5d}  p50 {row['p50_ms']:7.1f} ms  "
                         f"p99 {row['p99_ms']:7.1f} ms  max {row['max_ms']:7.1f} ms")
    for side in result["threads"]:
        if side == "before" or "before" not in result:
            continue
        for key in ("burst", "lag", "signin"):
            b, a = result["before"][key], result[side][key]
            lines.append(f"{side} / before, {names[key]}: p50 "
                         f"{a['p50_ms'] / b['p50_ms']:.2f}  p99 {a['p99_ms'] / b['p99_ms']:.2f}")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--people", type=int, default=24)
    parser.add_argument("--readers", type=int, default=2)
    parser.add_argument("--every", type=float, default=20.0, help="ms between a reader's reads")
    parser.add_argument("--sides", default="before,after",
                        help="of before, after, 'not niced' (comma-separated)")
    args = parser.parse_args()
    result = asyncio.run(run(args.rounds, args.people, args.readers, args.every,
                             args.sides.split(",")))
    print(describe(result))
    RESULTS.mkdir(parents=True, exist_ok=True)
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
    (RESULTS / f"signins_beside_reads-{stamp}.json").write_text(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
