"""Subscriber processes: thousands of cheap WebSocket and SSE subscribers per process.

Hand-written asyncio protocols (a WebSocket handshake and frame reader, an SSE reader with
chunked decoding) keep the client side's cost per connection and per message small, so
the server is what gets measured. Every message frame ``{"data": {"run": r}}`` records the
``time.monotonic()`` of its arrival (CLOCK_MONOTONIC: comparable across processes).

A process is driven over a ``multiprocessing`` pipe: ``("open", plan)``,
``("wait", run, expected, timeout)`` and ``("close",)``.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import os
import time
from collections.abc import Callable
from multiprocessing.connection import Connection
from typing import Any, cast

import orjson

from .servers import pin, raise_nofile

OnText = Callable[[bytes, float], None]


class _Subscriber(asyncio.Protocol):
    def __init__(self, on_text: OnText) -> None:
        self.on_text = on_text
        self.ready: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self.transport: asyncio.Transport | None = None
        self.buffer = bytearray()
        self.head_done = False

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = cast(asyncio.Transport, transport)  # uvloop's is not a subclass

    def connection_lost(self, exc: Exception | None) -> None:
        if not self.ready.done():
            self.ready.set_exception(ConnectionError("closed before subscribing"))

    def text(self, payload: bytes, now: float) -> None:
        if not self.ready.done():
            self.ready.set_result(None)  # the first frame: "subscribed"
        else:
            self.on_text(payload, now)

    def head(self, expected: bytes) -> bool:
        end = self.buffer.find(b"\r\n\r\n")
        if end < 0:
            return False
        head = bytes(self.buffer[:end]).lower()
        del self.buffer[: end + 4]
        if not head.startswith(expected):
            if not self.ready.done():
                self.ready.set_exception(ConnectionError(head.split(b"\r\n")[0].decode()))
            assert self.transport is not None
            self.transport.close()
            return False
        self.head_done = True
        self.on_head(head)
        return True

    def on_head(self, head: bytes) -> None:
        pass


class WebSocketSubscriber(_Subscriber):
    def __init__(self, port: int, path: str, on_text: OnText) -> None:
        super().__init__(on_text)
        self.request = (
            f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nUpgrade: websocket\r\n"
            "Connection: Upgrade\r\nSec-WebSocket-Version: 13\r\n"
            f"Sec-WebSocket-Key: {base64.b64encode(os.urandom(16)).decode()}\r\n\r\n"
        ).encode()

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        super().connection_made(transport)
        assert self.transport is not None
        self.transport.write(self.request)

    def data_received(self, data: bytes) -> None:
        now = time.monotonic()
        self.buffer += data
        if not self.head_done and not self.head(b"http/1.1 101"):
            return
        buf = self.buffer
        while len(buf) >= 2:
            opcode, length, start = buf[0] & 0x0F, buf[1] & 0x7F, 2
            if length == 126:
                if len(buf) < 4:
                    return
                length, start = int.from_bytes(buf[2:4], "big"), 4
            elif length == 127:
                if len(buf) < 10:
                    return
                length, start = int.from_bytes(buf[2:10], "big"), 10
            if len(buf) < start + length:
                return
            payload = bytes(buf[start : start + length])
            del buf[: start + length]
            if opcode == 0x1:
                self.text(payload, now)
            elif opcode == 0x9:  # ping: answer, or the server drops us as dead
                self.send(0xA, payload)
            elif opcode == 0x8:
                assert self.transport is not None
                self.transport.close()

    def send(self, opcode: int, payload: bytes) -> None:
        mask = os.urandom(4)  # client frames are masked (RFC 6455)
        masked = bytes(b ^ mask[i % 4] for i, b in enumerate(payload))
        assert self.transport is not None
        assert len(payload) < 126  # pings carry little
        self.transport.write(bytes([0x80 | opcode, 0x80 | len(payload)]) + mask + masked)


class SseSubscriber(_Subscriber):
    def __init__(self, port: int, path: str, on_text: OnText) -> None:
        super().__init__(on_text)
        self.request = (
            f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n"
            "Accept: text/event-stream\r\n\r\n"
        ).encode()
        self.chunked = False
        self.body = bytearray()

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        super().connection_made(transport)
        assert self.transport is not None
        self.transport.write(self.request)

    def on_head(self, head: bytes) -> None:
        self.chunked = b"transfer-encoding: chunked" in head

    def data_received(self, data: bytes) -> None:
        now = time.monotonic()
        self.buffer += data
        if not self.head_done and not self.head(b"http/1.1 200"):
            return
        if self.chunked:
            buf = self.buffer
            while True:
                eol = buf.find(b"\r\n")
                if eol < 0:
                    break
                size = int(bytes(buf[:eol]).split(b";")[0], 16)
                if len(buf) < eol + 2 + size + 2:
                    break
                self.body += buf[eol + 2 : eol + 2 + size]
                del buf[: eol + 2 + size + 2]
        else:
            self.body += self.buffer
            self.buffer.clear()
        while (end := self.body.find(b"\n\n")) >= 0:
            event = bytes(self.body[:end])
            del self.body[: end + 2]
            for line in event.split(b"\n"):
                if line.startswith(b"data:"):
                    self.text(line[5:].strip(), now)


class Recorder:
    """Per run: how many subscribers got it, and when the last of them did."""

    def __init__(self) -> None:
        self.runs: dict[int, list[float]] = {}
        self.waiting: dict[int, tuple[int, asyncio.Future[None]]] = {}

    def __call__(self, payload: bytes, now: float) -> None:
        if b'"run"' not in payload:
            return  # heartbeats and other frames
        message: Any = orjson.loads(payload)
        run = message["data"]["run"]
        entry = self.runs.setdefault(run, [0, 0.0])
        entry[0] += 1
        entry[1] = max(entry[1], now)
        waiter = self.waiting.get(run)
        if waiter is not None and entry[0] >= waiter[0] and not waiter[1].done():
            waiter[1].set_result(None)

    async def wait(self, run: int, expected: int, seconds: float) -> tuple[int, float]:
        """Until ``expected`` subscribers got ``run`` (or ``seconds`` pass): (count, last)."""
        if self.runs.get(run, [0])[0] < expected:
            done = asyncio.get_running_loop().create_future()
            self.waiting[run] = (expected, done)
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(done, seconds)
            del self.waiting[run]
        count, last = self.runs.get(run, [0, 0.0])
        return int(count), last


async def _open(plan: list[tuple[str, int, str, int]], recorder: Recorder,
                subscribers: list[_Subscriber]) -> tuple[int, list[str]]:
    """Open ``count`` subscribers per (kind, port, path, count); at most 100 at once."""
    loop = asyncio.get_running_loop()
    gate = asyncio.Semaphore(100)
    errors: list[str] = []

    async def one(kind: str, port: int, path: str) -> bool:
        async with gate:
            cls = WebSocketSubscriber if kind == "ws" else SseSubscriber
            try:
                _, proto = await loop.create_connection(
                    lambda: cls(port, path, recorder), "127.0.0.1", port)
                await asyncio.wait_for(proto.ready, 30)
            except (OSError, TimeoutError, AssertionError) as exc:
                errors.append(f"{kind}: {exc or type(exc).__name__}")
                return False
            subscribers.append(proto)
            return True

    jobs = [one(kind, port, path) for kind, port, path, count in plan for _ in range(count)]
    opened = sum(await asyncio.gather(*jobs))
    return opened, errors[:3]


async def _serve(conn: Connection) -> None:
    loop = asyncio.get_running_loop()
    recorder = Recorder()
    subscribers: list[_Subscriber] = []
    while True:
        command = await loop.run_in_executor(None, conn.recv)
        if command[0] == "open":
            conn.send(await _open(command[1], recorder, subscribers))
        elif command[0] == "wait":
            conn.send(await recorder.wait(*command[1:]))
        elif command[0] == "close":
            for sub in subscribers:
                if sub.transport is not None:
                    sub.transport.abort()
            conn.send("closed")
            return


def client_process(conn: Connection, cpu: int | None) -> None:
    """Entry point of a subscriber process (multiprocessing, spawn)."""
    raise_nofile()
    pin(cpu)
    try:
        import uvloop

        uvloop.run(_serve(conn))
    except ImportError:
        asyncio.run(_serve(conn))
