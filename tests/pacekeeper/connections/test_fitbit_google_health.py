"""Fitbit connections after the Fitbit Web API's retirement (issue 31, item 1).

A connection made now goes through Google OAuth and syncs from the Google Health API;
one made against the retired API is shown as "reconnect needed" with the reason (status
API, MCP tool, connections page) and its tokens are not used; an operator who still
configures the retired API (PACEKEEPER_PROVIDER_LEGACY_APIS) keeps it working.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from typing import Any

import pytest
from sqlalchemy import update

from pacekeeper.connections._errors import NeedsReconnect
from pacekeeper.connections._models import ProviderConnectionRow
from pacekeeper.db import create_engine, session_factory
from pacekeeper.fitness._records import Owner
from pacekeeper.providers import ProviderConfigError
from pacekeeper.providers.fitbit.spec import RETIRED
from pacekeeper.web.connections import _row as connection_row
from tests.pacekeeper.connections.conftest import ConnHarness


async def _connect(h: ConnHarness, email: str) -> tuple[str, dict[str, str]]:
    user_id, headers = await h.user(email)
    url = await h.authorization_url("fitbit", user_id, headers)
    assert "/fitbit/google/o/oauth2/v2/auth?" in url  # Google's consent, not Fitbit's
    assert "access_type=offline" in url
    callback = await h.approve(url, 7)
    assert (await h.client.get(callback)).status_code == 200
    return user_id, headers


async def _retire(db_url: str, user_id: str) -> None:
    """What a row made against the Fitbit Web API holds: Fitbit's own scope words."""
    engine = create_engine(db_url)
    try:
        async with session_factory(engine)() as session:
            await session.execute(
                update(ProviderConnectionRow)
                .where(ProviderConnectionRow.user_id == uuid.UUID(user_id),
                       ProviderConnectionRow.provider == "fitbit")
                .values(scopes="activity heartrate sleep profile location"))
            await session.commit()
    finally:
        await engine.dispose()


async def test_connect_and_sync_over_the_google_health_api(
    conn_factory: Callable[..., Any],
) -> None:
    async with conn_factory(worker="off", sync_history_days=21) as h:
        user_id, headers = await _connect(h, "gh-sync@example.com")
        status = (await h.client.get("/oauth/status", headers=headers)).json()
        assert status["fitbit"] == {**status["fitbit"], "connected": True,
                                    "needs_reconnect": False}
        assert "reason" not in status["fitbit"]
        user = await h.services.users.get(uuid.UUID(user_id))
        assert user is not None
        syncs = h.services.syncs
        assert syncs is not None
        sent = len(h.transport.paths)
        report = await syncs.sync(Owner(user.id, user.tenant_id), "fitbit")
        assert report.status == "done", report.message
        assert report.imported > 5 and report.days > 0
        paths = h.transport.paths[sent:]
        assert any("/google/health/v4/users/me/dataTypes/exercise/dataPoints" in p
                   for p in paths)
        assert not any("/1/user/" in p for p in paths)  # nothing of the retired API


async def test_a_connection_to_the_retired_api_needs_reconnecting(
    conn_factory: Callable[..., Any], db_url: str,
) -> None:
    async with conn_factory(worker="off") as h:
        user_id, headers = await _connect(h, "gh-retired@example.com")
        await _retire(db_url, user_id)
        status = (await h.client.get("/oauth/status", headers=headers)).json()
        assert status["fitbit"]["connected"] is False
        assert status["fitbit"]["needs_reconnect"] is True
        assert status["fitbit"]["reason"] == RETIRED
        assert "fitbit" not in status["connected_providers"]
        mcp = await h.mcp_session(headers)
        answer = await h.client.post("/mcp", headers=mcp, json={
            "jsonrpc": "2.0", "id": 1, "method": "tools/call",
            "params": {"name": "get_connection_status", "arguments": {}}})
        assert answer.status_code == 200, answer.text
        assert RETIRED in answer.text
        # The connections page's row says why (it renders the same status entry).
        row = connection_row("fitbit", status["fitbit"])
        assert row["css"] == "needs_reconnect"
        assert row["state"] == f"{RETIRED}: reconnect"
        layer = h.services.connection_layer
        assert layer is not None
        with pytest.raises(NeedsReconnect, match="Google Health API"):
            await layer.service.keeper.tokens(uuid.UUID(user_id), "fitbit")
        # Reconnecting (new consent through Google) clears it.
        callback = await h.approve(await h.authorization_url("fitbit", user_id, headers), 7)
        assert (await h.client.get(callback)).status_code == 200
        again = (await h.client.get("/oauth/status", headers=headers)).json()
        assert again["fitbit"]["connected"] is True


async def test_the_retired_api_where_an_operator_still_configures_it(
    conn_factory: Callable[..., Any],
) -> None:
    async with conn_factory(worker="off", provider_legacy_apis="fitbit") as h:
        user_id, headers = await h.user("gh-legacy@example.com")
        url = await h.authorization_url("fitbit", user_id, headers)
        assert "/fitbit/oauth2/authorize?" in url  # the Fitbit Web API's consent
        assert (await h.client.get(await h.approve(url, 7))).status_code == 200
        status = (await h.client.get("/oauth/status", headers=headers)).json()
        assert status["fitbit"]["connected"] is True
        assert "reason" not in status["fitbit"]


def test_the_legacy_setting_names_only_providers_with_a_retired_api(
    conn_factory: Callable[..., Any],
) -> None:
    with pytest.raises(ProviderConfigError):
        conn_factory(provider_legacy_apis="strava")


async def test_a_refresh_keeps_the_refresh_token_google_does_not_resend(
    conn: ConnHarness,
) -> None:
    """Google's refresh answer has an access token and no refresh token: the stored one
    is kept, and the next refresh (with it) works."""
    from tests.pacekeeper.connections.test_refresh import expire_soon

    user_id, headers = await _connect(conn, "gh-refresh@example.com")
    layer = conn.services.connection_layer
    assert layer is not None
    service = layer.service
    uid = uuid.UUID(user_id)
    old = await expire_soon(service, user_id, "fitbit")
    before = conn.transport.token_hits("fitbit")
    fresh = await service.keeper.tokens(uid, "fitbit")
    assert conn.transport.token_hits("fitbit") - before == 1
    assert fresh.access_token != old.access_token
    assert fresh.refresh_token == old.refresh_token
    await expire_soon(service, user_id, "fitbit")
    again = await service.keeper.tokens(uid, "fitbit")
    assert again.access_token != fresh.access_token
    assert again.refresh_token == old.refresh_token
    status = (await conn.client.get("/oauth/status", headers=headers)).json()
    assert status["fitbit"]["connected"] is True
