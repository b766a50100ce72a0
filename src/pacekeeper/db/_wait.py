"""Start-up waits for the database (a container or unit started alongside it may come up
first): a bounded retry with backoff, then the last failure's kind is raised."""

from __future__ import annotations

import asyncio
import logging
import time

from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncEngine

from pacekeeper.errors import PacekeeperError

log = logging.getLogger("pacekeeper.db")


class DatabaseUnavailable(PacekeeperError):
    """The database did not accept a connection within the start-up wait."""


async def wait_for_database(engine: AsyncEngine, within_s: float, *,
                            first_delay_s: float = 0.25, max_delay_s: float = 4.0) -> int:
    """Connect and run `SELECT 1` until it works or `within_s` has passed; the number of
    failed attempts before success. Each failure is logged by its kind only (the URL's
    password or the driver's message must not reach the log)."""
    deadline = time.monotonic() + within_s
    delay = first_delay_s
    failures = 0
    while True:
        try:
            async with engine.connect() as connection:
                await connection.execute(text("SELECT 1"))
            return failures
        except (TimeoutError, OSError, Exception) as exc:  # driver errors vary
            failures += 1
            left = deadline - time.monotonic()
            if left <= 0:
                raise DatabaseUnavailable(
                    f"the database did not answer within {within_s:g} s "
                    f"({failures} attempts, last: {type(exc).__name__})") from None
            log.warning("database not reachable yet (%s); retrying in %.1f s",
                        type(exc).__name__, min(delay, left))
            await asyncio.sleep(min(delay, left))
            delay = min(delay * 2, max_delay_s)


__all__ = ["DatabaseUnavailable", "wait_for_database"]
