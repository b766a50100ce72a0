"""A pooled PostgreSQL connection is checked before a request gets it only when that can
matter (issue 30). SQLAlchemy's `pool_pre_ping` pings on every checkout, and with asyncpg a
ping is three round trips (BEGIN, `;`, ROLLBACK); a tool call checks out several
connections (caller state, token revocation, each store read), so the pings were 13 % of
the serving loop's busy time in `bench/run load`.

Instead ("pessimistic disconnect handling" with a custom event, SQLAlchemy's pooling docs):

- a connection whose socket the driver already saw close (PostgreSQL restarted or
  `pg_terminate_backend`: the server says so and closes it) is replaced at no round trip;
- a connection idle in the pool longer than `IDLE_PING_S` is pinged first: a connection that
  went silently dead (a firewall or NAT dropping an idle flow, a host gone) shows only
  then, and it does so only after a long silence. Under load a connection goes back and
  out within milliseconds, so back-to-back requests never ping.

Either way the pool replaces it (`DisconnectionError`, up to SQLAlchemy's attempts) and
the request goes on with a new connection. A connection that dies during a statement
raises as before: SQLAlchemy invalidates it and the HTTP layer answers 503 with
Retry-After (`backing.is_unavailable`)."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from sqlalchemy import event
from sqlalchemy.engine import Engine
from sqlalchemy.exc import DisconnectionError, InvalidatePoolError
from sqlalchemy.pool import ConnectionPoolEntry

# Seconds in the pool after which a connection is pinged before use. Short enough that a
# connection idle across a quiet spell is checked, long enough that a busy service (a
# connection back in the pool for milliseconds between requests) never pays for a ping.
IDLE_PING_S = 5.0
_CHECKED_IN = "pacekeeper_checked_in"


def ping_when_idle(engine: Engine, idle_s: float | None = None,
                   clock: Callable[[], float] = time.monotonic) -> None:
    """Install the checkin and checkout listeners on ``engine``'s pool (asyncpg only:
    the closed-socket test asks the asyncpg connection). ``idle_s``: `IDLE_PING_S` as
    it is at the call (a test shortens it)."""
    limit = IDLE_PING_S if idle_s is None else idle_s

    def checked_in(dbapi_connection: Any, record: ConnectionPoolEntry) -> None:
        if dbapi_connection is not None:  # None: an invalidated connection's record
            record.info[_CHECKED_IN] = clock()

    def checked_out(dbapi_connection: Any, record: ConnectionPoolEntry, _proxy: Any) -> None:
        driver = record.driver_connection
        if driver is None or driver.is_closed():
            # Only this one is known dead; the others are tested on their own checkout.
            raise DisconnectionError("the server closed this pooled connection")
        # No mark: a connection made for this checkout (the pool clears `info` when it
        # reconnects), nothing to test.
        since = record.info.pop(_CHECKED_IN, None)
        if since is None or clock() - since <= limit:
            return
        try:
            engine.dialect.do_ping(dbapi_connection)
        except Exception as exc:
            # As pool_pre_ping does: a silent failure of one probably means the server
            # or the path to it failed, so every connection older than now is replaced.
            raise InvalidatePoolError(
                f"a connection idle {clock() - since:.0f} s failed its ping "
                f"({type(exc).__name__})") from exc

    event.listen(engine, "checkin", checked_in)
    event.listen(engine, "checkout", checked_out)


__all__ = ["IDLE_PING_S", "ping_when_idle"]
