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
- ``recompute``: the metrics of the stored rides computed again (a settings change).

Run: ``PYTHONPATH=$PWD/src:$PWD python -m bench.imports_beside_reads._stalls``."""

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
from pacekeeper.config import Settings
from pacekeeper.fitness import Owner
from pacekeeper.services import build_services

ROOT = Path(__file__).resolve().parents[2]
FIT = ROOT / "tests" / "data" / "activities" / "fit"
RIDES = [FIT / "4801048867.fit", FIT / "garmin-edge-500-activity.fit"]


async def _stalled(what: str, workers: int, work: Callable[[], Awaitable[Any]]
                   ) -> dict[str, Any]:
    lags: list[float] = []
    stop = asyncio.Event()
    probe = asyncio.create_task(_probe(stop, lags))
    await asyncio.sleep(0.05)
    started = time.perf_counter()
    await work()
    elapsed = time.perf_counter() - started
    stop.set()
    await probe
    lags.sort()
    return {"path": what, "workers": workers, "seconds": round(elapsed, 3),
            "lag_p99_ms": round(lags[int(0.99 * (len(lags) - 1))] * 1e3, 1),
            "lag_max_ms": round(lags[-1] * 1e3, 1), "lag_total_s": round(sum(lags), 3)}


def _zip(rides: list[Path], copies: int) -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
        for i in range(copies):
            for ride in rides:
                # A byte appended gives each copy its own hash (not a duplicate) and is
                # ignored by the FIT reader (past the file's declared size).
                archive.writestr(f"activities/{i}-{ride.name}", ride.read_bytes() + bytes([i]))
    return out.getvalue()


async def stall_rows(workers: int, rides: list[Path] = RIDES) -> list[dict[str, Any]]:
    from pacekeeper.fitness._records import SourceRef
    from pacekeeper.fitness._service import summary_of
    from pacekeeper.fitness.importers import parse_activity

    with tempfile.TemporaryDirectory(prefix="pk-bench-stall-") as tmp:
        settings = Settings(data_dir=Path(tmp), jwt_rsa_key_bits=2048, registration="open",
                            master_encryption_key=base64.b64encode(bytes(32)).decode(),
                            argon2_memory_kib=1024, argon2_time_cost=1, worker="off",
                            import_workers=workers)
        services = await build_services(settings)
        fitness = services.fitness
        rows = []
        try:
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
        finally:
            await services.close()
    return rows


def describe(row: dict[str, Any]) -> str:
    where = "thread" if row["workers"] == 0 else f"pool({row['workers']})"
    return (f"{row['path']:<24} {where:<8} {row['seconds']:6.2f} s  loop lag p99 "
            f"{row['lag_p99_ms']:7.1f} ms  max {row['lag_max_ms']:7.1f} ms  "
            f"total {row['lag_total_s']:6.2f} s")


def main() -> None:
    workers = [int(w) for w in sys.argv[1:]] or [0, 1]
    rows = [row for w in workers for row in asyncio.run(stall_rows(w))]
    for row in rows:
        print(describe(row))
    print(json.dumps(rows))


if __name__ == "__main__":
    main()
