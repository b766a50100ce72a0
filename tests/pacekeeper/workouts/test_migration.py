"""Migration 0021: the plans' tables match the models, and it goes down and up again."""

from __future__ import annotations

from tests._migrations import down_and_up


async def test_workouts_migration_round_trip(db_url: str) -> None:
    tables = {"workouts", "calendar_tokens"}
    down, up = await down_and_up(db_url, tables, "0019_history_imports")
    assert not tables & down
    assert tables <= up
