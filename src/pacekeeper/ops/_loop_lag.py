"""How late the event loop runs what is due: the service's own measure of issue 30.

A task sleeps a quarter of a second and records how late it woke. Work that holds the
loop (a parse, a large answer rendered in one piece, a blocking call) makes every
request wait that long, and shows here as a lag of that size, whichever request caused
it; a loop that keeps up wakes it within a millisecond or two. Four samples a second
cost nothing measurable and catch any stall longer than a quarter second; shorter ones
are sampled (docs/deploy.md, `pacekeeper_event_loop_lag_seconds`).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable

from pacekeeper import metrics

INTERVAL_S = 0.25


async def watch_loop_lag(interval: float = INTERVAL_S,
                         observe: Callable[[float], None] = metrics.LOOP_LAG.observe) -> None:
    """Until cancelled: each ``interval``, the wake-up's lateness in seconds."""
    loop = asyncio.get_running_loop()
    while True:
        due = loop.time() + interval
        await asyncio.sleep(interval)
        observe(max(0.0, loop.time() - due))


__all__ = ["INTERVAL_S", "watch_loop_lag"]
