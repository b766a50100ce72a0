"""Issue 20, finding 9: OAuth scopes are enforced per tool.

The consent page presents `fitness:write` as the right to change connections; a token
granted only `fitness:read` must not call `connect_provider`. Attacks over real sockets
against the whole service: Streamable HTTP (403 step-up challenge) and WebSocket (a
JSON-RPC error naming the scope, as no HTTP status is left to use).
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from websockets.asyncio.client import connect

from tests.security._mcp_live import (
    INIT,
    INITIALIZED,
    bearer,
    call,
    initialize,
    oauth_token,
    register,
    serve,
    service_app,
    session_headers,
)

METADATA = 'resource_metadata="https://pk.test/.well-known/oauth-protected-resource"'


@pytest.fixture(scope="module")
def live(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Any]]:
    app = service_app(tmp_path_factory.mktemp("scopes"))
    with serve(app) as base:
        yield base, app


@pytest.fixture(scope="module")
def tokens(live: tuple[str, Any]) -> dict[str, str]:
    base, app = live
    login = register(base, "scopes@example.com")
    return {"login": login, "read": oauth_token(app, login, "fitness:read"),
            "write": oauth_token(app, login, "fitness:write")}


def _post(base: str, token: str, message: dict[str, Any]) -> httpx.Response:
    headers = session_headers(initialize(base, bearer(token)), bearer(token))
    return httpx.post(f"{base}/mcp", headers=headers, json=message, timeout=10)


def test_read_only_token_cannot_connect_a_provider_over_http(
        live: tuple[str, Any], tokens: dict[str, str]) -> None:
    """AS-14, ERR-2: 403 with error="insufficient_scope", every needed scope and the
    resource metadata; reads still work, and wider grants are let through."""
    base, _ = live
    refused = _post(base, tokens["read"], call("connect_provider", provider="strava"))
    assert refused.status_code == 403, refused.text
    challenge = refused.headers["www-authenticate"]
    assert challenge.startswith("Bearer ") and METADATA in challenge
    assert 'error="insufficient_scope"' in challenge
    assert 'scope="fitness:read fitness:write"' in challenge
    assert refused.json()["error"]["data"]["scope"] == "fitness:read fitness:write"
    assert _post(base, tokens["read"], call("whoami")).status_code == 200
    for token in (tokens["write"], tokens["login"]):  # login JWTs carry the user's full rights
        allowed = _post(base, token, call("connect_provider", provider="strava"))
        assert allowed.status_code == 200, allowed.text


def test_read_only_token_cannot_connect_a_provider_over_websocket(
        live: tuple[str, Any], tokens: dict[str, str]) -> None:
    """No HTTP status on an open socket: the call gets a JSON-RPC error naming the scope."""
    base, _ = live

    async def attack() -> tuple[dict[str, Any], dict[str, Any]]:
        url = base.replace("http://", "ws://") + "/mcp"
        async with connect(url, subprotocols=["mcp"],  # type: ignore[list-item]
                           additional_headers=bearer(tokens["read"])) as ws:
            await ws.send(json.dumps(INIT))
            assert "result" in json.loads(await ws.recv())
            await ws.send(json.dumps(INITIALIZED))
            await ws.send(json.dumps(call("connect_provider", 2, provider="strava")))
            refused = json.loads(await ws.recv())
            await ws.send(json.dumps(call("whoami", 3)))
            return refused, json.loads(await ws.recv())

    refused, whoami = asyncio.run(attack())
    assert refused["id"] == 2 and "result" not in refused
    assert "fitness:write" in refused["error"]["message"]
    assert refused["error"]["data"]["scope"] == "fitness:read fitness:write"
    assert refused["error"]["data"]["status"] == 403
    assert whoami["result"]["structuredContent"]["email"] == "scopes@example.com"
