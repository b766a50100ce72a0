"""How long each heavy path holds the event loop (issue 30): the ``_lag`` probe (a task
that sleeps 10 ms and records how late it wakes) beside one path at a time, in process
(SQLite), with the CPU work on a thread (``workers=0``, how these paths ran before) or
in the process pool (``workers>=1``):

- ``first chart``: the first fitness chart of a fresh process over ten years (it
  imported scipy.signal on the loop before issue 30's last part; run this module with
  the old tree on ``PYTHONPATH`` for the "before" row);
- ``archive``: a bulk-export zip of the real rides, imported in one call;
- ``sync ingest``: the rides' samples stored as a provider's activities (what a sync
  does per activity: compress the samples and compute the metrics);
- ``recompute``: the metrics of the stored rides computed again (a settings change);
- ``streams``: a sync's streams of N Strava activities (the sandbox's bodies) fetched and
  decoded and put on the 1 Hz grid by the service's Strava client, where its wiring says
  (the pool, or its thread with ``workers=0``); with ``workers=0`` also a row with the
  work in place, on the loop (``loop``: how it ran before, though with orjson's decoding,
  3-4x the standard ``json``'s speed, so the old stall was longer still).

Run: ``PYTHONPATH=$PWD/src:$PWD python -m bench.imports_beside_reads._stalls [--streams]
[workers ...]`` (``--streams``: that row only)."""

from __future__ import annotations

import asyncio
import base64
import io
import json
import sys
import tempfile
import time
import uuid
import zipfile
from collections.abc import Awaitable, Callable
from dataclasses import replace
from datetime import timedelta
from pathlib import Path
from typing import Any

from bench.imports_beside_reads._lag import _probe
from bench.imports_beside_reads._streams import serving, strava_bodies
from pacekeeper.config import Settings
from pacekeeper.fitness import Owner
from pacekeeper.providers import StravaClient, TokenSet, run_here
from pacekeeper.services import build_services

ROOT = Path(__file__).resolve().parents[2]
FIT = ROOT / "tests" / "data" / "activities" / "fit"
RIDES = [FIT / "4801048867.fit", FIT / "garmin-edge-500-activity.fit"]
STREAMS = 12  # Strava activities whose streams the "streams" row fetches and maps


async def _stalled(what: str, workers: int, work: Callable[[], Awaitable[Any]]
                   ) -> dict[str, Any]:
    lags: list[float] = []
    stop = asyncio.Event()
    probe = asyncio.create_task(_probe(stop, lags))
    await asyncio.sleep(0.05)
    started, cpu = time.perf_counter(), time.thread_time()
    await work()
    elapsed, cpu = time.perf_counter() - started, time.thread_time() - cpu
    stop.set()
    await probe
    lags.sort()
    return {"path": what, "workers": workers, "seconds": round(elapsed, 3),
            "lag_p99_ms": round(lags[int(0.99 * (len(lags) - 1))] * 1e3, 1),
            "lag_max_ms": round(lags[-1] * 1e3, 1), "lag_total_s": round(sum(lags), 3),
            # The loop's own thread's CPU time: what the load of the machine moves least.
            "loop_cpu_s": round(cpu, 3)}


def _zip(rides: list[Path], copies: int) -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
        for i in range(copies):
            for ride in rides:
                # A byte appended gives each copy its own hash (not a duplicate) and is
                # ignored by the FIT reader (past the file's declared size).
                archive.writestr(f"activities/{i}-{ride.name}", ride.read_bytes() + bytes([i]))
    return out.getvalue()


async def stall_rows(workers: int, rides: list[Path] = RIDES, *,
                     streams_only: bool = False) -> list[dict[str, Any]]:
    bodies = await strava_bodies(STREAMS)  # before the services: not measured
    with tempfile.TemporaryDirectory(prefix="pk-bench-stall-") as tmp:
        settings = Settings(data_dir=Path(tmp), jwt_rsa_key_bits=2048, registration="open",
                            master_encryption_key=base64.b64encode(bytes(32)).decode(),
                            argon2_memory_kib=1024, argon2_time_cost=1, worker="off",
                            import_workers=workers)
        services = await build_services(settings, provider_transport=serving(bodies))
        rows = []
        try:
            if not streams_only:
                rows += await _import_rows(services, workers, rides)
            rows += await _streams_rows(services, workers, bodies)
        finally:
            await services.close()
    return rows


async def _streams_rows(services: Any, workers: int, bodies: list[bytes]
                        ) -> list[dict[str, Any]]:
    client = services.connections.client("strava")  # built as the service builds it
    assert isinstance(client, StravaClient)
    token = TokenSet(access_token="bench")
    await client.fetch_streams(token, "0")  # warm-up: the pool's process starts

    async def fetch_all() -> None:
        for i in range(len(bodies)):
            assert len(await client.fetch_streams(token, str(i))) > 0

    what = f"streams ({len(bodies)}, {sum(map(len, bodies)) / 1e6:.1f} MB)"
    rows = [await _stalled(what, workers, fetch_all)]
    if workers == 0:
        client.run_cpu = run_here  # in place, on the loop: the path before issue 30's move
        rows.append(await _stalled(what, -1, fetch_all))
    return rows


async def _import_rows(services: Any, workers: int, rides: list[Path]) -> list[dict[str, Any]]:
    from pacekeeper.fitness._records import SourceRef
    from pacekeeper.fitness._service import summary_of
    from pacekeeper.fitness.importers import parse_activity

    fitness = services.fitness
    rows = []
    user = await services.accounts.register("stall@example.com", "bench-Passw0rd!")
    owner = Owner(user.id, user.tenant_id)
    # Warm-up: the pool's process starts on first use (not measured); the ride
    # kept, so the chart has a load to filter.
    warm = await fitness.import_file(owner, RIDES[0].read_bytes(), RIDES[0].name)
    assert warm[0].activity is not None
    first = warm[0].activity.start_at.date()
    rows.append(await _stalled("first chart", workers, lambda: fitness.analysis
                               .fitness_chart(owner, (first - timedelta(days=3650))
                                              .isoformat(), first.isoformat())))
    archive = _zip(rides, 2)

    async def import_archive() -> None:
        outcomes = await fitness.import_file(owner, archive, "export.zip",
                                             bounded=False)
        assert all(o.activity is not None for o in outcomes), outcomes

    rows.append(await _stalled(f"archive ({2 * len(rides)} rides)", workers,
                               import_archive))
    parsed = [parse_activity(p.read_bytes(), p.name) for p in rides]

    async def ingest() -> None:
        for p in parsed * 3:
            ref = SourceRef("provider", provider="strava",
                            provider_activity_id=uuid.uuid4().hex,
                            channels=len(p.streams.keys))
            # Another start: not merged with the archive's copy of the ride.
            new = summary_of(p)
            new = replace(new, start_at=new.start_at - timedelta(days=400))
            await fitness.ingest(owner, new, p.streams, ref)

    rows.append(await _stalled(f"sync ingest ({3 * len(rides)} rides)", workers, ingest))
    count = len(await fitness.store.activity_ids_since(owner.user_id, None))
    rows.append(await _stalled(f"recompute ({count} rides)", workers,
                               lambda: fitness.recompute(owner)))
    return rows


def describe(row: dict[str, Any]) -> str:
    where = {-1: "loop", 0: "thread"}.get(row["workers"], f"pool({row['workers']})")
    return (f"{row['path']:<24} {where:<8} {row['seconds']:6.2f} s  loop lag p99 "
            f"{row['lag_p99_ms']:7.1f} ms  max {row['lag_max_ms']:7.1f} ms  "
            f"total {row['lag_total_s']:6.2f} s  loop cpu {row['loop_cpu_s']:6.2f} s")


def main() -> None:
    streams_only = "--streams" in sys.argv[1:]
    workers = [int(w) for w in sys.argv[1:] if w != "--streams"] or [0, 1]
    rows = [row for w in workers
            for row in asyncio.run(stall_rows(w, streams_only=streams_only))]
    for row in rows:
        print(describe(row))
    print(json.dumps(rows))


if __name__ == "__main__":
    main()
