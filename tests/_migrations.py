"""One migration's round trip: its tables match the models, down to a revision, up again."""

from __future__ import annotations

from collections.abc import Collection

from alembic import command
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from sqlalchemy import inspect
from sqlalchemy.engine import Connection

from pacekeeper.db import Base, alembic_config, create_engine


def _diff(connection: Connection, tables: Collection[str]) -> list[object]:
    context = MigrationContext.configure(connection)
    return [d for d in compare_metadata(context, Base.metadata)
            if any(name in repr(d) for name in tables)]


async def down_and_up(url: str, tables: Collection[str], down_to: str
                      ) -> tuple[set[str], set[str]]:
    """Assert that `tables` match the models, downgrade to `down_to`, upgrade to head and
    assert again; the table names after the downgrade and after the upgrade."""
    engine = create_engine(url)
    try:
        async with engine.connect() as connection:
            assert await connection.run_sync(_diff, tables) == []

        def run(connection: Connection) -> tuple[set[str], set[str]]:
            config = alembic_config()
            config.attributes["connection"] = connection
            command.downgrade(config, down_to)
            after_down = set(inspect(connection).get_table_names())
            command.upgrade(config, "head")
            return after_down, set(inspect(connection).get_table_names())

        async with engine.begin() as connection:
            down, up = await connection.run_sync(run)
        async with engine.connect() as connection:
            assert await connection.run_sync(_diff, tables) == []
        return down, up
    finally:
        await engine.dispose()
