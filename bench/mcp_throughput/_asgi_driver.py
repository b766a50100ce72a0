"""A minimal in-process ASGI client: run an app's lifespan and post requests to it with no
sockets, so a profile shows the framework and not the network stack."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[MutableMapping[str, Any], Receive, Send], Awaitable[None]]


class Lifespan:
    """``async with Lifespan(app) as state``: startup on enter, shutdown on exit. Apps that
    do not speak lifespan (they raise on the scope) are simply run without it."""

    def __init__(self, app: ASGIApp) -> None:
        self._app = app
        self._inbox: asyncio.Queue[Message] = asyncio.Queue()
        self._started: asyncio.Future[bool] | None = None
        self._stopped = asyncio.Event()
        self._task: asyncio.Task[None] | None = None
        self.state: dict[str, Any] = {}

    async def __aenter__(self) -> dict[str, Any]:
        self._started = asyncio.get_running_loop().create_future()
        await self._inbox.put({"type": "lifespan.startup"})
        self._task = asyncio.create_task(self._run())
        await self._started  # False means the app has no lifespan, which is fine
        return self.state

    async def __aexit__(self, *exc: object) -> None:
        await self._inbox.put({"type": "lifespan.shutdown"})
        if self._task is not None:
            await asyncio.wait_for(self._task, timeout=10)

    async def _run(self) -> None:
        scope = {
            "type": "lifespan",
            "asgi": {"version": "3.0", "spec_version": "2.0"},
            "state": self.state,
        }
        try:
            await self._app(scope, self._inbox.get, self._send)
        except Exception:
            if self._started is not None and not self._started.done():
                self._started.set_result(False)  # no lifespan support: run without it
            return

    async def _send(self, message: Message) -> None:
        kind = message["type"]
        assert self._started is not None
        if kind == "lifespan.startup.complete":
            self._started.set_result(True)
        elif kind == "lifespan.startup.failed":
            self._started.set_exception(RuntimeError(message.get("message", "startup failed")))
        elif kind.startswith("lifespan.shutdown"):
            self._stopped.set()


async def post(
    app: ASGIApp, path: str, body: bytes, headers: dict[str, str], state: dict[str, Any]
) -> tuple[int, str, bytes]:
    """POST ``body`` to ``path``; returns (status, content-type, body)."""
    raw_headers = [(k.lower().encode(), v.encode()) for k, v in headers.items()]
    raw_headers += [(b"host", b"127.0.0.1:8000"), (b"content-length", str(len(body)).encode())]
    scope: dict[str, Any] = {
        "type": "http",
        "asgi": {"version": "3.0", "spec_version": "2.3"},
        "http_version": "1.1",
        "method": "POST",
        "scheme": "http",
        "path": path,
        "raw_path": path.encode(),
        "query_string": b"",
        "root_path": "",
        "headers": raw_headers,
        "client": ("127.0.0.1", 50000),
        "server": ("127.0.0.1", 8000),
        "state": dict(state),
    }
    body_sent = False
    finished = asyncio.Event()
    status = 0
    content_type = ""
    chunks: list[bytes] = []

    async def receive() -> Message:
        nonlocal body_sent
        if not body_sent:
            body_sent = True
            return {"type": "http.request", "body": body, "more_body": False}
        await finished.wait()  # the client "disconnects" only once the response is complete
        return {"type": "http.disconnect"}

    async def send(message: Message) -> None:
        nonlocal status, content_type
        if message["type"] == "http.response.start":
            status = message["status"]
            for name, value in message.get("headers", []):
                if name.lower() == b"content-type":
                    content_type = value.decode()
        elif message["type"] == "http.response.body":
            chunks.append(message.get("body", b""))
            if not message.get("more_body", False):
                finished.set()

    await app(scope, receive, send)
    finished.set()
    return status, content_type, b"".join(chunks)
