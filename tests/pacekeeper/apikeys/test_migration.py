"""Migration 0003_apikeys matches the models, on SQLite and PostgreSQL, and goes down."""

from __future__ import annotations

from pacekeeper.apikeys import ApiKeyRow, ApiKeyUsageRow
from tests._migrations import down_and_up


async def test_schema_matches_models_and_downgrades(migrated_db: str) -> None:
    ours = {ApiKeyRow.__tablename__, ApiKeyUsageRow.__tablename__}
    down, up = await down_and_up(migrated_db, ours, "0003_apikeys-1")
    assert "api_keys" not in down and "api_key_usage" not in down and "users" in down
    assert {"api_keys", "api_key_usage"} <= up
