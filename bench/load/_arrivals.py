"""When each simulated person sends their next request (bench/load/locustfile.py)."""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from typing import Any


def poisson_arrivals(rate: float, clock: Callable[[], float] = time.monotonic) -> Any:
    """Each person's requests as a Poisson process of ``rate`` per second (open loop: the
    next start is the last scheduled start plus an exponential gap, whatever the answer
    took; a person more than a second behind starts afresh). People act independently,
    so their sum is Poisson too. Locust's ``constant_throughput`` keeps each person at
    the phase their first request had, and the people of this workload all start within
    the same moment (their set-up ends together): every request of a second then came
    within about 300 ms of one another (measured: 72 % of them), a burst of ~20 each
    second rather than 24 people's independent use (docs/performance.md)."""
    def wait_time(user: Any) -> float:
        now = clock()
        scheduled = float(getattr(user, "_next_start", now))
        if scheduled < now - 1.0:
            scheduled = now
        start: float = scheduled + random.expovariate(rate)
        user._next_start = start
        return max(0.0, start - now)
    return wait_time


__all__ = ["poisson_arrivals"]
