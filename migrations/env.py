"""Alembic environment: uses the caller's connection, or opens one from the settings."""

from __future__ import annotations

import asyncio

from alembic import context
from sqlalchemy.engine import Connection

from pacekeeper.config import Settings
from pacekeeper.db import Base, create_engine

target_metadata = Base.metadata


def _run(connection: Connection) -> None:
    context.configure(
        connection=connection,
        target_metadata=target_metadata,
        render_as_batch=connection.dialect.name == "sqlite",
    )
    with context.begin_transaction():
        context.run_migrations()


async def _run_own_engine() -> None:
    engine = create_engine(Settings().effective_database_url)
    async with engine.begin() as connection:
        await connection.run_sync(_run)
    await engine.dispose()


existing = context.config.attributes.get("connection")
if existing is not None:
    _run(existing)
else:
    asyncio.run(_run_own_engine())
