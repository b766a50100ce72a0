"""The embedded queue, kept across restarts: procrastinate's in-memory queue with every
change of a job written to the service's SQLite file (table ``queued_jobs``).

procrastinate 3.10 has no SQLite connector, so `pacekeeper serve` on SQLite runs the
jobs on its in-memory connector; this one also writes each job's row (task, arguments,
locks, status, attempts, scheduled time) before the call that changed it returns, so a
job is on disk before ``defer`` answers. On open it loads the jobs that had not ended:
``todo`` ones wait again, and ``doing`` ones (the process died while they ran) go back to
``todo`` and run again: a sync resumes from its cursor and its lease keeps it to one run
at a time; a recompute rewrites the same metrics. A success is deleted (as on
PostgreSQL, ``delete_jobs="successful"``); a failed or cancelled job stays, as a record.
"""

from __future__ import annotations

import asyncio
from itertools import count
from typing import Any, Literal

from procrastinate.testing import InMemoryConnector
from sqlalchemy import delete, func, select
from sqlalchemy.dialects.sqlite import insert
from sqlalchemy.ext.asyncio import AsyncEngine

from pacekeeper.db import QueuedJobRow, create_engine

_FIELDS = ("queue_name", "task_name", "priority", "lock", "queueing_lock", "args", "status",
           "scheduled_at", "attempts")
_LIVE = ("todo", "doing")


def _state(job: dict[str, Any]) -> tuple[Any, ...]:
    return tuple(job[name] for name in _FIELDS)


class DurableMemoryConnector(InMemoryConnector):
    """InMemoryConnector whose jobs are also rows of ``queued_jobs`` in ``database_url``."""

    def __init__(self, database_url: str) -> None:
        super().__init__()
        self.database_url = database_url
        self.engine: AsyncEngine | None = None
        self._saved: dict[int, tuple[Any, ...]] = {}  # what the table holds, per job
        self._writing = asyncio.Lock()

    async def open_async(self, pool: Any = None) -> None:
        await super().open_async(pool)
        self.engine = create_engine(self.database_url)
        async with self.engine.connect() as conn:
            top = (await conn.execute(select(func.max(QueuedJobRow.id)))).scalar()
            rows = (await conn.execute(select(QueuedJobRow).where(
                QueuedJobRow.status.in_(_LIVE)).order_by(QueuedJobRow.id))).mappings().all()
        self.job_counter = count((top or 0) + 1)  # ids are never reused
        for row in rows:
            job: dict[str, Any] = {**{name: row[name] for name in _FIELDS}, "id": row["id"],
                                   "status": "todo", "abort_requested": False,
                                   "worker_id": None}
            self.jobs[row["id"]] = job
            self.events[row["id"]] = []
            self._saved[row["id"]] = _state({**job, "status": row["status"]})
        await self._write()  # the ones that were running: todo again

    async def close_async(self) -> None:
        await super().close_async()
        if self.engine is not None:
            await self.engine.dispose()
            self.engine = None

    async def generic_execute(self, query: str, suffix: Literal["run", "one", "all"],
                              **arguments: Any) -> Any:
        # The parent's, without its record of every query (a test aid that grows by five
        # entries a second with the worker polling), then the changed jobs to disk.
        name = self.reverse_queries[query]
        result = await getattr(self, f"{name}_{suffix}")(**arguments)
        await self._write()
        return result

    async def _write(self) -> None:
        """Write the jobs that changed since the last write; delete the ones that went."""
        async with self._writing:  # one writer, in the order of the changes
            changed = {id_: _state(job) for id_, job in self.jobs.items()
                       if self._saved.get(id_) != _state(job)}
            gone = [id_ for id_ in self._saved if id_ not in self.jobs]
            if not changed and not gone:
                return
            assert self.engine is not None, "open_async first"
            async with self.engine.begin() as conn:
                if changed:
                    rows = [{"id": id_, **dict(zip(_FIELDS, state, strict=True))}
                            for id_, state in changed.items()]
                    stmt = insert(QueuedJobRow).values(rows)
                    await conn.execute(stmt.on_conflict_do_update(
                        index_elements=[QueuedJobRow.id],
                        set_={name: stmt.excluded[name] for name in _FIELDS}))
                if gone:
                    await conn.execute(delete(QueuedJobRow).where(QueuedJobRow.id.in_(gone)))
            self._saved.update(changed)
            for id_ in gone:
                del self._saved[id_]
                self.events.pop(id_, None)


__all__ = ["DurableMemoryConnector"]
