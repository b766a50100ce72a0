"""Issue 28: 40 `PATCH /api/athlete` with new `valid_from` dates in 1.7 s queued 40 full
recomputes of the person's metrics. Recomputes are now coalesced per person (one waits at
a time, from the earliest changed day) and settings changes are limited per person."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Callable
from datetime import date, timedelta
from typing import Any

import pytest

from pacekeeper.fitness import Owner


async def _person(h: Any) -> dict[str, str]:
    body = await h.register(f"settings-{uuid.uuid4().hex[:8]}@example.com")
    h.client.cookies.clear()
    return {"authorization": f"Bearer {body['token']}"}


@pytest.mark.parametrize("migrated_db", ["sqlite", "postgres"], indirect=True)
async def test_many_settings_changes_coalesce_into_few_recomputes(
    harness_factory: Callable[..., Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    """40 changes, each from an earlier day than the last, while the first recompute
    runs (as a full recompute of a long history does): the other 39 wait as one, from
    the earliest changed day, so two recomputes run and nothing is left out."""
    async with harness_factory(settings_limit_per_minute=100) as h:
        auth = await _person(h)
        runs: list[date] = []
        real = h.services.fitness.recompute
        sent = asyncio.Event()

        async def counting(owner: Owner, *, since: date | None = None) -> int:
            assert since is not None
            runs.append(since)
            await sent.wait()  # a long recompute: running while the changes arrive
            return await real(owner, since=since)

        monkeypatch.setattr(h.services.fitness, "recompute", counting)
        days = [date(2026, 6, 1) - timedelta(days=i) for i in range(40)]
        jobs = []
        for i, day in enumerate(days):
            answer = await h.client.patch("/api/athlete", headers=auth, json={
                "ftp_watts": 200 + i, "valid_from": day.isoformat()})
            assert answer.status_code == 200, answer.text
            jobs.append(answer.json()["recompute_job"])
            if i == 0:  # the first recompute has started before the next change
                for _ in range(500):
                    if runs:
                        break
                    await asyncio.sleep(0.01)
        sent.set()
        assert h.services.jobs is not None
        assert await h.services.jobs.wait(jobs[-1]) == "succeeded"
        for job in set(jobs) - {None}:
            await h.services.jobs.wait(job)
        print(f"40 settings changes: {len(runs)} recomputes ran")
        assert runs == [days[0], days[-1]]


@pytest.mark.parametrize("migrated_db", ["sqlite"], indirect=True)
async def test_settings_changes_are_rate_limited_per_person(
    harness_factory: Callable[..., Any],
) -> None:
    """PACEKEEPER_SETTINGS_LIMIT_PER_MINUTE changes a minute per person; 429 past it,
    another person unaffected; reading is not limited by it."""
    async with harness_factory(settings_limit_per_minute=3) as h:
        first, second = await _person(h), await _person(h)
        codes = [(await h.client.patch("/api/athlete", headers=first,
                                       json={"ftp_watts": 200 + i})).status_code
                 for i in range(4)]
        assert codes == [200, 200, 200, 429]
        refused = await h.client.patch("/api/athlete", headers=first, json={"ftp_watts": 1})
        assert refused.json() == {"error": "rate_limited",
                                  "message": "too many settings changes; retry in a minute"}
        assert int(refused.headers["retry-after"]) >= 1
        assert (await h.client.get("/api/athlete", headers=first)).status_code == 200
        other = await h.client.patch("/api/athlete", headers=second, json={"ftp_watts": 250})
        assert other.status_code == 200
