"""What keeps the PostgreSQL queue working through a killed worker and a database restart.

- **A killed worker's jobs run again.** procrastinate records which worker runs a job and
  each worker's heartbeat, but only sweeps what a dead worker left on request. Every
  worker here sweeps every third of ``PACEKEEPER_WORKER_STALLED_SECONDS``: a job still
  ``doing`` whose worker has not beaten for that long (kill -9, a frozen machine) goes back
  to ``todo`` and a live worker runs it (a sync resumes from its cursor once the dead
  run's lease lapses). One sweep at a time across workers (a transaction-scoped advisory
  lock), so a job a sweep has just handed back and a worker has just taken is never
  handed back twice. After a database outage every worker's heartbeat is old at once:
  a sweeper that could not reach the database waits a full timeout before it sweeps
  again, so the live workers beat first (a job handed back all the same runs twice at
  worst: a sync's lease turns the second run into a wait).
- **A database restart is a warning, not tracebacks.** procrastinate stops a worker when
  one of its side tasks (heartbeat, LISTEN) loses its connection and logs the error with
  its traceback; `QuietConnectionLoss` drops those records when the error is a backing
  service out of reach (pacekeeper.backing), and `JobQueue.work` logs one warning and
  starts the worker again with backoff.
"""

from __future__ import annotations

import logging
from typing import Any

from pacekeeper.backing import is_unavailable

# pg_try_advisory_xact_lock key of the sweep ("pkstall").
_SWEEP_LOCK = 0x706B7374616C6C
# The sweep, in the transaction that holds the lock (its snapshot is taken after the lock,
# so it sees what the previous sweep handed back and who took it since).
_SWEEP = """
SELECT job.id, procrastinate_retry_job_v2(job.id, now(), NULL, NULL, NULL)
  FROM procrastinate_jobs job
  LEFT JOIN procrastinate_workers worker ON worker.id = job.worker_id
 WHERE job.status = 'doing' AND job.queue_name = %(queue)s
   AND (job.worker_id IS NULL
        OR worker.last_heartbeat < now() - make_interval(secs => %(seconds)s))
"""


async def sweep_stalled(pool: Any, queue: str, seconds: float) -> list[int]:
    """Hand the jobs of workers silent for ``seconds`` back to the queue; their ids
    (none when another worker is sweeping right now). Waits at most a third of
    ``seconds`` for a connection."""
    async with pool.connection(timeout=seconds / 3) as conn, conn.transaction():
        locked = await (await conn.execute("SELECT pg_try_advisory_xact_lock(%s)",
                                           (_SWEEP_LOCK,))).fetchone()
        if not locked or not locked[0]:
            return []
        rows = await (await conn.execute(_SWEEP, {"queue": queue, "seconds": seconds})
                      ).fetchall()
    return [int(row[0]) for row in rows]


class QuietConnectionLoss(logging.Filter):
    """Drops log records that carry the traceback of a backing service out of reach (the
    worker's own warning says it once); with ``marker``, only records whose message holds
    it (asyncio's logger: only procrastinate's own job tasks)."""

    def __init__(self, marker: str = "") -> None:
        super().__init__()
        self.marker = marker

    def filter(self, record: logging.LogRecord) -> bool:
        error = record.exc_info[1] if record.exc_info else None
        if error is None or not is_unavailable(error):
            return True
        return bool(self.marker) and self.marker not in record.getMessage()


def quiet_filters(name: str) -> list[tuple[logging.Logger, logging.Filter]]:
    """Where procrastinate's worker ``name`` logs a lost connection with its traceback:
    the worker's loggers, utils (a side task's error again as the worker stops), and
    asyncio (a job task whose result could not be recorded, never awaited)."""
    quiet = QuietConnectionLoss()
    return [(logging.getLogger("procrastinate.worker"), quiet),
            (logging.getLogger(f"procrastinate.worker.{name}"), quiet),
            (logging.getLogger("procrastinate.utils"), quiet),
            (logging.getLogger("asyncio"), QuietConnectionLoss("name='process job "))]


__all__ = ["QuietConnectionLoss", "quiet_filters", "sweep_stalled"]
