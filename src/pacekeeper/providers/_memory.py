"""In-process implementations of the storage Protocols, for one process and tests."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable


class MemoryIdempotencyStore:
    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._seen: dict[str, float] = {}
        self._lock = asyncio.Lock()
        self._clock = clock

    async def claim(self, key: str, ttl_s: float) -> bool:
        async with self._lock:
            now = self._clock()
            # Drop expired keys lazily so the dict does not grow without bound.
            for old in [k for k, until in self._seen.items() if until <= now]:
                del self._seen[old]
            if key in self._seen:
                return False
            self._seen[key] = now + ttl_s
            return True
