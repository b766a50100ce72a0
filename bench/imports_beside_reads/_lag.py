"""The event loop's lag during imports: a probe task sleeps 10 ms in a loop and records
how late it wakes, while ``FitnessService.import_file`` (SQLite, in process) imports
real rides one after another, with the parse on a thread (``workers=0``) or in the
process pool (``workers>=1``). A loop that is never blocked wakes within a millisecond
or two; a blocked one wakes as late as the longest stretch it was held."""

from __future__ import annotations

import asyncio
import base64
import tempfile
import time
from pathlib import Path
from typing import Any

from pacekeeper.config import Settings
from pacekeeper.fitness import Owner
from pacekeeper.services import build_services


async def _probe(stop: asyncio.Event, lags: list[float]) -> None:
    while not stop.is_set():
        t = time.perf_counter()
        await asyncio.sleep(0.01)
        lags.append(time.perf_counter() - t - 0.01)


async def lag_row(rides: list[Path], workers: int, rounds: int = 2) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="pk-bench-lag-") as tmp:
        settings = Settings(data_dir=Path(tmp), jwt_rsa_key_bits=2048, registration="open",
                            master_encryption_key=base64.b64encode(bytes(32)).decode(),
                            argon2_memory_kib=1024, argon2_time_cost=1, worker="off",
                            import_workers=workers)
        services = await build_services(settings)
        try:
            user = await services.accounts.register("lag@example.com", "bench-Passw0rd!")
            owner = Owner(user.id, user.tenant_id)
            files = [(p.name, p.read_bytes()) for p in rides]
            # Warm-up: the first import starts the pool's process (not measured).
            outcome = (await services.fitness.import_file(owner, *files[0][::-1]))[0]
            assert outcome.activity is not None
            await services.fitness.delete(owner, outcome.activity.id)
            lags: list[float] = []
            stop = asyncio.Event()
            probe = asyncio.create_task(_probe(stop, lags))
            started = time.perf_counter()
            for _ in range(rounds):
                for name, data in files:
                    outcome = (await services.fitness.import_file(owner, data, name))[0]
                    assert outcome.activity is not None
                    await services.fitness.delete(owner, outcome.activity.id)
            elapsed = time.perf_counter() - started
            stop.set()
            await probe
        finally:
            await services.close()
    lags.sort()
    return {"workers": workers, "imports": rounds * len(rides), "seconds": elapsed,
            "probes": len(lags), "lag_p50_ms": lags[len(lags) // 2] * 1e3,
            "lag_p99_ms": lags[int(0.99 * (len(lags) - 1))] * 1e3, "lag_max_ms": lags[-1] * 1e3,
            "lag_total_s": sum(lags)}


def describe(row: dict[str, Any]) -> str:
    where = "thread (workers=0)" if row["workers"] == 0 else f"pool (workers={row['workers']})"
    return (f"loop lag, {row['imports']} imports on a {where:<18} in {row['seconds']:5.2f} s: "
            f"probe late p50 {row['lag_p50_ms']:6.1f} ms  p99 {row['lag_p99_ms']:6.1f} ms  "
            f"max {row['lag_max_ms']:6.1f} ms  total {row['lag_total_s']:5.2f} s")
