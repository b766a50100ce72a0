"""Migration 0005_oauth_revoked_families matches the model, goes down and up (both DBs)."""

from __future__ import annotations

from pacekeeper.oauth2._models import OAuthRevokedFamilyRow
from tests._migrations import down_and_up

TABLE = OAuthRevokedFamilyRow.__tablename__


async def test_schema_matches_model_and_downgrades(migrated_db: str) -> None:
    down, up = await down_and_up(migrated_db, {TABLE}, "0004_connections")
    assert TABLE not in down and "oauth_refresh_tokens" in down
    assert TABLE in up
