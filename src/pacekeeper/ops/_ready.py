"""GET /ready: can this process serve right now? (`/health` only says it is alive.)

Ready means: the database answers and its schema is at the newest migration, Redis
answers (when configured), the job queue answers (PostgreSQL: procrastinate's tables in
the same database; in memory: always), and the process is not shutting down. A proxy or
orchestrator routes traffic only to ready processes; a draining one answers 503 so it
is taken out of rotation while it finishes its in-flight requests.

Each check has its own timeout; the body names each check's state but never an error
message (a driver's message may carry a host or user name).
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable
from dataclasses import dataclass, field

from pacekeeper.db import applied_revisions, head_revisions
from pacekeeper.services import Services

CHECK_TIMEOUT_S = 2.0
OK, UNREACHABLE, NOT_MIGRATED, TIMEOUT = "ok", "unreachable", "migrations_pending", "timeout"


@dataclass
class Readiness:
    """One per app: the drain flag, and the migration heads (read from disk once)."""

    draining: bool = False
    _heads: frozenset[str] | None = field(default=None, repr=False)

    def heads(self) -> frozenset[str]:
        if self._heads is None:
            self._heads = head_revisions()
        return self._heads

    async def check(self, services: Services) -> tuple[bool, dict[str, str]]:
        """(ready, {check: state}); every check runs, concurrently."""
        names = ["database", "queue"]
        probes: list[Awaitable[str]] = [self._database(services), _queue(services)]
        if services.redis is not None:
            names.append("redis")
            probes.append(_redis(services))
        states = await asyncio.gather(*(_bounded(p) for p in probes))
        checks = dict(zip(names, states, strict=True))
        if self.draining:
            checks["process"] = "draining"
        ready = not self.draining and all(state == OK for state in states)
        return ready, checks

    async def _database(self, services: Services) -> str:
        applied = await applied_revisions(services.engine)
        return OK if applied == self.heads() else NOT_MIGRATED


async def _bounded(probe: Awaitable[str]) -> str:
    try:
        return await asyncio.wait_for(probe, CHECK_TIMEOUT_S)
    except TimeoutError:
        return TIMEOUT
    except Exception:  # the driver's own errors vary: any of them means not reachable
        return UNREACHABLE


async def _redis(services: Services) -> str:
    assert services.redis is not None
    await services.redis.ping()
    return OK


async def _queue(services: Services) -> str:
    jobs = services.jobs
    if jobs is None or not jobs.shared:
        return OK  # in memory, inside this process
    # procrastinate's own pool (not the service's engine): the one the workers use.
    await jobs.app.connector.execute_query_one_async(
        "SELECT count(*) AS n FROM procrastinate_jobs WHERE false")
    return OK


__all__ = ["Readiness"]
