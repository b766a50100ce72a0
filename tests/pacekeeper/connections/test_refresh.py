"""Refresh before expiry, once for concurrent callers, and what a lost grant does (PROV-6)."""

from __future__ import annotations

import asyncio
import uuid
from dataclasses import replace

import pytest

from pacekeeper.connections import (
    ConnectionService,
    NeedsReconnect,
    build_connection_layer,
)
from pacekeeper.db import create_engine, session_factory
from pacekeeper.providers import ProviderClient, TokenSet
from tests.pacekeeper.connections.conftest import ConnHarness


def _service(conn: ConnHarness) -> ConnectionService:
    found = conn.services.connections
    assert found is not None
    return found


async def expire_soon(service: ConnectionService, user_id: str, provider: str) -> TokenSet:
    """Rewrite the stored expiry to 30 s from now (inside the 300 s refresh margin)."""
    async with service.connections.lock(uuid.UUID(user_id), provider) as locked:
        assert locked.record is not None
        tokens = service.keeper.open(locked.record)
        soon = replace(tokens, expires_at=service.clock().timestamp() + 30)
        assert await locked.swap(service.keeper.seal(locked.record, soon), service.clock())
    return soon


async def _athlete_id(client: ProviderClient, tokens: TokenSet) -> str:
    return (await client.fetch_athlete(tokens)).provider_id


async def test_twenty_concurrent_callers_refresh_once(conn: ConnHarness) -> None:
    """PROV-6: 20 simultaneous data calls with a token about to expire: one refresh."""
    user_id, headers = await conn.user("single@example.com")
    assert (await conn.connect("strava", user_id, headers)).status_code == 200
    service = _service(conn)
    old = await expire_soon(service, user_id, "strava")
    before = conn.transport.token_hits("strava")
    results = await asyncio.gather(
        *(service.call(uuid.UUID(user_id), "strava", _athlete_id) for _ in range(20))
    )
    assert conn.transport.token_hits("strava") - before == 1
    assert len(set(results)) == 1
    fresh = await service.keeper.tokens(uuid.UUID(user_id), "strava")
    assert fresh.access_token != old.access_token
    assert fresh.expires_at is not None and fresh.expires_at > old.expires_at  # type: ignore[operator]
    assert conn.transport.token_hits("strava") - before == 1  # no refresh once fresh


async def test_two_processes_share_one_refresh(conn: ConnHarness, db_url: str) -> None:
    """PROV-6 across processes: a second service on its own engine and locks.
    PostgreSQL (row lock): exactly one refresh. SQLite (compare-and-swap): at most two,
    and every caller ends with working tokens and the connection stays connected."""
    user_id, headers = await conn.user("multi@example.com")
    assert (await conn.connect("fitbit", user_id, headers)).status_code == 200
    first = _service(conn)
    engine = create_engine(db_url)
    other = build_connection_layer(
        conn.services.settings, session_factory(engine), conn.services.master_key,
        conn.clock, {}, setup=first.setup, transport=conn.transport,
    )  # fmt: skip
    try:
        await expire_soon(first, user_id, "fitbit")
        before = conn.transport.token_hits("fitbit")
        uid = uuid.UUID(user_id)
        results = await asyncio.gather(
            *(svc.call(uid, "fitbit", _athlete_id)
              for svc in (first, other.service) for _ in range(10))
        )  # fmt: skip
        hits = conn.transport.token_hits("fitbit") - before
        if engine.dialect.name == "postgresql":
            assert hits == 1
        else:
            assert 1 <= hits <= 2
        assert len(set(results)) == 1
        status = (await conn.client.get("/oauth/status", headers=headers)).json()
        assert status["fitbit"]["connected"] is True
    finally:
        await other.close()
        await engine.dispose()


async def test_rejected_refresh_token_marks_needs_reconnect(conn: ConnHarness) -> None:
    """PROV-6: the provider refuses the refresh token: needs_reconnect, visible everywhere."""
    user_id, headers = await conn.user("revoked@example.com")
    assert (await conn.connect("strava", user_id, headers)).status_code == 200
    service = _service(conn)
    await expire_soon(service, user_id, "strava")
    await conn.admin("revoke", {"provider": "strava", "athlete_id": 7})
    with pytest.raises(NeedsReconnect, match="reconnected"):
        await service.call(uuid.UUID(user_id), "strava", _athlete_id)
    status = (await conn.client.get("/oauth/status", headers=headers)).json()
    assert status["connected_providers"] == []
    assert status["strava"]["connected"] is False
    assert status["strava"]["needs_reconnect"] is True
    before = conn.transport.token_hits("strava")
    with pytest.raises(NeedsReconnect):  # no further refresh attempts
        await service.keeper.tokens(uuid.UUID(user_id), "strava")
    assert conn.transport.token_hits("strava") == before
    # Connecting again heals it.
    assert (await conn.connect("strava", user_id, headers)).status_code == 200
    status = (await conn.client.get("/oauth/status", headers=headers)).json()
    assert status["strava"]["connected"] is True and status["strava"]["needs_reconnect"] is False


async def test_access_token_rejected_refreshes_once_and_retries(conn: ConnHarness) -> None:
    """PROV-6: a 401 on a data call (token expired early at the provider): one refresh."""
    user_id, headers = await conn.user("early@example.com")
    assert (await conn.connect("garmin", user_id, headers)).status_code == 200
    service = _service(conn)
    await conn.admin("expire", {"provider": "garmin", "athlete_id": 7})
    before = conn.transport.token_hits("garmin")
    assert await service.call(uuid.UUID(user_id), "garmin", _athlete_id)
    assert conn.transport.token_hits("garmin") - before == 1
