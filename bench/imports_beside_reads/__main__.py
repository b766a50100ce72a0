"""bench/run imports_beside_reads [--duration 15] [--readers 4] [--importers 2] [--workers N]
                                  [--stalls]

Issue 30's measurement on loopback: one ``pacekeeper serve`` (SQLite), ``--readers``
clients reading ``GET /api/activities?limit=20`` (ten years of history seeded) in a loop
for ``--duration`` seconds, alone; then the same beside ``--importers`` clients (each its
own person) importing real FIT rides one after another (``POST /api/activities/import``;
after the first round the files are duplicates, which costs the same parse). Prints reads
done and p50/p99/max per phase, and the ratios against the phase alone (targets: p99 at
most 2x, reads done at least half). ``--workers`` sets ``PACEKEEPER_IMPORT_WORKERS``
(unset: the service's default). First, in process: the event loop's lag while importing
on a thread and in the pool (``_lag``). ``--stalls``: only the loop's lag beside the other
heavy paths (``_stalls``). Writes bench/results/imports_beside_reads-<time>.json.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import subprocess
import sys
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import httpx
import numpy as np

from bench.analytics._http import _seed, _service
from bench.imports_beside_reads._lag import describe, lag_row

ROOT = Path(__file__).resolve().parents[2]
FIT = ROOT / "tests" / "data" / "activities" / "fit"
# Real rides of 1.4 h and 3.5 h (elapsed), decoded in about 0.3-0.7 s each on this machine.
RIDES = [FIT / "4801048867.fit", FIT / "garmin-edge-500-activity.fit"]
RESULTS = ROOT / "bench" / "results"
PASSWORD = "bench-Passw0rd!"


def _register(url: str, email: str) -> tuple[str, str]:
    body = httpx.post(f"{url}/api/auth/register",
                      json={"email": email, "password": PASSWORD}).json()
    return str(body["token"]), str(body["user_id"])


async def _reader(client: httpx.AsyncClient, stop: float, times: list[float]) -> None:
    while time.monotonic() < stop:
        t = time.perf_counter()
        response = await client.get("/api/activities", params={"limit": "20"})
        times.append(time.perf_counter() - t)
        assert response.status_code == 200, response.text


async def _importer(client: httpx.AsyncClient, stop: float, done: dict[str, int]) -> None:
    files = [(p.name, p.read_bytes()) for p in RIDES]
    i = 0
    while time.monotonic() < stop:
        name, data = files[i % len(files)]
        i += 1
        response = await client.post("/api/activities/import",
                                     files={"file": (name, data, "application/octet-stream")})
        if response.status_code == 429:  # the import pool is full: wait as told
            done["refused"] = done.get("refused", 0) + 1
            await asyncio.sleep(float(response.headers.get("retry-after", "1")))
            continue
        assert response.status_code in (200, 201), response.text
        done["imports"] = done.get("imports", 0) + 1


async def _phase(url: str, readers: list[str], importers: list[str],
                 duration: float) -> dict[str, Any]:
    times: list[float] = []
    done: dict[str, int] = {}
    clients = [httpx.AsyncClient(base_url=url, timeout=60,
                                 headers={"authorization": f"Bearer {t}"})
               for t in readers + importers]
    try:
        for c in clients[:len(readers)]:  # warm the connections
            await c.get("/api/activities", params={"limit": "20"})
        stop = time.monotonic() + duration
        await asyncio.gather(
            *(_reader(c, stop, times) for c in clients[:len(readers)]),
            *(_importer(c, stop, done) for c in clients[len(readers):]))
    finally:
        for c in clients:
            await c.aclose()
    times.sort()
    return {"reads": len(times), "p50_ms": statistics.median(times) * 1e3,
            "p99_ms": times[int(0.99 * (len(times) - 1))] * 1e3, "max_ms": times[-1] * 1e3,
            **done}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--duration", type=float, default=15.0)
    parser.add_argument("--readers", type=int, default=4)
    parser.add_argument("--importers", type=int, default=2)
    parser.add_argument("--workers", type=int, default=None,
                        help="PACEKEEPER_IMPORT_WORKERS (0: parse on a thread, as before)")
    parser.add_argument("--lag-only", action="store_true",
                        help="only the loop-lag probe (in process, a few seconds)")
    parser.add_argument("--stalls", action="store_true",
                        help="only the loop lag of the other heavy paths (first chart, "
                             "archive, sync ingest, recompute) on a thread and in the "
                             "pool, each in a fresh process (_stalls)")
    args = parser.parse_args()
    if args.stalls:
        for workers in ("0", "1"):
            subprocess.run([sys.executable, "-m", "bench.imports_beside_reads._stalls",
                            workers], check=True, cwd=ROOT)
        return
    lag = [asyncio.run(lag_row(RIDES, workers)) for workers in (0, 1)]
    for row in lag:
        print(describe(row))
    if args.lag_only:
        return
    extra = {"PACEKEEPER_IMPORT_LIMIT_PER_MINUTE": str(10**6)}
    if args.workers is not None:
        extra["PACEKEEPER_IMPORT_WORKERS"] = str(args.workers)
    with _service(extra) as (url, db):
        people = [_register(url, f"reader{i}@example.com") for i in range(args.readers)]
        importers = [_register(url, f"importer{i}@example.com")[0]
                     for i in range(args.importers)]
        rng = np.random.default_rng(30)
        for _, user_id in people:
            _seed(db, user_id, datetime.now(UTC).date(), rng)
        readers = [token for token, _ in people]
        alone = asyncio.run(_phase(url, readers, [], args.duration))
        beside = asyncio.run(_phase(url, readers, importers, args.duration))
    ratios = {"p99": beside["p99_ms"] / alone["p99_ms"], "reads": beside["reads"] / alone["reads"]}
    for label, row in (("reads alone", alone), (f"beside {args.importers} import loops", beside)):
        print(f"{label:<26} reads {row['reads']:6d}  p50 {row['p50_ms']:7.1f} ms  "
              f"p99 {row['p99_ms']:7.1f} ms  max {row['max_ms']:7.1f} ms"
              + (f"  imports {row.get('imports', 0)}, refused {row.get('refused', 0)}"
                 if label != "reads alone" else ""))
    met_p99, met_reads = ratios["p99"] <= 2, ratios["reads"] >= 0.5
    print(f"p99 beside / alone {ratios['p99']:.2f} (target <= 2: "
          f"{'met' if met_p99 else 'NOT met'}); reads beside / alone "
          f"{ratios['reads']:.2f} (target >= 0.5: {'met' if met_reads else 'NOT met'})")
    RESULTS.mkdir(parents=True, exist_ok=True)
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
    (RESULTS / f"imports_beside_reads-{stamp}.json").write_text(json.dumps(
        {"args": vars(args), "loop_lag": lag, "alone": alone, "beside": beside,
         "ratios": ratios}, indent=2))


if __name__ == "__main__":
    main()
