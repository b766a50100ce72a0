"""Where tasks are kept: a small Protocol and the in-memory default."""

from __future__ import annotations

import copy
import time
from typing import Protocol

from ._record import TaskRecord


class TaskStore(Protocol):
    """Keeps ``TaskRecord`` s by id. A shared one (a database, Redis) lets several
    processes answer ``tasks/get`` for the same tasks; cancelling and answering a task's
    questions still reach only the process running it."""

    async def save(self, task: TaskRecord) -> None:
        """Create or replace ``task``; it is readable by ``load`` once this returns."""

    async def load(self, task_id: str) -> TaskRecord | None:
        """The task (a copy the caller may change), or None if unknown or expired."""


class MemoryTaskStore:
    """Tasks in this process's memory; expired ones are dropped as the store grows."""

    def __init__(self) -> None:
        self._tasks: dict[str, TaskRecord] = {}
        self._prune_at = 1_000

    async def save(self, task: TaskRecord) -> None:
        if len(self._tasks) >= self._prune_at:
            now = time.time()
            self._tasks = {k: t for k, t in self._tasks.items() if not t.expired(now)}
            # Prune again only after doubling: never an O(n) sweep on every save.
            self._prune_at = max(1_000, 2 * len(self._tasks))
        self._tasks[task.task_id] = copy.deepcopy(task)

    async def load(self, task_id: str) -> TaskRecord | None:
        task = self._tasks.get(task_id)
        if task is None:
            return None
        if task.expired():
            del self._tasks[task_id]
            return None
        return copy.deepcopy(task)

    def __len__(self) -> int:
        return len(self._tasks)
