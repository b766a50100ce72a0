"""POST /mcp: public discovery, JWT-guarded tools, tenant limits (SMCP-1..4)."""

from __future__ import annotations

from typing import Any

import httpx

from tests.pacekeeper.conftest import Harness

ACCEPT = {"accept": "application/json, text/event-stream", "content-type": "application/json"}
INIT = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {"protocolVersion": "2025-11-25", "capabilities": {},
                   "clientInfo": {"name": "t", "version": "1"}}}
METADATA = 'Bearer resource_metadata="https://pk.test/.well-known/oauth-protected-resource"'


async def _session(client: httpx.AsyncClient, extra: dict[str, str] | None = None) -> dict[str, str]:
    response = await client.post("/mcp", headers={**ACCEPT, **(extra or {})}, json=INIT)
    assert response.status_code == 200, response.text
    return {**ACCEPT, **(extra or {}), "mcp-session-id": response.headers["mcp-session-id"],
            "mcp-protocol-version": "2025-11-25"}


def _call(name: str, request_id: int = 2) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": request_id, "method": "tools/call",
            "params": {"name": name, "arguments": {}}}


async def test_discovery_methods_need_no_credentials(harness: Harness) -> None:
    """SMCP-1: initialize, tools/list, prompts/list, resources/list, ping are public."""
    headers = await _session(harness.client)
    for index, method in enumerate(["tools/list", "prompts/list", "resources/list", "ping"]):
        response = await harness.client.post(
            "/mcp", headers=headers, json={"jsonrpc": "2.0", "id": 10 + index, "method": method}
        )
        assert response.status_code == 200, (method, response.text)
        assert "result" in response.json()
    tools = (await harness.client.post(
        "/mcp", headers=headers, json={"jsonrpc": "2.0", "id": 3, "method": "tools/list"}
    )).json()["result"]["tools"]
    assert {t["name"] for t in tools} == {
        "whoami", "get_connection_status", "connect_provider", "get_provider_profile",
        "list_activities", "get_activity", "get_activity_streams", "import_activity",
        "delete_activity", "get_athlete", "update_athlete_settings", "get_daily_summaries",
        "sync_activities",
        # analysis (issue 15)
        "get_training_summary", "get_fitness_chart", "get_load_risk", "get_readiness",
        "get_recovery_status", "get_weekly_load", "get_power_curve", "get_hr_curve",
        "get_pace_curve", "get_best_efforts", "estimate_critical_power", "estimate_ftp",
        "get_wbal", "get_zone_distribution", "calculate_zones", "estimate_vo2max",
        "predict_race_time", "get_training_paces", "analyze_activity", "compare_activities",
        "get_period_summary", "compare_periods", "detect_patterns", "set_goal", "get_goals",
        "delete_goal", "goal_feasibility", "suggest_training_week",
        # plans (issue 32)
        "create_workout", "update_workout", "delete_workout", "schedule_workout",
        "get_calendar", "save_training_week",
    }
    assert len(tools) >= 40
    for t in tools:
        assert t.get("outputSchema"), t["name"]
        assert t.get("annotations") or t["name"] in {
            "whoami", "get_connection_status", "connect_provider", "get_provider_profile"}


async def test_tools_call_without_jwt_is_401(harness: Harness) -> None:
    """SMCP-2: 401, WWW-Authenticate with resource_metadata, "authentication required"."""
    headers = await _session(harness.client)
    response = await harness.client.post("/mcp", headers=headers, json=_call("whoami"))
    assert response.status_code == 401
    assert response.headers["www-authenticate"] == METADATA
    assert "authentication required" in response.json()["error"]["message"]


async def test_tools_call_with_bad_or_expired_jwt_is_invalid_token(harness: Harness) -> None:
    """SMCP-3: a forged or expired token gives "invalid token"."""
    token = (await harness.register("mcp-bad@example.com"))["token"]
    harness.client.cookies.clear()
    headers = await _session(harness.client)
    for bad in ("garbage", token[:-3] + "xyz"):
        response = await harness.client.post(
            "/mcp", headers={**headers, "authorization": f"Bearer {bad}"}, json=_call("whoami")
        )
        assert response.status_code == 401
        assert "invalid token" in response.json()["error"]["message"]
        assert response.headers["www-authenticate"].startswith(METADATA)
    harness.clock.advance(hours=25)
    expired = await harness.client.post(
        "/mcp", headers={**headers, "authorization": f"Bearer {token}"}, json=_call("whoami")
    )
    assert expired.status_code == 401
    assert "invalid token" in expired.json()["error"]["message"]


async def test_whoami_and_connection_status(harness: Harness) -> None:
    """SMCP-4: user and tenant come from the token; providers all report not connected."""
    body = await harness.register("mcp@example.com")
    harness.client.cookies.clear()
    auth = {"authorization": f"Bearer {body['token']}"}
    headers = await _session(harness.client, auth)
    who = await harness.client.post("/mcp", headers=headers, json=_call("whoami"))
    assert who.status_code == 200, who.text
    result = who.json()["result"]["structuredContent"]
    user = await harness.services.users.get_by_email("mcp@example.com")
    assert user is not None
    assert result == {"user_id": str(user.id), "email": "mcp@example.com",
                      "tenant_id": str(user.tenant_id), "role": "user"}
    assert who.headers["x-ratelimit-limit"] == "600"
    status = await harness.client.post(
        "/mcp", headers=headers, json=_call("get_connection_status", 3)
    )
    assert status.json()["result"]["structuredContent"] == {
        "connected_providers": [],
        "strava": {"connected": False},
        "fitbit": {"connected": False},
        "garmin": {"connected": False},
    }


async def test_disabled_user_is_refused_at_once(harness: Harness) -> None:
    """ACC-8, SMCP-3: disabling makes the next tools/call "invalid token"."""
    body = await harness.register("mcp-off@example.com")
    harness.client.cookies.clear()
    headers = await _session(harness.client, {"authorization": f"Bearer {body['token']}"})
    assert (await harness.client.post("/mcp", headers=headers, json=_call("whoami"))).is_success
    await harness.services.accounts.disable("mcp-off@example.com")
    response = await harness.client.post("/mcp", headers=headers, json=_call("whoami", 3))
    assert response.status_code == 401
    assert "invalid token" in response.json()["error"]["message"]


async def test_tenant_rate_limit_on_mcp(harness_factory: Any) -> None:
    """SMCP-4: per-tenant token bucket: 429 with Retry-After and X-RateLimit-*."""
    async with harness_factory(tenant_rate_limit_per_minute=3) as h:
        body = await h.register("mcp-busy@example.com")
        h.client.cookies.clear()
        headers = await _session(h.client, {"authorization": f"Bearer {body['token']}"})
        codes = []
        last = None
        for i in range(4):
            last = await h.client.post("/mcp", headers=headers, json=_call("whoami", 10 + i))
            codes.append(last.status_code)
        assert codes == [200, 200, 429, 429]  # initialize took the first token
        assert last is not None
        assert last.headers["x-ratelimit-remaining"] == "0"
        assert int(last.headers["retry-after"]) >= 1
        assert last.json()["error"]["data"] == {"error": "rate_limited"}


async def test_cookie_caller_needs_csrf_on_mcp(harness: Harness) -> None:
    """CSRF-3: a cookie-authenticated tools/call without X-CSRF-Token is refused."""
    await harness.register("mcp-cookie@example.com")
    harness.client.cookies.clear()
    login = (await harness.login("mcp-cookie@example.com")).json()
    headers = await _session(harness.client)
    refused = await harness.client.post("/mcp", headers=headers, json=_call("whoami"))
    assert refused.status_code == 403
    allowed = await harness.client.post(
        "/mcp", headers={**headers, "x-csrf-token": login["csrf_token"]}, json=_call("whoami", 3)
    )
    assert allowed.status_code == 200
    assert allowed.json()["result"]["structuredContent"]["email"] == "mcp-cookie@example.com"


async def test_foreign_host_is_refused(harness: Harness) -> None:
    """MCP-8: the Host must be loopback or the public base URL's host."""
    response = await harness.client.post(
        "/mcp", headers={**ACCEPT, "host": "evil.example"}, json=INIT
    )
    assert response.status_code == 421


def _modern(method: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
    meta = {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {}}
    return {"jsonrpc": "2.0", "id": 7, "method": method, "params": {**(params or {}),
                                                                   "_meta": meta}}


async def test_stateless_era_discover_is_public_and_calls_are_guarded(harness: Harness) -> None:
    """SMCP-1, SMCP-2: server/discover needs nothing; tools/call needs the JWT (2026-07-28)."""
    routing = {**ACCEPT, "mcp-protocol-version": "2026-07-28"}
    discover = await harness.client.post(
        "/mcp", headers={**routing, "mcp-method": "server/discover"},
        json=_modern("server/discover"),
    )
    assert discover.status_code == 200, discover.text
    result = discover.json()["result"]
    assert "2026-07-28" in result["supportedVersions"]
    assert "pacekeeper" in str(result["_meta"])
    call_headers = {**routing, "mcp-method": "tools/call", "mcp-name": "whoami"}
    call = _modern("tools/call", {"name": "whoami", "arguments": {}})
    anonymous = await harness.client.post("/mcp", headers=call_headers, json=call)
    assert anonymous.status_code == 401
    assert anonymous.headers["www-authenticate"] == METADATA
    token = (await harness.register("modern@example.com"))["token"]
    harness.client.cookies.clear()
    allowed = await harness.client.post(
        "/mcp", headers={**call_headers, "authorization": f"Bearer {token}"}, json=call
    )
    assert allowed.status_code == 200, allowed.text
    assert allowed.json()["result"]["structuredContent"]["email"] == "modern@example.com"
