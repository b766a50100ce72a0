"""A background job cut short by a shutdown goes back to the queue (issue 18: drain)."""

from __future__ import annotations

import asyncio
from datetime import date
from typing import Any

import pytest

from pacekeeper.fitness import Owner


@pytest.mark.parametrize("migrated_db", ["sqlite"], indirect=True)
async def test_job_cut_short_by_shutdown_is_queued_again(harness_factory: Any,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    started = asyncio.Event()
    calls: list[date] = []

    async def endless_recompute(owner: Owner, since: date) -> int:
        calls.append(since)
        started.set()
        await asyncio.Event().wait()  # longer than any grace
        return 0

    async with harness_factory(shutdown_grace_seconds=0.5) as h:
        body = await h.register("drain-job@example.com")
        assert body
        user = await h.services.users.get_by_email("drain-job@example.com")
        assert user is not None
        monkeypatch.setattr(h.services.fitness, "recompute",
                            lambda owner, since: endless_recompute(owner, since))
        job_id = await h.services.jobs.enqueue_recompute(Owner(user.id, user.tenant_id),
                                                         date(2024, 1, 1))
        assert job_id is not None
        await asyncio.wait_for(started.wait(), 10)
        connector = h.services.jobs.app.connector
    # The lifespan ended: the worker waited its 0.5 s grace, then aborted the job.
    job = connector.jobs[job_id]
    assert calls == [date(2024, 1, 1)]
    assert job["status"] == "todo"  # back in the queue for a live worker
    assert job["attempts"] == 1
