"""Memory per idle browser subscriber, measured on a real uvicorn process.

Budget from the brief: 10,000 idle subscribers must fit in < 30 KiB each, broadcast layer
and transport included. The server runs in its own process; its RSS grows by what the
connections cost. Set MCPCAST_MEMORY_SUBSCRIBERS=10000 to measure the full budget.
"""

from __future__ import annotations

import asyncio
import base64
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests._services import _wait_port, free_port

pytestmark = [pytest.mark.e2e, pytest.mark.slow]

ROOT = Path(__file__).resolve().parents[2]
N = int(os.environ.get("MCPCAST_MEMORY_SUBSCRIBERS", "2000"))

SERVER = """
import sys, uvicorn
from mcpcast.broadcast import BroadcasterFactory
from mcpcast.transports.subscribe import subscription_app
app = subscription_app(BroadcasterFactory(), heartbeat=15.0, max_connections=20000)
uvicorn.run(app, host="127.0.0.1", port=int(sys.argv[1]), log_level="warning",
            ws=sys.argv[2], backlog=4096)
"""


def _rss_kib(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise AssertionError("no VmRSS")


async def _open_sse(port: int, topic: str) -> asyncio.StreamWriter:
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(
        f"GET /{topic} HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\n\r\n".encode()
    )
    await reader.readuntil(b"event: subscribed")
    writer.reader = reader  # type: ignore[attr-defined]  # keep the reader alive
    return writer


async def _open_ws(port: int, topic: str) -> asyncio.StreamWriter:
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    key = base64.b64encode(os.urandom(16)).decode()
    writer.write(
        f"GET /{topic} HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\n"
        f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\n"
        "Sec-WebSocket-Version: 13\r\n\r\n".encode()
    )
    await reader.readuntil(b"\r\n\r\n")
    await reader.readuntil(b'"subscribed"')
    writer.reader = reader  # type: ignore[attr-defined]
    return writer


async def _measure(kind: str, ws_impl: str) -> float:
    port = free_port()
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-c", SERVER, str(port), ws_impl,
        cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    opener = _open_ws if kind == "websocket" else _open_sse
    writers: list[asyncio.StreamWriter] = []
    try:
        await asyncio.to_thread(_wait_port, port)
        writers += [await opener(port, f"warm-{i % 10}") for i in range(200)]  # warm caches
        await asyncio.sleep(0.5)
        before = _rss_kib(proc.pid)
        for start in range(0, N, 250):  # in batches: the accept backlog is finite
            writers += await asyncio.gather(
                *(opener(port, f"topic-{i % 100}") for i in range(start, min(N, start + 250)))
            )
        await asyncio.sleep(0.5)
        per_subscriber = (_rss_kib(proc.pid) - before) / N
        print(f"\n{kind} ({ws_impl}): {per_subscriber:.1f} KiB per idle subscriber, N={N}")
        return per_subscriber
    finally:
        for writer in writers:
            writer.close()
        # Let the loop really close the sockets: uvicorn waits for open streams at exit.
        await asyncio.gather(*(w.wait_closed() for w in writers), return_exceptions=True)
        proc.terminate()
        await asyncio.wait_for(proc.wait(), 10)


async def test_idle_websocket_subscriber_costs_under_30_kib() -> None:
    assert await _measure("websocket", os.environ.get("MCPCAST_WS_IMPL", "websockets-sansio")) < 30


async def test_idle_sse_subscriber_costs_under_30_kib() -> None:
    assert await _measure("sse", "websockets-sansio") < 30
