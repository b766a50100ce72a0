"""Streamable HTTP: the HTTP rules around the protocol core (in-process ASGI calls)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import httpx
import orjson
import pytest

from mcpcast import Server, ServerConfig, Unauthorized
from mcpcast._auth import RequestInfo
from tests.mcpcast.fixtures import Fixture

URL = "http://127.0.0.1:8000/mcp"
ACCEPT = {"accept": "application/json, text/event-stream", "content-type": "application/json"}
INIT = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {"protocolVersion": "2025-11-25", "capabilities": {},
                   "clientInfo": {"name": "t", "version": "1"}}}


def client_for(server: Server) -> httpx.AsyncClient:
    return httpx.AsyncClient(transport=httpx.ASGITransport(app=server.asgi_app()))


@pytest.fixture
async def http() -> AsyncIterator[httpx.AsyncClient]:
    async with client_for(Server(Fixture())) as client:
        yield client


async def open_session(http: httpx.AsyncClient) -> dict[str, str]:
    response = await http.post(URL, headers=ACCEPT, json=INIT)
    assert response.status_code == 200
    return {**ACCEPT, "mcp-session-id": response.headers["mcp-session-id"],
            "mcp-protocol-version": "2025-11-25"}


def sse_messages(text: str) -> list[dict[str, Any]]:
    return [orjson.loads(line[6:]) for line in text.splitlines()
            if line.startswith("data: ") and line[6:].strip()]


async def test_session_lifecycle(http: httpx.AsyncClient) -> None:
    """MCP-1: Streamable HTTP at POST <path>; sessions are created, used and ended."""
    headers = await open_session(http)
    assert len(headers["mcp-session-id"]) == 32
    initialized = await http.post(URL, headers=headers,
                                  json={"jsonrpc": "2.0", "method": "notifications/initialized"})
    assert initialized.status_code == 202 and initialized.content == b""
    listed = await http.post(URL, headers=headers, json={"jsonrpc": "2.0", "id": 2,
                                                         "method": "tools/list"})
    assert listed.status_code == 200
    assert listed.headers["content-type"] == "application/json"
    assert "tools" in listed.json()["result"]
    deleted = await http.delete(URL, headers=headers)
    assert deleted.status_code == 200
    gone = await http.post(URL, headers=headers, json={"jsonrpc": "2.0", "id": 3,
                                                       "method": "ping"})
    assert gone.status_code == 404
    assert (await http.delete(URL, headers=headers)).status_code == 404


async def test_missing_session_header_is_400(http: httpx.AsyncClient) -> None:
    response = await http.post(URL, headers=ACCEPT, json={"jsonrpc": "2.0", "id": 1,
                                                          "method": "tools/list"})
    assert response.status_code == 400
    assert response.json()["error"]["code"] == -32600


@pytest.mark.parametrize(("body", "status", "code"), [
    (b"{not json", 400, -32700),
    (b'{"jsonrpc": "1.0", "id": 1, "method": "ping"}', 400, -32600),
    (b'{"jsonrpc": "2.0", "id": 1.5, "method": "ping"}', 400, -32600),
    (b'{"jsonrpc": "2.0", "id": 1, "method": 7}', 400, -32600),
    (b'{"jsonrpc": "2.0", "id": 1, "method": "ping", "params": [1]}', 400, -32600),
    (b"[]", 400, -32600),
    (b'"just a string"', 400, -32600),
])
async def test_malformed_messages(http: httpx.AsyncClient, body: bytes, status: int,
                                  code: int) -> None:
    """MCP-3: -32700 for broken JSON, -32600 for invalid requests; never a 500."""
    headers = await open_session(http)
    response = await http.post(URL, headers=headers, content=body)
    assert response.status_code == status
    assert response.json()["error"]["code"] == code
    assert "Traceback" not in response.text


async def test_oversize_body_is_413() -> None:
    """ERR-4: a body over the configured limit is 413."""
    async with client_for(Server(Fixture(), config=ServerConfig(max_body_bytes=1024))) as http:
        response = await http.post(URL, headers=ACCEPT, content=b"[" + b" " * 2000 + b"]")
    assert response.status_code == 413


async def test_content_type_and_accept_are_checked(http: httpx.AsyncClient) -> None:
    wrong_type = await http.post(URL, headers={**ACCEPT, "content-type": "text/plain"},
                                 content=orjson.dumps(INIT))
    assert wrong_type.status_code == 415
    wrong_accept = await http.post(URL, headers={**ACCEPT, "accept": "text/html"}, json=INIT)
    assert wrong_accept.status_code == 406


async def test_unsupported_version_header(http: httpx.AsyncClient) -> None:
    response = await http.post(URL, headers={**ACCEPT, "mcp-protocol-version": "1999-01-01"},
                               json=INIT)
    assert response.status_code == 400
    assert "2025-11-25" in response.json()["error"]["data"]["supported"]


@pytest.mark.parametrize(("headers", "status"), [
    ({"host": "evil.example.com", "origin": "http://evil.example.com"}, 421),
    ({"host": "127.0.0.1:9", "origin": "http://evil.example.com"}, 403),
    ({"host": "127.0.0.1:9", "origin": "null"}, 403),
    ({"host": "localhost:1234", "origin": "http://localhost:1234"}, 200),
    ({"host": "[::1]:8080"}, 200),
])
async def test_dns_rebinding_protection(http: httpx.AsyncClient, headers: dict[str, str],
                                        status: int) -> None:
    """MCP-8: Host and Origin are validated."""
    response = await http.post(URL, headers={**ACCEPT, **headers}, json=INIT)
    assert response.status_code == status


async def test_allowed_hosts_wildcard() -> None:
    config = ServerConfig(allowed_hosts=("*",), allowed_origins=("*",))
    async with client_for(Server(Fixture(), config=config)) as http:
        response = await http.post(URL, headers={**ACCEPT, "host": "api.example.com",
                                                 "origin": "https://app.example.com"}, json=INIT)
    assert response.status_code == 200


async def test_batches_only_where_the_version_allows(http: httpx.AsyncClient) -> None:
    modern = await open_session(http)
    rejected = await http.post(URL, headers=modern, json=[
        {"jsonrpc": "2.0", "id": 1, "method": "ping"}])
    assert rejected.status_code == 400
    init_old = {**INIT, "params": {**INIT["params"], "protocolVersion": "2025-03-26"}}
    response = await http.post(URL, headers=ACCEPT, json=init_old)
    old = {**ACCEPT, "mcp-session-id": response.headers["mcp-session-id"]}
    batch = await http.post(URL, headers=old, json=[
        {"jsonrpc": "2.0", "id": "a", "method": "ping"},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/call",
         "params": {"name": "add", "arguments": {"a": 1, "b": 1}}},
        {"jsonrpc": "2.0", "id": 3, "method": 5}])
    assert batch.status_code == 200
    replies = {r["id"]: r for r in batch.json()}
    assert replies["a"]["result"] == {}
    assert replies[2]["result"]["structuredContent"] == {"result": 2}
    assert replies[3]["error"]["code"] == -32600
    too_many = await http.post(URL, headers=old, json=[
        {"jsonrpc": "2.0", "id": i, "method": "ping"} for i in range(101)])
    assert too_many.status_code == 400


async def test_response_switches_to_sse_when_the_tool_talks(http: httpx.AsyncClient) -> None:
    headers = await open_session(http)
    response = await http.post(URL, headers=headers, json={
        "jsonrpc": "2.0", "id": 9, "method": "tools/call",
        "params": {"name": "ask", "arguments": {}}})
    # The client declared no elicitation capability: a plain JSON error result.
    assert response.headers["content-type"] == "application/json"
    assert response.json()["result"]["isError"] is True


async def test_stateless_mode() -> None:
    """Stateless legacy mode: no session ids, GET and DELETE are 405."""
    async with client_for(Server(Fixture(), config=ServerConfig(stateless=True))) as http:
        init = await http.post(URL, headers=ACCEPT, json=INIT)
        assert "mcp-session-id" not in init.headers
        call = await http.post(URL, headers={**ACCEPT, "mcp-protocol-version": "2025-11-25"},
                               json={"jsonrpc": "2.0", "id": 2, "method": "tools/call",
                                     "params": {"name": "add", "arguments": {"a": 2, "b": 2}}})
        assert call.json()["result"]["structuredContent"] == {"result": 4}
        assert (await http.get(URL, headers=ACCEPT)).status_code == 405
        assert (await http.delete(URL, headers=ACCEPT)).status_code == 405


async def test_other_paths_and_methods(http: httpx.AsyncClient) -> None:
    assert (await http.post("http://127.0.0.1/elsewhere", headers=ACCEPT,
                            json=INIT)).status_code == 404
    put = await http.put(URL, headers=ACCEPT, json=INIT)
    assert put.status_code == 405
    assert "POST" in put.headers["allow"]


async def test_notification_and_response_only_posts_get_202(http: httpx.AsyncClient) -> None:
    headers = await open_session(http)
    response = await http.post(URL, headers=headers, json={
        "jsonrpc": "2.0", "id": "mcpcast-unknown", "result": {}})
    assert response.status_code == 202


class TokenPrincipal:
    def __init__(self, user: str) -> None:
        self.user = user


async def authenticate(request: RequestInfo) -> TokenPrincipal | None:
    auth = request.headers.get("authorization")
    if auth is None:
        return None
    if auth != "Bearer good":
        raise Unauthorized("invalid token", www_authenticate='Bearer error="invalid_token"')
    return TokenPrincipal("ada")


async def test_authentication_hook_and_method_policy() -> None:
    server = Server(Fixture(), authenticate=authenticate)
    async with client_for(server) as http:
        headers = await open_session(http)  # initialize is public
        listed = await http.post(URL, headers=headers,
                                 json={"jsonrpc": "2.0", "id": 2, "method": "tools/list"})
        assert listed.status_code == 200
        call = {"jsonrpc": "2.0", "id": 3, "method": "tools/call",
                "params": {"name": "echo", "arguments": {"text": "x"}}}
        anonymous = await http.post(URL, headers=headers, json=call)
        assert anonymous.status_code == 401
        assert anonymous.headers["www-authenticate"] == "Bearer"
        assert "authentication required" in anonymous.json()["error"]["message"]
        forged = await http.post(URL, headers={**headers, "authorization": "Bearer bad"},
                                 json=call)
        assert forged.status_code == 401
        assert "invalid token" in forged.json()["error"]["message"]
        assert forged.headers["www-authenticate"] == 'Bearer error="invalid_token"'
        good = await http.post(URL, headers={**headers, "authorization": "Bearer good"},
                               json=call)
        assert good.status_code == 200
        assert good.json()["result"]["content"][0]["text"] == "x"
