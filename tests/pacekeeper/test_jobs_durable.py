"""The embedded (SQLite) queue keeps its jobs in the service's SQLite file (issue 30: "the
embedded default loses queued work"; pacekeeper.jobs._durable). Two queues on one file
stand for one process and the next one after it died: the first is never closed, so
nothing of its own shutdown saves the jobs. The kill -9 of a real `pacekeeper serve` is
tests/e2e/test_embedded_queue_killed.py."""

from __future__ import annotations

import asyncio
import sqlite3
import uuid
from datetime import date, timedelta
from pathlib import Path
from types import SimpleNamespace
from typing import Any, cast

from procrastinate import utils

from pacekeeper.fitness import Owner
from pacekeeper.jobs import QUEUE, JobQueue, stop_worker
from pacekeeper.jobs._durable import DurableMemoryConnector
from pacekeeper.services import Services
from tests._migrations import down_and_up
from tests._wait import async_wait_for
from tests.pacekeeper.conftest import _migrate, make_settings


async def _database(tmp_path: Path) -> tuple[str, Path]:
    file = tmp_path / "pacekeeper.db"
    url = f"sqlite+aiosqlite:///{file}"
    await _migrate(url)
    return url, file


def _rows(file: Path) -> list[tuple[Any, ...]]:
    """The table as another process reads it (without the worker's periodic jobs)."""
    with sqlite3.connect(file) as conn:
        return conn.execute("SELECT id, task_name, status, attempts FROM queued_jobs "
                            "WHERE task_name NOT IN ('schedule_syncs', 'purge_expired') "
                            "ORDER BY id").fetchall()


async def _queue(url: str, tmp_path: Path) -> JobQueue:
    queue = JobQueue.for_settings(make_settings(url, tmp_path, worker_stalled_seconds=3))
    assert isinstance(queue.app.connector, DurableMemoryConnector)
    await queue.open()
    return queue


async def test_queued_jobs_outlive_the_process(tmp_path: Path) -> None:
    url, file = await _database(tmp_path)
    owner = Owner(uuid.uuid4(), uuid.uuid4())
    first = await _queue(url, tmp_path)
    before = utils.utcnow()
    assert await first.enqueue_sync(owner, "strava", delay_s=600)
    recompute = await first.enqueue_recompute(owner, date(2024, 3, 1))
    assert recompute is not None
    # On disk before the enqueue answered.
    assert [(r[1], r[2], r[3]) for r in _rows(file)] == [
        ("sync_provider", "todo", 0), ("recompute_metrics", "todo", 0)]

    second = await _queue(url, tmp_path)  # the first one died: never closed
    try:
        assert await second.depth() == 2
        jobs = {j["task_name"]: j for j in cast(Any, second.app.connector).jobs.values()}
        sync, again = jobs["sync_provider"], jobs["recompute_metrics"]
        assert sync["args"] == {"user": str(owner.user_id), "tenant": str(owner.tenant_id),
                                "provider": "strava"}
        assert sync["queueing_lock"] == sync["lock"] == f"sync:{owner.user_id}:strava"
        # Still due in ten minutes from when it was queued, not now.
        assert before + timedelta(seconds=599) <= sync["scheduled_at"] \
            <= before + timedelta(seconds=602)
        assert again["id"] == recompute and again["args"]["since"] == "2024-03-01"
        # The queueing lock still holds: the same sync is not queued twice, and the
        # waiting recompute from an earlier day covers a later change.
        assert not await second.enqueue_sync(owner, "strava")
        assert await second.enqueue_recompute(owner, date(2024, 5, 1)) == recompute
        # New jobs get new ids (a reused id would overwrite a kept row).
        assert await second.enqueue_sync(owner, "garmin")
        assert [r[0] for r in _rows(file)] == [sync["id"], recompute, recompute + 1]
    finally:
        await second.close()
        await first.close()


async def test_a_job_running_when_the_process_died_runs_again_and_ends(
        tmp_path: Path) -> None:
    url, file = await _database(tmp_path)
    services = cast(Services, SimpleNamespace(jobs=None))  # schedule_syncs: nothing
    first = await _queue(url, tmp_path)
    started: list[int] = []

    @first.app.task(name="probe", queue=QUEUE)
    async def stuck(n: int) -> None:
        started.append(n)
        await asyncio.Event().wait()  # still running when the process "dies"

    worker = asyncio.create_task(first.work(services, name="first"))
    second: JobQueue | None = None
    try:
        await stuck.defer_async(n=7)

        async def running() -> bool:
            return started == [7] and [r[2] for r in _rows(file)] == ["doing"]
        await async_wait_for(running, 10, "the job to start")

        second = await _queue(url, tmp_path)
        ran: list[int] = []

        @second.app.task(name="probe", queue=QUEUE)
        async def probe(n: int) -> None:
            ran.append(n)

        @second.app.task(name="boom", queue=QUEUE)
        async def boom() -> None:
            raise RuntimeError("this job fails")

        assert [j["task_name"] for j in cast(Any, second.app.connector).jobs.values()
                if j["status"] == "todo"] == ["probe"]  # back to todo
        again = asyncio.create_task(second.work(services, name="second"))
        try:
            async def ended() -> bool:
                return _rows(file) == []
            await async_wait_for(ended, 10, "the job to run again")
            assert ran == [7]  # once
            failing = await boom.defer_async()
            assert await second.wait(failing) == "failed"
            assert _rows(file) == [(failing, "boom", "failed", 1)]  # kept as a record
        finally:
            await stop_worker(again)
        third = await _queue(url, tmp_path)
        try:
            # A failed job does not come back (only the periodic ones are queued).
            assert all(j["task_name"] in ("schedule_syncs", "purge_expired")
                       for j in cast(Any, third.app.connector).jobs.values())
        finally:
            await third.close()
    finally:
        await stop_worker(worker)
        await first.close()
        if second is not None:
            await second.close()


async def test_the_queued_jobs_table_round_trips(migrated_db: str) -> None:
    """Migration 0017 on SQLite and PostgreSQL: the table matches its model, goes away on
    a downgrade to 0015 and comes back."""
    down, up = await down_and_up(migrated_db, {"queued_jobs"}, "0016_engine_version")
    assert "queued_jobs" not in down and "queued_jobs" in up
