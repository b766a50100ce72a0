"""Custom injectors (``Server(injectors=...)``): a value, or a coroutine awaited first.

Pacekeeper hands its tools the request's caller this way (issue 19): the injector gives
the principal the hook resolved, or re-checks it (I/O) on a long-lived connection.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from mcpcast import Server, ToolError, mcp_server, tool
from mcpcast.protocol.exchange import Exchange
from mcpcast.testing import TestClient


@dataclass(frozen=True)
class Caller:
    name: str


@dataclass(frozen=True)
class Tenant:
    name: str


@mcp_server(name="inject", path="/mcp", version="1.0.0")
class Injected:
    @tool(description="Greet the caller.")
    async def greet(self, caller: Caller, greeting: str = "hello") -> str:
        return f"{greeting} {caller.name}"

    @tool(description="Name the caller's tenant.")
    async def tenant(self, tenant: Tenant) -> str:
        return tenant.name


def _server(checks: list[str]) -> Server:
    def caller(ex: Exchange, args: dict[str, Any]) -> Caller:
        checks.append("sync")
        return Caller(str(ex.principal))

    async def recheck(ex: Exchange, args: dict[str, Any]) -> Tenant:
        checks.append("async")
        if ex.principal == "mallory":
            raise ToolError("invalid token")
        return Tenant(f"tenant of {ex.principal}")

    return Server(Injected(), injectors={Caller: caller, Tenant: recheck})


async def test_a_sync_injector_gives_its_value_and_stays_out_of_the_schema() -> None:
    checks: list[str] = []
    async with TestClient(_server(checks), principal="ada") as client:
        listed = {t["name"]: t for t in await client.list_tools()}
        result = await client.call_tool("greet", {"greeting": "hi"})
    assert listed["greet"]["inputSchema"]["properties"].keys() == {"greeting"}
    assert listed["tenant"]["inputSchema"].get("properties", {}) == {}
    assert result["content"][0]["text"] == "hi ada"
    assert checks == ["sync"]


async def test_a_coroutine_injector_is_awaited_once_before_the_call() -> None:
    checks: list[str] = []
    async with TestClient(_server(checks), principal="ada") as client:
        result = await client.call_tool("tenant")
    assert result["content"][0]["text"] == "tenant of ada"
    assert checks == ["async"]


async def test_a_tool_error_from_an_injector_is_the_calls_error_result() -> None:
    checks: list[str] = []
    async with TestClient(_server(checks), principal="mallory") as client:
        result = await client.call_tool("tenant")
    assert result["isError"] is True
    assert result["content"][0]["text"] == "invalid token"
