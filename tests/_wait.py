"""Bounded waits on a condition, for the few places where no event exists to wait on
(another process's state, a server's counter). Prefer a real event (asyncio.Event, a
frame the peer sends, a future) wherever the code under test offers one."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable


def wait_for(predicate: Callable[[], bool], timeout: float, what: str = "condition",
             interval: float = 0.01) -> None:
    """Return as soon as `predicate()` is true; AssertionError after `timeout` seconds."""
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout} s waiting for {what}")
        time.sleep(interval)


async def async_wait_for(predicate: Callable[[], Awaitable[bool]], timeout: float,  # noqa: ASYNC109
                         what: str = "condition", interval: float = 0.02) -> None:
    """The same for an asynchronous check (polled, each poll awaited in turn)."""
    deadline = time.monotonic() + timeout
    while not await predicate():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout} s waiting for {what}")
        await asyncio.sleep(interval)
