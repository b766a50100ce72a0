"""A browser that stops reading is dropped, not buffered without bound (back-pressure)."""

from __future__ import annotations

import asyncio
import base64
import json
import os
import socket

import pytest
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed

from mcpcast.broadcast import BroadcasterFactory
from mcpcast.transports.subscribe import subscription_app

from ._asgi_server import serving

pytestmark = [pytest.mark.e2e, pytest.mark.slow]


async def _read_until_closed(ws) -> tuple[list[dict], ConnectionClosed]:
    frames = []
    while True:
        try:
            frames.append(json.loads(await asyncio.wait_for(ws.recv(), 10)))
        except ConnectionClosed as closed:
            return frames, closed


async def test_slow_websocket_reader_is_dropped_with_overflow() -> None:
    factory = BroadcasterFactory(queue_size=8, history_size=0)
    topic = factory.lookup("firehose")
    app = subscription_app(factory, heartbeat=None)
    # Random text: permessage-deflate must not shrink it (its window is only 32 KiB).
    chunk = base64.b64encode(os.urandom(48 * 1024)).decode()
    try:
        async with serving(app) as base:
            # A small receive buffer and max_queue=1: the client soon stops taking data.
            sock = socket.socket()
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 16 * 1024)
            sock.connect(("127.0.0.1", int(base.rsplit(":", 1)[1])))
            sock.setblocking(False)
            url = base.replace("http", "ws") + "/firehose"
            async with connect(url, sock=sock, max_queue=1) as ws:
                assert json.loads(await ws.recv())["type"] == "subscribed"
                for i in range(400):  # ~25 MiB: more than the socket buffers can hold
                    await topic.broadcast({"i": i, "pad": chunk})
                    if topic.subscriber_count == 0:
                        break
                    await asyncio.sleep(0)
                assert topic.subscriber_count == 0  # dropped, its queue freed
                frames, closed = await _read_until_closed(ws)
                assert frames[-1] == {"type": "close", "reason": "overflow"}
                assert closed.rcvd.code == 1013
                received = [f for f in frames if f["type"] == "message"]
                assert 0 < len(received) < 400
                assert [f["data"]["i"] for f in received] == list(range(len(received)))
    finally:
        await factory.close()
