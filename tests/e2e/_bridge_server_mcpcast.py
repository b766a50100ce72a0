"""The bridge tests' server tools, served by mcpcast itself (MCP-7).

Same tools as ``_bridge_server`` (the official SDK's server), so every bridge test
runs against both. Run: ``uvicorn --factory tests.e2e._bridge_server_mcpcast:build_app``.
"""

from __future__ import annotations

import asyncio
from typing import Any

from mcpcast import Context, Server, mcp_server, tool

SERVER_FACTORY = "tests.e2e._bridge_server_mcpcast:build_app"


@mcp_server(name="bridge-test", path="/mcp", version="1.0.0")
class BridgeTools:
    def __init__(self) -> None:
        self.flag = asyncio.Event()

    @tool()
    def add(self, a: int, b: int) -> int:
        """Add two integers."""
        return a + b

    @tool()
    async def countdown(self, n: int, ctx: Context) -> str:
        """Report progress n times, then finish."""
        for i in range(n):
            await ctx.report_progress(i + 1, n, f"step {i + 1}")
        return "liftoff"

    @tool()
    async def wait_for_flag(self) -> str:
        """Block until set_flag is called (proves requests run concurrently)."""
        await asyncio.wait_for(self.flag.wait(), 30)
        self.flag.clear()
        return "flag seen"

    @tool()
    def set_flag(self) -> str:
        """Release wait_for_flag."""
        self.flag.set()
        return "flag set"

    @tool()
    async def ask_name(self, ctx: Context) -> str:
        """Ask the client for a name (a server-to-client request)."""
        schema = {"type": "object", "properties": {"name": {"type": "string"}}}
        answer = await ctx.elicit("What is your name?", schema)
        if answer.get("action") != "accept":
            return "no name"
        return f"hello {answer.get('content', {}).get('name')}"


def build_app() -> Any:
    return Server(BridgeTools()).asgi_app()
