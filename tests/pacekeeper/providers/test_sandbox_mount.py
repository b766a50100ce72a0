"""The sandbox mounted under /sandbox inside another Starlette app, and its admin guard."""

from __future__ import annotations

from collections.abc import AsyncIterator

import httpx
import pytest
from starlette.applications import Starlette
from starlette.routing import Mount

from pacekeeper.providers import GarminClient, ProviderSettings, StravaClient
from pacekeeper.providers.sandbox import create_sandbox_app

from ._helpers import connect


@pytest.fixture
async def mounted() -> AsyncIterator[httpx.AsyncClient]:
    host = Starlette(routes=[Mount("/sandbox", app=create_sandbox_app(admin_token="adm"))])
    transport = httpx.ASGITransport(app=host)
    async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1") as client:
        yield client


async def test_clients_work_under_a_mount(mounted: httpx.AsyncClient) -> None:
    base = "http://127.0.0.1/sandbox"
    strava = StravaClient(ProviderSettings.for_sandbox("strava", base), mounted)
    tokens = await connect(strava, mounted)
    assert (await strava.fetch_athlete(tokens)).provider_id == "1"
    # OAuth 1.0a signatures cover the full URL, mount prefix included.
    garmin = GarminClient(ProviderSettings.for_sandbox("garmin", base), mounted, oauth_version=1)
    start = await garmin.start_authorization("u:n")
    r = await mounted.get(start.url + "&sandbox_auto=approve")
    callback = dict(httpx.URL(r.headers["location"]).params)
    tokens = await garmin.complete_authorization(start, callback)
    assert (await garmin.fetch_athlete(tokens)).provider_id


async def test_admin_token_is_required_when_configured(mounted: httpx.AsyncClient) -> None:
    body = {"provider": "strava", "mode": "503"}
    assert (await mounted.post("/sandbox/admin/failures", json=body)).status_code == 401
    r = await mounted.post("/sandbox/admin/failures", json=body, headers={"X-Sandbox-Admin": "adm"})
    assert r.status_code == 200
    state = await mounted.get("/sandbox/admin/state", headers={"X-Sandbox-Admin": "adm"})
    assert state.json()["pending_failures"] == {"strava": ["503"]}


@pytest.mark.parametrize(
    "body",
    [
        {"provider": "polar", "mode": "503"},
        {"provider": "strava", "mode": "explode"},
        {"provider": "strava", "mode": "503", "count": 0},
        {"provider": "strava", "mode": "503", "count": "many"},
    ],
)
async def test_admin_rejects_bad_input(mounted: httpx.AsyncClient, body: dict[str, object]) -> None:
    r = await mounted.post("/sandbox/admin/failures", json=body, headers={"X-Sandbox-Admin": "adm"})
    assert r.status_code == 400
    assert r.json()["error"] == "validation_error"
    state = await mounted.get("/sandbox/admin/state", headers={"X-Sandbox-Admin": "adm"})
    assert state.json()["pending_failures"] == {}
