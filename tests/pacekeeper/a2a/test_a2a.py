"""A2A endpoints: agent card, tool listing, execution as the key's owner (A2A-1..3)."""

from __future__ import annotations

from typing import Annotated, Any

import httpx
from starlette.applications import Starlette

from mcpcast import Context, Param, Server, mcp_server, tool
from pacekeeper.auth import Principal
from pacekeeper.errors import ApiError
from pacekeeper.http import api_error_handler
from pacekeeper.http.a2a import a2a_routes
from tests.pacekeeper.apikeys._helpers import create_key, user_token
from tests.pacekeeper.conftest import Harness
from tests.pacekeeper.test_mcp_endpoint import _session


async def _key(h: Harness, email: str = "agent@example.com") -> tuple[dict[str, Any], str]:
    token = await user_token(h, email)
    return await create_key(h, token), token


async def test_agent_card_is_public(harness: Harness) -> None:
    """A2A-1: no key needed; names the agent, its skills and the X-API-Key scheme."""
    response = await harness.client.get("/.well-known/agent-card.json")
    assert response.status_code == 200
    card = response.json()
    assert card["name"] == "pacekeeper" and card["version"] and card["description"]
    assert card["url"] == "https://pk.test/a2a"
    skill_ids = {s["id"] for s in card["skills"]}
    assert {"whoami", "get_connection_status"} <= skill_ids
    scheme = card["securitySchemes"]["apiKey"]
    assert scheme == {**scheme, "type": "apiKey", "in": "header", "name": "X-API-Key"}
    assert card["security"] == [{"apiKey": []}]


async def test_tools_lists_the_mcp_catalog(harness: Harness) -> None:
    """A2A-2: the same tools as MCP tools/list, as {name, description, inputSchema}."""
    key, _ = await _key(harness)
    response = await harness.client.get("/a2a/tools", headers={"X-API-Key": key["api_key"]})
    assert response.status_code == 200
    tools = response.json()["tools"]
    headers = await _session(harness.client)
    mcp = await harness.client.post(
        "/mcp", headers=headers, json={"jsonrpc": "2.0", "id": 5, "method": "tools/list"}
    )
    listed = mcp.json()["result"]["tools"]
    assert [t["name"] for t in tools] == [t["name"] for t in listed]
    for ours, theirs in zip(tools, listed, strict=True):
        assert set(ours) == {"name", "description", "inputSchema"}
        assert ours["inputSchema"] == theirs["inputSchema"]
        assert ours["description"] == theirs["description"]


async def test_tools_needs_a_valid_key(harness: Harness) -> None:
    """A2A-2, ERR-2: no key or a bad key is 401 with WWW-Authenticate."""
    assert (await harness.client.get("/a2a/tools")).status_code == 401
    bad = await harness.client.get("/a2a/tools", headers={"X-API-Key": "pk_live_nope"})
    assert bad.status_code == 401 and "WWW-Authenticate" in bad.headers


async def test_execute_runs_as_the_keys_owner(harness: Harness) -> None:
    """A2A-3: the tool sees the owner as a Principal, as over MCP."""
    key, _ = await _key(harness, "owner@example.com")
    response = await harness.client.post(
        "/a2a/execute", json={"tool": "whoami", "arguments": {}},
        headers={"x-api-key": key["api_key"]},
    )
    assert response.status_code == 200, response.text
    body = response.json()
    assert body["tool"] == "whoami" and body["isError"] is False
    assert body["structuredContent"]["email"] == "owner@example.com"
    assert body["structuredContent"]["user_id"] == key["user_id"]
    assert "X-RateLimit-Limit" in response.headers


async def test_execute_errors(harness: Harness) -> None:
    """A2A-3: bad key 401, unknown tool 404, bad body 400 (nothing runs)."""
    key, _ = await _key(harness)
    headers = {"X-API-Key": key["api_key"]}
    bad_key = await harness.client.post("/a2a/execute", json={"tool": "whoami"},
                                        headers={"X-API-Key": key["api_key"] + "x"})
    assert bad_key.status_code == 401
    unknown = await harness.client.post("/a2a/execute", json={"tool": "nope"}, headers=headers)
    assert unknown.status_code == 404 and unknown.json()["error"] == "not_found"
    assert "X-Quota-Used" in unknown.headers
    for body in ({}, {"tool": 3}, {"tool": "whoami", "arguments": [1]}):
        response = await harness.client.post("/a2a/execute", json=body, headers=headers)
        assert response.status_code == 400, body
        assert response.json()["error"] == "validation_error"
        assert "X-RateLimit-Remaining" in response.headers  # the key was good
    not_json = await harness.client.post("/a2a/execute", content=b"{", headers={
        **headers, "Content-Type": "application/json"})
    assert not_json.status_code == 400


@mcp_server(name="pacing", path="/mcp")
class Pacing:
    @tool(name="pace", description="Pace for a distance, signed with the caller's email.")
    async def pace(
        self, distance_km: Annotated[float, Param(description="km")], ctx: Context
    ) -> str:
        principal = ctx.principal
        assert isinstance(principal, Principal)  # the same type as over MCP
        return f"{principal.email} via {principal.via}: {distance_km} km"


async def _pacing_client(h: Harness) -> httpx.AsyncClient:
    app = Starlette(routes=a2a_routes(Server(Pacing())),
                    exception_handlers={ApiError: api_error_handler})
    app.state.services = h.services
    return httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="https://pk.test")


async def test_bad_arguments_are_400_naming_the_argument(harness: Harness) -> None:
    """A2A-3: argument validation is mcpcast's; the message and `argument` name it."""
    key, _ = await _key(harness)
    headers = {"X-API-Key": key["api_key"]}
    async with await _pacing_client(harness) as client:
        cases = {"missing": {}, "wrong type": {"distance_km": "far"},
                 "extra": {"distance_km": 5, "surprise": 1}}
        for label, arguments in cases.items():
            response = await client.post(
                "/a2a/execute", json={"tool": "pace", "arguments": arguments}, headers=headers
            )
            assert response.status_code == 400, label
            expected = "surprise" if label == "extra" else "distance_km"
            assert response.json()["argument"] == expected, label
            assert expected in response.json()["message"]
        ok = await client.post("/a2a/execute", json={"tool": "pace",
                                                     "arguments": {"distance_km": "5"}},
                               headers=headers)
        assert ok.status_code == 200
        assert ok.json()["content"][0]["text"] == "agent@example.com via api_key: 5.0 km"
