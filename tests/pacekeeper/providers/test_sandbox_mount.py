"""The sandbox mounted under /sandbox inside another Starlette app, and its admin guard."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import httpx
import pytest
from starlette.applications import Starlette
from starlette.routing import Mount

from pacekeeper.app import create_app
from pacekeeper.connections import SANDBOX_PATH
from pacekeeper.providers import GarminClient, ProviderSettings, StravaClient
from pacekeeper.providers.sandbox import create_sandbox_app
from tests.pacekeeper.conftest import make_settings

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


async def test_production_serves_no_sandbox_even_when_it_is_asked_for(tmp_path: Path) -> None:
    """The sandbox's panel (`POST /admin/uploads`, reset, revoke, ...) exists only in the
    sandbox's own process and in a development service: with PACEKEEPER_ENV=production
    and PACEKEEPER_PROVIDER_SANDBOX left on, nothing is mounted at /sandbox and the
    panel's paths are 404 (in development the same app mounts it)."""
    upload = {"athlete_id": 7, "fit_base64": "AA=="}
    for env, bits, mounted_there in (("production", 4096, False), ("development", 2048, True)):
        settings = make_settings(f"sqlite+aiosqlite:///{tmp_path / env}.db", tmp_path,
                                 env=env, jwt_rsa_key_bits=bits, provider_sandbox=True)
        app = create_app(settings)
        paths = [getattr(route, "path", "") for route in app.routes]
        assert (SANDBOX_PATH in paths) is mounted_there, (env, paths)
        if mounted_there:
            continue
        # No lifespan: the router answers 404 before any service is needed.
        async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app),
                                     base_url="https://pk.test") as client:
            for method, path in (("POST", "/sandbox/admin/uploads"),
                                 ("POST", "/sandbox/admin/reset"),
                                 ("GET", "/sandbox/admin/state"),
                                 ("GET", "/sandbox/strava/oauth/authorize")):
                answer = await client.request(method, path, json=upload)
                assert answer.status_code == 404, (method, path, answer.text)
