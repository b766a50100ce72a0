"""A small server exercising every kind of declaration, shared by the core tests."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from enum import Enum
from typing import Annotated

from mcpcast import (
    Context,
    EmbeddedResource,
    Image,
    Message,
    Param,
    ToolError,
    completion,
    mcp_server,
    prompt,
    resource,
    tool,
)


class Sport(Enum):
    RUN = "run"
    RIDE = "ride"


@dataclass
class Split:
    km: int
    seconds: float


@mcp_server(name="fixture", path="/mcp", version="1.2.3", instructions="Test server.")
class Fixture:
    def __init__(self) -> None:
        self.started = asyncio.Event()

    @tool(description="Add two integers.")
    def add(self, a: Annotated[int, Param(description="first")], b: int = 0) -> int:
        return a + b

    @tool()
    async def echo(self, text: str) -> str:
        """Echo the text back."""
        return text

    @tool()
    async def split(self, km: int, sport: Sport = Sport.RUN) -> Split:
        """A structured result."""
        return Split(km=km, seconds=km * (300.0 if sport is Sport.RUN else 120.0))

    @tool()
    async def fail(self) -> str:
        """Raises an unexpected exception."""
        raise RuntimeError("secret internal detail /etc/passwd")

    @tool()
    async def refuse(self) -> str:
        """Raises a ToolError with a message meant for the model."""
        raise ToolError("that activity is private")

    @tool()
    async def slow(self, ctx: Context) -> str:
        """Reports progress and logs, then waits to be cancelled."""
        await ctx.report_progress(1, 3, "warming up")
        await ctx.info("started")
        self.started.set()
        await asyncio.sleep(30)
        return "finished"

    @tool()
    async def ask(self, ctx: Context) -> str:
        """Elicits a name, then samples a greeting."""
        answer = await ctx.elicit("Your name?", {"type": "object",
                                                 "properties": {"name": {"type": "string"}}})
        name = answer.get("content", {}).get("name", "?")
        sample = await ctx.sample(f"Greet {name}", max_tokens=20)
        return f"{name}: {sample['content']['text']}"

    @tool()
    async def picture(self) -> list[Image]:
        """Returns an image."""
        return [Image(b"\x89PNG\r\n", "image/png")]

    @resource(uri="fixture://readme", name="readme", description="A text resource.",
              mime_type="text/plain")
    def readme(self) -> str:
        return "read me"

    @resource(uri="activity://{id}", name="activity", description="One activity.",
              mime_type="application/json")
    async def activity(self, id: str) -> dict[str, str]:
        return {"id": id}

    @resource(uri="fixture://blob", name="blob", mime_type="application/octet-stream")
    def blob(self) -> bytes:
        return b"\x00\x01"

    @prompt(description="A coaching prompt.")
    def coach(self, goal: Annotated[str, Param(description="the goal", required=True)],
              sport: Sport = Sport.RUN) -> list[Message]:
        return [Message.system("You are a coach."), Message.user(f"Goal: {goal} ({sport.value})")]

    @prompt(description="A prompt embedding a resource.")
    def with_resource(self) -> list[Message]:
        return [Message.user(EmbeddedResource("fixture://readme", text="read me",
                                              mime_type="text/plain"))]

    @completion(ref="coach", argument="goal")
    def complete_goal(self, value: str) -> list[str]:
        return [g for g in ("marathon", "5k", "half marathon") if g.startswith(value)]
