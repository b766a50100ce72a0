"""Two server processes behind a round-robin proxy serve one 2026-07-28 client session.

The current era is stateless, so any process can answer any request; a multi-round-trip
request's ``requestState`` is HMAC-signed with ``ServerConfig.state_secret``, which the
processes share through ``MCPCAST_STATE_SECRET``. The proxy balances per TCP connection
and the client opens one connection per request (no keep-alive), which is what an HTTP
load balancer balancing per request does.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import os
import socket
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import httpx
import httpx2
import pytest
from mcp import Client, types
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import MCPError

pytestmark = [pytest.mark.e2e, pytest.mark.slow]

ROOT = Path(__file__).resolve().parents[2]
TARGET = "tests.mcpcast.fixtures_current:CurrentFixture"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


@contextlib.contextmanager
def server_process(secret: str | None) -> Iterator[tuple[subprocess.Popen[bytes], int]]:
    port = free_port()
    env = {k: v for k, v in os.environ.items() if k != "MCPCAST_STATE_SECRET"}
    if secret is not None:
        env["MCPCAST_STATE_SECRET"] = secret
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "mcpcast",
            "run",
            TARGET,
            "--port",
            str(port),
            "--log-level",
            "warning",
        ],
        cwd=ROOT,
        env=env,
    )
    try:
        deadline = time.monotonic() + 20
        with httpx.Client(timeout=1) as http:  # one client: httpx.get makes one a poll
            while True:
                assert proc.poll() is None, "the server process exited"
                assert time.monotonic() < deadline, "the server process did not start"
                try:
                    http.get(f"http://127.0.0.1:{port}/mcp")
                    break
                except httpx.TransportError:
                    time.sleep(0.1)
        yield proc, port
    finally:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


@contextlib.asynccontextmanager
async def round_robin(ports: list[int]) -> AsyncIterator[tuple[int, list[tuple[int, str]]]]:
    """A loopback TCP proxy sending each new connection to the next backend in turn.

    It records (backend port, "<Mcp-Method> <Mcp-Name>") per connection, read from the
    request head, so the test can tell which process served which request.
    """
    turn = itertools.cycle(ports)
    chosen: list[tuple[int, str]] = []

    async def pipe(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while data := await reader.read(65536):
                writer.write(data)
                await writer.drain()
        except (ConnectionError, asyncio.CancelledError):
            pass
        finally:
            writer.close()

    async def accept(client_r: asyncio.StreamReader, client_w: asyncio.StreamWriter) -> None:
        try:
            head = await client_r.readuntil(b"\r\n\r\n")
        except asyncio.IncompleteReadError:
            client_w.close()
            return
        port = next(turn)
        lines = head.decode("latin-1").lower().split("\r\n")
        fields = dict(line.split(": ", 1) for line in lines[1:] if ": " in line)
        chosen.append((port, f"{fields.get('mcp-method', '-')} {fields.get('mcp-name', '-')}"))
        backend_r, backend_w = await asyncio.open_connection("127.0.0.1", port)
        backend_w.write(head)
        await asyncio.gather(pipe(client_r, backend_w), pipe(backend_r, client_w))

    proxy = await asyncio.start_server(accept, "127.0.0.1", 0)
    try:
        yield proxy.sockets[0].getsockname()[1], chosen
    finally:
        proxy.close()


def client(port: int, **kwargs: Any) -> Client:
    http = httpx2.AsyncClient(
        limits=httpx2.Limits(max_keepalive_connections=0), timeout=httpx2.Timeout(30, read=60)
    )
    return Client(
        streamable_http_client(f"http://127.0.0.1:{port}/mcp", http_client=http),
        mode="2026-07-28",
        **kwargs,
    )


asked_by: list[str] = []


async def elicit(context: Any, params: types.ElicitRequestParams) -> types.ElicitResult:
    asked_by.append(params.message.removeprefix("asked by "))
    return types.ElicitResult(action="accept", content={"name": "Grace"})


SECRET = "s" * 16 + "hared-state-secret-for-two"


async def test_one_session_across_two_processes() -> None:
    """MCP-5: calls alternate between the processes, and a round trip whose retry lands
    on the other process completes (shared state_secret)."""
    with server_process(SECRET) as (one, port_one), server_process(SECRET) as (two, port_two):
        async with (
            round_robin([port_one, port_two]) as (port, chosen),
            client(port, elicitation_callback=elicit) as session,
        ):
            pids = [
                (await session.call_tool("pid", {})).structured_content["result"] for _ in range(4)
            ]
            asked_by.clear()
            handed = await session.call_tool("handoff", {})
    # The proxy alternated; each call's answer came from the process it was sent to.
    pid_of = {port_one: one.pid, port_two: two.pid}
    assert all(a[0] != b[0] for a, b in itertools.pairwise(chosen)), chosen
    calls = [pid_of[p] for p, what in chosen if what == "tools/call pid"]
    assert calls == pids and set(pids) == {one.pid, two.pid}
    handoffs = [pid_of[p] for p, what in chosen if what == "tools/call handoff"]
    assert len(handoffs) == 2 and handoffs[0] != handoffs[1]
    assert handed.structured_content is not None
    assert handed.structured_content["name"] == "Grace"
    (asker,) = asked_by
    assert [int(asker), handed.structured_content["answered_by"]] == handoffs


async def test_without_a_shared_secret_the_retry_is_refused() -> None:
    """Each process then signs with its own random secret: the other one rejects the state
    (a clear -32602 error, and nothing else is lost: plain calls still work)."""
    with server_process(None) as (_, port_one), server_process(None) as (_, port_two):
        async with (
            round_robin([port_one, port_two]) as (port, _),
            client(port, elicitation_callback=elicit) as session,
        ):
            with pytest.raises(MCPError) as caught:
                await session.call_tool("handoff", {})
            assert (await session.call_tool("add", {"a": 1})).structured_content == {"result": 1}
    assert caught.value.code == -32602
    assert "requestState" in str(caught.value)
