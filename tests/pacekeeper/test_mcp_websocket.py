"""/mcp over WebSocket: anonymous discovery, JWT on the upgrade, bad tokens refused."""

from __future__ import annotations

import json
import uuid
from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from cryptography.hazmat.primitives.asymmetric import rsa
from starlette.testclient import TestClient, WebSocketDenialResponse

from pacekeeper.app import create_app
from tests.pacekeeper.conftest import PASSWORD, make_settings

INIT = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {"protocolVersion": "2025-11-25", "capabilities": {},
                   "clientInfo": {"name": "ws", "version": "1"}}}
WS_URL = "ws://127.0.0.1/mcp"
CALL = {"jsonrpc": "2.0", "id": 2, "method": "tools/call",
        "params": {"name": "whoami", "arguments": {}}}


@pytest.fixture
def client(
    db_url: str, tmp_path: Path, keygen: Callable[[int], rsa.RSAPrivateKey]
) -> Iterator[TestClient]:
    app = create_app(make_settings(db_url, tmp_path), keygen=keygen)
    with TestClient(app, base_url="https://pk.test") as test_client:
        yield test_client


def _exchange(ws: Any, message: dict[str, Any]) -> dict[str, Any]:
    ws.send_text(json.dumps(message))
    while True:
        reply: dict[str, Any] = json.loads(ws.receive_text())
        if reply.get("id") == message["id"]:
            return reply


def test_anonymous_websocket_discovers_but_cannot_call(client: TestClient) -> None:
    """SMCP-1, SMCP-2: public methods work without a JWT; tools/call is refused."""
    with client.websocket_connect(WS_URL, subprotocols=["mcp"]) as ws:
        assert "result" in _exchange(ws, INIT)
        ws.send_text(json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}))
        tools = _exchange(ws, {"jsonrpc": "2.0", "id": 3, "method": "tools/list"})
        assert {t["name"] for t in tools["result"]["tools"]} >= {"whoami"}
        refused = _exchange(ws, CALL)
        assert "authentication required" in refused["error"]["message"]


def test_websocket_with_bearer_token_calls_tools(client: TestClient) -> None:
    """SMCP-4: the JWT on the upgrade request names the user for every call."""
    token = client.post("/api/auth/register", json={
        "email": "ws@example.com", "password": PASSWORD}).json()["token"]
    client.cookies.clear()
    with client.websocket_connect(WS_URL, subprotocols=["mcp"],
                                  headers={"Authorization": f"Bearer {token}"}) as ws:
        _exchange(ws, INIT)
        ws.send_text(json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}))
        who = _exchange(ws, CALL)
        assert who["result"]["structuredContent"]["email"] == "ws@example.com"


def test_websocket_with_bad_token_is_refused(client: TestClient) -> None:
    """SMCP-3: a forged token refuses the upgrade with 401 "invalid token"."""
    with pytest.raises(WebSocketDenialResponse) as denied, client.websocket_connect(
        WS_URL, subprotocols=["mcp"], headers={"Authorization": "Bearer forged"}
    ):
        pass
    response = denied.value
    assert response.status_code == 401
    assert "invalid token" in response.text
    assert response.headers["www-authenticate"].startswith(
        'Bearer resource_metadata="https://pk.test/.well-known/oauth-protected-resource"')


def test_disable_applies_inside_an_open_websocket(client: TestClient) -> None:
    """ACC-8: a user disabled while connected fails the next call with "invalid token"."""
    token = client.post("/api/auth/register", json={
        "email": "ws-off@example.com", "password": PASSWORD}).json()["token"]
    client.cookies.clear()
    with client.websocket_connect(WS_URL, subprotocols=["mcp"],
                                  headers={"Authorization": f"Bearer {token}"}) as ws:
        _exchange(ws, INIT)
        ws.send_text(json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}))
        assert "result" in _exchange(ws, CALL)
        services = client.app.state.services  # type: ignore[attr-defined]
        assert client.portal.call(services.accounts.disable, "ws-off@example.com")  # type: ignore[union-attr]
        after = _exchange(ws, {**CALL, "id": 9})
        assert after["result"]["isError"] is True
        assert after["result"]["content"][0]["text"] == "invalid token"


def test_revoked_grant_applies_inside_an_open_websocket(client: TestClient) -> None:
    """RFC 7009 2.1: an OAuth access token whose grant is revoked while connected fails
    the next call with "invalid token" (each call over a long connection re-resolves)."""
    client.post("/api/auth/register", json={"email": "ws-grant@example.com",
                                             "password": PASSWORD})
    client.cookies.clear()
    services = client.app.state.services  # type: ignore[attr-defined]
    user = client.portal.call(services.users.get_by_email, "ws-grant@example.com")  # type: ignore[union-attr]
    family = uuid.uuid4()
    token = services.tokens.issue(user, "https://pk.test/mcp", scope="fitness:read",
                                  family=family, client_id="ws-client").token
    with client.websocket_connect(WS_URL, subprotocols=["mcp"],
                                  headers={"Authorization": f"Bearer {token}"}) as ws:
        _exchange(ws, INIT)
        ws.send_text(json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}))
        assert "result" in _exchange(ws, CALL)
        assert _exchange(ws, {**CALL, "id": 8})["result"].get("isError") is not True
        client.portal.call(services.oauth.server.revoke_family, family,  # type: ignore[union-attr]
                           datetime.now(UTC))
        after = _exchange(ws, {**CALL, "id": 9})
        assert after["result"]["isError"] is True
        assert after["result"]["content"][0]["text"] == "invalid token"
