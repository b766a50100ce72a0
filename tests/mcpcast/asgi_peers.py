"""In-process clients for the long-lived transports: raw ASGI messages on one event loop."""

from __future__ import annotations

import asyncio
from typing import Any

import orjson
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from mcpcast import Unauthorized
from mcpcast._auth import RequestInfo

CAPS = {"elicitation": {}, "sampling": {}}


def init(version: str = "2025-11-25", rid: int = 1) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": rid, "method": "initialize",
            "params": {"protocolVersion": version, "capabilities": CAPS,
                       "clientInfo": {"name": "t", "version": "1"}}}


def call(rid: int, name: str, args: dict[str, Any] | None = None, **meta: Any) -> dict[str, Any]:
    params: dict[str, Any] = {"name": name, "arguments": args or {}}
    if meta:
        params["_meta"] = meta
    return {"jsonrpc": "2.0", "id": rid, "method": "tools/call", "params": params}


class Socket:
    """A WebSocket client made of ASGI messages; setting ``stalled`` makes the app's sends hang."""

    def __init__(self, app: Any, *, headers: list[tuple[bytes, bytes]] | None = None,
                 subprotocols: tuple[str, ...] = ("mcp",), http_response: bool = True) -> None:
        self.app = app
        self.incoming: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
        self.outgoing: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
        self.stalled = asyncio.Event()
        self.scope = {
            "type": "websocket", "path": "/mcp", "root_path": "", "query_string": b"",
            "headers": headers if headers is not None else [(b"host", b"127.0.0.1:8000")],
            "subprotocols": list(subprotocols), "client": ("127.0.0.1", 5000),
            "extensions": {"websocket.http.response": {}} if http_response else {},
        }
        self.task: asyncio.Task[None] | None = None

    async def _send(self, message: dict[str, Any]) -> None:
        if self.stalled.is_set():
            await asyncio.Event().wait()  # a peer that never reads
        await self.outgoing.put(message)

    def start(self) -> Socket:
        self.incoming.put_nowait({"type": "websocket.connect"})
        self.task = asyncio.ensure_future(self.app(self.scope, self.incoming.get, self._send))
        return self

    async def next(self, within: float = 5) -> dict[str, Any]:
        return await asyncio.wait_for(self.outgoing.get(), within)

    async def accept(self) -> dict[str, Any]:
        message = await self.next()
        assert message["type"] == "websocket.accept", message
        return message

    def send(self, value: Any) -> None:
        text = value if isinstance(value, str) else orjson.dumps(value).decode()
        self.incoming.put_nowait({"type": "websocket.receive", "text": text})

    async def recv(self, within: float = 5) -> Any:
        message = await self.next(within)
        assert message["type"] == "websocket.send", message
        return orjson.loads(message["text"])

    async def recv_until(self, pred: Any, within: float = 5) -> Any:
        while True:
            frame = await self.recv(within)
            if pred(frame):
                return frame

    async def closed(self, within: float = 5) -> dict[str, Any]:
        while True:
            message = await self.next(within)
            if message["type"] == "websocket.close":
                return message

    async def handshake(self, version: str = "2025-11-25") -> dict[str, Any]:
        self.start()
        await self.accept()
        self.send(init(version))
        answer = await self.recv()
        self.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        return answer

    async def hang_up(self) -> None:
        self.incoming.put_nowait({"type": "websocket.disconnect", "code": 1000})
        assert self.task is not None
        await asyncio.wait_for(self.task, 5)


class Stream:
    """A GET on the SSE transport, read event by event; setting ``stalled`` stops reading."""

    def __init__(self, app: Any, headers: list[tuple[bytes, bytes]] | None = None) -> None:
        self.app = app
        self.incoming: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
        self.chunks: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
        self.stalled = asyncio.Event()
        self.buffer = b""
        self.scope = {"type": "http", "method": "GET", "path": "/mcp", "root_path": "",
                      "query_string": b"", "client": ("127.0.0.1", 5000),
                      "headers": headers if headers is not None else [
                          (b"host", b"127.0.0.1:8000"), (b"accept", b"text/event-stream")]}
        self.task = asyncio.ensure_future(self.app(self.scope, self.incoming.get, self._send))

    async def _send(self, message: dict[str, Any]) -> None:
        if self.stalled.is_set():
            await asyncio.Event().wait()
        await self.chunks.put(message)

    async def start(self) -> dict[str, Any]:
        return await asyncio.wait_for(self.chunks.get(), 5)

    async def event(self, within: float = 5) -> tuple[str, str]:
        """The next event as (event name, data); comment lines come back as ("comment", text)."""
        while b"\n\n" not in self.buffer:
            message = await asyncio.wait_for(self.chunks.get(), within)
            if not message.get("more_body", False) and not message.get("body"):
                return ("end", "")
            self.buffer += message.get("body", b"")
        block, self.buffer = self.buffer.split(b"\n\n", 1)
        text = block.decode()
        if text.startswith(":"):
            return ("comment", text[1:].strip())
        fields = dict(line.split(": ", 1) for line in text.splitlines())
        return (fields.get("event", "message"), fields.get("data", ""))

    async def message(self, within: float = 5) -> Any:
        while True:
            kind, data = await self.event(within)
            if kind == "message":
                return orjson.loads(data)
            assert kind == "comment", (kind, data)

    async def endpoint(self) -> str:
        start = await self.start()
        assert start["status"] == 200
        assert (b"content-type", b"text/event-stream") in start["headers"]
        kind, data = await self.event()
        assert kind == "endpoint"
        return data

    async def hang_up(self) -> None:
        await self.incoming.put({"type": "http.disconnect"})
        await asyncio.wait_for(self.task, 5)


async def check_token(request: RequestInfo) -> str | None:
    auth = request.headers.get("authorization")
    if auth is None:
        return None
    if auth != "Bearer good":
        raise Unauthorized("invalid token", www_authenticate='Bearer resource_metadata="x"')
    return "alice"




def traced() -> tuple[TracerProvider, InMemorySpanExporter]:
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    return provider, exporter
