"""Migration 0023: the gear table and the activities' gear column match the models, and
it goes down and up again."""

from __future__ import annotations

from tests._migrations import down_and_up


async def test_gear_migration_round_trip(db_url: str) -> None:
    tables = {"gear", "activities"}
    down, up = await down_and_up(db_url, tables, "0022_activity_notes")
    assert "gear" not in down and "gear" in up
