"""The queue worker through a lost database connection (issue 18, "Faults during load":
five tracebacks in the worker's log during a PostgreSQL restart).

A real PostgreSQL database and procrastinate worker (`JobQueue.work`) in this process.
The database then refuses connections and every connection to it is terminated (what a
restart does to its clients), for a few seconds. procrastinate's worker stops when its
LISTEN or heartbeat connection fails and logs the error with a traceback; the worker here
must log one clear warning per restart, no traceback (ERR-3), and run jobs again
afterwards.
"""

from __future__ import annotations

import asyncio
import logging
import secrets
from pathlib import Path
from types import SimpleNamespace
from typing import Any, cast

import asyncpg  # type: ignore[import-untyped]
import pytest
from sqlalchemy.engine import make_url

from pacekeeper.jobs import QUEUE, JobQueue, stop_worker
from pacekeeper.services import Services
from tests._wait import async_wait_for
from tests.pacekeeper.conftest import _create_database, _migrate, make_settings

OUTAGE_S = 3.0


async def _admin(postgres_url: str) -> Any:
    url = make_url(postgres_url)
    return await asyncpg.connect(host=url.host, port=url.port, user=url.username,
                                 database=url.database)


async def test_the_worker_lives_through_a_lost_connection_with_one_warning(
        postgres_url: str, tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    name = "pk_jobs_" + secrets.token_hex(6)
    await _create_database(postgres_url, name)
    url = make_url(postgres_url).set(database=name).render_as_string(hide_password=False)
    await _migrate(url)
    queue = JobQueue.for_settings(make_settings(url, tmp_path, worker_stalled_seconds=3))
    ran: list[int] = []

    @queue.app.task(name="probe", queue=QUEUE)
    async def probe(n: int) -> None:
        ran.append(n)

    def warnings() -> list[str]:
        return [r.getMessage() for r in caplog.records if r.name == "pacekeeper.jobs"
                and r.levelno == logging.WARNING and "stopped" in r.getMessage()]

    async def has_run(n: int) -> bool:
        return n in ran

    async def warned() -> bool:
        return bool(warnings())

    await queue.open()
    admin = await _admin(postgres_url)
    caplog.set_level(logging.DEBUG, logger="procrastinate")
    caplog.set_level(logging.INFO, logger="pacekeeper.jobs")
    # The probe needs no services; the schedule finds no queue to fill; the hourly purge
    # (at :17, whatever the hour this runs at) finds nothing to forget.
    async def nothing_to_purge() -> int:
        return 0

    services = cast(Services, SimpleNamespace(
        jobs=None, fitness=SimpleNamespace(purge_expired=nothing_to_purge)))
    worker = asyncio.create_task(queue.work(services, name="probe-worker"))
    try:
        await probe.defer_async(n=1)
        await async_wait_for(lambda: has_run(1), 15, "the first job")

        # The outage: no new connection, every open one cut.
        await admin.execute(f'ALTER DATABASE "{name}" ALLOW_CONNECTIONS false')
        await admin.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                            "WHERE datname = $1", name)
        await asyncio.sleep(OUTAGE_S)
        await admin.execute(f'ALTER DATABASE "{name}" ALLOW_CONNECTIONS true')
        await async_wait_for(warned, 45, "the worker's warning")

        # Back: a new job runs (the worker started again on its own).
        for _ in range(50):  # the pool may still be reconnecting: a bounded retry
            try:
                await probe.defer_async(n=2)
                break
            except Exception:
                await asyncio.sleep(0.2)
        await async_wait_for(lambda: has_run(2), 45, "a job after the outage")
        assert not worker.done()
    finally:
        await admin.execute(f'ALTER DATABASE "{name}" ALLOW_CONNECTIONS true')
        await admin.close()
        await stop_worker(worker)
        await queue.close()

    with_traceback = [r.getMessage() for r in caplog.records if r.exc_info]
    assert with_traceback == []
    assert "Traceback" not in caplog.text
    said = warnings()
    assert said and all("starting again in" in w for w in said), said
    # Backoff: one warning per restart (after 1 s, 2 s, 4 s ...), not one per poll.
    assert len(said) <= 4, said
