"""Async engine construction: SQLite (WAL) via aiosqlite, PostgreSQL via asyncpg."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import orjson
from sqlalchemy import event
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.engine import make_url
from sqlalchemy.ext.asyncio import AsyncEngine, async_sessionmaker, create_async_engine
from sqlalchemy.ext.asyncio import AsyncSession as AsyncSession

from pacekeeper.db._ping import ping_when_idle
from pacekeeper.db._tracing import trace_statements


def _sqlite_pragmas(dbapi_connection: Any, _record: Any) -> None:
    # WAL lets readers run while one writer commits; busy_timeout waits for the lock
    # instead of failing at once; foreign keys are off by default in SQLite.
    cursor = dbapi_connection.cursor()
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute("PRAGMA busy_timeout=5000")
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.execute("PRAGMA synchronous=NORMAL")
    cursor.close()


def _json_text(value: Any) -> str:
    # orjson: several times faster than json for the metrics documents, and it writes no
    # NaN or Infinity (JSON has none; PostgreSQL's json type refuses them).
    return orjson.dumps(value).decode()


def _json_value(text: Any) -> Any:
    # SQLite's NUMERIC affinity stores a JSON number (a setting's value) as a number.
    return text if isinstance(text, int | float) else orjson.loads(text)


_JSON = {"json_serializer": _json_text, "json_deserializer": _json_value}


def create_engine(url: str) -> AsyncEngine:
    """An AsyncEngine for a `sqlite+aiosqlite` or `postgresql+asyncpg` URL."""
    parsed = make_url(url)
    if parsed.get_backend_name() == "sqlite":
        if parsed.database and parsed.database != ":memory:":
            Path(parsed.database).parent.mkdir(parents=True, exist_ok=True)
        engine = create_async_engine(url, **_JSON)
        event.listen(engine.sync_engine, "connect", _sqlite_pragmas)
    else:
        # No pool_pre_ping (three round trips on every checkout): a pooled connection is
        # tested only when closed or idle a while (db/_ping.py). LIFO hands out the one
        # just returned, so a steady load keeps a few connections warm and never idle,
        # and the rest lie idle (to be pinged, or closed by a server-side timeout).
        engine = create_async_engine(url, pool_use_lifo=True, **_JSON)
        ping_when_idle(engine.sync_engine)
    trace_statements(engine.sync_engine)  # spans only once tracing is configured
    return engine


def reading(engine: AsyncEngine) -> AsyncEngine:
    """``engine`` for reads of one statement: on PostgreSQL in autocommit (the same pool),
    so such a read is one round trip, not three (BEGIN, the SELECT, ROLLBACK: asyncpg's
    adapter opens a transaction before the first statement). Nothing else changes for
    it: under READ COMMITTED, PostgreSQL's default and ours, each statement takes its own
    snapshot in a transaction as well. Never for writes or `FOR UPDATE` (each statement
    would commit alone). SQLite opens no transaction for a SELECT: unchanged."""
    if engine.dialect.name != "postgresql":
        return engine
    return engine.execution_options(isolation_level="AUTOCOMMIT")


def session_factory(engine: AsyncEngine) -> async_sessionmaker[AsyncSession]:
    return async_sessionmaker(engine, expire_on_commit=False)


def reading_sessions(
    sessions: async_sessionmaker[AsyncSession],
) -> async_sessionmaker[AsyncSession]:
    """Sessions like ``sessions`` on the `reading` engine: for a store's methods that only
    SELECT (a session of several reads is fine; of a write, never)."""
    return session_factory(reading(sessions.kw["bind"]))


def upsert_insert(
    sessions: async_sessionmaker[AsyncSession],
) -> Callable[[Any], postgresql.Insert | sqlite.Insert]:
    """The `insert` of the sessions' database, whose statements have the dialect's
    `on_conflict_do_update` / `on_conflict_do_nothing` (the same API on both)."""
    dialect = sessions.kw["bind"].dialect.name
    return postgresql.insert if dialect == "postgresql" else sqlite.insert


__all__ = ["AsyncSession", "create_engine", "reading", "reading_sessions", "session_factory",
           "upsert_insert"]
