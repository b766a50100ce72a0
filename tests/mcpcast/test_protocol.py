"""The sans-IO legacy protocol through the in-memory TestClient."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from mcpcast import Server, ServerConfig
from mcpcast.testing import RemoteError, TestClient
from tests.mcpcast.fixtures import Fixture


@pytest.fixture
def server() -> Server:
    return Server(Fixture())


async def test_initialize_negotiates_and_advertises_true_capabilities(server: Server) -> None:
    """MCP-5: the handshake era answers with the client's version when supported."""
    async with TestClient(server, protocol_version="2025-06-18") as client:
        result = client.initialize_result
    assert result["protocolVersion"] == "2025-06-18"
    assert result["serverInfo"] == {"name": "fixture", "version": "1.2.3"}
    assert result["instructions"] == "Test server."
    caps = result["capabilities"]
    assert caps["tools"] == {"listChanged": True}
    assert caps["resources"] == {"subscribe": True, "listChanged": True}
    assert caps["prompts"] == {"listChanged": True}
    assert "completions" in caps and "logging" in caps


async def test_unknown_version_gets_latest(server: Server) -> None:
    async with TestClient(server, protocol_version="1999-01-01") as client:
        assert client.initialize_result["protocolVersion"] == "2025-11-25"


async def test_tools_list_schema_and_output_schema(server: Server) -> None:
    """DECL-1, DECL-2: decorated methods are published with their parameter schemas."""
    async with TestClient(server) as client:
        tools = {t["name"]: t for t in await client.list_tools()}
    assert set(tools) >= {"add", "echo", "split", "fail", "slow", "ask"}
    add = tools["add"]
    assert add["description"] == "Add two integers."
    assert add["inputSchema"]["required"] == ["a"]
    assert add["inputSchema"]["properties"]["a"]["description"] == "first"
    assert tools["echo"]["description"] == "Echo the text back."
    assert "outputSchema" not in tools["echo"]
    assert tools["split"]["outputSchema"]["type"] == "object"
    # DECL-4: injected parameters never appear in the schema.
    assert tools["slow"]["inputSchema"].get("properties", {}) == {}


async def test_call_tool_text_coerced_and_structured(server: Server) -> None:
    """DECL-3: a string result is one text block; typed results are structured."""
    async with TestClient(server) as client:
        echo = await client.call_tool("echo", {"text": "hi"})
        added = await client.call_tool("add", {"a": "2", "b": 3})
        split = await client.call_tool("split", {"km": 2, "sport": "ride"})
    assert echo == {"content": [{"type": "text", "text": "hi"}], "isError": False}
    assert added["structuredContent"] == {"result": 5}
    assert split["structuredContent"] == {"km": 2, "seconds": 240.0}
    assert split["isError"] is False


@pytest.mark.parametrize(("name", "arguments", "fragment"), [
    ("add", {}, "'a'"),
    ("add", {"a": "not a number"}, "'a'"),
    ("add", {"a": 1, "zzz": 2}, "'zzz'"),
    ("split", {"km": 1, "sport": "swim"}, "'sport'"),
    ("nope", {}, "nope"),
])
async def test_bad_arguments_are_invalid_params_naming_the_argument(
        server: Server, name: str, arguments: dict[str, Any], fragment: str) -> None:
    """MCP-3: -32602 for unknown tools, missing and wrong-typed arguments, named."""
    async with TestClient(server) as client:
        with pytest.raises(RemoteError) as caught:
            await client.call_tool(name, arguments)
    assert caught.value.code == -32602
    assert fragment in caught.value.message


async def test_arguments_not_an_object(server: Server) -> None:
    async with TestClient(server) as client:
        with pytest.raises(RemoteError) as caught:
            await client.request("tools/call", {"name": "add", "arguments": [1, 2]})
    assert caught.value.code == -32602


async def test_tool_exception_is_error_result_without_details(server: Server) -> None:
    """MCP-4: an exception inside a tool is isError with a short message, no traceback."""
    async with TestClient(server) as client:
        failed = await client.call_tool("fail")
        refused = await client.call_tool("refuse")
    assert failed["isError"] is True
    text = failed["content"][0]["text"]
    assert "secret" not in text and "Traceback" not in text and "passwd" not in text
    assert refused == {"content": [{"type": "text", "text": "that activity is private"}],
                       "isError": True}


async def test_an_expected_failure_is_named_and_logged_without_a_traceback(
        caplog: pytest.LogCaptureFixture) -> None:
    """ServerConfig.expected_failure: a failure the server names (a database out of
    reach) is the model's message and one warning line; one it does not name stays an
    internal error with its traceback in the log."""
    def expected(exc: Exception) -> str | None:
        return "the database is down; retry" if "passwd" in str(exc) else None

    server = Server(Fixture(), config=ServerConfig(expected_failure=expected))
    async with TestClient(server) as client:
        named = await client.call_tool("fail")
    assert named == {"content": [{"type": "text", "text": "the database is down; retry"}],
                     "isError": True}
    assert [r.levelname for r in caplog.records if r.name.startswith("mcpcast")] == ["WARNING"]
    assert not any(r.exc_info for r in caplog.records)

    caplog.clear()
    server = Server(Fixture(), config=ServerConfig(expected_failure=lambda exc: None))
    async with TestClient(server) as client:
        unnamed = await client.call_tool("fail")
    assert "internal error" in unnamed["content"][0]["text"]
    assert any(r.exc_info for r in caplog.records)


async def test_tool_timeout_becomes_error_result() -> None:
    server = Server(Fixture(), config=ServerConfig(tool_timeout=0.05))
    async with TestClient(server) as client:
        result = await client.call_tool("slow")
    assert result["isError"] is True
    assert "timed out" in result["content"][0]["text"]


async def test_progress_and_logging_reach_the_client(server: Server) -> None:
    async with TestClient(server) as client:
        task = asyncio.create_task(client.call_tool("slow", progress_token="tok-1"))
        await asyncio.wait_for(server.target.started.wait(), 5)
        methods = [n["method"] for n in client.notifications]
        task.cancel()
    assert methods == ["notifications/progress", "notifications/message"]
    progress = client.notifications[0]["params"]
    assert progress == {"progressToken": "tok-1", "progress": 1, "total": 3,
                        "message": "warming up"}


async def test_log_level_filters(server: Server) -> None:
    async with TestClient(server) as client:
        await client.request("logging/setLevel", {"level": "error"})
        task = asyncio.create_task(client.call_tool("slow"))
        await asyncio.wait_for(server.target.started.wait(), 5)
        task.cancel()
        assert client.notifications == []
        with pytest.raises(RemoteError) as caught:
            await client.request("logging/setLevel", {"level": "loud"})
    assert caught.value.code == -32602


async def test_cancellation_stops_a_running_tool(server: Server) -> None:
    async with TestClient(server) as client:
        task = asyncio.create_task(client.call_tool("slow"))
        await asyncio.wait_for(server.target.started.wait(), 5)
        assert client.session is not None
        (key,) = client.session.running
        await client.notify("notifications/cancelled", {"requestId": key[1], "reason": "bored"})
        with pytest.raises(RemoteError) as caught:
            await asyncio.wait_for(task, 5)
        assert caught.value.code == -32800
        assert client.session.running == {}


async def test_elicitation_and_sampling_round_trip(server: Server) -> None:
    async def elicit(params: dict[str, Any]) -> dict[str, Any]:
        assert params["message"] == "Your name?"
        return {"action": "accept", "content": {"name": "Ada"}}

    async def sample(params: dict[str, Any]) -> dict[str, Any]:
        assert params["maxTokens"] == 20
        return {"role": "assistant", "content": {"type": "text", "text": "Hello!"},
                "model": "m"}

    async with TestClient(server, elicitation=elicit, sampling=sample) as client:
        result = await client.call_tool("ask")
    assert result["content"][0]["text"] == "Ada: Hello!"
    assert [r["method"] for r in client.server_requests] == ["elicitation/create",
                                                             "sampling/createMessage"]


async def test_elicitation_needs_the_client_capability(server: Server) -> None:
    async with TestClient(server) as client:
        result = await client.call_tool("ask")
    assert result["isError"] is True
    assert "does not support elicitation" in result["content"][0]["text"]


async def test_resources_fixed_template_and_binary(server: Server) -> None:
    async with TestClient(server) as client:
        listed = await client.list_resources()
        templates = await client.request("resources/templates/list")
        text = await client.read_resource("fixture://readme")
        templated = await client.read_resource("activity://42")
        blob = await client.read_resource("fixture://blob")
        with pytest.raises(RemoteError) as caught:
            await client.read_resource("activity://")
    assert {r["uri"] for r in listed} == {"fixture://readme", "fixture://blob"}
    assert templates["resourceTemplates"][0]["uriTemplate"] == "activity://{id}"
    assert text["contents"] == [{"uri": "fixture://readme", "mimeType": "text/plain",
                                 "text": "read me"}]
    assert templated["contents"][0]["text"] == '{"id":"42"}'
    assert blob["contents"][0]["blob"] == "AAE="
    assert caught.value.code == -32602


async def test_prompts_system_message_and_arguments(server: Server) -> None:
    """DECL-3: prompts return messages built with Message.system()/Message.user()."""
    async with TestClient(server) as client:
        prompts = {p["name"]: p for p in await client.list_prompts()}
        got = await client.get_prompt("coach", {"goal": "marathon"})
        embedded = await client.get_prompt("with_resource")
        with pytest.raises(RemoteError) as missing:
            await client.get_prompt("coach", {})
    assert prompts["coach"]["arguments"][0] == {"name": "goal", "description": "the goal",
                                                "required": True}
    roles = [m["role"] for m in got["messages"]]
    assert set(roles) <= {"user", "assistant"}  # MCP has no system role on the wire
    assert "marathon" in got["messages"][1]["content"]["text"]
    assert embedded["messages"][0]["content"]["type"] == "resource"
    assert missing.value.code == -32602


async def test_completion_custom_and_enum(server: Server) -> None:
    async with TestClient(server) as client:
        custom = await client.request("completion/complete", {
            "ref": {"type": "ref/prompt", "name": "coach"},
            "argument": {"name": "goal", "value": "ma"}})
        enum = await client.request("completion/complete", {
            "ref": {"type": "ref/prompt", "name": "coach"},
            "argument": {"name": "sport", "value": "r"}})
        with pytest.raises(RemoteError):
            await client.request("completion/complete", {
                "ref": {"type": "ref/prompt", "name": "ghost"},
                "argument": {"name": "x", "value": ""}})
    assert custom["completion"]["values"] == ["marathon"]
    assert sorted(enum["completion"]["values"]) == ["ride", "run"]


async def test_pagination_with_cursors() -> None:
    server = Server(Fixture(), config=ServerConfig(page_size=2))
    async with TestClient(server) as client:
        first = await client.request("tools/list")
        everything = await client.list_tools()
        with pytest.raises(RemoteError) as caught:
            await client.request("tools/list", {"cursor": "!!not-a-cursor"})
    assert len(first["tools"]) == 2 and "nextCursor" in first
    assert len(everything) == len(server.registry.tools)
    assert caught.value.code == -32602


async def test_subscriptions_and_list_changed(server: Server) -> None:
    async with TestClient(server) as client:
        assert await client.request("resources/subscribe", {"uri": "fixture://readme"}) == {}
        server.notify_resource_updated("fixture://readme")
        server.notify_resource_updated("fixture://other")
        server.add_tool(lambda: "new", name="late", description="added later")
        stream = client.server_stream()
        assert await client.request("resources/unsubscribe", {"uri": "fixture://readme"}) == {}
        server.notify_resource_updated("fixture://readme")
        after = client.server_stream()
        names = [t["name"] for t in await client.list_tools()]
    assert [m["method"] for m in stream] == ["notifications/resources/updated",
                                             "notifications/tools/list_changed"]
    assert stream[0]["params"] == {"uri": "fixture://readme"}
    assert after == []
    assert "late" in names


async def test_ping_and_unknown_method(server: Server) -> None:
    """MCP-3: -32601 for an unknown method."""
    async with TestClient(server) as client:
        assert await client.request("ping") == {}
        with pytest.raises(RemoteError) as caught:
            await client.request("tools/explode")
    assert caught.value.code == -32601
