"""The live MCP server the bridge tests talk to.

For now the official SDK's ``MCPServer``; the lead can point ``SERVER_FACTORY`` at an
mcpcast server offering the same tools (``add``, ``countdown``, ``wait_for_flag``,
``set_flag``, ``ask_name``) and the bridge tests run unchanged.
Run: ``uvicorn --factory tests.e2e._bridge_server:build_app``.
"""

from __future__ import annotations

import asyncio
from typing import Any

from mcp.server.mcpserver import Context, MCPServer
from pydantic import BaseModel

SERVER_FACTORY = "tests.e2e._bridge_server:build_app"


class Name(BaseModel):
    name: str


def build_app() -> Any:
    mcp = MCPServer("bridge-test", version="1.0.0")
    flag = asyncio.Event()

    @mcp.tool()
    def add(a: int, b: int) -> int:
        """Add two integers."""
        return a + b

    @mcp.tool()
    async def countdown(n: int, ctx: Context) -> str:
        """Report progress n times, then finish."""
        for i in range(n):
            await ctx.report_progress(i + 1, n, f"step {i + 1}")
        return "liftoff"

    @mcp.tool()
    async def wait_for_flag() -> str:
        """Block until set_flag is called (proves requests run concurrently)."""
        await asyncio.wait_for(flag.wait(), 30)
        flag.clear()
        return "flag seen"

    @mcp.tool()
    def set_flag() -> str:
        """Release wait_for_flag."""
        flag.set()
        return "flag set"

    @mcp.tool()
    async def ask_name(ctx: Context) -> str:
        """Ask the client for a name (a server-to-client request)."""
        answer = await ctx.elicit("What is your name?", Name)
        return f"hello {answer.data.name}" if answer.action == "accept" else "no name"

    return mcp.streamable_http_app()
