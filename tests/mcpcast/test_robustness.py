"""Nothing a client sends produces a 500 or a traceback (property-based)."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import httpx
import orjson
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mcpcast import Server, ServerConfig
from tests.mcpcast.fixtures import Fixture

URL = "http://127.0.0.1/mcp"
HEADERS = {"accept": "application/json, text/event-stream", "content-type": "application/json"}

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20),
    lambda children: st.lists(children, max_size=4)
    | st.dictionaries(st.text(max_size=10), children, max_size=4),
    max_leaves=12,
)
methods = st.sampled_from(["initialize", "tools/call", "tools/list", "resources/read",
                           "prompts/get", "completion/complete", "logging/setLevel", "ping",
                           "resources/subscribe", "server/discover", "subscriptions/listen",
                           "nope"])
messages = st.fixed_dictionaries(
    {"jsonrpc": st.sampled_from(["2.0", "1.0"]), "method": methods},
    optional={"id": st.integers() | st.text(max_size=5) | st.none(),
              "params": st.dictionaries(
                  st.sampled_from(["name", "arguments", "uri", "cursor", "ref", "argument",
                                   "level", "_meta", "protocolVersion", "capabilities"]),
                  json_values, max_size=5)})
versions = st.sampled_from([None, "2025-11-25", "2025-03-26", "2024-11-05", "2026-07-28",
                            "garbage"])

# Thousands of generated requests open sessions from one address: no per-address bound.
SERVER = Server(Fixture(), config=ServerConfig(anonymous_sessions_per_minute=0))


async def _post(body: bytes, version: str | None, session: bool) -> httpx.Response:
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=SERVER.asgi_app())) as http:
        headers = dict(HEADERS)
        if session:
            init = await http.post(URL, headers=HEADERS, json={
                "jsonrpc": "2.0", "id": 0, "method": "initialize",
                "params": {"protocolVersion": "2025-03-26", "capabilities": {}}})
            headers["mcp-session-id"] = init.headers["mcp-session-id"]
        if version is not None:
            headers["mcp-protocol-version"] = version
        return await http.post(URL, headers=headers, content=body)


def _check(response: httpx.Response) -> None:
    assert response.status_code < 500, response.text
    assert "Traceback" not in response.text
    if response.content and response.headers.get("content-type") == "application/json":
        orjson.loads(response.content)  # always well-formed JSON


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(message=messages | st.lists(messages, max_size=3) | json_values,
       version=versions, session=st.booleans())
def test_any_json_message_is_answered_without_a_server_error(
        message: Any, version: str | None, session: bool) -> None:
    """MCP-3: malformed or hostile messages get JSON-RPC errors, never a 500."""
    _check(asyncio.run(_post(json.dumps(message).encode(), version, session)))


@settings(max_examples=60, deadline=None)
@given(body=st.binary(max_size=200))
def test_any_bytes_are_answered_without_a_server_error(body: bytes) -> None:
    _check(asyncio.run(_post(body, "2025-11-25", True)))
