"""MCP tools over POST /mcp: connect_provider (SMCP-5), status, provider errors as tool errors."""

from __future__ import annotations

from typing import Any

import httpx

from tests.pacekeeper.connections.conftest import ConnHarness

ACCEPT = {"accept": "application/json, text/event-stream", "content-type": "application/json"}
INIT = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {"protocolVersion": "2025-11-25", "capabilities": {},
                   "clientInfo": {"name": "t", "version": "1"}}}  # fmt: skip


class Mcp:
    def __init__(self, client: httpx.AsyncClient, headers: dict[str, str]) -> None:
        self.client, self.headers, self.ids = client, headers, 10

    async def open(self) -> Mcp:
        response = await self.client.post("/mcp", headers={**ACCEPT, **self.headers}, json=INIT)
        assert response.status_code == 200, response.text
        self.headers = {**ACCEPT, **self.headers, "mcp-protocol-version": "2025-11-25",
                        "mcp-session-id": response.headers["mcp-session-id"]}  # fmt: skip
        return self

    async def call(self, name: str, **arguments: Any) -> dict[str, Any]:
        self.ids += 1
        body = {"jsonrpc": "2.0", "id": self.ids, "method": "tools/call",
                "params": {"name": name, "arguments": arguments}}  # fmt: skip
        response = await self.client.post("/mcp", headers=self.headers, json=body)
        assert response.status_code == 200, response.text
        result: dict[str, Any] = response.json()["result"]
        return result


def _error_text(result: dict[str, Any]) -> str:
    assert result.get("isError") is True, result
    return " ".join(part.get("text", "") for part in result["content"])


async def test_connect_provider_tool_returns_url_for_jwt_user(conn: ConnHarness) -> None:
    """SMCP-5: connect_provider(provider) gives the authorization URL for the JWT's user;
    following it connects that user, and get_connection_status reports it."""
    user_id, headers = await conn.user("tool@example.com")
    mcp = await Mcp(conn.client, headers).open()
    for provider in ("strava", "fitbit", "garmin"):
        result = await mcp.call("connect_provider", provider=provider)
        url = result["structuredContent"]["authorization_url"]
        # Our connect page first (issue 20, #4), then the provider's.
        assert url.startswith(f"https://pk.test/api/oauth/connect/{provider}?state={user_id}")
        url = await conn.continue_connect(url)
        assert url.startswith(f"https://pk.test/sandbox/{provider}/")
        page = await conn.client.get(await conn.approve(url))
        assert page.status_code == 200, page.text
    status = (await mcp.call("get_connection_status"))["structuredContent"]
    assert status["connected_providers"] == ["strava", "fitbit", "garmin"]
    profile = (await mcp.call("get_provider_profile", provider="fitbit"))["structuredContent"]
    assert profile["provider"] == "fitbit" and profile["provider_id"]
    assert user_id


async def test_connect_provider_tool_refuses_unknown_provider(conn: ConnHarness) -> None:
    """SMCP-5: a bad provider id is a clear tool error, and nothing is stored."""
    _, headers = await conn.user("tool-bad@example.com")
    mcp = await Mcp(conn.client, headers).open()
    assert "unknown provider" in _error_text(await mcp.call("connect_provider", provider="polar"))
    assert "not connected" in _error_text(await mcp.call("get_provider_profile", provider="strava"))


async def test_provider_429_and_5xx_are_clear_tool_errors(conn: ConnHarness) -> None:
    """PROV-6 context: a long 429 and repeated 503s surface as tool errors saying what to do;
    the connection itself stays connected."""
    user_id, headers = await conn.user("flaky@example.com")
    assert (await conn.connect("strava", user_id, headers)).status_code == 200
    mcp = await Mcp(conn.client, headers).open()
    await conn.admin("failures", {"provider": "strava", "mode": "429", "count": 1,
                                  "retry_after": 900})  # fmt: skip
    text = _error_text(await mcp.call("get_provider_profile", provider="strava"))
    assert "rate limiting" in text and "900 s" in text
    # The tracker now knows Strava's quota is spent: no request is even sent.
    sent = len(conn.transport.paths)
    assert "rate limiting" in _error_text(await mcp.call("get_provider_profile", provider="strava"))
    assert len(conn.transport.paths) == sent
    assert (await conn.connect("fitbit", user_id, headers)).status_code == 200
    await conn.admin("failures", {"provider": "fitbit", "mode": "503", "count": 8})
    text = _error_text(await mcp.call("get_provider_profile", provider="fitbit"))
    assert "unavailable" in text and "try again later" in text
    status = (await mcp.call("get_connection_status"))["structuredContent"]
    assert status["connected_providers"] == ["strava", "fitbit"]


async def test_needs_reconnect_is_a_tool_error(conn: ConnHarness) -> None:
    """PROV-6: a revoked grant tells the assistant to call connect_provider again."""
    user_id, headers = await conn.user("gone@example.com")
    assert (await conn.connect("fitbit", user_id, headers)).status_code == 200
    await conn.admin("revoke", {"provider": "fitbit", "athlete_id": 7})
    mcp = await Mcp(conn.client, headers).open()
    text = _error_text(await mcp.call("get_provider_profile", provider="fitbit"))
    assert "reconnected" in text and "connect_provider" in text
    status = (await mcp.call("get_connection_status"))["structuredContent"]
    assert status["fitbit"]["needs_reconnect"] is True
