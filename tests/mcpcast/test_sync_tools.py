"""Sync tools run on the event loop while they stay short, and in a worker thread once
two calls overran ``ServerConfig.inline_sync_budget`` (so a slow one stalls the loop twice,
not on every call). Both eras, the plain path and the general path (a Context-taking tool)."""

from __future__ import annotations

import logging
import threading
import time
from typing import Any

import httpx
import pytest

from mcpcast import Context, Server, ServerConfig, mcp_server, tool

URL = "http://127.0.0.1:8000/mcp"
CURRENT = "2026-07-28"


@mcp_server(name="sync", path="/mcp", version="1.0.0")
class Sync:
    def __init__(self) -> None:
        self.threads: list[int] = []

    @tool(description="Add two integers.")
    def add(self, a: int, b: int) -> int:
        self.threads.append(threading.get_ident())
        return a + b

    @tool(description="Blocks for 20 ms.")
    def slow(self) -> str:
        self.threads.append(threading.get_ident())
        time.sleep(0.02)
        return "slept"

    @tool(description="Takes a context but stays sync.")
    def with_ctx(self, ctx: Context) -> str:
        self.threads.append(threading.get_ident())
        return str(ctx.request_id)

    @tool(description="Fails.")
    def crash(self) -> str:
        raise RuntimeError("secret-detail")


async def _call(server: Server, name: str, args: dict[str, Any] | None = None) -> Any:
    transport = httpx.ASGITransport(app=server.asgi_app())  # type: ignore[arg-type]
    params = {"name": name, "arguments": args or {}, "_meta": {
        "io.modelcontextprotocol/protocolVersion": CURRENT,
        "io.modelcontextprotocol/clientCapabilities": {}}}
    async with httpx.AsyncClient(transport=transport) as http:
        response = await http.post(URL, json={
            "jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": params}, headers={
            "mcp-protocol-version": CURRENT, "mcp-method": "tools/call", "mcp-name": name,
            "accept": "application/json, text/event-stream"})
    assert response.status_code == 200, response.text
    return response.json()["result"]


@pytest.mark.parametrize("name", ["add", "with_ctx"])
async def test_a_short_sync_tool_runs_on_the_loop(name: str) -> None:
    fixture = Sync()
    server = Server(fixture)
    for _ in range(3):
        result = await _call(server, name, {"a": 2, "b": 3} if name == "add" else {})
        assert result["isError"] is False
    assert fixture.threads == [threading.get_ident()] * 3


async def test_a_slow_sync_tool_moves_to_a_thread(caplog: pytest.LogCaptureFixture) -> None:
    fixture = Sync()
    server = Server(fixture)
    with caplog.at_level(logging.WARNING, logger="mcpcast"):
        for _ in range(3):
            assert (await _call(server, "slow"))["content"][0]["text"] == "slept"
    loop_thread = threading.get_ident()
    assert fixture.threads[:2] == [loop_thread] * 2
    assert fixture.threads[2] != loop_thread
    assert sum("runs in a worker thread" in r.getMessage() for r in caplog.records) == 1
    await _call(server, "add", {"a": 1, "b": 1})  # the others stay on the loop
    assert fixture.threads[-1] == loop_thread


@pytest.mark.parametrize(("config", "on_loop"), [
    (ServerConfig(inline_sync_budget=0), False),
    (ServerConfig(sync_tools_in_thread=False), True),
])
async def test_the_switches(config: ServerConfig, on_loop: bool) -> None:
    fixture = Sync()
    server = Server(fixture, config=config)
    await _call(server, "add", {"a": 1, "b": 1})
    await _call(server, "slow")
    await _call(server, "slow")
    assert all((t == threading.get_ident()) is on_loop for t in fixture.threads)


async def test_a_failing_sync_tool_is_an_error_result() -> None:
    result = await _call(Server(Sync()), "crash")
    assert result["isError"] is True
    assert "secret-detail" not in str(result)
