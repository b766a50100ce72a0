"""Two ``mcpcast run`` processes on one Redis: a tool call on A reaches browsers on B.

Each process is started the way an operator would (``python -m mcpcast run ...
--broadcast-url redis://...``). Subscribers speak the browser protocol (SSE with httpx,
WebSocket with ``websockets``); the tool is called with the official MCP SDK client.
"""

from __future__ import annotations

import asyncio
import contextlib
import signal
import subprocess
import sys
import time
import uuid
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import httpx
import orjson
import pytest
from mcp import Client
from websockets.asyncio.client import ClientConnection, connect

from tests._services import free_port

from ._broadcast_app import running

pytestmark = [pytest.mark.e2e, pytest.mark.slow]

ROOT = Path(__file__).resolve().parents[2]  # cwd of the subprocess.run calls
TARGET = "tests.e2e._broadcast_app:Announcer"


@contextlib.contextmanager
def mcpcast_run(*extra: str, env: dict[str, str] | None = None,
                ) -> Iterator[tuple[subprocess.Popen[bytes], int]]:
    """``python -m mcpcast run TARGET --port P *extra``; yields once it answers."""
    port = free_port()
    with running([sys.executable, "-m", "mcpcast", "run", TARGET, "--port", str(port),
                  "--log-level", "warning", *extra], port, env) as proc:
        yield proc, port


def new_topic() -> str:
    return f"runs-{uuid.uuid4().hex[:12]}"  # the Redis server is shared by the session


async def announce(port: int, topic: str, *texts: str) -> list[int]:
    async with Client(f"http://127.0.0.1:{port}/mcp") as client:
        result = await client.call_tool("announce", {"topic": topic, "texts": list(texts)})
    assert not result.is_error, result
    seqs: list[int] = result.structured_content["result"]
    return seqs


class SseReader:
    """The browser's SSE view of a topic: (event, id, data) per event."""

    def __init__(self, response: httpx.Response) -> None:
        self.lines = response.aiter_lines()

    async def event(self) -> tuple[str, str | None, dict[str, Any]]:
        event, event_id, data = "message", None, list[str]()
        async for line in self.lines:
            if line == "":
                if data:
                    return event, event_id, orjson.loads("\n".join(data))
                event, event_id = "message", None
            elif line.startswith("event:"):
                event = line[6:].strip()
            elif line.startswith("id:"):
                event_id = line[3:].strip()
            elif line.startswith("data:"):
                data.append(line[5:].strip())
        raise EOFError("the SSE stream ended")


@contextlib.asynccontextmanager
async def sse(port: int, topic: str, headers: dict[str, str] | None = None,
              ) -> AsyncIterator[SseReader]:
    async with httpx.AsyncClient(timeout=httpx.Timeout(10, read=None)) as http:
        url = f"http://127.0.0.1:{port}/mcp/topics/{topic}"
        async with http.stream("GET", url, headers={"accept": "text/event-stream",
                                                     **(headers or {})}) as response:
            assert response.status_code == 200
            yield SseReader(response)


async def ws_frame(ws: ClientConnection) -> dict[str, Any]:
    frame: dict[str, Any] = orjson.loads(await asyncio.wait_for(ws.recv(), 10))
    return frame


async def test_a_tool_call_on_one_process_reaches_subscribers_of_another(redis_url: str) -> None:
    """DECL-6: a tool's broadcast in process A reaches WebSocket and SSE subscribers of
    process B, in order; sequence numbers are per topic across both processes."""
    topic = new_topic()
    url = ["--broadcast-url", redis_url]
    with mcpcast_run(*url) as (proc_a, port_a), mcpcast_run(*url) as (proc_b, port_b):
        async with sse(port_b, topic) as stream, connect(
            f"ws://127.0.0.1:{port_b}/mcp/topics/{topic}", subprotocols=["mcpcast"]  # type: ignore[list-item]
        ) as ws:
            event, _, hello = await asyncio.wait_for(stream.event(), 10)
            assert (event, hello["type"], hello["seq"]) == ("subscribed", "subscribed", 0)
            assert (await ws_frame(ws))["type"] == "subscribed"
            assert ws.subprotocol == "mcpcast"

            # Calls alternate between the processes: one counter, no gaps, no repeats.
            assert await announce(port_a, topic, "one", "two", "three") == [1, 2, 3]
            assert await announce(port_b, topic, "four") == [4]
            assert await announce(port_a, topic, "five") == [5]

            expected = [(1, "one", proc_a.pid), (2, "two", proc_a.pid),
                        (3, "three", proc_a.pid), (4, "four", proc_b.pid),
                        (5, "five", proc_a.pid)]
            over_sse = [await asyncio.wait_for(stream.event(), 10) for _ in expected]
            over_ws = [await ws_frame(ws) for _ in expected]
    assert [(f["seq"], f["data"]["text"], f["data"]["pid"]) for _, _, f in over_sse] == expected
    assert [(f["seq"], f["data"]["text"], f["data"]["pid"]) for f in over_ws] == expected
    assert [(event, event_id) for event, event_id, _ in over_sse] == [
        ("message", str(seq)) for seq, _, _ in expected]  # SSE ids are the seqs
    assert [f for _, _, f in over_sse] == over_ws  # both transports carry the same frames


async def test_resume_on_another_process_replays_the_shared_history(redis_url: str) -> None:
    """DECL-6, MCP-6: a browser that saw seq 2 on process A and reconnects to process B
    (Last-Event-ID or ?after=) gets exactly what it missed, from the Redis history."""
    topic = new_topic()
    url = ["--broadcast-url", redis_url]
    with mcpcast_run(*url) as (_, port_a), mcpcast_run(*url) as (_, port_b):
        assert await announce(port_a, topic, "a", "b", "c", "d") == [1, 2, 3, 4]
        async with sse(port_b, topic, {"last-event-id": "2"}) as stream:
            _, _, hello = await asyncio.wait_for(stream.event(), 10)
            assert (hello["type"], hello["seq"]) == ("subscribed", 2)
            replayed = [await asyncio.wait_for(stream.event(), 10) for _ in range(2)]
            assert await announce(port_a, topic, "e") == [5]
            live = await asyncio.wait_for(stream.event(), 10)
        async with connect(f"ws://127.0.0.1:{port_b}/mcp/topics/{topic}?after=3") as ws:
            assert (await ws_frame(ws))["seq"] == 3
            ws_replayed = [await ws_frame(ws) for _ in range(2)]
    assert [(f["seq"], f["data"]["text"]) for _, _, f in [*replayed, live]] == [
        (3, "c"), (4, "d"), (5, "e")]
    assert [(f["seq"], f["data"]["text"]) for f in ws_replayed] == [(4, "d"), (5, "e")]


async def test_stopping_a_process_ends_its_subscriptions_with_a_reason(redis_url: str) -> None:
    """MCP-6: SIGTERM ends open topic streams with reason "shutdown" (so clients
    reconnect elsewhere at once) and the process exits instead of waiting for them."""
    topic = new_topic()
    with mcpcast_run("--broadcast-url", redis_url) as (proc, port):
        async with sse(port, topic) as stream, connect(
            f"ws://127.0.0.1:{port}/mcp/topics/{topic}"
        ) as ws:
            await asyncio.wait_for(stream.event(), 10)
            await ws_frame(ws)
            started = time.monotonic()
            proc.terminate()
            event, _, frame = await asyncio.wait_for(stream.event(), 10)
            assert (event, frame) == ("close", {"type": "close", "reason": "shutdown"})
            assert await ws_frame(ws) == {"type": "close", "reason": "shutdown"}
            await asyncio.wait_for(ws.wait_closed(), 10)
            assert ws.close_code in (1001, 1012)  # going away / service restart
        await asyncio.to_thread(proc.wait, 15)
        assert time.monotonic() - started < 15
        # uvicorn re-raises the captured SIGTERM once it has shut down gracefully.
        assert proc.returncode in (0, -signal.SIGTERM)


def test_a_bad_broadcast_url_is_a_clear_usage_error() -> None:
    """Bad input gets a clear error: the process refuses to start, without a traceback."""
    result = subprocess.run(
        [sys.executable, "-m", "mcpcast", "run", TARGET, "--broadcast-url", "ftp://nope"],
        cwd=ROOT, capture_output=True, text=True, timeout=60, check=False,
    )
    assert result.returncode == 2
    assert "--broadcast-url" in result.stderr and "redis:" in result.stderr
    assert "Traceback" not in result.stderr


async def test_the_environment_variable_sets_the_backend(redis_url: str) -> None:
    """MCPCAST_BROADCAST_URL works like --broadcast-url: a process configured by the
    environment and one configured by the option share the topic."""
    topic = new_topic()
    with mcpcast_run(env={"MCPCAST_BROADCAST_URL": redis_url}) as (_, port_env), \
            mcpcast_run("--broadcast-url", redis_url) as (_, port_opt):
        async with sse(port_opt, topic) as stream:
            await asyncio.wait_for(stream.event(), 10)
            assert await announce(port_env, topic, "via env") == [1]
            _, _, frame = await asyncio.wait_for(stream.event(), 10)
    assert (frame["seq"], frame["data"]["text"]) == (1, "via env")
