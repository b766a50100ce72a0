"""Migration 0006_fitness on SQLite and PostgreSQL: the fitness tables match the models,
go away on a downgrade to 0005 and come back on the upgrade."""

from __future__ import annotations

from pacekeeper.fitness import TABLES
from tests._migrations import down_and_up


async def test_fitness_tables_round_trip(migrated_db: str) -> None:
    down, up = await down_and_up(migrated_db, set(TABLES), "0005_oauth_revoked_families")
    assert not set(TABLES) & down
    assert set(TABLES) <= up
