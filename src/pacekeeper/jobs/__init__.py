"""Background work on procrastinate (docs/fitness.md, "Background work").

One queue, two stores: on PostgreSQL the jobs live in the service's own database
(procrastinate's tables, created by migration 0011), so every process enqueues into and
works from the same queue, and a job survives a crash of the process that ran it; with
SQLite (the embedded setup) the same tasks run on procrastinate's in-memory connector
inside `pacekeeper serve`, with every job also kept in the SQLite file, so the jobs
queued or running when the process dies run after it starts again (jobs/_durable.py).
Jobs:

- ``sync_provider(user, tenant, provider)``: one provider sync (SyncService: its cursor
  makes it resumable, its database lease keeps it to one per person and provider across
  processes). Queued with a queueing lock per person and provider, so a sync that is
  already waiting is not queued twice; a sync paused by a provider's rate limit queues
  itself again for when the limit resets.
- ``recompute_metrics(user, since)``: the metrics of a person's activities from a day on,
  after a settings change; coalesced, so at most one waits per person, from the earliest
  changed day.
- ``rederive_activities()``: after an upgrade that changed the engine (fitness/_engine.py),
  one batch per person of the activities an older engine computed, parsed again from
  their file or recomputed from their streams (``FitnessService.rederive``); queued at
  start, it queues itself again while any remain. One at a time (a queueing lock and a
  lock); the per-activity stamp is its progress, so a crash loses nothing.
- ``import_export(user, tenant, import_id)``: a whole-account export uploaded to
  ``POST /api/imports`` (fitness/exports), worked through one unit at a time with its
  progress saved, so a run after a restart goes on where it stopped. One per person at
  a time (a lock per person): one person's history never takes every import worker.
- ``schedule_syncs`` (periodic, every 5 minutes; deferred once per tick across all
  workers): queues a sync for every connected person whose last sync of that provider
  finished more than ``PACEKEEPER_SYNC_INTERVAL_MINUTES`` ago.
- ``purge_expired`` (periodic, hourly): forgets what a provider brought longer ago than
  its terms let us keep it (Strava: 7 days) and no file of the person's also gave
  (``FitnessService.purge_expired``; docs/providers.md).

On PostgreSQL every worker also sweeps the jobs of dead workers back into the queue, and
lives through a database restart with one warning (jobs/_resilience.py).
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
import time
import uuid
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import date, timedelta
from typing import TYPE_CHECKING, Any, Protocol, cast

import procrastinate
from opentelemetry.trace import SpanKind
from procrastinate import exceptions as pq_errors
from procrastinate.testing import InMemoryConnector
from sqlalchemy.engine import make_url

from pacekeeper.backing import is_unavailable, service_of
from pacekeeper.jobs._durable import DurableMemoryConnector
from pacekeeper.jobs._resilience import quiet_filters, sweep_stalled
from pacekeeper.metrics import SYNC_JOBS
from pacekeeper.owner import Owner
from pacekeeper.spans import background_span

if TYPE_CHECKING:
    from datetime import datetime

    from pacekeeper.config import Settings
    from pacekeeper.connections import ConnectionLayer
    from pacekeeper.db import UserRepository
    from pacekeeper.fitness import FitnessService
    from pacekeeper.fitness.exports import ExportImports, HistoryImport
    from pacekeeper.sync import SyncService

log = logging.getLogger("pacekeeper.jobs")
QUEUE = "pacekeeper"
SCHEDULE_CRON = "*/5 * * * *"
# Hourly: a provider's term (Strava's 7 days) is kept to within the hour.
PURGE_CRON = "17 * * * *"
REDERIVE_LOCK = "rederive"
# A worker stopped by a lost connection starts again after 1 s, doubling to 30 s.
RESTART_FIRST_S, RESTART_MAX_S = 1.0, 30.0
# A job cut short by a shutdown (its grace ran out) goes back to the queue and runs again
# on a live worker; a sync resumes from its cursor. Other failures are not retried.
SHUTDOWN_RETRY = procrastinate.RetryStrategy(
    max_attempts=5, wait=1,
    retry_exceptions=cast(Any, {asyncio.CancelledError, pq_errors.JobAborted}))


class JobServices(Protocol):
    """What the tasks and the schedule read from the services a worker is handed: named
    here, so that the queue need not import the container that builds it (the
    container, `pacekeeper.services.Services`, has these and more)."""

    @property
    def fitness(self) -> FitnessService: ...
    @property
    def users(self) -> UserRepository: ...
    @property
    def clock(self) -> Callable[[], datetime]: ...
    @property
    def syncs(self) -> SyncService | None: ...
    @property
    def jobs(self) -> JobQueue | None: ...
    @property
    def connection_layer(self) -> ConnectionLayer | None: ...
    @property
    def exports(self) -> ExportImports | None: ...


def _services(context: procrastinate.JobContext) -> JobServices:
    found: JobServices = context.additional_context["services"]
    return found


def sync_lock(user: str, provider: str) -> str:
    return f"sync:{user}:{provider}"


def _traced(task: Callable[..., Awaitable[None]]) -> Callable[..., Awaitable[None]]:
    """A job's run as a trace of its own (spans.background_span): its statements and
    provider calls under one root span, never a trace per statement."""

    @functools.wraps(task)
    async def run(context: procrastinate.JobContext, *args: Any, **kwargs: Any) -> None:
        job = context.job
        with background_span(f"job {job.task_name}", {
                "pacekeeper.job.name": job.task_name, "pacekeeper.job.id": job.id or 0,
                "pacekeeper.job.attempt": job.attempts}, kind=SpanKind.CONSUMER):
            await task(context, *args, **kwargs)

    return run


def _register(app: procrastinate.App) -> dict[str, Any]:
    """The tasks, registered on one App (each App its own: procrastinate binds a task
    to the app that registered it)."""

    @app.task(name="sync_provider", queue=QUEUE, pass_context=True, retry=SHUTDOWN_RETRY)
    @_traced
    async def sync_provider(context: procrastinate.JobContext, user: str, tenant: str,
                            provider: str) -> None:
        services = _services(context)
        if services.syncs is None or services.jobs is None:
            return
        owner = Owner(uuid.UUID(user), uuid.UUID(tenant))
        try:
            report = await services.syncs.sync(owner, provider)
        except Exception:
            SYNC_JOBS.labels(provider, "failed").inc()
            raise
        SYNC_JOBS.labels(provider, report.status).inc()
        log.info("background %s sync: %s", provider, report.status)
        if report.status == "paused" and report.retry_after is not None:
            # The provider's window resets later: come back then, from the cursor.
            await services.jobs.enqueue_sync(owner, provider, delay_s=report.retry_after + 1)
        elif report.status == "busy":
            # Another run holds the lease: come back when it would lapse. A crashed run's
            # lease lapses and the retry resumes from its cursor; after a live run the
            # retry finds little or nothing new.
            state = await services.fitness.store.sync_state(owner.user_id, provider)
            if state is not None and state.updated_at is not None:
                lapses = state.updated_at + timedelta(seconds=services.syncs.lease_s)
                delay = (lapses - services.clock()).total_seconds()
                if delay > 0:
                    await services.jobs.enqueue_sync(owner, provider, delay_s=delay + 1)


    @app.task(name="recompute_metrics", queue=QUEUE, pass_context=True,
              retry=SHUTDOWN_RETRY)
    @_traced
    async def recompute_metrics(context: procrastinate.JobContext, user: str, since: str) -> None:
        services = _services(context)
        found = await services.users.get(uuid.UUID(user))
        if found is None:  # deleted meanwhile: nothing of theirs is left to recompute
            return
        count = await services.fitness.recompute(Owner(found.id, found.tenant_id),
                                                 since=date.fromisoformat(since))
        log.info("recomputed the metrics of %d activities", count)


    @app.task(name="rederive_activities", queue=QUEUE, pass_context=True,
              retry=SHUTDOWN_RETRY)
    @_traced
    async def rederive_activities(context: procrastinate.JobContext) -> None:
        from pacekeeper.fitness._service import REDERIVE_BATCH  # the service's, lazily

        services = _services(context)
        report = await services.fitness.rederive_all(per_owner=REDERIVE_BATCH)
        if report.total:
            log.info("re-derived %d activities (%d files parsed again, %d recomputed, "
                     "%d unreadable)", report.total, report.reparsed, report.recomputed,
                     report.failed)
            if services.jobs is not None:  # a batch each: the next one after the others
                await services.jobs.enqueue_rederive()


    @app.task(name="import_export", queue=QUEUE, pass_context=True, retry=SHUTDOWN_RETRY)
    @_traced
    async def import_export(context: procrastinate.JobContext, user: str, tenant: str,
                            import_id: str) -> None:
        services = _services(context)
        if services.exports is not None:
            await services.exports.run(Owner(uuid.UUID(user), uuid.UUID(tenant)),
                                       uuid.UUID(import_id))


    @app.periodic(cron=SCHEDULE_CRON)
    @app.task(name="schedule_syncs", queue=QUEUE, pass_context=True)
    @_traced
    async def schedule_syncs(context: procrastinate.JobContext, timestamp: int) -> None:
        services = _services(context)
        if services.jobs is not None:
            queued = await services.jobs.enqueue_due_syncs()
            if queued:
                log.info("scheduled %d background syncs", queued)


    @app.periodic(cron=PURGE_CRON)
    @app.task(name="purge_expired", queue=QUEUE, pass_context=True)
    @_traced
    async def purge_expired(context: procrastinate.JobContext, timestamp: int) -> None:
        gone = await _services(context).fitness.purge_expired()
        if gone:
            log.info("purged %d activities kept past their provider's term", gone)

    return {"sync_provider": sync_provider, "recompute_metrics": recompute_metrics,
            "rederive_activities": rederive_activities, "schedule_syncs": schedule_syncs,
            "purge_expired": purge_expired, "import_export": import_export}


def _conninfo(database_url: str) -> str:
    """The service's SQLAlchemy URL as a libpq URL for psycopg."""
    url = make_url(database_url).set(drivername="postgresql")
    return url.render_as_string(hide_password=False)


@dataclass
class JobQueue:
    """The service's queue: enqueue, run a worker, wait for a job."""

    app: procrastinate.App
    settings: Settings
    shared: bool  # PostgreSQL: every process shares it
    tasks: dict[str, Any]

    @classmethod
    def for_settings(cls, settings: Settings) -> JobQueue:
        url = settings.effective_database_url
        shared = url.startswith("postgresql")
        connector: Any = (procrastinate.PsycopgConnector(conninfo=_conninfo(url),
                                                         min_size=1, max_size=4)
                          if shared else DurableMemoryConnector(url))
        app = procrastinate.App(connector=connector)
        return cls(app, settings, shared, _register(app))

    async def open(self) -> None:
        await self.app.open_async()

    async def close(self) -> None:
        await self.app.close_async()

    # -- enqueueing ---------------------------------------------------------------

    async def enqueue_sync(self, owner: Owner, provider: str, *, delay_s: float | None = None
                           ) -> bool:
        """Queue one sync; False when the same sync is already waiting in the queue."""
        user = str(owner.user_id)
        key = sync_lock(user, provider)
        try:
            await self.tasks["sync_provider"].configure(
                queueing_lock=key, lock=key,
                schedule_in={"seconds": int(delay_s)} if delay_s else None,
            ).defer_async(user=user, tenant=str(owner.tenant_id), provider=provider)
        except pq_errors.AlreadyEnqueued:
            return False
        return True

    async def enqueue_recompute(self, owner: Owner, since: date) -> int | None:
        """Queue a recomputation from ``since``; the id of the job that will cover it.

        Coalesced per person (issue 28: 40 settings changes queued 40 full recomputes):
        at most one waits at a time. A waiting one from ``since`` or earlier covers this
        change too (it has not read the settings yet); one from a later day is replaced
        by one from ``since``. One may run meanwhile: the person's lock keeps them apart.
        """
        user = str(owner.user_id)
        key = f"recompute:{user}"
        manager = self.app.job_manager
        for _ in range(3):  # a waiting job may start or go between the calls below
            try:
                job_id: int = await self.tasks["recompute_metrics"].configure(
                    queueing_lock=key, lock=key,
                ).defer_async(user=user, since=since.isoformat())
            except pq_errors.AlreadyEnqueued:
                pass
            else:
                return job_id
            for job in await manager.list_jobs_async(queueing_lock=key, status="todo"):
                if job.id is None:
                    continue
                if date.fromisoformat(str(job.task_kwargs["since"])) <= since:
                    return job.id
                await manager.cancel_job_by_id_async(job.id, delete_job=True)
        return None

    async def enqueue_rederive(self) -> bool:
        """Queue a re-derivation batch (fitness/_engine.py); False when one is waiting."""
        try:
            await self.tasks["rederive_activities"].configure(
                queueing_lock=REDERIVE_LOCK, lock=REDERIVE_LOCK).defer_async()
        except pq_errors.AlreadyEnqueued:
            return False
        return True

    async def enqueue_export(self, job: HistoryImport) -> int:
        """Queue an uploaded export's import; the person's lock runs theirs one by one."""
        user = str(job.user_id)
        job_id: int = await self.tasks["import_export"].configure(
            lock=f"import:{user}").defer_async(user=user, tenant=str(job.tenant_id),
                                               import_id=str(job.id))
        return job_id

    async def enqueue_due_syncs(self) -> int:
        """A sync for every connected person and provider whose last one is older than
        the interval (or who never synced)."""
        services = self.services
        if services is None or services.connection_layer is None:
            return 0
        now = services.clock()
        due_before = now - timedelta(minutes=self.settings.sync_interval_minutes)
        queued = 0
        repository = services.connection_layer.repository
        for user_id, tenant_id, provider in await repository.connected():
            state = await services.fitness.store.sync_state(user_id, provider)
            last = None if state is None else (state.finished_at or state.started_at)
            if last is not None and last > due_before:
                continue
            queued += await self.enqueue_sync(Owner(user_id, tenant_id), provider)
        return queued

    # -- the worker ---------------------------------------------------------------

    services: JobServices | None = None

    async def work(self, services: JobServices, *, name: str = "pacekeeper") -> None:
        """Run a worker until cancelled. On PostgreSQL it sweeps dead workers' jobs back
        into the queue, and a lost database connection stops procrastinate's worker:
        this logs one warning and starts it again, with backoff."""
        self.services = services
        stalled = self.settings.worker_stalled_seconds
        filters = quiet_filters(name)
        for logger, quiet in filters:
            logger.addFilter(quiet)
        sweeper = asyncio.create_task(self._sweep_forever()) if self.shared else None
        delay = RESTART_FIRST_S
        try:
            while True:
                began = time.monotonic()
                try:
                    await self.app.run_worker_async(
                        queues=[QUEUE], name=name,
                        concurrency=self.settings.worker_concurrency,
                        install_signal_handlers=False, delete_jobs="successful",
                        additional_context={"services": services},
                        # Without LISTEN/NOTIFY (in memory) a new job is seen at the next poll.
                        fetch_job_polling_interval=1.0 if self.shared else 0.2,
                        shutdown_graceful_timeout=self.settings.shutdown_grace_seconds,
                        update_heartbeat_interval=stalled / 3,
                        stalled_worker_timeout=stalled,
                    )
                    # Only cancelling stops it here (CancelledError): a return means one of
                    # its side tasks (heartbeat, LISTEN) lost its connection.
                    reason = "lost its database connection"
                except Exception as exc:
                    if not is_unavailable(exc):
                        raise
                    reason = f"{service_of(exc)} unavailable ({type(exc).__name__})"
                if time.monotonic() - began > RESTART_MAX_S:
                    delay = RESTART_FIRST_S  # it ran a while: a new outage starts over
                log.warning("queue worker %s stopped: %s; starting again in %.0f s",
                            name, reason, delay)
                await asyncio.sleep(delay)
                delay = min(delay * 2, RESTART_MAX_S)
        finally:
            if sweeper is not None:
                await stop_worker(sweeper)
            for logger, quiet in filters:
                logger.removeFilter(quiet)

    async def _sweep_forever(self) -> None:
        """Every third of the stalled timeout: dead workers' jobs back into the queue. Not
        in the first full timeout, nor in the one after the database could not be
        reached: every live worker beats in the meantime."""
        stalled = self.settings.worker_stalled_seconds
        connector: Any = self.app.connector
        hold_until = time.monotonic() + stalled
        while True:
            await asyncio.sleep(stalled / 3)
            if time.monotonic() < hold_until:
                continue
            try:
                handed_back = await sweep_stalled(connector.pool, QUEUE, stalled)
            except Exception as exc:
                if not is_unavailable(exc):  # a bug: said once, and the sweeps go on
                    log.exception("sweeping stalled jobs failed")
                # Unreachable: the worker's own warning says so.
                hold_until = time.monotonic() + stalled
                continue
            if handed_back:
                log.warning("%d job(s) of a worker silent for %.0f s back in the queue: %s",
                            len(handed_back), stalled, handed_back)

    def start_worker(self, services: JobServices) -> asyncio.Task[None]:
        self.services = services
        return asyncio.create_task(self.work(services, name="serve"))

    async def depth(self) -> int:
        """Jobs waiting to run (due now or later) in this queue."""
        if not self.shared:
            connector = self.app.connector
            assert isinstance(connector, InMemoryConnector)
            return sum(1 for job in connector.jobs.values()
                       if job["status"] == "todo" and job["queue_name"] == QUEUE)
        row = await self.app.connector.execute_query_one_async(
            "SELECT count(*) AS n FROM procrastinate_jobs "
            "WHERE status = 'todo' AND queue_name = %(queue)s", queue=QUEUE)
        return int(row["n"])

    async def wait(self, job_id: int, within_s: float = 30.0) -> str:
        """Wait until a job has run; its final status (succeeded, failed, ...). A job the
        worker deleted on success reads as succeeded."""
        deadline = time.monotonic() + within_s
        while True:
            try:
                status = await self.app.job_manager.get_job_status_async(job_id)
            except Exception:  # deleted after success (delete_jobs="successful")
                return "succeeded"
            if status.value not in ("todo", "doing"):
                return str(status.value)
            if time.monotonic() > deadline:
                raise TimeoutError(f"job {job_id} still {status.value}")
            await asyncio.sleep(0.02)


async def stop_worker(task: asyncio.Task[None]) -> None:
    task.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await task


__all__ = ["QUEUE", "JobQueue", "JobServices", "stop_worker"]
