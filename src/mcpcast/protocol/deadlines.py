"""Tool timeouts with one timer for all running calls.

``asyncio.timeout`` schedules and cancels a timer handle for every call, which measured
here at about a third of a trivial ``tools/call``'s server time. A watchdog that wakes a
few times per timeout period and cancels the calls past their deadline costs a set
insertion per call instead; a call may run up to ``resolution`` seconds past its limit.
"""

from __future__ import annotations

import asyncio
import types
from collections.abc import Awaitable
from typing import Any, TypeVar

from ._eager import first_step, resume

T = TypeVar("T")


class _Guard:
    __slots__ = ("deadline", "fired", "task")

    def __init__(self, task: asyncio.Task[Any], deadline: float) -> None:
        self.task = task
        self.deadline = deadline
        self.fired = False


class Watchdog:
    def __init__(self, timeout: float) -> None:
        self.timeout = timeout
        self.resolution = max(0.001, min(0.5, timeout / 10))
        self._guards: set[_Guard] = set()
        self._handle: asyncio.TimerHandle | None = None
        self._loop: asyncio.AbstractEventLoop | None = None

    async def run(self, work: Awaitable[T]) -> T:
        """Await ``work``; raise TimeoutError if it is still running after ``timeout``.

        A coroutine that finishes without suspending (most tools) never meets the guard.
        """
        if type(work) is types.CoroutineType:
            done, outcome = first_step(work)
            if done:
                return outcome  # type: ignore[no-any-return]
            work = resume(outcome)
        task = asyncio.current_task()
        loop = asyncio.get_running_loop()
        if task is None:  # not inside a task: nothing to cancel, fall back
            async with asyncio.timeout(self.timeout):
                return await work
        if loop is not self._loop:  # a new event loop (tests): forget the old one's state
            self._loop, self._handle = loop, None
            self._guards.clear()
        guard = _Guard(task, loop.time() + self.timeout)
        self._guards.add(guard)
        if self._handle is None:
            self._handle = loop.call_later(self.resolution, self._tick)
        try:
            return await work
        except asyncio.CancelledError:
            if guard.fired:
                task.uncancel()
                raise TimeoutError from None
            raise
        finally:
            self._guards.discard(guard)

    def _tick(self) -> None:
        loop = self._loop
        assert loop is not None
        now = loop.time()
        for guard in self._guards:
            if not guard.fired and guard.deadline <= now:
                guard.fired = True
                guard.task.cancel()
        self._handle = loop.call_later(self.resolution, self._tick) if self._guards else None
