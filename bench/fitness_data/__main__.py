"""``bench/run fitness_data``: the fitness data path against references in the same run.

1. Import end to end (parse, metrics, store: ``FitnessService.import_file`` on SQLite) of a
   synthetic two-hour 1 Hz FIT ride, against garmin-fit-sdk's ``Decoder.read()`` of the
   same bytes. Target: at most 1.5x.
2. ``GET /api/activities?limit=50`` over ten years of history (3,650 activities) with a
   JWT against ``pacekeeper serve``, next to ``GET /health`` and ``GET /api/athlete`` of
   the same run. Target: p50 under 5 ms.
3. The streams of a six-hour ride read back (the store's row and ``StreamSet.from_bytes``),
   against zlib's decompression of the same value alone. Target: under 20 ms. Over HTTP,
   downsampled to 500 points as the tools ask, beside it.
5. A ten-year Strava export (3,650 activities, real GPX and TCX tracks moved to each day)
   imported end to end as ``pacekeeper import-export`` does (``exports``), with the peak
   resident memory of the serving process and of the import worker. Target: at least 5
   activities a second.
4. A year of sandbox history synced end to end from nothing (``sync_year``: the sandbox in
   its own process on loopback, the real ``SyncService`` and provider clients) for Garmin,
   Fitbit and Strava (with its published limit, then with the sandbox's limit raised),
   next to the sandbox's own synthesis of the year's samples. Target: under 60 s.

Figures are medians (or best of N for the import, which alternates with its reference):
the machine is shared, so read the ratios.
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import json
import sqlite3
import statistics
import tempfile
import time
import uuid
import zlib
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx
import numpy as np
from garmin_fit_sdk import Decoder, Stream

from bench.analytics._http import _seed, _service, _time
from bench.fitness_data import exports, sync_year
from bench.fitness_data.import_ratio import synthetic_ride
from pacekeeper.config import Settings
from pacekeeper.fitness import Owner, StreamSet
from pacekeeper.services import build_services

RESULTS = Path(__file__).resolve().parents[2] / "bench" / "results"


def six_hour_ride() -> StreamSet:
    rng = np.random.default_rng(6)
    n = 6 * 3600
    speed = np.clip(8 + np.cumsum(rng.normal(0, 0.02, n)), 0, 20)
    return StreamSet(np.arange(n), {
        "power": np.clip(np.round(200 + rng.normal(0, 30, n)), 0, None),
        "heartrate": np.round(140 + 10 * np.sin(np.arange(n) / 900)),
        "cadence": np.round(88 + rng.normal(0, 2, n)), "speed": speed,
        "distance": np.cumsum(speed), "altitude": 300 + 50 * np.sin(np.arange(n) / 2000),
        "lat": 45 + np.cumsum(speed) / 111_000, "lng": 7 + np.cumsum(speed) / 78_000,
        "temperature": 18 + np.arange(n) / n * 6, "grade": 2.5 * np.cos(np.arange(n) / 2000),
    })


async def import_rows(runs: int) -> list[dict[str, Any]]:
    data = synthetic_ride(7200)
    with tempfile.TemporaryDirectory(prefix="pk-bench-import-") as tmp:
        settings = Settings(data_dir=Path(tmp), jwt_rsa_key_bits=2048, registration="open",
                            master_encryption_key=base64.b64encode(bytes(32)).decode(),
                            argon2_memory_kib=1024, argon2_time_cost=1, worker="off")
        services = await build_services(settings)
        try:
            user = await services.accounts.register("bench@example.com", "bench-Passw0rd!")
            owner = Owner(user.id, user.tenant_id)
            await services.fitness.update_athlete(owner, {"ftp_watts": 250},
                                                  datetime(2000, 1, 1).date())
            decode, full = [], []
            for _ in range(runs):  # alternate, so a slow phase of the machine hits both
                t = time.perf_counter()
                Decoder(Stream.from_byte_array(bytearray(data))).read()
                decode.append(time.perf_counter() - t)
                t = time.perf_counter()
                outcome = (await services.fitness.import_file(owner, data, "ride.fit"))[0]
                full.append(time.perf_counter() - t)
                assert outcome.activity is not None
                await services.fitness.delete(owner, outcome.activity.id)
        finally:
            await services.close()
    best_decode, best_full = min(decode), min(full)
    return [{"figure": "import, 2 h 1 Hz FIT ride (parse, metrics, store)",
             "ms": best_full * 1e3, "reference": "garmin-fit-sdk Decoder.read()",
             "reference_ms": best_decode * 1e3, "ratio": best_full / best_decode,
             "target": "ratio <= 1.5", "met": best_full / best_decode <= 1.5}]


def _seed_streams(db: Path, user_id: str, blob: bytes, channels: str, n: int) -> str:
    con = sqlite3.connect(db)
    uid = uuid.UUID(user_id).hex
    tenant = con.execute("select tenant_id from users where id = ?", (uid,)).fetchone()[0]
    ident = uuid.uuid4()
    now = datetime.now(UTC).strftime("%Y-%m-%d %H:%M:%S.%f")
    start = (datetime.now(UTC) - timedelta(days=4000)).strftime("%Y-%m-%d %H:%M:%S.%f")
    con.execute(
        "insert into activities (id, user_id, tenant_id, sport, start_at, elapsed_s, laps, "
        "metrics, device_metrics, created_at, updated_at) values (?,?,?,?,?,?,?,?,?,?,?)",
        (ident.hex, uid, tenant, "ride", start, float(n), "[]", "{}", "{}", now, now))
    con.execute("insert into activity_streams (activity_id, user_id, samples, channels, data) "
                "values (?,?,?,?,?)", (ident.hex, uid, n, channels, blob))
    con.commit()
    con.close()
    return str(ident)


def http_rows(requests: int) -> list[dict[str, Any]]:
    rng = np.random.default_rng(14)
    ride = six_hour_ride()
    blob = ride.to_bytes()
    rows: list[dict[str, Any]] = []
    with _service() as (url, db):
        body = httpx.post(f"{url}/api/auth/register", json={
            "email": "bench@example.com", "password": "bench-Passw0rd!"}).json()
        seeded = _seed(db, body["user_id"], datetime.now(UTC).date(), rng)
        ident = _seed_streams(db, body["user_id"], blob, ",".join(ride.keys), len(ride))
        auth = {"authorization": f"Bearer {body['token']}"}
        with httpx.Client(base_url=url, headers=auth, timeout=30) as client:
            listed = client.get("/api/activities", params={"limit": "50"}).json()
            assert len(listed["activities"]) == 50
            assert listed["next_cursor"]
            for label, path, params, target in (
                (f"GET /api/activities?limit=50 ({seeded + 1} activities)", "/api/activities",
                 {"limit": "50"}, 5.0),
                ("GET /api/activities/{id}/streams?max_points=500 (6 h ride)",
                 f"/api/activities/{ident}/streams", {"max_points": "500"}, None),
                ("GET /api/athlete (reference, JWT)", "/api/athlete", {}, None),
                ("GET /health (reference, no auth)", "/health", {}, None),
            ):
                p50, p90, size = _time(client, path, params, requests)
                row: dict[str, Any] = {"figure": label, "p50_ms": p50, "p90_ms": p90,
                                       "bytes": size}
                if target is not None:
                    row.update(target=f"p50 < {target:.0f} ms", met=p50 < target)
                rows.append(row)
    return rows


def streams_rows(repeat: int) -> list[dict[str, Any]]:
    ride = six_hour_ride()
    blob = ride.to_bytes()
    body = blob[8 + int.from_bytes(blob[4:8], "little"):]
    decode, inflate = [], []
    for _ in range(repeat):
        t = time.perf_counter()
        back = StreamSet.from_bytes(blob)
        decode.append(time.perf_counter() - t)
        t = time.perf_counter()
        zlib.decompress(body)
        inflate.append(time.perf_counter() - t)
    assert len(back) == len(ride)
    ms = statistics.median(decode) * 1e3
    return [{"figure": f"six-hour ride's streams decoded ({len(blob) // 1024} KB, "
                       f"{len(ride.keys)} channels)", "ms": ms,
             "reference": "zlib.decompress of the same value",
             "reference_ms": statistics.median(inflate) * 1e3,
             "target": "< 20 ms", "met": ms < 20}]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer runs (a smoke run)")
    parser.add_argument("--no-sync", action="store_true",
                        help="skip the year-of-history syncs (about a minute and a half)")
    parser.add_argument("--no-export", action="store_true",
                        help="skip the ten-year Strava export (ten minutes or so)")
    args = parser.parse_args()
    runs, requests = (3, 50) if args.quick else (15, 300)
    rows = asyncio.run(import_rows(runs)) + streams_rows(runs * 3) + http_rows(requests)
    if not args.no_sync:
        rows += sync_year.rows(["garmin", "fitbit", "strava"])
    if not args.no_export:
        rows += exports.rows(365 if args.quick else 3650)
    for r in rows:
        if "provider" in r:
            print(sync_year.describe(r))
        elif "activities_per_s" in r:
            print(exports.describe(r))
        elif "p50_ms" in r:
            print(f"{r['figure']:<62} p50 {r['p50_ms']:7.2f} ms  p90 {r['p90_ms']:7.2f} ms"
                  + (f"  [{r['target']}: {'met' if r['met'] else 'NOT met'}]"
                     if "target" in r else ""))
        else:
            print(f"{r['figure']:<62} {r['ms']:8.2f} ms  ({r['reference']}: "
                  f"{r['reference_ms']:.2f} ms)  [{r['target']}: "
                  f"{'met' if r['met'] else 'NOT met'}]")
    RESULTS.mkdir(parents=True, exist_ok=True)
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
    (RESULTS / f"fitness_data-{stamp}.json").write_text(json.dumps(rows, indent=2))


if __name__ == "__main__":
    main()
