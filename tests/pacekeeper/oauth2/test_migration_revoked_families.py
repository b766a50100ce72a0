"""Migration 0005_oauth_revoked_families matches the model, goes down and up (both DBs)."""

from __future__ import annotations

from alembic import command
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from sqlalchemy import inspect
from sqlalchemy.engine import Connection

from pacekeeper.db import Base, alembic_config, create_engine
from pacekeeper.oauth2._models import OAuthRevokedFamilyRow

TABLE = OAuthRevokedFamilyRow.__tablename__


def _diff(connection: Connection) -> list[object]:
    context = MigrationContext.configure(connection)
    return [d for d in compare_metadata(context, Base.metadata) if TABLE in repr(d)]


async def test_schema_matches_model_and_downgrades(migrated_db: str) -> None:
    engine = create_engine(migrated_db)
    try:
        async with engine.connect() as connection:
            assert await connection.run_sync(_diff) == []

        def down_then_up(connection: Connection) -> tuple[set[str], set[str]]:
            config = alembic_config()
            config.attributes["connection"] = connection
            command.downgrade(config, "0004_connections")
            after_down = set(inspect(connection).get_table_names())
            command.upgrade(config, "head")
            return after_down, set(inspect(connection).get_table_names())

        async with engine.begin() as connection:
            down, up = await connection.run_sync(down_then_up)
        assert TABLE not in down and "oauth_refresh_tokens" in down
        assert TABLE in up
        async with engine.connect() as connection:
            assert await connection.run_sync(_diff) == []
    finally:
        await engine.dispose()
