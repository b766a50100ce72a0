"""A backing service (PostgreSQL, Redis) that cannot be reached answers 503 with
Retry-After, not a 500 with a traceback in the log: the caller sees an error it can retry,
and the log says which service in one line (found by bench/faults: a Redis or PostgreSQL
restart under load turned every request of those seconds into a 500)."""

from __future__ import annotations

import logging

from procrastinate.exceptions import ConnectorException
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError
from sqlalchemy.exc import DBAPIError, DisconnectionError, InterfaceError, OperationalError
from starlette.requests import Request
from starlette.responses import Response

from pacekeeper.api._common import error_response

log = logging.getLogger("pacekeeper.http")

RETRY_AFTER_SECONDS = 2
# What a dropped or refused connection raises: redis-py's own errors, SQLAlchemy's
# wrappers of the driver's (asyncpg, aiosqlite), the task queue's, and the socket's below
# them all. A DBAPIError is only one when `is_unavailable` says so.
UNAVAILABLE: tuple[type[Exception], ...] = (
    RedisConnectionError, RedisTimeoutError, DBAPIError, DisconnectionError,
    ConnectorException, ConnectionError,
)
# SQLSTATE classes: 08 connection exception, 57P operator intervention (the server is
# shutting down, starting up, or was restarted: "cannot connect now", "admin shutdown").
_UNAVAILABLE_SQLSTATES = ("08", "57P")


def is_unavailable(exc: BaseException) -> bool:
    """A backing service out of reach, not a bug (a constraint violation, bad SQL)."""
    if not isinstance(exc, DBAPIError):
        return isinstance(exc, UNAVAILABLE)
    if exc.connection_invalidated or isinstance(exc, OperationalError | InterfaceError):
        return True
    sqlstate = getattr(exc.orig, "sqlstate", None) or getattr(
        getattr(exc.orig, "__cause__", None), "sqlstate", None)
    return isinstance(sqlstate, str) and sqlstate.startswith(_UNAVAILABLE_SQLSTATES)


def _service(exc: Exception) -> str:
    return "redis" if isinstance(exc, RedisConnectionError | RedisTimeoutError) else "database"


async def unavailable_handler(_request: Request, exc: Exception) -> Response:
    if not is_unavailable(exc):
        raise exc  # a real error: the 500 handler answers and the log keeps the traceback
    log.warning("%s unavailable: %s", _service(exc), type(exc).__name__)
    return error_response(503, "service_unavailable",
                          "a backing service is unavailable; retry shortly",
                          {"Retry-After": str(RETRY_AFTER_SECONDS)})


__all__ = ["RETRY_AFTER_SECONDS", "UNAVAILABLE", "is_unavailable", "unavailable_handler"]
