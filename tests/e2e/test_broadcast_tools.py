"""Tools that push to browsers: Broadcaster and StreamingSession injected into tools."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Annotated

import httpx
import orjson
import pytest
from mcp import Client

from mcpcast import (
    Broadcaster,
    BroadcasterFactory,
    Param,
    RegistrationError,
    Server,
    StreamingSession,
    mcp_server,
    tool,
)
from mcpcast.broadcast import DeterministicTextSource
from mcpcast.testing import TestClient
from tests._serve import serve

pytestmark = pytest.mark.e2e


@mcp_server(name="push")
class Push:
    @tool(description="Broadcast a message to a topic.")
    async def announce(self, topic: Annotated[str, Param(name="topic")], text: str,
                       channel: Broadcaster) -> str:
        await channel.broadcast({"text": text})
        return f"sent to {channel.name}"

    @tool(description="Stream generated text to a topic; returns at once.")
    async def narrate(self, topic: Annotated[str, Param(name="topic")], words: int,
                      session: StreamingSession) -> str:
        session.spawn(DeterministicTextSource(words=words, delay=0.01).stream("story"))
        return "streaming"

    @tool(description="The factory is injectable too.")
    async def topics(self, factory: BroadcasterFactory) -> list[str]:
        return factory.names()


async def read_sse(lines: AsyncIterator[str], count: int) -> list[dict]:  # type: ignore[type-arg]
    """The next `count` data frames of one stream (`lines`: its one `aiter_lines()`)."""
    frames: list[dict] = []  # type: ignore[type-arg]
    async for line in lines:
        if line.startswith("data:") and line[5:].strip():
            frames.append(orjson.loads(line[5:]))
            if len(frames) >= count:
                break
    return frames


async def test_broadcaster_reaches_a_browser_subscriber() -> None:
    """DECL-5, DECL-6: the tool's Broadcaster is the topic's; subscribers receive it."""
    server = Server(Push())
    with serve(server.asgi_app()) as base:
        async with httpx.AsyncClient(timeout=10) as http:
            async with http.stream("GET", f"{base}/mcp/topics/runs",
                                   headers={"accept": "text/event-stream"}) as stream:
                assert stream.status_code == 200
                lines = stream.aiter_lines()
                # The server's own acknowledgement: from here on the topic reaches us.
                [subscribed] = await asyncio.wait_for(read_sse(lines, 1), 5)
                async with Client(f"{base}/mcp", mode="2026-07-28") as client:
                    result = await client.call_tool("announce", {"topic": "runs", "text": "hi"})
                assert result.content[0].text == "sent to runs"  # type: ignore[union-attr]
                [frame] = await asyncio.wait_for(read_sse(lines, 1), 5)
    assert subscribed["type"] == "subscribed"
    assert frame["type"] == "message"
    assert frame["data"] == {"text": "hi"}


async def test_streaming_session_returns_at_once_and_streams() -> None:
    """DECL-7: text streams to subscribers while the tool itself returns at once."""
    server = Server(Push())
    with serve(server.asgi_app()) as base:
        async with httpx.AsyncClient(timeout=10) as http:
            async with http.stream("GET", f"{base}/mcp/topics/story",
                                   headers={"accept": "text/event-stream"}) as stream:
                lines = stream.aiter_lines()
                frames = await asyncio.wait_for(read_sse(lines, 1), 5)  # subscribed
                assert frames[0]["type"] == "subscribed"
                async with Client(f"{base}/mcp", mode="2026-07-28") as client:
                    result = await client.call_tool("narrate", {"topic": "story", "words": 5})
                assert result.content[0].text == "streaming"  # type: ignore[union-attr]
                frames += await asyncio.wait_for(read_sse(lines, 7), 5)
    session_frames = [f["data"] for f in frames[1:]]
    assert [f["type"] for f in session_frames] == ["text"] * 6 + ["complete"]
    assert [f["seq"] for f in session_frames] == list(range(1, 8))
    assert len({f["session_id"] for f in session_frames}) == 1
    assert "".join(f["text"] for f in session_frames[:-1]).endswith(".")


async def test_injected_parameters_stay_out_of_the_schema() -> None:
    """DECL-4."""
    async with TestClient(Server(Push())) as client:
        tools = {t["name"]: t for t in await client.list_tools()}
        topics = await client.call_tool("topics")
    assert set(tools["announce"]["inputSchema"]["properties"]) == {"topic", "text"}
    assert tools["topics"]["inputSchema"].get("properties", {}) == {}
    assert topics["isError"] is False


async def test_bad_topic_is_invalid_params() -> None:
    async with TestClient(Server(Push())) as client:
        with pytest.raises(Exception) as caught:
            await client.call_tool("announce", {"topic": "bad topic!/x", "text": "x"})
    assert "topic" in str(caught.value)


def test_broadcaster_without_topic_is_refused_at_registration() -> None:
    @mcp_server(name="broken")
    class Broken:
        @tool(description="no topic argument")
        async def shout(self, channel: Broadcaster) -> str:
            return "x"

    with pytest.raises(RegistrationError, match="topic"):
        Server(Broken())


async def test_browser_client_is_served() -> None:
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=Server(Push()).asgi_app()),
                                 base_url="http://127.0.0.1") as http:
        response = await http.get("/mcp/mcpcast.js")
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/javascript")
    assert "WebSocket" in response.text
