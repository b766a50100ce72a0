"""Background syncs on the job queue (pacekeeper.jobs): queued after a connection, by
Strava's and Garmin's webhooks for exactly the person they name, never twice while one
waits; a provider's 429 is waited out and the sync finishes with every activity."""

from __future__ import annotations

import asyncio
import time
import uuid
from collections.abc import Callable
from datetime import timedelta
from typing import Any

from pacekeeper.connections import ConnectionService
from pacekeeper.fitness import Owner
from pacekeeper.jobs import JobQueue
from pacekeeper.providers.sandbox import _generator as gen
from tests.pacekeeper.connections.conftest import ConnHarness


async def _until(condition: Callable[[], Any], within_s: float = 60.0) -> None:
    """Wait on a condition with a bound (no fixed sleeps)."""
    deadline = time.monotonic() + within_s
    while not await condition():
        assert time.monotonic() < deadline, "condition not met in time"
        await asyncio.sleep(0.05)


async def _connect(h: ConnHarness, email: str, provider: str, athlete: int) -> Owner:
    user_id, headers = await h.user(email)
    url = await h.approve(await h.authorization_url(provider, user_id, headers), athlete)
    assert (await h.client.get(url)).status_code == 200
    user = await h.services.users.get(uuid.UUID(user_id))
    assert user is not None
    return Owner(user.id, user.tenant_id)


def _spy(h: ConnHarness) -> list[tuple[uuid.UUID, str]]:
    """Record every sync the service queues (who and which provider)."""
    jobs = h.services.jobs
    assert jobs is not None
    calls: list[tuple[uuid.UUID, str]] = []
    original = jobs.enqueue_sync

    async def spy(owner: Owner, provider: str, **kw: Any) -> bool:
        calls.append((owner.user_id, provider))
        return await original(owner, provider, **kw)

    jobs.enqueue_sync = spy  # type: ignore[method-assign]
    return calls


async def test_connecting_queues_a_sync_that_runs(conn_factory: Callable[..., Any]) -> None:
    async with conn_factory(sync_history_days=21) as h:
        owner = await _connect(h, "queued@example.com", "strava", 7)
        store = h.services.fitness.store

        async def done() -> bool:
            state = await store.sync_state(owner.user_id, "strava")
            return state is not None and state.status == "done"

        await _until(done)
        now = h.clock()
        # Whole UTC days: every activity from the day 21 days before today (docs/fitness.md).
        expected = gen.activities_between(7, (now - timedelta(days=21)).date(), now.date())
        expected = [a for a in expected if a.start + timedelta(seconds=a.duration_s) <= now]
        page = await h.services.fitness.store.page(owner.user_id, _filters(), limit=200)
        assert len(page.items) == len(expected)


def _filters() -> Any:
    from pacekeeper.fitness import ActivityFilter
    return ActivityFilter()


async def test_the_same_sync_is_not_queued_twice(conn_factory: Callable[..., Any]) -> None:
    async with conn_factory(worker="off") as h:
        jobs = h.services.jobs
        assert isinstance(jobs, JobQueue)
        a, b = Owner(uuid.uuid4(), uuid.uuid4()), Owner(uuid.uuid4(), uuid.uuid4())
        assert await jobs.enqueue_sync(a, "strava") is True
        assert await jobs.enqueue_sync(a, "strava") is False  # already waiting
        assert await jobs.enqueue_sync(a, "garmin") is True
        assert await jobs.enqueue_sync(b, "strava") is True


async def test_strava_webhook_validation(conn_factory: Callable[..., Any]) -> None:
    async with conn_factory(worker="off", strava_webhook_verify_token="vt-123") as h:
        ok = await h.client.get("/api/webhooks/strava", params={
            "hub.mode": "subscribe", "hub.challenge": "c-42", "hub.verify_token": "vt-123"})
        assert ok.status_code == 200 and ok.json() == {"hub.challenge": "c-42"}
        bad = await h.client.get("/api/webhooks/strava", params={
            "hub.mode": "subscribe", "hub.challenge": "c-42", "hub.verify_token": "guess"})
        assert bad.status_code == 403 and "c-42" not in bad.text
    async with conn_factory(worker="off") as h:  # no token configured: refused
        none = await h.client.get("/api/webhooks/strava", params={
            "hub.mode": "subscribe", "hub.challenge": "c", "hub.verify_token": ""})
        assert none.status_code == 403


async def test_strava_event_syncs_only_the_athlete_it_names(
        conn_factory: Callable[..., Any]) -> None:
    async with conn_factory(worker="off") as h:
        seven = await _connect(h, "seven@example.com", "strava", 7)
        eight = await _connect(h, "eight@example.com", "strava", 8)
        calls = _spy(h)
        event = {"object_type": "activity", "aspect_type": "create", "object_id": 1,
                 "owner_id": 8, "subscription_id": 1, "event_time": 0, "updates": {}}
        response = await h.client.post("/api/webhooks/strava", json=event)
        assert response.status_code == 200
        assert calls == [(eight.user_id, "strava")]
        assert seven.user_id not in {user for user, _ in calls}
        stranger = await h.client.post("/api/webhooks/strava", json={**event, "owner_id": 999})
        assert stranger.status_code == 200 and stranger.json()["queued"] == 0
        athlete = await h.client.post("/api/webhooks/strava",
                                      json={**event, "object_type": "athlete"})
        assert athlete.json()["queued"] == 0
        assert len(calls) == 1
        for bad in (b"not json", b"[]", b'{"object_type": "activity"}'):
            assert (await h.client.post("/api/webhooks/strava", content=bad)).status_code == 400


async def test_garmin_push_syncs_only_its_user(conn_factory: Callable[..., Any]) -> None:
    async with conn_factory(worker="off") as h:
        first = await _connect(h, "g1@example.com", "garmin", 7)
        await _connect(h, "g2@example.com", "garmin", 8)
        service: ConnectionService | None = h.services.connections
        assert service is not None
        token = (await service.keeper.tokens(first.user_id, "garmin")).access_token
        body = await h.client.get(
            "/sandbox/admin/garmin/push",
            params={"athlete_id": "7", "date": "2026-11-02", "user_access_token": token},
            headers=await h.sandbox_admin())
        calls = _spy(h)
        response = await h.client.post("/api/webhooks/garmin/push", content=body.content)
        assert response.status_code == 200, response.text
        assert calls == [(first.user_id, "garmin")]


async def test_a_rate_limited_sync_waits_and_finishes(conn_factory: Callable[..., Any]
                                                      ) -> None:
    """Strava answers 429 with Retry-After 1 to three calls in the middle of the sync: the
    sync waits each one out, repeats the call and finishes with every activity, none
    twice. Past the quota itself (its 15-minute window), the sync pauses instead and
    its job queues itself again for when the window resets."""
    async with conn_factory(worker="off", sync_history_days=14) as h:
        owner = await _connect(h, "limited@example.com", "strava", 7)
        syncs, jobs = h.services.syncs, h.services.jobs
        assert syncs is not None and jobs is not None
        await h.admin("failures", {"provider": "strava", "mode": "429", "count": 3,
                                   "retry_after": 1})
        before = await _requests(h)
        report = await syncs.sync(owner, "strava")
        assert report.status == "done", report.message
        made = await _requests(h) - before
        assert report.imported >= 3 and report.duplicates == 0
        # The athlete's profile (its thresholds), the list, the streams, three repeats.
        assert made == 2 + report.imported + 3
        again = await syncs.sync(owner, "strava")
        assert again.status == "done" and again.imported == 0

        other = await _connect(h, "quota@example.com", "strava", 8)
        await h.admin("limits", {"provider": "strava", "limits": [[3, 900], [1000, 86400]]})
        paused = await syncs.sync(other, "strava")
        assert paused.status == "paused" and paused.retry_after is not None
        assert paused.retry_after > syncs.max_wait_s  # too long to wait inside the sync
        calls = _spy(h)
        await jobs.enqueue_sync(other, "strava", delay_s=paused.retry_after + 1)
        assert calls == [(other.user_id, "strava")]


async def _requests(h: ConnHarness) -> int:
    state = await h.client.get("/sandbox/admin/state", headers=await h.sandbox_admin())
    return int(state.json()["requests"].get("strava", 0))




async def test_health_a_sync_did_not_reach_is_fetched_next_time(
        conn_factory: Callable[..., Any]) -> None:
    """Fitbit fails (500, every retry) once the activities are stored, before the daily
    health: the next sync stores no activity twice and fetches every day of health the
    first one should have (not only the days after the newest activity, where the
    activity cursor now stands); a sync after that asks only from the last day reached."""
    async with conn_factory(worker="off", sync_history_days=14) as h:
        owner = await _connect(h, "health@example.com", "fitbit", 7)
        syncs = h.services.syncs
        assert syncs is not None

        async def fail_health(done: float, total: float | None, message: str) -> None:
            if "activities" in message and done == total:
                await h.admin("failures", {"provider": "fitbit", "mode": "500", "count": 4})

        first = await syncs.sync(owner, "fitbit", progress=fail_health)
        assert first.status == "failed" and first.imported > 0 and first.days == 0
        state = await syncs.state(owner, "fitbit")
        assert state is not None and state.cursor_at is not None
        assert state.cursor_at.date() > (h.clock() - timedelta(days=13)).date()
        second = await syncs.sync(owner, "fitbit")
        assert second.status == "done" and (second.imported, second.duplicates) == (0, 0)
        today = h.clock().date()
        assert second.days == 15  # the 14 days back and today
        stored = await h.services.fitness.daily(owner, today - timedelta(days=14), today)
        assert {d.day for d in stored} == {today - timedelta(days=k) for k in range(15)}
        third = await syncs.sync(owner, "fitbit")
        assert third.status == "done" and third.days == 1  # today again, nothing older
