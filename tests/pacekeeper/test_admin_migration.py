"""Migration 0012_site_settings matches the model, on SQLite and PostgreSQL, and goes down."""

from __future__ import annotations

from pacekeeper.admin import SiteSettingRow
from tests._migrations import down_and_up


async def test_schema_matches_models_and_downgrades(migrated_db: str) -> None:
    down, up = await down_and_up(migrated_db, {SiteSettingRow.__tablename__},
                                 "0012_site_settings-1")
    assert "site_settings" not in down and "users" in down
    assert "site_settings" in up
