"""Plain tool calls (async, nothing injected) take a short path: no session, exchange or
streaming responder. These tests hold it to the general path's answers, in both eras.

The general path is forced by tracing (a traced call needs its exchange for the span), so
every answer here is compared with the same call made through the general path.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

import httpx
import orjson
import pytest
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from mcpcast import Server, ServerConfig, ToolError, mcp_server, tool

URL = "http://127.0.0.1:8000/mcp"
LEGACY, CURRENT = "2025-11-25", "2026-07-28"


@mcp_server(name="plain", path="/mcp", version="1.0.0")
class Plain:
    @tool(description="Add two integers.")
    async def add(self, a: int, b: int) -> int:
        return a + b

    @tool(description="Add after waiting a moment.")
    async def slow_add(self, a: int, b: int) -> int:
        await asyncio.sleep(0.01)
        return a + b

    @tool(description="Always true.")
    async def flag(self) -> bool:
        return True

    @tool(description="An integer wider than 64 bits.")
    async def big(self) -> int:
        return 10**30

    @tool(description="Refuses.")
    async def refuse(self) -> str:
        raise ToolError("no thanks")

    @tool(description="Fails at once.")
    async def crash(self) -> str:
        raise RuntimeError("secret-detail-1")

    @tool(description="Fails after waiting.")
    async def slow_crash(self) -> str:
        await asyncio.sleep(0)
        raise RuntimeError("secret-detail-2")

    @tool(description="Outlives the tool timeout.")
    async def sleepy(self) -> str:
        await asyncio.sleep(5)
        return "late"


def _body(era: str, rid: int, name: str, arguments: Any) -> tuple[bytes, dict[str, str]]:
    params: dict[str, Any] = {"name": name, "arguments": arguments}
    headers = {"content-type": "application/json",
               "accept": "application/json, text/event-stream",
               "mcp-protocol-version": era}
    if era == CURRENT:
        params["_meta"] = {"io.modelcontextprotocol/protocolVersion": CURRENT,
                           "io.modelcontextprotocol/clientCapabilities": {},
                           "io.modelcontextprotocol/clientInfo": {"name": "t", "version": "1"}}
        headers |= {"mcp-method": "tools/call", "mcp-name": name}
    message = {"jsonrpc": "2.0", "id": rid, "method": "tools/call", "params": params}
    return orjson.dumps(message), headers


@pytest.fixture
async def clients() -> AsyncIterator[tuple[httpx.AsyncClient, httpx.AsyncClient]]:
    """(plain path, general path): the same server class, the second one traced."""
    config = ServerConfig(stateless=True, tool_timeout=0.2)
    fast = Server(Plain(), config=config)
    traced_provider = TracerProvider()
    traced_provider.add_span_processor(SimpleSpanProcessor(InMemorySpanExporter()))
    traced = Server(Plain(), config=config, tracer_provider=traced_provider)
    async with httpx.AsyncClient(transport=httpx.ASGITransport(fast.asgi_app())) as a, \
            httpx.AsyncClient(transport=httpx.ASGITransport(traced.asgi_app())) as b:
        yield a, b


async def _both(clients: tuple[httpx.AsyncClient, httpx.AsyncClient], era: str, name: str,
                arguments: Any) -> tuple[int, dict[str, Any]]:
    """The plain path's (status, message), after checking the general path says the same."""
    answers = []
    for client in clients:
        body, headers = _body(era, 7, name, arguments)
        response = await client.post(URL, content=body, headers=headers)
        assert response.headers["content-type"].startswith("application/json")
        answers.append((response.status_code, response.json()))
    assert answers[0] == answers[1]
    return answers[0]


ERAS = pytest.mark.parametrize("era", [LEGACY, CURRENT])


@ERAS
async def test_a_result_at_once_and_after_waiting(clients: Any, era: str) -> None:
    """MCP-2: structured result and its text block, whether the tool waits or not."""
    for name in ("add", "slow_add"):
        status, message = await _both(clients, era, name, {"a": 2, "b": 3})
        assert status == 200 and message["id"] == 7
        result = message["result"]
        assert result["structuredContent"] == {"result": 5}
        assert result["content"] == [{"type": "text", "text": "5"}]
        assert result["isError"] is False
        if era == CURRENT:
            assert result["resultType"] == "complete"
            assert result["_meta"] == {
                "io.modelcontextprotocol/serverInfo": {"name": "plain", "version": "1.0.0"}}


@ERAS
async def test_scalar_results_render_as_json_text(clients: Any, era: str) -> None:
    """Booleans as JSON text; integers wider than 64 bits are written exactly."""
    _, message = await _both(clients, era, "flag", {})
    assert message["result"]["content"][0]["text"] == "true"
    assert message["result"]["structuredContent"] == {"result": True}
    _, message = await _both(clients, era, "big", {})
    assert message["result"]["content"][0]["text"] == str(10**30)


@ERAS
async def test_tool_errors_and_failures_are_results_without_details(clients: Any,
                                                                     era: str) -> None:
    """MCP-4: a ToolError reaches the model; an exception is reported without its text."""
    _, message = await _both(clients, era, "refuse", {})
    assert message["result"] == {**message["result"], "isError": True,
                                 "content": [{"type": "text", "text": "no thanks"}]}
    for name in ("crash", "slow_crash"):
        _, message = await _both(clients, era, name, {})
        assert message["result"]["isError"] is True
        text = message["result"]["content"][0]["text"]
        assert "internal error" in text and "secret-detail" not in text


@ERAS
async def test_a_tool_past_its_timeout_is_a_timed_out_result(clients: Any, era: str) -> None:
    """MCP-4: the tool deadline holds on the short path too."""
    _, message = await _both(clients, era, "sleepy", {})
    assert message["result"]["isError"] is True
    assert "timed out after 0.2 s" in message["result"]["content"][0]["text"]


@ERAS
async def test_bad_arguments_are_invalid_params(clients: Any, era: str) -> None:
    """MCP-3: wrong types, missing and unknown arguments are -32602, never a 500."""
    for arguments in ({"a": "x", "b": 3}, {"a": 1}, {"a": 1, "b": 2, "c": 3}, [1, 2]):
        status, message = await _both(clients, era, "add", arguments)
        assert message["error"]["code"] == -32602
        assert status == (400 if era == CURRENT else 200)
