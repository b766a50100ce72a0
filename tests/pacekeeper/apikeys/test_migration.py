"""Migration 0003_apikeys matches the models, on SQLite and PostgreSQL, and goes down."""

from __future__ import annotations

from alembic import command
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from sqlalchemy import inspect
from sqlalchemy.engine import Connection

from pacekeeper.apikeys import ApiKeyRow, ApiKeyUsageRow
from pacekeeper.db import Base, alembic_config, create_engine


def _diff(connection: Connection) -> list[object]:
    context = MigrationContext.configure(connection)
    ours = {ApiKeyRow.__tablename__, ApiKeyUsageRow.__tablename__}
    return [d for d in compare_metadata(context, Base.metadata)
            if any(name in repr(d) for name in ours)]


async def test_schema_matches_models_and_downgrades(migrated_db: str) -> None:
    engine = create_engine(migrated_db)
    try:
        async with engine.connect() as connection:
            assert await connection.run_sync(_diff) == []

        def down_then_up(connection: Connection) -> tuple[set[str], set[str]]:
            config = alembic_config()
            config.attributes["connection"] = connection
            command.downgrade(config, "0003_apikeys-1")
            after_down = set(inspect(connection).get_table_names())
            command.upgrade(config, "head")
            return after_down, set(inspect(connection).get_table_names())

        async with engine.begin() as connection:
            down, up = await connection.run_sync(down_then_up)
        assert "api_keys" not in down and "api_key_usage" not in down and "users" in down
        assert {"api_keys", "api_key_usage"} <= up
    finally:
        await engine.dispose()
