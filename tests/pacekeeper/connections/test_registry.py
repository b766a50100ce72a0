"""Every list of providers derives from ``pacekeeper.providers.registry``: a fourth
provider registered here (a spec, no other change) appears in the connection status,
the dashboard, the sync route's allowed providers, the OpenAPI enum and the sandbox."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from datetime import date, datetime
from typing import Any, get_args

import pytest
from pydantic import TypeAdapter
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import BaseRoute, Route

from pacekeeper.fitness.models import ProviderId
from pacekeeper.providers import (
    PROVIDER_IDS,
    PROVIDERS,
    ActivityBatch,
    Capabilities,
    Endpoints,
    HealthDays,
    ProviderCall,
    ProviderSpec,
    WebhookAnswer,
    WebhookHost,
    WebhookRejected,
    WebhookRequest,
    WebhookSpec,
    registry,
)
from pacekeeper.providers._ratelimit import RateLimitWindow, windows_from
from pacekeeper.providers.registry import ProviderName
from tests.pacekeeper.connections.conftest import ConnHarness


class _NoSync:
    async def activities(self, call: ProviderCall, since: datetime, now: datetime
                         ) -> AsyncIterator[ActivityBatch]:
        return
        yield

    async def health(self, call: ProviderCall, first: date, last: date) -> HealthDays:
        return HealthDays([], [])


def _routes(state: Any, history_days: int) -> Sequence[BaseRoute]:
    async def hello(request: Request) -> JSONResponse:
        return JSONResponse({"provider": "polar"})
    return [Route("/hello", hello)]


def _polar_limits(headers: Mapping[str, str], now: float) -> list[RateLimitWindow]:
    return windows_from(headers, now, "polar-quota", reset_is_delta=True)


class _PolarWebhook:
    """Its own verification (a header-less token in the query) and its own answer."""

    per_minute: int | None = 2

    async def handle(self, request: WebhookRequest, host: WebhookHost) -> WebhookAnswer:
        if request.query.get("token") != "polar-secret":
            raise WebhookRejected("polar", "token mismatch", status=403)
        owners = await host.owners_of(request.body.decode())
        return WebhookAnswer({"kind": request.kind, "owners": len(owners)}, tuple(owners),
                             "queued")


POLAR_WEBHOOK = WebhookSpec(
    build=lambda settings, provider, host: _PolarWebhook(), kinds=("exercise",),
    max_body_bytes=64, openapi={"exercise": {"post": {"summary": "Polar exercise"}}})

POLAR = ProviderSpec(
    id="polar",
    name="Polar Flow",
    auth="oauth2",
    endpoints=Endpoints(authorize="https://flow.polar.example/oauth2/authorization",
                        exchange="https://polarremote.example/v2/oauth2/token",
                        api="https://www.polaraccesslink.example/v3"),
    sandbox_paths=Endpoints(authorize="/authorize", exchange="/token", api="/api"),
    scopes=("accesslink.read_all",),
    client=lambda settings, http, tracker=None: pytest.fail("not called"),
    sandbox_routes=_routes,
    sandbox_limits=((10, 60.0),),
    capabilities=Capabilities(activity_streams=False, daily_health=False, push_webhooks=False),
    sync=_NoSync(),
    rate_limits=_polar_limits,
    webhook=POLAR_WEBHOOK,
)


@pytest.fixture
def polar(monkeypatch: pytest.MonkeyPatch) -> None:
    """The one line of registry.py, for this test only (undone after it)."""
    monkeypatch.setitem(registry._SPECS, "polar", POLAR)
    monkeypatch.delenv("POLAR_CLIENT_ID", raising=False)


async def test_a_registered_provider_appears_everywhere(
    polar: None, conn_factory: Callable[..., Any]
) -> None:
    async with conn_factory() as conn:
        h: ConnHarness = conn
        user_id, headers = await h.user("registry@example.com")

        status = (await h.client.get("/oauth/status", headers=headers)).json()
        assert status["polar"] == {"connected": False}
        assert list(status)[1:] == ["strava", "fitbit", "garmin", "polar"]

        # The sync route accepts it (not connected yet), and still refuses an unknown one.
        started = await h.client.post("/api/sync", json={"provider": "polar"}, headers=headers)
        assert (started.status_code, started.json()["error"]) == (409, "not_connected")
        unknown = await h.client.post("/api/sync", json={"provider": "suunto"},
                                      headers=headers)
        assert unknown.status_code == 400 and "polar" in unknown.json()["message"]

        openapi = (await h.client.get("/openapi.json")).json()
        params = openapi["paths"]["/api/oauth/connections/{provider}"]["delete"]["parameters"]
        assert params[0]["schema"]["enum"] == ["strava", "fitbit", "garmin", "polar"]
        # Its webhook: documented, routed to its own handler, its limits applied.
        assert openapi["paths"]["/api/webhooks/polar/exercise"]["post"]["summary"] == \
            "Polar exercise"
        hook = "/api/webhooks/polar/exercise"
        refused = await h.client.post(hook + "?token=nope", content=b"42")
        assert refused.status_code == 403 and "token mismatch" in refused.json()["message"]
        ok = await h.client.post(hook + "?token=polar-secret", content=b"42")
        assert ok.json() == {"kind": "exercise", "owners": 0, "queued": 0}
        assert (await h.client.post(hook + "?token=polar-secret",
                                    content=b"4" * 65)).status_code == 413  # its 64 bytes
        assert (await h.client.post(hook + "?token=polar-secret",
                                    content=b"42")).status_code == 429  # its 2 a minute
        assert (await h.client.post("/api/webhooks/polar/other")).status_code == 404
        assert (await h.client.get(hook)).status_code == 405
        # Its rate-limit headers are read by its own parser, in the service's tracker.
        layer = h.services.connection_layer
        assert layer is not None
        tracker = layer.service.client("strava").http.tracker  # type: ignore[attr-defined]
        assert tracker._parse is PROVIDERS["strava"].rate_limits
        assert "polar" in layer.service.setup.settings  # the configuration (sandbox here)

        hello = await h.client.get("/sandbox/polar/hello")
        assert hello.json() == {"provider": "polar"}
        assert "polar" in (await h.client.get("/sandbox/")).json()["providers"]

        assert (await h.login("registry@example.com")).status_code == 200  # a cookie session
        page = await h.client.get("/connections")
        assert page.status_code == 200
        assert "Polar Flow" in page.text  # the Connections page lists every provider


async def test_an_unknown_provider_is_named_against_the_registry(conn: ConnHarness) -> None:
    user_id, headers = await conn.user("unknown@example.com")
    response = await conn.client.get(f"/api/oauth/auth/suunto/{user_id}", headers=headers)
    assert response.status_code == 404
    assert "use strava, fitbit or garmin" in response.json()["message"]


def test_a_registered_provider_is_configured_from_its_environment(polar: None) -> None:
    """The configuration table: <ID>_CLIENT_ID, _CLIENT_SECRET, _REDIRECT_URI per
    registered provider, and its webhook's production check runs."""
    from pacekeeper.config import Settings
    from pacekeeper.connections import provider_setup

    env = {"POLAR_CLIENT_ID": "id", "POLAR_CLIENT_SECRET": "s",
           "POLAR_REDIRECT_URI": "https://pk.example/api/oauth/callback/polar"}
    setup = provider_setup(Settings(provider_sandbox=False), env)
    assert list(setup.settings) == ["polar"]
    assert setup.settings["polar"].client_id == "id"
    assert POLAR.rate_limits({"polar-quota-limit": "9", "polar-quota-remaining": "1",
                              "polar-quota-reset": "5"}, 100.0)[0].resets_at == 105.0


def test_the_typed_lists_equal_the_registry() -> None:
    """The two lists a type checker must see stay typed; they cannot drift from it."""
    assert tuple(PROVIDERS) == tuple(PROVIDER_IDS) == ("strava", "fitbit", "garmin")
    assert TypeAdapter(ProviderId).validate_python("polar") == "polar"  # no enum to extend
    assert get_args(ProviderName) == tuple(PROVIDERS)  # sync_activities' argument enum
    for spec in PROVIDERS.values():
        assert spec.id == spec.id.lower() and spec.name
