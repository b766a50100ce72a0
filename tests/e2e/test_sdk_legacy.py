"""The official MCP Python SDK client (legacy handshake era) against mcpcast over real sockets."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from mcp import Client, types

from mcpcast import Server, ServerConfig
from tests._serve import serve
from tests.mcpcast.fixtures import Fixture

pytestmark = pytest.mark.e2e


@pytest.fixture(scope="module")
def url() -> Iterator[str]:
    with serve(Server(Fixture(), config=ServerConfig(tool_timeout=2)).asgi_app()) as base:
        yield base + "/mcp"


@pytest.fixture(scope="module")
def stateless_url() -> Iterator[str]:
    with serve(Server(Fixture(), config=ServerConfig(stateless=True)).asgi_app()) as base:
        yield base + "/mcp"


async def test_initialize_list_and_call(url: str) -> None:
    """MCP-1, MCP-2, MCP-5: a real client speaks the handshake era over Streamable HTTP."""
    async with Client(url, mode="legacy") as client:
        assert client.protocol_version == "2025-11-25"
        assert client.server_info is not None and client.server_info.name == "fixture"
        tools = {t.name: t for t in (await client.list_tools()).tools}
        assert tools["add"].input_schema["required"] == ["a"]
        added = await client.call_tool("add", {"a": 20, "b": 22})
        assert added.structured_content == {"result": 42}
        split = await client.call_tool("split", {"km": 3})
        assert split.structured_content == {"km": 3, "seconds": 900.0}
        text = await client.call_tool("echo", {"text": "over the wire"})
        assert isinstance(text.content[0], types.TextContent)
        assert text.content[0].text == "over the wire"


async def test_errors_over_the_wire(url: str) -> None:
    """MCP-3, MCP-4: invalid params are JSON-RPC errors; tool failures are isError results."""
    async with Client(url, mode="legacy") as client:
        failed = await client.call_tool("fail", {})
        assert failed.is_error
        assert "secret" not in str(failed.content)
        with pytest.raises(Exception) as caught:
            await client.call_tool("add", {"a": "many"})
        assert "'a'" in str(caught.value)
        with pytest.raises(Exception) as unknown:
            await client.call_tool("no_such_tool", {})
        assert "no_such_tool" in str(unknown.value)


async def test_progress_logging_and_timeout(url: str) -> None:
    progress: list[tuple[float, float | None, str | None]] = []
    logs: list[Any] = []

    async def on_progress(value: float, total: float | None, message: str | None) -> None:
        progress.append((value, total, message))

    async def on_log(params: types.LoggingMessageNotificationParams) -> None:
        logs.append(params.data)

    async with Client(url, mode="legacy", logging_callback=on_log) as client:
        result = await client.call_tool("slow", {}, progress_callback=on_progress)
    # The server's tool timeout (2 s) ends the call as an error result.
    assert result.is_error and "timed out" in str(result.content[0])
    assert progress == [(1, 3, "warming up")]
    assert logs == ["started"]


async def test_elicitation_and_sampling(url: str) -> None:
    async def elicit(context: Any, params: types.ElicitRequestParams) -> types.ElicitResult:
        return types.ElicitResult(action="accept", content={"name": "Grace"})

    async def sample(
        context: Any, params: types.CreateMessageRequestParams
    ) -> types.CreateMessageResult:
        return types.CreateMessageResult(
            role="assistant", model="test", content=types.TextContent(type="text", text="Hi!")
        )

    async with Client(
        url, mode="legacy", elicitation_callback=elicit, sampling_callback=sample
    ) as client:
        result = await client.call_tool("ask", {})
    assert not result.is_error
    assert result.content[0].text == "Grace: Hi!"  # type: ignore[union-attr]


async def test_resources_and_prompts(url: str) -> None:
    async with Client(url, mode="legacy") as client:
        resources = await client.list_resources()
        assert {str(r.uri) for r in resources.resources} == {"fixture://readme", "fixture://blob"}
        read = await client.read_resource("activity://7")
        assert '"7"' in read.contents[0].text  # type: ignore[union-attr]
        prompt = await client.get_prompt("coach", {"goal": "sub-3"})
        assert "sub-3" in str(prompt.messages[-1].content)
        await client.subscribe_resource("fixture://readme")
        await client.set_logging_level("debug")
        await client.send_ping()


async def test_session_ids_and_termination(url: str) -> None:
    async with Client(url, mode="legacy") as client:
        await client.send_ping()
    # After the client closed (DELETE), an unknown session id is 404.
    async with httpx.AsyncClient() as http:
        response = await http.post(
            url,
            headers={"accept": "application/json, text/event-stream", "mcp-session-id": "0" * 32},
            json={"jsonrpc": "2.0", "id": 1, "method": "ping"},
        )
    assert response.status_code == 404


async def test_stateless_mode(stateless_url: str) -> None:
    async with Client(stateless_url, mode="legacy") as client:
        result = await client.call_tool("add", {"a": 1, "b": 2})
        assert result.structured_content == {"result": 3}


async def test_list_changed_reaches_the_get_stream(url: str) -> None:
    changed = asyncio.Event()

    async def on_message(message: Any) -> None:
        if isinstance(message, types.ToolListChangedNotification):
            changed.set()

    server = Server(Fixture())
    with serve(server.asgi_app()) as base:
        async with Client(base + "/mcp", mode="legacy", message_handler=on_message) as client:
            await client.send_ping()
            for _ in range(50):  # the client opens its GET stream in the background
                if any(s.get_open for s in server.sessions.all()):
                    break
                await asyncio.sleep(0.05)
            server.add_tool(lambda: "x", name="late", description="late tool")
            await asyncio.wait_for(changed.wait(), 5)
            names = [t.name for t in (await client.list_tools()).tools]
    assert "late" in names
