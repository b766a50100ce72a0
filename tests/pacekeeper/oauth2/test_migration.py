"""Migration 0002_oauth2 goes down and up again cleanly on both databases."""

from __future__ import annotations

from alembic import command
from sqlalchemy import inspect
from sqlalchemy.engine import Connection

from pacekeeper.db import alembic_config, create_engine

OAUTH_TABLES = {"oauth_clients", "oauth_codes", "oauth_refresh_tokens"}


def _tables(connection: Connection) -> set[str]:
    return set(inspect(connection).get_table_names())


def _run(connection: Connection, action: str, target: str) -> None:
    config = alembic_config()
    config.attributes["connection"] = connection
    getattr(command, action)(config, target)


async def test_downgrade_and_upgrade(db_url: str) -> None:
    engine = create_engine(db_url)
    try:
        async with engine.begin() as conn:
            assert await conn.run_sync(_tables) >= OAUTH_TABLES
            await conn.run_sync(_run, "downgrade", "0001_core")
            remaining = await conn.run_sync(_tables)
            assert not OAUTH_TABLES & remaining
            assert {"users", "tenants"} <= remaining
            await conn.run_sync(_run, "upgrade", "head")
            assert await conn.run_sync(_tables) >= OAUTH_TABLES
    finally:
        await engine.dispose()
