"""Sync a person's activities and daily health from a connected provider.

Incremental: each provider's sync state keeps a cursor (the start of the newest activity
stored); a sync asks for what started after it (the first one for ``history_days``).
Activities are stored oldest first and the cursor moves after each one, so a sync that
dies half-way resumes where it stopped, and a re-delivered activity is recognised by its
source (no duplicates). Single flight per person and provider, across processes: a sync
claims the state row with one conditional UPDATE (a lease renewed as it works; a lease
not renewed for ``LEASE_S`` is taken over). Daily health has its own cursor
(``health_through`` in the state's detail: the last day a finished health fetch reached),
so a sync that stops before its health part (a pause, a failure) fetches those days next
time instead of only the days after the newest activity. A provider's 429 is waited out (its
``Retry-After``) up to ``max_wait_s`` at a time; a longer wait pauses the sync, which the
next run resumes from its cursor.
"""

from __future__ import annotations

import asyncio
import logging
import uuid
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, time, timedelta
from typing import Any, TypeVar

from pacekeeper.connections import ConnectionProblem, ConnectionService, ProviderSession
from pacekeeper.fitness._records import DailyHealth, NewActivity, Owner, SourceRef, SyncState
from pacekeeper.fitness._service import FitnessService, richness
from pacekeeper.fitness._settings import provider_settings
from pacekeeper.fitness._views import activity_event
from pacekeeper.fitness.models import Activity, Athlete, DailySummary, SleepSession
from pacekeeper.fitness.streams import StreamSet
from pacekeeper.fitness.summary import summary_values
from pacekeeper.providers import (
    PROVIDERS,
    ProviderCall,
    ProviderClient,
    ProviderSpec,
    TokenSet,
    history_activities,
    history_start,
)

log = logging.getLogger("pacekeeper.sync")
Progress = Callable[[float, float | None, str], Awaitable[None]]
# Where the person's live events go (pacekeeper.live.LiveFeed.publish): user id, event.
EventSink = Callable[[uuid.UUID, dict[str, Any]], Awaitable[None]]
T = TypeVar("T")
LEASE_S = 120.0


@dataclass
class SyncReport:
    provider: str
    status: str = "running"  # running, done, paused, failed, busy
    imported: int = 0
    merged: int = 0
    duplicates: int = 0
    with_streams: int = 0
    days: int = 0
    message: str = ""
    cursor: str | None = None
    errors: list[str] = field(default_factory=list)
    # Set when paused by a provider's rate limit: seconds until it resets.
    retry_after: float | None = None
    # The last day whose health a finished fetch stored (ISO date), carried from run to run.
    health_through: str | None = None
    # Where the first sync's history began (ISO instant, providers.history_start), carried.
    history_from: str | None = None
    # Settings imported from the provider's athlete API in this run (name -> value).
    thresholds: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {"provider": self.provider, "status": self.status, "imported": self.imported,
                "merged": self.merged, "duplicates": self.duplicates,
                "with_streams": self.with_streams, "days": self.days,
                "message": self.message, "cursor": self.cursor,
                "health_through": self.health_through, "history_from": self.history_from,
                **({"thresholds": self.thresholds} if self.thresholds else {})}


def new_activity(a: Activity) -> NewActivity:
    return NewActivity(
        sport=a.sport.value, start_at=a.start,
        **summary_values(a), source_sport=a.provider_sport, name=a.name,
        utc_offset_s=a.utc_offset_s, device_name=a.device_name,
    )  # fmt: skip


def _asleep_s(sleep: SleepSession) -> float:
    """Time asleep: the provider's own figure (Fitbit ``minutesAsleep``), else the sleep
    stages added up (deep, light, REM), else the session's length. Fitbit's ``duration``
    is time in bed, awake minutes included (its documentation: timeInBed = minutes to
    fall asleep + asleep + awake + after wakeup)."""
    if sleep.asleep_min is not None:
        return sleep.asleep_min * 60
    stages = sleep.stages
    if stages is not None:
        parts = [m for m in (stages.deep_min, stages.light_min, stages.rem_min) if m is not None]
        if parts:
            return sum(parts) * 60
    return sleep.duration_s


def _health(provider: str, d: DailySummary | None = None, sleep: SleepSession | None = None
            ) -> DailyHealth:
    if sleep is not None:
        stages = sleep.stages
        # No sleep score: Fitbit's efficiency (asleep / in bed) is not one, and readiness
        # would read its usual 85-97 as a good night every night.
        return DailyHealth(
            sleep.date, provider, sleep_s=_asleep_s(sleep),
            sleep_deep_min=stages.deep_min if stages else None,
            sleep_light_min=stages.light_min if stages else None,
            sleep_rem_min=stages.rem_min if stages else None,
            sleep_awake_min=stages.awake_min if stages else None)
    assert d is not None
    return DailyHealth(d.date, provider, resting_hr=d.resting_heartrate,
                       hrv_rmssd_ms=d.hrv_rmssd_ms, steps=d.steps)


class SyncService:
    def __init__(self, fitness: FitnessService, connections: ConnectionService, *,
                 history_days: int = 365, health_days: int = 60,
                 max_wait_s: float = 60.0, lease_s: float = LEASE_S,
                 events: EventSink | None = None) -> None:
        self.fitness = fitness
        self.events = events
        self.connections = connections
        self.history_days = history_days
        # A first sync reaches back less far for daily health than for activities
        # (Garmin serves it a day per request, two kinds of it).
        self.health_days = health_days
        # A wait does not renew the lease: keep it well inside the lease, or a second
        # process would take the sync over while this one waits.
        self.lease_s = lease_s
        self.max_wait_s = min(max_wait_s, lease_s / 2)

    @property
    def clock(self) -> Callable[[], datetime]:
        return self.fitness.clock

    async def state(self, owner: Owner, provider: str) -> SyncState | None:
        return await self.fitness.store.sync_state(owner.user_id, provider)

    async def _call(self, session: ProviderSession, provider: str,
                    action: Callable[[ProviderClient, TokenSet], Awaitable[Any]]) -> Any:
        """One provider call; a 429 is waited out (up to ``max_wait_s``) and retried."""
        while True:
            try:
                return await session.call(action)
            except ConnectionProblem as problem:
                wait = getattr(problem, "retry_after", None)
                if problem.code != "provider_rate_limited" or wait is None \
                        or wait > self.max_wait_s:
                    raise
                log.info("sync waits %s s for %s's rate limit", wait, provider)
                await asyncio.sleep(float(wait))

    async def sync(self, owner: Owner, provider: str, *, progress: Progress | None = None
                   ) -> SyncReport:
        report = SyncReport(provider)
        store = self.fitness.store
        now = self.clock()
        if not await store.claim_sync(owner, provider, now, lease_s=self.lease_s):
            report.status, report.message = "busy", "a sync of this provider is running"
            return report
        state = await store.sync_state(owner.user_id, provider)
        cursor = state.cursor_at if state and state.cursor_at else None
        report.health_through = _health_through(state)
        report.history_from = (_carried(state, "history_from") if cursor is not None
                               else history_start(now, self.history_days).isoformat())
        await self._event(owner, {"type": "sync", "provider": provider, "status": "running",
                                  "message": f"{provider}: sync started"})
        # One session for the whole sync: the connection row is read once, not twice a
        # request (issue 29: 732 reads for a first sync of 365 Strava activities, now 1).
        session = self.connections.session(owner.user_id, provider)
        try:
            # Before the activities: a first sync's rides get their load from the FTP.
            await self._thresholds(owner, provider, session, report)
            await self._activities(owner, provider, session, cursor, now, report, progress)
            # From the day the last finished health fetch reached (it may have been
            # partial then), else as far back as a first sync reaches.
            reach = now - timedelta(days=min(self.health_days, self.history_days))
            through = report.health_through
            health_since = reach if through is None else max(
                reach, datetime.combine(date.fromisoformat(through), time(), UTC))
            await self._health(owner, provider, session, health_since, report, progress)
            report.status = "done"
            report.message = (f"{report.imported} new, {report.merged} merged, "
                              f"{report.duplicates} already stored, {report.days} days")
        except ConnectionProblem as problem:
            report.status = "paused" if problem.code == "provider_rate_limited" else "failed"
            report.message = problem.message
            if report.status == "paused":
                report.retry_after = getattr(problem, "retry_after", None)
        except Exception as exc:  # recorded on the state; the next run resumes
            log.error("sync of %s failed: %s", provider, type(exc).__name__)
            report.status, report.message = "failed", "the sync failed; it resumes next time"
        finally:
            await self._save(owner, provider, report, finished=True)
            await self._event(owner, {"type": "sync", "provider": provider,
                                      "status": report.status, "message": report.message,
                                      "report": report.to_json()})
        return report

    async def _event(self, owner: Owner, event: dict[str, Any]) -> None:
        if self.events is not None:
            await self.events(owner.user_id, event)

    async def _save(self, owner: Owner, provider: str, report: SyncReport, *,
                    finished: bool = False, cursor: datetime | None = None) -> None:
        store = self.fitness.store
        state = await store.sync_state(owner.user_id, provider)
        now = self.clock()
        await store.save_sync_state(owner, SyncState(
            provider=provider,
            status=report.status if finished else "running",
            cursor_at=cursor or (state.cursor_at if state else None),
            detail=report.to_json(),
            started_at=state.started_at if state else now,
            finished_at=now if finished else None,
            updated_at=now,
        ))

    def _spec(self, provider: str) -> ProviderSpec:
        self.connections.client(provider)  # unknown or unconfigured: the usual problem
        return PROVIDERS[provider]

    def _caller(self, session: ProviderSession, provider: str) -> ProviderCall:
        async def call(action: Callable[[Any, TokenSet], Awaitable[T]]) -> T:
            found: T = await self._call(session, provider, action)
            return found
        return call

    async def _activities(self, owner: Owner, provider: str, session: ProviderSession,
                          cursor: datetime | None,
                          now: datetime, report: SyncReport, progress: Progress | None
                          ) -> None:
        # The provider's spec reads it (with streams where it has them), in batches
        # oldest first; the cursor moves after each batch is stored. A first sync takes
        # the history window every provider shares (providers.history_activities); later
        # ones what the provider has after the cursor.
        spec = self._spec(provider)
        call = self._caller(session, provider)
        batches = (spec.sync.activities(call, cursor, now) if cursor is not None
                   else history_activities(spec.sync, call, now, self.history_days))
        async for batch in batches:
            for activity, raw in batch.items:
                # The provider's mapper put its samples on the 1 Hz grid, as a file's.
                await self._store(owner, provider, activity, raw, report)
            await self._save(owner, provider, report, cursor=batch.cursor)
            await self._event(owner, {
                "type": "sync", "provider": provider, "status": "running",
                "done": batch.done, "total": batch.total, "unit": batch.unit,
                "imported": report.imported,
                "message": f"{provider}: {batch.done} of {batch.total} {batch.unit}"})
            if progress is not None:
                await progress(batch.done, batch.total,
                               f"{provider}: {batch.done} of {batch.total} {batch.unit}")

    async def _store(self, owner: Owner, provider: str, activity: Activity,
                     streams: StreamSet | None, report: SyncReport) -> None:
        ref = SourceRef("provider", provider=provider, provider_activity_id=activity.provider_id,
                        channels=richness(streams)[0] if streams is not None else 0)
        outcome = await self.fitness.ingest(owner, new_activity(activity), streams, ref)
        if outcome.duplicate:
            report.duplicates += 1
        elif outcome.merged:
            report.merged += 1
        else:
            report.imported += 1
            if outcome.activity is not None:
                await self._event(owner, activity_event(outcome.activity, provider))
        if streams is not None and len(streams):
            report.with_streams += 1

    async def _thresholds(self, owner: Owner, provider: str, session: ProviderSession,
                          report: SyncReport) -> None:
        """The provider's thresholds (FTP, maximum HR, weight: ``provider_settings``) as
        the person's settings with the provider as their source, for the settings the
        person has never set themselves. A setting with no value before holds from the
        start of the synced history (the activities synced get their load from it); a
        changed one from today. Activities stored from that day are recomputed, as after
        a person's change. A profile the provider refuses or answers badly
        (``provider_error``: a scope not granted) skips the import, never the sync; a
        provider out of reach, rate limited or needing a reconnect stops the sync as its
        first activity request would (pausing it, or failing it to resume next time)."""
        try:
            athlete: Athlete = await self._call(session, provider,
                                                lambda c, t: c.fetch_athlete(t))
        except ConnectionProblem as problem:
            if problem.code != "provider_error":
                raise
            log.info("sync of %s: no athlete profile (%s)", provider, problem.code)
            return
        offered = {"ftp_watts": athlete.ftp_watts, "max_hr_bpm": athlete.max_heartrate,
                   "weight_kg": athlete.weight_kg}
        found = provider_settings(await self.fitness.store.settings(owner.user_id), offered)
        if not found:
            return
        today = self.clock().date()
        start = (datetime.fromisoformat(report.history_from).date() if report.history_from
                 else today)
        firsts = {k: v for k, (v, first) in found.items() if first}
        changed = {k: v for k, (v, first) in found.items() if not first}
        for values, day in ((firsts, min(start, today)), (changed, today)):
            if values:
                await self.fitness.store.set_settings(owner, values, day, self.clock(),
                                                      source=provider)
        report.thresholds = {k: v for k, (v, _) in found.items()}
        await self.fitness.recompute(owner, since=min(start, today) if firsts else today)

    async def _health(self, owner: Owner, provider: str, session: ProviderSession,
                      since: datetime, report: SyncReport,
                      progress: Progress | None) -> None:
        spec = self._spec(provider)
        if not spec.capabilities.daily_health:
            return
        first = since.astimezone(UTC).date()
        last = self.clock().date()
        found = await spec.sync.health(self._caller(session, provider), first, last)
        days = [_health(provider, d) for d in found.dailies]
        days += [_health(provider, sleep=s) for s in found.sleeps if s.is_main_sleep]
        if days:
            await self.fitness.store.upsert_daily(owner, days, self.clock())
            report.days = len({d.day for d in days})
            if progress is not None:
                await progress(1, 1, f"{provider}: {report.days} days of health data")
        report.health_through = last.isoformat()


def _carried(state: SyncState | None, key: str) -> str | None:
    value = state.detail.get(key) if state is not None else None
    return value if isinstance(value, str) else None


def _health_through(state: SyncState | None) -> str | None:
    value = state.detail.get("health_through") if state is not None else None
    if not isinstance(value, str):
        return None
    try:
        return date.fromisoformat(value).isoformat()
    except ValueError:
        return None





class BackgroundSyncs:
    """Syncs started by a request and run after it answers (one task per person and
    provider in this process; the database claim keeps it to one across processes)."""

    def __init__(self, syncs: SyncService) -> None:
        self.syncs = syncs
        self._tasks: dict[tuple[str, str], asyncio.Task[SyncReport]] = {}

    def start(self, owner: Owner, provider: str) -> bool:
        """True when a new sync task was started; False when one is already running."""
        key = (str(owner.user_id), provider)
        running = self._tasks.get(key)
        if running is not None and not running.done():
            return False
        task = asyncio.create_task(self.syncs.sync(owner, provider))
        self._tasks[key] = task
        task.add_done_callback(lambda _t: self._tasks.pop(key, None))
        return True

    async def close(self) -> None:
        for task in list(self._tasks.values()):
            task.cancel()
        await asyncio.gather(*self._tasks.values(), return_exceptions=True)

__all__ = ["BackgroundSyncs", "SyncReport", "SyncService", "new_activity"]
