"""The event loop's own lag, measured by the service (issue 30, LOOP-1): a stall shows as a late
wake-up of its size; a loop that keeps up shows none; the app runs the probe and serves
the histogram on /metrics."""

from __future__ import annotations

import asyncio
import contextlib
import time

from pacekeeper.ops import watch_loop_lag


async def test_a_stall_shows_as_a_late_wake_up_of_its_size() -> None:
    seen: list[float] = []
    probe = asyncio.create_task(watch_loop_lag(0.05, seen.append))
    await asyncio.sleep(0.18)  # a few samples of a loop that keeps up
    quiet = list(seen)
    time.sleep(0.3)  # noqa: ASYNC251  # the stall itself: something holding the loop
    await asyncio.sleep(0.12)
    probe.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await probe
    assert len(quiet) >= 2
    assert max(quiet) < 0.15, quiet  # a busy machine delays a wake-up a little
    stalled = [lag for lag in seen[len(quiet):] if lag > 0.2]
    assert len(stalled) == 1, seen
    assert 0.2 < stalled[0] < 0.5
