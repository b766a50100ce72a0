"""Is an error a backing service (PostgreSQL, Redis, the task queue's connection) out of
reach, or a bug? One answer for the HTTP layer (503 with Retry-After, pacekeeper.http) and
the queue worker (a warning and a retry, pacekeeper.jobs): neither logs a traceback for a
restart of PostgreSQL or Redis (found by bench/faults)."""

from __future__ import annotations

import psycopg
from procrastinate.exceptions import ConnectorException
from redis.asyncio import Redis
from redis.asyncio.retry import Retry
from redis.backoff import ExponentialBackoff
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError
from sqlalchemy.exc import DBAPIError, DisconnectionError, InterfaceError, OperationalError

# What a dropped or refused connection raises: redis-py's own errors, SQLAlchemy's
# wrappers of the driver's (asyncpg, aiosqlite), the task queue's (procrastinate, and the
# psycopg below it), and the socket's below them all. A DBAPIError is only one when
# `is_unavailable` says so.
UNAVAILABLE: tuple[type[Exception], ...] = (
    RedisConnectionError, RedisTimeoutError, DBAPIError, DisconnectionError,
    ConnectorException, psycopg.OperationalError, ConnectionError,
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


# 22021 character_not_in_repertoire, 22P05 untranslatable_character: PostgreSQL stores no
# NUL character in text (SQLite does), so a NUL in a caller's text is refused there, in a
# query's parameters as much as in a row.
_UNSTORABLE_TEXT_SQLSTATES = ("22021", "22P05")


def is_unstorable_text(exc: BaseException) -> bool:
    """The caller's text holds a character the database cannot take (a NUL): their
    input, not an outage and not a bug."""
    if not isinstance(exc, DBAPIError):
        return False
    sqlstate = getattr(exc.orig, "sqlstate", None) or getattr(
        getattr(exc.orig, "__cause__", None), "sqlstate", None)
    return sqlstate in _UNSTORABLE_TEXT_SQLSTATES


def service_of(exc: BaseException) -> str:
    """Which one: "redis" or "database" (the queue lives in the database)."""
    return "redis" if isinstance(exc, RedisConnectionError | RedisTimeoutError) else "database"


def redis_client(url: str) -> Redis:
    """The service's Redis client: a command that meets a dropped connection is tried
    again on a new one (twice, 50 ms then 100 ms apart). After a Redis restart every
    pooled connection is dead; without the retry the first command on each failed, one
    503 per stale connection (test_faults_tokens_and_limits found three of 30 requests).
    A Redis that is really down still fails within a fraction of a second."""
    return Redis.from_url(url, retry=Retry(ExponentialBackoff(cap=0.1, base=0.05), 2),
                          retry_on_error=[RedisConnectionError, RedisTimeoutError])


__all__ = ["UNAVAILABLE", "is_unavailable", "is_unstorable_text", "redis_client", "service_of"]
