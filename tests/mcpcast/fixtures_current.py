"""The core fixture server plus the tools the 2026-07-28 (stateless era) tests need."""

from __future__ import annotations

import asyncio
import os
import threading
from typing import Annotated, Any

from mcpcast import Ask, Context, Param, Server, ToolError, prompt, resource, tool
from tests.mcpcast.fixtures import Fixture

ROUTE_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "region": {"type": "string", "x-mcp-header": "Region"},
        "count": {"type": "integer", "x-mcp-header": "Count"},
        "dry": {"type": "boolean", "x-mcp-header": "Dry"},
    },
    "required": ["region"],
}


class CurrentFixture(Fixture):
    """Inherits the ``@mcp_server`` declaration and every tool of ``Fixture``."""

    def __init__(self) -> None:
        super().__init__()
        self.confirm_runs = 0
        self.fresh_reads = 0
        self.cancelled = threading.Event()  # set from the server's thread, read by the test

    @tool()
    async def chatty(self, ctx: Context) -> str:
        """Logs at three levels and reports progress, then answers."""
        await ctx.debug("debug line")
        await ctx.info("info line")
        await ctx.warning("warning line")
        await ctx.report_progress(1, 2, "half")
        await ctx.report_progress(2, 2, "done")
        return "ok"

    @tool(input_schema=ROUTE_SCHEMA)
    def route(self, region: str, count: int | None = None, dry: bool | None = None) -> str:
        """Arguments mirrored into Mcp-Param-* headers."""
        return f"{region}/{count}/{dry}"

    @tool()
    async def confirm(self, item: str, ctx: Context) -> str:
        """Asks once; counts its runs so the tests see the re-run."""
        self.confirm_runs += 1
        answer = await ctx.elicit(f"Delete {item}?", {
            "type": "object", "properties": {"ok": {"type": "boolean"}}})
        if answer.get("action") != "accept" or not answer.get("content", {}).get("ok"):
            raise ToolError(f"{item} kept")
        return f"{item} deleted"

    @tool()
    async def linger(self, ctx: Context) -> str:
        """Reports progress, then waits; records being cancelled."""
        await ctx.report_progress(1, 2, "lingering")
        try:
            await asyncio.sleep(30)
        except asyncio.CancelledError:
            self.cancelled.set()
            raise
        return "too late"

    @tool()
    async def guarded(self, ctx: Context) -> str:
        """Wraps the question in a broad except, as careless tools do."""
        try:
            answer = await ctx.elicit("Go?", {"type": "object", "properties": {}})
        except Exception:
            return "swallowed"
        return str(answer.get("action"))

    @tool()
    async def survey(self, ctx: Context) -> str:
        """Three named questions in one round, then one more in a second round."""
        name, greeting, roots = await ctx.ask(
            Ask.elicit("Name?", {"type": "object", "properties": {"name": {"type": "string"}}},
                       key="name"),
            Ask.sample("Greet", max_tokens=5, key="greeting"),
            Ask.roots(key="roots"))
        colour = await ctx.elicit("Colour?", {"type": "object", "properties": {}}, key="colour")
        return (f"{name['content']['name']}|{greeting['content']['text']}|"
                f"{roots['roots'][0]['uri']}|{colour['action']}")

    @tool()
    def shelve(self, shelf: Annotated[str, Param(header="Shelf")], book: str) -> str:
        """Mirrors one argument in Mcp-Param-Shelf (declared with Param(header=...))."""
        return f"{book} on {shelf}"

    @tool()
    def pid(self) -> int:
        """The id of the process that served the call."""
        return os.getpid()

    @tool()
    async def handoff(self, ctx: Context) -> dict[str, Any]:
        """Elicits, naming the asking process; returns the answering process and answer."""
        answer = await ctx.elicit(f"asked by {os.getpid()}", {
            "type": "object", "properties": {"name": {"type": "string"}}})
        return {"answered_by": os.getpid(), "name": answer.get("content", {}).get("name")}

    @tool()
    async def publish(self, name: str, server: Server) -> str:
        """Adds a tool at run time (on the server's own loop): listeners hear of it."""
        server.add_tool(lambda: name, name=name, description="published at run time")
        return name

    @tool()
    async def touch(self, uri: str, server: Server) -> str:
        """Signals that a resource changed."""
        server.notify_resource_updated(uri)
        return uri

    @resource(uri="fixture://fresh", name="fresh", mime_type="text/plain", ttl_ms=60_000,
              cache_scope="public")
    def fresh(self) -> str:
        self.fresh_reads += 1
        return "cache me"

    @resource(uri="fixture://secret", name="secret", mime_type="text/plain")
    async def secret(self, ctx: Context) -> str:
        """Asks before it reveals itself (a round trip on resources/read)."""
        answer = await ctx.elicit("Reveal?", {"type": "object", "properties": {}})
        return "revealed" if answer.get("action") == "accept" else "hidden"

    @prompt(description="Asks for a goal first.")
    async def interview(self, ctx: Context) -> str:
        answer = await ctx.elicit("Your goal?", {
            "type": "object", "properties": {"goal": {"type": "string"}}})
        return f"Plan for {answer.get('content', {}).get('goal', '?')}"
